package report

// Tests found by mutation testing (bench/mutation.sh).

import (
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/metrics"
)

// TestDiagnosisNamesTheBoundHeld: without a baseline, a metric that only
// has a ceiling is "within its ceiling", one with a floor "meets its
// floor".
func TestDiagnosisNamesTheBoundHeld(t *testing.T) {
	x := 0.9
	for _, tt := range []struct {
		name string
		rule compare.MetricRule
		want string
	}{
		{"ceiling only", compare.MetricRule{Max: &x}, "context_recall is below its floor while context_precision is within its ceiling"},
		{"floor and ceiling", compare.MetricRule{Min: &x, Max: &x}, "context_recall is below its floor while context_precision meets its floor"},
		{"floor only", compare.MetricRule{Min: &x}, "context_recall is below its floor while context_precision meets its floor"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cp := mr(metrics.ContextPrecisionName, compare.VerdictNoBaseline, compare.FloorOK)
			cp.Rule = tt.rule
			fs := diagnose(&compare.Report{Metrics: []compare.MetricResult{cp,
				mr(metrics.ContextRecallName, compare.VerdictNoBaseline, compare.FloorBelowMin)}})
			if len(fs) != 1 || fs[0].when != tt.want {
				t.Errorf("findings %+v, want when %q", fs, tt.want)
			}
		})
	}
}

// TestSnippetWithoutLimit: a limit of 0 or less keeps the whole text.
func TestSnippetWithoutLimit(t *testing.T) {
	for _, n := range []int{0, -1} {
		if got := snippet(" a long\tquestion,  flattened ", n); got != "a long question, flattened" {
			t.Errorf("snippet(_, %d) = %q", n, got)
		}
	}
}
