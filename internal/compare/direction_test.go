package compare

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// costDef is a metric imported from another evaluator's file: a numeric
// user metric that knows no direction of its own (higher is better, the
// default of an unknown metric).
var costDef = metrics.Definition{Name: "cost_usd", Kind: metrics.KindNumeric, Description: "a column of the imported table",
	Reads: []string{"cost_usd"}, Direction: metrics.HigherIsBetter}

// costs are 30 paired samples whose head costs more than the base by
// about extra (with a little noise).
func costs(extra float64) (*results.File, *results.File) {
	var bs, hs []results.Sample
	for i := range 30 {
		id := fmt.Sprintf("q%02d", i)
		b := 0.010 + 0.001*float64(i%7)
		noise := 0.0002 * float64(i%3-1)
		bs = append(bs, results.Sample{ID: id, Scores: map[string]results.Score{"cost_usd": results.Score(b)}})
		hs = append(hs, results.Sample{ID: id, Scores: map[string]results.Score{"cost_usd": results.Score(b + extra + noise)}})
	}
	base, head := file(bs...), file(hs...)
	base.UserMetrics = []metrics.Definition{costDef}
	head.UserMetrics = []metrics.Definition{costDef}
	return base, head
}

func parseWithCost(t *testing.T, yaml string) (Thresholds, error) {
	t.Helper()
	return ParseThresholdsFor("thresholds.yaml", []byte(yaml), []metrics.Metric{costDef.Metric()})
}

// direction: lower turns a user metric's rise into a regression; without
// it the same rise is an improvement.
func TestDirectionLowerForUserMetric(t *testing.T) {
	base, head := costs(0.004)
	th, err := parseWithCost(t, "version: 1\nmetrics:\n  cost_usd: {direction: lower, tolerance: 0.001}\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := th.Metrics["cost_usd"].Direction; got != "lower" {
		t.Fatalf("parsed direction %q, want lower", got)
	}
	r := Compare(base, head, th)
	m := metricOf(t, r, "cost_usd")
	if r.Passed || m.Direction != "lower" || m.Verdict != VerdictRegression {
		t.Fatalf("direction lower: passed %v, direction %s, verdict %s; want a failed gate, lower, regression", r.Passed, m.Direction, m.Verdict)
	}

	th, err = parseWithCost(t, "version: 1\nmetrics:\n  cost_usd: {tolerance: 0.001}\n")
	if err != nil {
		t.Fatal(err)
	}
	r = Compare(base, head, th)
	if m := metricOf(t, r, "cost_usd"); !r.Passed || m.Direction != "higher" || m.Verdict != VerdictImprovement {
		t.Fatalf("no direction: passed %v, direction %s, verdict %s; want a pass, higher, improvement", r.Passed, m.Direction, m.Verdict)
	}
}

// direction: higher overrides a user metric defined lower-is-better.
func TestDirectionHigherOverridesDefinition(t *testing.T) {
	lower := costDef
	lower.Direction = metrics.LowerIsBetter
	base, head := costs(-0.004) // the head costs less
	base.UserMetrics = []metrics.Definition{lower}
	head.UserMetrics = []metrics.Definition{lower}
	th, err := ParseThresholdsFor("thresholds.yaml", []byte("version: 1\nmetrics:\n  cost_usd: {direction: higher, tolerance: 0.001}\n"), []metrics.Metric{lower.Metric()})
	if err != nil {
		t.Fatal(err)
	}
	r := Compare(base, head, th)
	if m := metricOf(t, r, "cost_usd"); r.Passed || m.Direction != "higher" || m.Verdict != VerdictRegression {
		t.Fatalf("passed %v, direction %s, verdict %s; want a failed gate, higher, regression", r.Passed, m.Direction, m.Verdict)
	}
}

// A catalogue metric's direction is fixed: the same direction is
// accepted, the contrary one is an error at its line.
func TestDirectionOfCatalogueMetric(t *testing.T) {
	if _, err := ParseThresholds("t.yaml", []byte("version: 1\nmetrics:\n  faithfulness: {direction: higher}\n  noise_sensitivity_relevant: {direction: lower}\n")); err != nil {
		t.Fatalf("the catalogue's own directions: %v", err)
	}
	_, err := ParseThresholds("t.yaml", []byte("version: 1\nmetrics:\n  faithfulness:\n    min: 0.8\n    direction: lower\n"))
	if !errors.Is(err, ErrThresholds) {
		t.Fatalf("err = %v, want a thresholds error", err)
	}
	for _, want := range []string{"t.yaml:5:", "faithfulness", "higher is better", "direction"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// A direction other than higher or lower is refused, naming both.
func TestDirectionBadValue(t *testing.T) {
	_, err := parseWithCost(t, "version: 1\nmetrics:\n  cost_usd: {direction: down}\n")
	if err == nil || !strings.Contains(err.Error(), "thresholds.yaml:3:") || !strings.Contains(err.Error(), "higher") || !strings.Contains(err.Error(), "lower") {
		t.Fatalf("err = %v, want line 3 naming higher and lower", err)
	}
}

// A metric's direction also flips its segments' tests.
func TestDirectionAppliesToSegments(t *testing.T) {
	base, head := costs(0.004)
	for _, f := range []*results.File{base, head} {
		for i := range f.Samples {
			f.Samples[i].Metadata = map[string]string{"topic": []string{"a", "b"}[i%2]}
		}
	}
	th, err := parseWithCost(t, "version: 1\nsegments: [topic]\nmetrics:\n  cost_usd: {direction: lower, tolerance: 0.001}\n")
	if err != nil {
		t.Fatal(err)
	}
	r := Compare(base, head, th)
	n := 0
	for _, k := range r.Segments {
		for _, s := range k.Segments {
			for _, m := range s.Metrics {
				if m.Metric == "cost_usd" {
					n++
					if m.Change != VerdictRegression {
						t.Errorf("segment %s=%s: change %s, want regression (higher cost, lower is better)", k.Key, s.Value, m.Change)
					}
				}
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d segments of cost_usd compared, want 2", n)
	}
}
