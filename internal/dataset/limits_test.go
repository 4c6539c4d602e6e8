package dataset_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
)

func TestLimits(t *testing.T) {
	sample := `{"user_input": "q?", "response": "r"}`
	long := `{"user_input": "` + strings.Repeat("x", 100) + `"}`
	array := "[" + sample + ", " + long + "]"
	tests := []struct {
		name, file, data string
		lim              dataset.Limits
		want             string // error; "" for none
	}{
		{"long line", "golden.jsonl", "\r\n\n" + sample + "\n" + long + "\n", dataset.Limits{MaxLineBytes: 64},
			"golden.jsonl:4: the line is longer than 64 bytes; each line of a JSON Lines file holds one sample: is this the right file? For longer samples raise --max-line-size"},
		{"long first line, format by content", "golden.json", "\n\n" + long + "\n" + sample, dataset.Limits{MaxLineBytes: 64},
			"golden.json:3: the line is longer than 64 bytes"},
		{"long line after a byte order mark", "golden.jsonl", "\xef\xbb\xbf" + long, dataset.Limits{MaxLineBytes: 64},
			"golden.jsonl:1: the line is longer than 64 bytes"},
		{"no line break at all", "golden", strings.Repeat("\x00", 200), dataset.Limits{MaxLineBytes: 64},
			"golden:1: the line is longer than 64 bytes"},
		{"line at the limit", "golden.jsonl", sample + "\r\n" + long + "\r\n", dataset.Limits{MaxLineBytes: len(long)}, ""},
		{"line one byte over", "golden.jsonl", sample + "\r\n" + long + "\r\n", dataset.Limits{MaxLineBytes: len(long) - 1}, "golden.jsonl:2: the line is longer than 117 bytes"},
		{"no line limit", "golden.jsonl", sample + "\n" + long, dataset.Limits{MaxLineBytes: -1}, ""},
		{"array on one line", "golden.json", array, dataset.Limits{MaxLineBytes: 64}, ""},
		{"array too large", "golden.json", array, dataset.Limits{MaxBytes: 100},
			"golden.json: the file is larger than 100 bytes; is it the right file? To load a larger dataset raise --max-dataset-size (0: no limit)"},
		{"lines too large", "golden.jsonl", sample + "\n" + long, dataset.Limits{MaxBytes: 100}, "golden.jsonl: the file is larger than 100 bytes"},
		{"csv too large", "golden.csv", "user_input\n" + strings.Repeat("q?\n", 50), dataset.Limits{MaxBytes: 100}, "golden.csv: the file is larger than 100 bytes"},
		{"no size limit", "golden.json", array, dataset.Limits{MaxBytes: -1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := dataset.Parse(tt.file, []byte(tt.data), dataset.Options{Limits: tt.lim})
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want == "" && len(d.Samples) != 2:
				t.Fatalf("%d samples, want 2", len(d.Samples))
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// endless is a dataset that never ends: a new sample on every line.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n+64 <= len(p) {
		e.n++
		n += copy(p[n:], fmt.Sprintf(`{"id": "%d", "user_input": "q?"}`+"\n", e.n))
	}
	return n, nil
}

// Reading stops when the context ends, whatever the file.
func TestReadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	reads, e := 0, &endless{}
	r := readerFunc(func(p []byte) (int, error) {
		if reads++; reads == 100 {
			cancel()
		}
		return e.Read(p)
	})
	_, err := dataset.Read(ctx, "golden.jsonl", r, dataset.Options{Limits: dataset.Limits{MaxBytes: -1, MaxLineBytes: -1}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the context's", err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
