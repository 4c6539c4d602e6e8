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

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"kitten", "sitting", 3}, {"", "abc", 3}, {"flaw", "lawn", 2}, {"héllo", "hello", 1}, {"same", "same", 0}} {
		if got := Distance(tt.a, tt.b); got != tt.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
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
