#!/usr/bin/env bash
# Benchmark of `gate compare` at scale: two results files of 40,000 paired
# samples scored on 11 metrics (fractions of judge verdicts, continuous
# similarities, pass/fail; written by the generator of
# BenchmarkCompare40k in internal/compare), compared with the default
# settings under /usr/bin/time -v: wall time and peak RSS.
#
# Target: under 3 s and 200 MB on 2 cores.
#
# Environment: BENCH_SAMPLES (default 40000), BENCH_DIR (work directory,
# default a fresh temporary one), GATE (a gate binary to measure instead of
# building one), COUNT (runs, default 3).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! [ -x /usr/bin/time ]; then
	echo "bench/compare.sh needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 2
fi
dir=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
gate=${GATE:-$dir/gate}
if [ -z "${GATE:-}" ]; then
	go build -o "$gate" ./cmd/gate
fi
n=${BENCH_SAMPLES:-40000}
RAGGATE_SCALE_DIR=$dir RAGGATE_SCALE_N=$n go test -count 1 -run '^TestWriteScaleFiles$' ./internal/compare >/dev/null
echo "gate compare, $n paired samples, 11 metrics ($(du -h "$dir/head.json" | cut -f1) a file)"
for run in $(seq "${COUNT:-3}"); do
	set +e
	/usr/bin/time -v "$gate" compare --base "$dir/base.json" --head "$dir/head.json" --format json --out "$dir/report.json" 2>"$dir/time.txt"
	rc=$?
	set -e
	awk -v run="$run" -v rc="$rc" '
		/Elapsed \(wall clock\)/ { n = split($NF, t, ":"); wall = (n == 3 ? t[1]*3600 + t[2]*60 + t[3] : t[1]*60 + t[2]) }
		/User time/ { user = $NF }
		/Maximum resident set size/ { rss = $NF / 1024 }
		END { printf "run %d: wall %6.2f s, user %6.2f s, peak RSS %5.0f MB, exit %d  %s\n", run, wall, user, rss, rc, (wall < 3 && rss < 200 ? "ok" : "MISSED") }' "$dir/time.txt"
done
