package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// onlyMetrics keeps the metrics names of f and drops every other score.
func onlyMetrics(f *results.File, names ...string) *results.File {
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	f.Config.Metrics = names
	for m := range f.Summary {
		if !keep[m] {
			delete(f.Summary, m)
		}
	}
	for i := range f.Samples {
		s := &f.Samples[i]
		for m := range s.Scores {
			if !keep[m] {
				delete(s.Scores, m)
				delete(s.Undefined, m)
				delete(s.UndefinedKind, m)
			}
		}
	}
	return f
}

// TestBaselinePutRefusesNothingGated: a results file that scores none of
// the metrics the thresholds gate would let every later check pass; baseline
// put refuses it (exit 2) naming what the gate checks and how to fix it, and
// stores it when --thresholds gate what it scores.
func TestBaselinePutRefusesNothingGated(t *testing.T) {
	dir := t.TempDir()
	ss := writeResults(t, onlyMetrics(demoBaseline(t), "string_similarity"))
	store := filepath.Join(dir, "store.json")

	r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", ss)
	for _, want := range []string{
		"scores none of the metrics the gate checks",
		"context_precision, context_recall, faithfulness, answer_relevancy, factual_correctness",
		"the built-in thresholds",
		"it scores only string_similarity",
		"--thresholds",
	} {
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Fatalf("exit %d, want 2 with %q\n%s", r.code, want, r.stderr)
		}
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("the store was written (%v)", err)
	}

	// A thresholds file that gates something else: named in the message.
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("version: 1\ngate: [faithfulness]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", ss, "--thresholds", other)
	if r.code != 2 || !strings.Contains(r.stderr, "(faithfulness; thresholds "+other+")") {
		t.Fatalf("exit %d, want 2 naming faithfulness and the thresholds file\n%s", r.code, r.stderr)
	}

	// A bad thresholds file is a usage error with its line.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\ngate: [string_similarity]\ntolerence: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", ss, "--thresholds", bad)
	if r.code != 2 || !strings.Contains(r.stderr, "bad.yaml:3") {
		t.Fatalf("exit %d, want 2 with bad.yaml:3\n%s", r.code, r.stderr)
	}

	// Thresholds that gate what it scores: stored.
	th := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(th, []byte("version: 1\ngate: [string_similarity]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", ss, "--thresholds", th); r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	// One gated metric scored among others: stored with the defaults.
	some := writeResults(t, onlyMetrics(demoBaseline(t), "string_similarity", "faithfulness"))
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", filepath.Join(dir, "s2.json"), "--results", some); r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
}

// TestBaselinePutNoScoreNoReason: a file whose scores are all undefined
// without a recorded reason does not print "(most often: )".
func TestBaselinePutNoScoreNoReason(t *testing.T) {
	f := demoBaseline(t)
	for i := range f.Samples {
		s := &f.Samples[i]
		for m := range s.Scores {
			s.Scores[m] = results.Score(math.NaN())
		}
		s.Undefined, s.UndefinedKind = nil, nil
	}
	r := gate(t, nil, "baseline", "put", "--store", "file", "--path", filepath.Join(t.TempDir(), "s.json"), "--results", writeResults(t, f))
	if r.code != 2 || !strings.Contains(r.stderr, "has no scored value") || strings.Contains(r.stderr, "most often: )") {
		t.Fatalf("exit %d, want 2 without an empty \"most often\"\n%s", r.code, r.stderr)
	}
}
