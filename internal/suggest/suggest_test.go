package suggest

import "testing"

func TestClosest(t *testing.T) {
	names := []string{"run", "compare", "check", "retrieved_contexts", "reference_contexts", "tolerance", "faithfulness"}
	tests := []struct{ in, want string }{
		{"rnu", "run"},
		{"retreived_contexts", "retrieved_contexts"},
		{"tolerence", "tolerance"},
		{"Faithfullness", "faithfulness"},
		{"chek", "check"},
		{"xyz", ""},
		{"", ""},
		{"banana", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Closest(tt.in, names); got != tt.want {
				t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestMisspelling(t *testing.T) {
	fields := []string{"id", "user_input", "retrieved_contexts", "response", "reference", "reference_contexts",
		"retrieved_context_ids", "reference_context_ids", "question", "contexts", "answer", "ground_truth", "ground_truths"}
	tests := []struct{ in, want string }{
		// Typos of field names.
		{"retreived_contexts", "retrieved_contexts"},
		{"questoin", "question"},
		{"respone", "response"},
		{"answr", "answer"},
		{"refrence", "reference"},
		{"user_inptu", "user_input"},
		{"ground_truht", "ground_truth"},
		{"reference_context", "reference_contexts"},
		{"retrieved_contexts_ids", "retrieved_context_ids"},
		{"Question", "question"},
		{"ID", "id"},
		{" response ", "response"},
		// Columns of real exports: names of their own.
		{"status", ""}, {"timestamp", ""},
		{"model", ""}, {"dataset", ""}, {"gt_answer", ""}, {"answer_bert_score", ""}, {"answer_rouge_l", ""},
		{"context_v1", ""}, {"context_v2", ""}, {"ungrounded_answer", ""}, {"poor_answer", ""}, {"source", ""},
		{"sample_id", ""}, {"Retreival Setting", ""}, {"Label", ""},
		{"content", ""}, {"contexts2", ""}, {"user_input_2", ""}, {"response_time", ""}, {"uid", ""}, {"i", ""},
		{"topic", ""}, {"difficulty", ""}, {"language", ""},
	}
	for _, tt := range tests {
		if got := Misspelling(tt.in, fields); got != tt.want {
			t.Errorf("Misspelling(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Names that differ only in a trailing number or version are siblings
// (the columns of one export: context_v1 and context_v2), never typos of
// each other, while a typo that happens to end in a digit still is one.
func TestMisspellingSiblings(t *testing.T) {
	tests := []struct {
		in         string
		candidates []string
		want       string
	}{
		{"context_v2", []string{"context_v1"}, ""},
		{"context_v10", []string{"context_v1"}, ""},
		{"chunk_2", []string{"chunk_1"}, ""},
		{"passage2", []string{"passage1"}, ""},
		{"Context_V2", []string{"context_v1"}, ""},
		{"response_v2", []string{"response_v1", "response"}, ""},
		// One short token (at most 2 letters, or a number) differs: a, b,
		// v2, gpt4o beside gpt4 (tokens split on _ - . and digit/letter).
		{"answer_b", []string{"answer_a"}, ""},
		{"ctx_b", []string{"ctx_a"}, ""},
		{"model_b_answer", []string{"model_a_answer"}, ""},
		{"answer_gpt4", []string{"answer_gpt4o"}, ""},
		{"answer_gpt4o", []string{"answer_gpt4"}, ""},
		{"answer-b", []string{"answer-a"}, ""},
		{"answer.v2", []string{"answer.v1"}, ""},
		{"answer_en", []string{"answer_de"}, ""},
		// Still typos: the differing token is a long word.
		{"reference_context_id", []string{"reference_context_ids"}, "reference_context_ids"},
		{"answers_a", []string{"answer_a"}, "answer_a"},
		// Not siblings: the stems differ, or only one name is numbered.
		{"chunks_1", []string{"chunk_1"}, "chunk_1"},
		{"contetx_v1", []string{"context_v1"}, "context_v1"},
		{"Context_V1", []string{"context_v1"}, "context_v1"},
	}
	for _, tt := range tests {
		if got := Misspelling(tt.in, tt.candidates); got != tt.want {
			t.Errorf("Misspelling(%q, %v) = %q, want %q", tt.in, tt.candidates, got, tt.want)
		}
	}
}
