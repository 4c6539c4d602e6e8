package compare

import (
	"math"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

func TestCalibrate(t *testing.T) {
	// Two samples, runs {0.8, 0.6} and {0.5, 0.5}: variances 0.02 and 0,
	// sigma = sqrt(0.01) = 0.1; A/A noise of the mean = sqrt(2)*0.1/sqrt(2) = 0.1.
	f := &results.File{
		Config: results.Config{Metrics: []string{"faithfulness", "context_recall"}, Repeats: 2},
		Samples: []results.Sample{
			{ID: "a", Runs: map[string][]results.Score{"faithfulness": {0.8, 0.6}, "context_recall": {1, 1}}},
			{ID: "b", Runs: map[string][]results.Score{"faithfulness": {0.5, 0.5}, "context_recall": {results.NaN(), 1}}},
		},
	}
	cs := Calibrate(f, 0.05)
	if len(cs) != 2 || cs[0].Metric != "context_recall" || cs[1].Metric != "faithfulness" {
		t.Fatalf("calibrations %+v, want catalogue order", cs)
	}
	fa := cs[1]
	if fa.N != 2 || math.Abs(fa.SampleNoise.Value()-0.1) > 1e-12 || math.Abs(fa.MeanNoise.Value()-0.1) > 1e-12 {
		t.Errorf("faithfulness %+v", fa)
	}
	// 1.96 * 0.1 = 0.196 -> 0.2
	if math.Abs(fa.Tolerance-0.2) > 1e-12 {
		t.Errorf("tolerance %v, want 0.2", fa.Tolerance)
	}
	if want := MinDetectableEffect(math.Sqrt2*0.1, 2, 0.05, 0.8); math.Abs(fa.MDE.Value()-want) > 1e-12 {
		t.Errorf("MDE %v, want %v", fa.MDE, want)
	}
	// context_recall: one sample with two defined runs, no noise: the floor 0.01.
	if cr := cs[0]; cr.N != 1 || cr.SampleNoise != 0 || cr.Tolerance != 0.01 {
		t.Errorf("context_recall %+v", cr)
	}
}

func TestCalibrateWithoutRuns(t *testing.T) {
	f := &results.File{Config: results.Config{Metrics: []string{"faithfulness"}, Repeats: 1},
		Samples: []results.Sample{{ID: "a", Scores: map[string]results.Score{"faithfulness": 1}}}}
	c := Calibrate(f, 0.05)[0]
	if c.N != 0 || !c.SampleNoise.IsNaN() {
		t.Errorf("%+v: want no measurement without runs", c)
	}
}
