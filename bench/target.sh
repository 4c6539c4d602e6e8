#!/usr/bin/env bash
# Benchmark of the target phase of gate run --target: 1,000 samples against
# an HTTP target answering in 100 ms, 32 calls in flight. The ideal wall
# time is ceil(1000/32) = 32 rounds of 100 ms = 3.2 s; the target is at
# most 1.15 x that. COUNT sets the number of runs (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(go test -run '^$' -bench 'BenchmarkHTTPTarget' -benchtime "${COUNT:-3}x" ./internal/target)
echo "$out" | grep -E '^(goos|goarch|cpu|Benchmark)'
echo "$out" | awk '/^BenchmarkHTTPTarget/ {
	printf "wall time %.3f s per 1,000 samples (ideal 3.200 s): %.3f x ideal  %s\n", $3 / 1e9, $5, ($5 <= 1.15 ? "ok" : "MISSED")
}'
