package dataset_test

// Boundary tests found by mutation testing (bench/mutation.sh).

import (
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
)

func TestMutationBoundaries(t *testing.T) {
	long := strings.Repeat("k", 60)
	tests := []struct {
		name, file, data string
		want             string // the error, exactly
	}{
		{"UTF-16 big-endian", "g.jsonl", "\xfe\xff\x00{\x00\"", "g.jsonl: the file is UTF-16 encoded; save it as UTF-8"},
		{"a UTF-16 byte-order mark alone", "g.jsonl", "\xff\xfe", "g.jsonl: the file is UTF-16 encoded; save it as UTF-8"},
		// A one-column CSV has no blank rows: an empty quoted cell is a
		// sample without a user_input, reported, not skipped.
		{"empty cell in a one-column CSV", "g.csv", "user_input\na\n\"\"\n",
			`g.csv:3:1: no "user_input" and no "id"; every sample needs a user_input (the question), or at least an id`},
		// Names are quoted in full up to 60 characters.
		{"unknown field of 60 characters", "g.jsonl", `{"user_input":"a","` + long + `":1}`,
			`g.jsonl:1:19: unknown field "` + long + `"; rename it`},
		{"unknown field of 61 characters", "g.jsonl", `{"user_input":"a","` + long + `k":1}`,
			`g.jsonl:1:19: unknown field "` + long + `"...; rename it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dataset.Parse(tt.file, []byte(tt.data), dataset.Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}
