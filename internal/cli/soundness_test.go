package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// TestMissingDataIsNotAJudgeFailure: samples without a question and with
// an empty response and reference leave metrics undefined for reasons of
// the data, which is not a judge failure (exit 3): the run passes, and the
// results say which kind each undefined score is.
func TestMissingDataIsNotAJudgeFailure(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "golden.jsonl")
	row := `{"id":"%s","user_input":null,"retrieved_contexts":["The K2 stores 13.5 kWh."],"response":"","reference":""}`
	var lines []string
	for _, id := range []string{"a", "b", "c"} {
		lines = append(lines, strings.Replace(row, "%s", id, 1))
	}
	if err := os.WriteFile(ds, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.json")
	r := gate(t, nil, "run", "--dataset", ds, "--judge", "offline", "--out", out, "--quiet")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0: missing data is not a judge failure\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Samples[0]
	for m, want := range map[string]results.UndefinedKind{"faithfulness": results.KindData, "semantic_similarity": results.KindData} {
		if got := s.UndefinedKind[m]; got != want {
			t.Errorf("%s: undefined kind %q (%s), want %q", m, got, s.Undefined[m], want)
		}
	}
}
