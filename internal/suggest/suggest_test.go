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
