#!/usr/bin/env bash
# Benchmarks of target runs.
#
# 1. The target phase alone (BenchmarkHTTPTarget, internal/target): 1,000
#    samples against an HTTP target answering in 100 ms, 32 calls in
#    flight. The ideal wall time is ceil(1000/32) = 32 rounds of 100 ms =
#    3.2 s; the target is at most 1.15 x that.
# 2. A whole `gate run --target` (BenchmarkPipelinedTargetRun,
#    internal/cli): the same target and an OpenAI-compatible judge fake
#    answering in 25 ms, 8 calls in flight, judging faithfulness (2 chat
#    calls a sample). Each answer is judged as soon as it arrives, so the
#    run takes about the longer of the two phases' ideal times, not their
#    sum: the target is at most 1.15 x the longer.
#
# COUNT sets the number of runs of each (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(go test -run '^$' -bench 'BenchmarkHTTPTarget' -benchtime "${COUNT:-3}x" ./internal/target)
echo "$out" | grep -E '^(goos|goarch|cpu|Benchmark)'
echo "$out" | awk '/^BenchmarkHTTPTarget/ {
	printf "target phase: %.3f s per 1,000 samples (ideal 3.200 s): %.3f x ideal  %s\n", $3 / 1e9, $5, ($5 <= 1.15 ? "ok" : "MISSED")
}'

out=$(go test -run '^$' -bench 'BenchmarkPipelinedTargetRun' -benchtime "${COUNT:-3}x" ./internal/cli)
echo "$out" | grep -E '^Benchmark'
echo "$out" | awk '/^BenchmarkPipelinedTargetRun/ {
	for (i = 5; i < NF; i += 2) v[$(i + 1)] = $i
	printf "whole run: %.3f s (target phase ideal %.3f s, judge phase ideal %.3f s, their sum %.3f s): %.3f x the longer  %s\n",
		v["s/run"], v["s_target_ideal"], v["s_judge_ideal"], v["s_target_ideal"] + v["s_judge_ideal"], v["x_longer"], (v["x_longer"] <= 1.15 ? "ok" : "MISSED")
}'
