package dataset_test

// Boundary tests found by mutation testing (bench/mutation.sh).

import (
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
)

func TestMutationBoundaries(t *testing.T) {
	long := strings.Repeat("k", 60)
	tests := []struct {
		name, file, data string
		want             string // the error, exactly
		strict           bool   // --strict-fields: an unknown column is an error
	}{
		{"UTF-16 big-endian", "g.jsonl", "\xfe\xff\x00{\x00\"", "g.jsonl: the file is UTF-16 encoded; save it as UTF-8", false},
		{"a UTF-16 byte-order mark alone", "g.jsonl", "\xff\xfe", "g.jsonl: the file is UTF-16 encoded; save it as UTF-8", false},
		// A one-column CSV has no blank rows: an empty quoted cell is a
		// sample without a user_input, reported, not skipped.
		{"empty cell in a one-column CSV", "g.csv", "user_input\na\n\"\"\n",
			`g.csv:3:1: no "user_input" and no "id"; every sample needs a user_input (the question), or at least an id`, false},
		// Names are quoted in full up to 60 characters.
		{"unknown field of 60 characters", "g.jsonl", `{"user_input":"a","` + long + `":1}`,
			`g.jsonl:1:19: unknown field "` + long + `"; rename it`, true},
		{"unknown field of 61 characters", "g.jsonl", `{"user_input":"a","` + long + `k":1}`,
			`g.jsonl:1:19: unknown field "` + long + `"...; rename it`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := dataset.Parse(tt.file, []byte(tt.data), dataset.Options{StrictFields: tt.strict})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestTenUnmatchedRowsAreAllListed: warnings list up to ten rows in full.
func TestTenUnmatchedRowsAreAllListed(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := range 10 {
		id := "zz" + string(rune('a'+i))
		b.WriteString(`{"id":"` + id + `","response":"x"}` + "\n")
		want = append(want, fmt.Sprintf("line %d (id %q)", i+1, id))
	}
	d := goldenDataset(t)
	if err := dataset.ParseResponses(d, "r.jsonl", []byte(b.String()), dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	if w := "r.jsonl: 10 rows match no golden sample and are ignored: " + strings.Join(want, ", "); len(d.Warnings) == 0 || d.Warnings[0] != w {
		t.Errorf("warnings %q, want first %q", d.Warnings, w)
	}
}
