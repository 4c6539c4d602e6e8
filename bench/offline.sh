#!/usr/bin/env bash
# Throughput of the offline judge: the default offline suite (faithfulness
# and the three string metrics since the offline judge v4; 7 metrics before)
# over the 20 amnesty_qa rows of testdata (real long answers, 3 contexts
# each), 16 samples in flight, through eval.Run and the judge memo, as
# `gate run --judge offline` judges them (BenchmarkSuiteAmnesty in
# internal/judge/offline). It prints samples/s and the CPU time a sample
# takes: on a shared machine the wall time moves with the other jobs, the
# CPU time much less (2 free cores judge 2000 / cpu-ms samples a second).
#
# With BENCH_GATE_ROWS=40000 it also times the whole gate (`gate run
# --quiet --judge offline`), BENCH_GATE_RUNS times (default 2, the best
# printed), on that many rows built from the amnesty_qa file two ways:
# "repeated" (its 20 rows repeated, each with an id: the rows of issue 24)
# and "distinct" (the same, with the row number written into every
# sentence, so that no row's analysis can be reused for another: the
# judge caches the analyses of recent texts, which repeated rows favour).
#
# Target: at least 500 samples/s for the gate on 40,000 rows on 2 cores.
#
# Environment: COUNT (benchmark runs, default 3), BENCHTIME (default 3s),
# BENCH_GATE_ROWS, BENCH_GATE_RUNS, BENCH_DIR (work directory, default a
# fresh temporary one), GATE (a gate binary to time instead of building
# one).
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(go test -run '^$' -bench 'BenchmarkSuiteAmnesty$' -benchtime "${BENCHTIME:-3s}" -count "${COUNT:-3}" ./internal/judge/offline)
echo "$out" | grep -E '^(goos|goarch|cpu|Benchmark)'
echo
echo "$out" | awk '
/^BenchmarkSuiteAmnesty/ {
	for (i = 3; i < NF; i += 2) v[$(i+1)] = $i
	printf "20 amnesty rows: %7.1f ms/op  %6.0f samples/s  %5.2f cpu-ms/sample (2 free cores: %4.0f samples/s)\n", v["ns/op"] / 1e6, v["samples/s"], v["cpu-ms/sample"], 2000 / v["cpu-ms/sample"]
}'

rows=${BENCH_GATE_ROWS:-}
[ -n "$rows" ] || exit 0
dir=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
gate=${GATE:-$dir/gate}
[ -n "${GATE:-}" ] || go build -o "$gate" ./cmd/gate
src=testdata/datasets/amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl
for kind in repeated distinct; do
	data=$dir/amnesty-$kind-$rows.jsonl
	awk -v n="$rows" -v kind="$kind" '{rows[NR]=$0} END {
		for (i = 0; i < n; i++) {
			r = rows[i%NR+1]
			if (kind == "distinct") gsub(/\. /, " q" i ". ", r)
			sub(/^\{/, "{\"id\":\"r-" sprintf("%06d", i) "\",", r)
			print r
		}
	}' "$src" >"$data"
	best=
	for run in $(seq "${BENCH_GATE_RUNS:-2}"); do
		start=$(date +%s.%N)
		"$gate" run --quiet --judge offline --dataset "$data" --out "$dir/results-$kind-$rows.json" >/dev/null 2>"$dir/gate.log" ||
			{ cat "$dir/gate.log" >&2; exit 1; }
		secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		echo "gate run, $rows $kind rows, run $run: $secs s"
		best=$(awk -v a="$best" -v b="$secs" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	awk -v s="$best" -v n="$rows" -v kind="$kind" 'BEGIN { r = n / s; printf "best, %s rows: %.1f s = %.0f samples/s  %s\n", kind, s, r, (r >= 500 ? "ok" : "MISSED (target 500; on a loaded machine compare the CPU time above)") }'
done
