#!/usr/bin/env bash
# Agreement of the offline judge with human labels, measured as a user
# would: `gate agree` on public labelled sets committed under
# testdata/datasets (see each SOURCE.md), built into agree inputs here.
#
#   attributionbench  AttributionBench dev, 1,198 claims labelled
#                     attributable / not attributable against their cited
#                     evidence: binary labels, ROC AUC of faithfulness.
#   halueval_qa       50 HaluEval QA rows: the right answer and a
#                     hallucinated one for the same question and knowledge
#                     passage: pairwise accuracy of faithfulness.
#   halueval_dialogue 20 HaluEval dialogue rows, the same way (the dialogue
#                     so far is the user input).
#
# Then the content-word-overlap baseline on the same rows (the share of the
# response's content words found in the contexts, with the judge's own
# tokenizer, stop words and stemmer), beside the judge's figure with the
# same bootstrap: TestFaithfulnessBeatsContentWordOverlap in
# internal/judge/offline, which also fails if the judge falls back below
# the baseline on any set. Last, the metrics the offline judge declines on
# human labels (factual_correctness, semantic_similarity on STS-B, and on
# EVOUNA when RAGGATE_EVOUNA_NQ names a local copy of its NQ.json, beside
# their lexical baselines): TestOtherMetricsAgainstHumanLabels.
#
# Needs jq. Environment: BENCH_DIR (work directory, default a fresh
# temporary one), GATE (a gate binary instead of building one).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
gate=${GATE:-$dir/gate}
[ -n "${GATE:-}" ] || go build -o "$gate" ./cmd/gate

# AttributionBench: question -> user_input, claim -> response, references
# -> retrieved_contexts, the label in column "human".
jq -c '{id, user_input: .question, response: .claim, retrieved_contexts: .references,
        human: .attribution_label, source: .src_dataset}' \
	testdata/datasets/attributionbench/dev.jsonl >"$dir/attributionbench.jsonl"

# HaluEval QA: two rows per question, the right answer (grade 1) and the
# hallucinated one (grade 0), paired by "pair"; the knowledge passage is
# the one context.
jq -c --slurp 'to_entries[] | .key as $i | .value as $r |
        ({id: "hq-\($i)-right", user_input: $r.question, response: $r.right_answer, retrieved_contexts: [$r.knowledge], pair: "hq-\($i)", grade: 1},
         {id: "hq-\($i)-hallucinated", user_input: $r.question, response: $r.hallucinated_answer, retrieved_contexts: [$r.knowledge], pair: "hq-\($i)", grade: 0})' \
	testdata/datasets/halueval_qa/qa_data.sample.jsonl >"$dir/halueval_qa.jsonl"

jq -c --slurp 'to_entries[] | .key as $i | .value as $r |
        ({id: "hd-\($i)-right", user_input: $r.dialogue_history, response: $r.right_response, retrieved_contexts: [$r.knowledge], pair: "hd-\($i)", grade: 1},
         {id: "hd-\($i)-hallucinated", user_input: $r.dialogue_history, response: $r.hallucinated_response, retrieved_contexts: [$r.knowledge], pair: "hd-\($i)", grade: 0})' \
	testdata/datasets/halueval_dialogue/dialogue_data.sample.jsonl >"$dir/halueval_dialogue.jsonl"

echo "== AttributionBench dev: gate agree, offline judge"
"$gate" agree --quiet --dataset "$dir/attributionbench.jsonl" --judge offline --metrics faithfulness \
	--label human --positive attributable --out "$dir/attributionbench-results.json" --show 3
echo
echo "== HaluEval QA sample: gate agree, offline judge"
"$gate" agree --quiet --dataset "$dir/halueval_qa.jsonl" --judge offline --metrics faithfulness \
	--label grade --pair-by pair --out "$dir/halueval_qa-results.json" --show 3
echo
echo "== HaluEval dialogue sample: gate agree, offline judge"
"$gate" agree --quiet --dataset "$dir/halueval_dialogue.jsonl" --judge offline --metrics faithfulness \
	--label grade --pair-by pair --out "$dir/halueval_dialogue-results.json" --show 3
echo
echo "== The judge and the content-word-overlap baseline on the same rows"
go test -count=1 -run 'TestFaithfulnessBeatsContentWordOverlap|TestOtherMetricsAgainstHumanLabels' -v ./internal/judge/offline |
	grep -E '^\s+human_test.go|^(ok|FAIL|---)'
