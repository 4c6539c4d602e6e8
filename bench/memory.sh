#!/usr/bin/env bash
# Memory benchmark of `gate run --judge offline` and `gate check` over
# generated datasets of typical samples: a question, 5 retrieved contexts of
# a few hundred characters, a response, a reference and an id (about 3.5 KB
# a sample, as JSON Lines). Builds the gate, runs it under /usr/bin/time -v
# and prints the peak resident set size, in total and per 10,000 samples.
#
# Target: 40,000 samples under 500 MB peak RSS for run and for check.
#
# Environment: BENCH_SIZES (samples per dataset, default "10000 20000
# 40000"), BENCH_DIR (work directory, default a fresh temporary one),
# GATE (a gate binary to measure instead of building one).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! [ -x /usr/bin/time ]; then
	if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
		apt-get install -y -qq time >/dev/null
	else
		echo "bench/memory.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
		exit 2
	fi
fi
for tool in awk go; do
	command -v "$tool" >/dev/null || { echo "bench/memory.sh needs $tool" >&2; exit 2; }
done

dir=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
gate=${GATE:-$dir/gate}
if [ -z "${GATE:-}" ]; then
	go build -o "$gate" ./cmd/gate
fi

# gen N: N typical samples as JSON Lines, deterministic.
gen() {
	awk -v n="$1" 'BEGIN {
		srand(7)
		split("battery inverter panel charge grid storage capacity warranty install roof " \
			"current voltage module system backup outage meter tariff export import " \
			"kestrel unit stack cycle depth discharge efficiency temperature cabinet firmware " \
			"update app monitor alert season winter summer night morning peak load " \
			"circuit breaker cable permit inspection contractor price rebate credit utility", v, " ")
		nv = length(v)
		for (i = 1; i <= n; i++) {
			printf "{\"id\": \"s-%06d\", \"user_input\": \"%s?\", \"retrieved_contexts\": [", i, words(12)
			for (c = 1; c <= 5; c++) printf "%s\"%s.\"", (c > 1 ? ", " : ""), words(55)
			printf "], \"response\": \"%s.\", \"reference\": \"%s.\"}\n", words(45), words(35)
		}
	}
	function words(k,   s, j) {
		s = "Sample " i
		for (j = 0; j < k; j++) s = s " " v[int(rand() * nv) + 1]
		return s
	}'
}

# peak CMD...: runs CMD under time -v; prints "peak_kb seconds exit".
peak() {
	local log=$dir/time.log rc=0
	/usr/bin/time -v "$@" >/dev/null 2>"$log" || rc=$?
	awk -v rc="$rc" '
		/Maximum resident set size/ { kb = $NF }
		/Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = t[n] + (n > 1 ? 60 * t[n-1] : 0) + (n > 2 ? 3600 * t[n-2] : 0) }
		END { print kb, s, rc }' "$log"
}

printf '%-7s %8s %8s  %-5s %10s %12s %8s\n' command samples "file MB" exit "peak MB" "MB per 10k" seconds
worst=0
for n in ${BENCH_SIZES:-10000 20000 40000}; do
	data=$dir/golden-$n.jsonl
	[ -s "$data" ] || gen "$n" >"$data"
	mb=$(awk -v b="$(wc -c <"$data")" 'BEGIN { printf "%.1f", b / 1e6 }')
	"$gate" run --quiet --judge offline --dataset "$data" --out "$dir/base-$n.json" 2>/dev/null >/dev/null || true
	for cmd in run check; do
		case $cmd in
		run) set -- "$gate" run --quiet --judge offline --dataset "$data" --out "$dir/head-$n.json" ;;
		check) set -- "$gate" check --quiet --judge offline --dataset "$data" --baseline "$dir/base-$n.json" --out "$dir/check-$n.json" ;;
		esac
		read -r kb secs rc < <(peak "$@")
		awk -v c="$cmd" -v n="$n" -v mb="$mb" -v kb="$kb" -v s="$secs" -v rc="$rc" 'BEGIN {
			printf "%-7s %8d %8s  %-5s %10.0f %12.1f %8.1f\n", c, n, mb, rc, kb / 1024, kb / 1024 / (n / 10000), s }'
		[ "$n" -ge 40000 ] && [ "$kb" -gt "$worst" ] && worst=$kb
	done
done
if [ "$worst" -gt 0 ]; then
	awk -v kb="$worst" 'BEGIN { printf "\n40,000 samples: peak %.0f MB (target 500 MB): %s\n", kb / 1024, (kb / 1024 < 500 ? "ok" : "MISSED") }'
fi
