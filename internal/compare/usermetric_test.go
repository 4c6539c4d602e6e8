package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// latencyDef is a numeric latency metric compared on a log scale.
var latencyDef = metrics.Definition{Name: "latency", Kind: metrics.KindNumeric, Description: "latency",
	Reads: []string{"latency_ms"}, Direction: metrics.LowerIsBetter, Transform: metrics.TransformLog}

// latencies simulates n paired samples: each question has its own typical
// latency (log-normal around 800 ms, sd 0.6 in logs), and each run of it
// varies by log-normal noise of sd 0.15; head is slower by the factor
// slow. Scores are the logs of the latencies, as the log transform stores
// them.
func latencies(rng *rand.Rand, n int, slow float64) (*results.File, *results.File) {
	bs, hs := make([]results.Sample, n), make([]results.Sample, n)
	for i := range n {
		id := fmt.Sprintf("s%03d", i)
		typical := math.Log(800) + 0.6*rng.NormFloat64()
		b := typical + 0.15*rng.NormFloat64()
		h := typical + math.Log(slow) + 0.15*rng.NormFloat64()
		bs[i] = results.Sample{ID: id, Scores: map[string]results.Score{"latency": results.Score(b)}, Raw: map[string]results.Score{"latency": results.Score(math.Exp(b))}}
		hs[i] = results.Sample{ID: id, Scores: map[string]results.Score{"latency": results.Score(h)}, Raw: map[string]results.Score{"latency": results.Score(math.Exp(h))}}
	}
	base, head := file(bs...), file(hs...)
	base.UserMetrics = []metrics.Definition{latencyDef}
	head.UserMetrics = []metrics.Definition{latencyDef}
	return base, head
}

func latencyThresholds(t *testing.T, tolerance string) Thresholds {
	t.Helper()
	th, err := ParseThresholdsFor("t.yaml", []byte("version: 1\nmetrics:\n  latency: {tolerance: "+tolerance+", max: 7.5}\n"), []metrics.Metric{latencyDef.Metric()})
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// A head 30% slower on 50 paired samples fails the gate; the metric is
// lower-is-better, its tolerance (ln 1.1: 10%) and ceiling in its own
// units.
func TestNumericLatencyRegression(t *testing.T) {
	th := latencyThresholds(t, "0.0953")
	base, head := latencies(rand.New(rand.NewPCG(1, 2)), 50, 1.3)
	r := Compare(base, head, th)
	m := metricOf(t, r, "latency")
	if r.Passed || m.Verdict != VerdictRegression || m.Direction != "lower" || m.ReportOnly {
		t.Fatalf("passed %v, verdict %s, direction %s, report-only %v; Δ %v p %v", r.Passed, m.Verdict, m.Direction, m.ReportOnly, m.Delta, m.MDE)
	}
	if d := m.Delta.Value(); math.Abs(d+math.Log(1.3)) > 0.06 {
		t.Errorf("Δ %v, want about -ln 1.3 = %v (worse is negative)", d, -math.Log(1.3))
	}
	// Faster is an improvement, not a regression.
	base, head = latencies(rand.New(rand.NewPCG(3, 4)), 50, 1/1.3)
	if m := metricOf(t, Compare(base, head, th), "latency"); m.Verdict != VerdictImprovement {
		t.Errorf("a 30%% faster head: verdict %s", m.Verdict)
	}
}

// A/A with realistic latency noise: with no tolerance the paired test
// fails at about its nominal rate (alpha 0.05), and with the 10% tolerance
// practically never.
func TestNumericLatencyAA(t *testing.T) {
	const runs = 400
	rng := rand.New(rand.NewPCG(5, 6))
	fails := map[string]int{}
	for range runs {
		base, head := latencies(rng, 50, 1)
		for _, tol := range []string{"0", "0.0953"} {
			if !Compare(base, head, latencyThresholds(t, tol)).Passed {
				fails[tol]++
			}
		}
	}
	rate0, rate := float64(fails["0"])/runs, float64(fails["0.0953"])/runs
	t.Logf("A/A false failures: %.3f without tolerance, %.3f with 10%%", rate0, rate)
	if rate0 < 0.02 || rate0 > 0.08 {
		t.Errorf("without tolerance %.3f of A/A runs failed, want about 0.05", rate0)
	}
	if rate > 0.01 {
		t.Errorf("with a 10%% tolerance %.3f of A/A runs failed", rate)
	}
}

// Floors and tolerances of numeric metrics are in their own units; those
// of critic and rubric metrics stay in [0, 1].
func TestThresholdsUserMetricUnits(t *testing.T) {
	critic := metrics.Definition{Name: "cites", Kind: metrics.KindCritic, Definition: "x", Reads: []string{"response"}}
	user := []metrics.Metric{latencyDef.Metric(), critic.Metric()}
	if _, err := ParseThresholdsFor("t.yaml", []byte("version: 1\nmetrics:\n  latency: {max: 7.5, tolerance: 1.2}\n"), user); err != nil {
		t.Errorf("numeric metric in its own units: %v", err)
	}
	_, err := ParseThresholdsFor("t.yaml", []byte("version: 1\nmetrics:\n  cites: {min: 1.5}\n  latency: {tolerance: -1}\n  latncy: {max: 3}\n"), user)
	for _, want := range []string{"t.yaml:3:16: metrics.cites.min: 1.5 is outside [0, 1]", "t.yaml:4:24: metrics.latency.tolerance: -1 is negative", `t.yaml:5:3: unknown metric "latncy" in metrics; did you mean "latency"?`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if _, err := ParseThresholds("t.yaml", []byte("version: 1\nmetrics:\n  latency: {max: 3}\n")); err == nil {
		t.Error("a user metric accepted without its definition")
	}
}

// A metric the run added by itself (Definition.Reported, such as the
// target's latency) is report-only until the thresholds give it a rule.
func TestReportedMetricGatedOnlyWithARule(t *testing.T) {
	def := latencyDef
	def.Reported = true
	base, head := latencies(rand.New(rand.NewPCG(1, 2)), 50, 1.3)
	base.UserMetrics, head.UserMetrics = []metrics.Definition{def}, []metrics.Definition{def}
	r := Compare(base, head, DefaultThresholds())
	if m := metricOf(t, r, "latency"); !r.Passed || !m.ReportOnly || m.Verdict != VerdictRegression {
		t.Errorf("no rule: passed %v, report-only %v, verdict %s; want a report-only regression that passes", r.Passed, m.ReportOnly, m.Verdict)
	}
	th, err := ParseThresholdsFor("t.yaml", []byte("version: 1\nmetrics:\n  latency: {tolerance: 0.0953}\n"), []metrics.Metric{def.Metric()})
	if err != nil {
		t.Fatal(err)
	}
	r = Compare(base, head, th)
	if m := metricOf(t, r, "latency"); r.Passed || m.ReportOnly {
		t.Errorf("with a rule: passed %v, report-only %v; want gated and failing", r.Passed, m.ReportOnly)
	}
}
