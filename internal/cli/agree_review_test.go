package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// gate agree's answers to the review of issue 27: an impossible minimum,
// a minimum on a metric the judge declines, the row of a metric without
// scores, what "left out" counts.
func TestAgreeReview(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "agree", "--quiet", "--dataset", labelled, "--judge", "offline", "--label", "human", "--positive", "yes",
		"--metrics", "faithfulness,answer_relevancy", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	row := ""
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "answer_relevancy") {
			row = l
		}
	}
	if row == "" || strings.Contains(row, "0.50") {
		t.Errorf("the row of a metric without scores shows a threshold: %q\n%s", row, r.stdout)
	}
	if !strings.Contains(r.stdout, "answer_relevancy: 35 rows left out, no score") {
		t.Errorf("left out: want the rows counted\n%s", r.stdout)
	}

	for _, min := range []string{"auc=1.01", "faithfulness:kappa=-1.5", "auc=-0.1"} {
		r := gate(t, nil, "agree", "--results", out, "--label", "human", "--positive", "yes", "--min", min)
		if r.code != 2 || !strings.Contains(r.stderr, min) {
			t.Errorf("--min %s: exit %d, want 2 naming it\n%s", min, r.code, r.stderr)
		}
	}
	r = gate(t, nil, "agree", "--results", out, "--label", "human", "--positive", "yes", "--min", "answer_relevancy:auc=0.5")
	if r.code != 2 || !strings.Contains(r.stderr, "declined") || !strings.Contains(r.stderr, "offline judge cannot score answer_relevancy reliably") {
		t.Errorf("--min on a declined metric: exit %d, want 2 saying it is declined\n%s", r.code, r.stderr)
	}

	r = gate(t, nil, "agree", "--results", out, "--label", "grade", "--pair-by", "pair")
	if !strings.Contains(r.stdout, "answer_relevancy: 15 pairs left out, a score missing") {
		t.Errorf("pairwise left out: want pairs counted\n%s", r.stdout)
	}
}
