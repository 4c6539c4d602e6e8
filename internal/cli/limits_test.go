package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dataset files over the size limits are refused with exit 2, naming the
// file, the line and the flag that lifts the limit.
func TestDatasetLimits(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.jsonl")
	var b strings.Builder
	b.WriteString(`{"id": "a", "user_input": "short?", "response": "yes", "reference": "yes"}` + "\n")
	fmt.Fprintf(&b, `{"id": "b", "user_input": "long?", "response": "%s", "reference": "yes"}`+"\n", strings.Repeat("word ", 400))
	if err := os.WriteFile(long, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	demo := repo + "/testdata/demo/golden.jsonl"
	tests := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"endless device", []string{"--dataset", "/dev/zero"}, 2, []string{"/dev/zero:1: the line is longer than 16 MiB", "--max-line-size"}},
		{"line over the limit", []string{"--dataset", long, "--max-line-size", "1K"}, 2, []string{long + ":2: the line is longer than 1 KiB", "--max-line-size"}},
		{"line limit raised", []string{"--dataset", long, "--max-line-size", "4K"}, 0, nil},
		{"line limit off", []string{"--dataset", long, "--max-line-size", "0"}, 0, nil},
		{"file over the limit", []string{"--dataset", demo, "--max-dataset-size", "4KiB"}, 2, []string{"golden.jsonl: the file is larger than 4 KiB", "--max-dataset-size"}},
		{"file limit off", []string{"--dataset", demo, "--max-dataset-size", "0"}, 0, nil},
		{"responses over the limit", []string{"--dataset", demo, "--responses", repo + "/testdata/demo/golden.jsonl", "--max-dataset-size", "20K"}, 2, []string{"the file is larger than 20 KiB"}},
		{"bad size", []string{"--dataset", demo, "--max-line-size", "-1"}, 2, []string{"max-line-size", "want a size in bytes"}},
		{"bad unit", []string{"--dataset", demo, "--max-dataset-size", "3T"}, 2, []string{"max-dataset-size", "want a size in bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "--quiet", "--judge", "offline", "--metrics", "exact_match", "--out", filepath.Join(t.TempDir(), "r.json")}, tt.args...)
			r := gate(t, nil, args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}
