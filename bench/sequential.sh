#!/usr/bin/env bash
# Benchmark of sequential checks (gate check --sequential): the whole gate
# against a local OpenAI-compatible judge fake (BenchmarkSequentialCheck,
# internal/cli), 1,000 samples judged for faithfulness, for two heads that
# change every answer: an A/A head (the same quality, drawn afresh) and a
# broken head (faithfulness 0.1 lower). For each it prints the chat calls
# of the sequential check and of a full check, and their ratio.
#
# COUNT sets the number of runs (default 1; the figures are deterministic).
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(go test -run '^$' -bench 'BenchmarkSequentialCheck' -benchtime "${COUNT:-1}x" ./internal/cli)
echo "$out" | grep -E '^(goos|goarch|cpu|Benchmark)'
echo "$out" | awk '/^BenchmarkSequentialCheck/ {
	for (i = 3; i < NF; i += 2) v[$(i + 1)] = $i
	printf "A/A head:    %5d chat calls sequential, %5d full: %.0f%% of the calls (%.0f%% saved)\n", v["aa_calls_seq"], v["aa_calls_full"], 100 * v["aa_share"], 100 * (1 - v["aa_share"])
	printf "broken head: %5d chat calls sequential, %5d full: %.0f%% of the calls (%.0f%% saved)\n", v["broken_calls_seq"], v["broken_calls_full"], 100 * v["broken_share"], 100 * (1 - v["broken_share"])
}'
