package agree

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestAUCHandComputed(t *testing.T) {
	cases := []struct {
		name   string
		scores []float64
		pos    []bool
		want   float64
	}{
		// Pairs (pos, neg): (0.35,0.1) win, (0.35,0.4) loss, (0.8,*) wins: 3/4.
		{"textbook", []float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}, 0.75},
		{"tie counts half", []float64{0.5, 0.5}, []bool{true, false}, 0.5},
		{"perfect", []float64{0, 1, 1}, []bool{false, true, true}, 1},
		{"backwards", []float64{1, 0}, []bool{false, true}, 0},
		// pos 0.7 vs negs 0.7 (tie), 0.2 (win); pos 0.2 vs 0.7 (loss), 0.2 (tie): 2/4.
		{"ties across classes", []float64{0.7, 0.2, 0.7, 0.2}, []bool{true, true, false, false}, 0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := AUC(c.scores, c.pos); !near(got, c.want) {
				t.Errorf("AUC = %v, want %v", got, c.want)
			}
		})
	}
	if got := AUC([]float64{1, 2}, []bool{true, true}); !math.IsNaN(got) {
		t.Errorf("AUC with one class = %v, want NaN", got)
	}
}

func TestKappaAndBalancedAccuracyHandComputed(t *testing.T) {
	// po = 35/50 = 0.7; predicted positive 30/50, labelled positive 25/50:
	// pe = 0.6*0.5 + 0.4*0.5 = 0.5; kappa = (0.7-0.5)/(1-0.5) = 0.4.
	c := Confusion{TP: 20, FN: 5, FP: 10, TN: 15}
	if got := c.Kappa(); !near(got, 0.4) {
		t.Errorf("kappa = %v, want 0.4", got)
	}
	// (20/25 + 15/25) / 2 = 0.7
	if got := c.BalancedAccuracy(); !near(got, 0.7) {
		t.Errorf("balanced accuracy = %v, want 0.7", got)
	}
	if got := (Confusion{TP: 3, TN: 2}).Kappa(); !near(got, 1) {
		t.Errorf("perfect kappa = %v, want 1", got)
	}
	if got := (Confusion{TP: 5}).Kappa(); got != 0 {
		t.Errorf("constant prediction of a constant label: kappa = %v, want 0", got)
	}
}

func TestConfusionAtAndBestThreshold(t *testing.T) {
	scores := []float64{0.1, 0.4, 0.35, 0.8}
	pos := []bool{false, false, true, true}
	if got, want := ConfusionAt(scores, pos, 0.5), (Confusion{TP: 1, FN: 1, TN: 2}); got != want {
		t.Errorf("ConfusionAt(0.5) = %+v, want %+v", got, want)
	}
	// 0.35: TP 2 FP 1 TN 1 -> (1 + 1/2)/2; 0.8 ties at 0.75; the lower wins.
	th, ba := BestThreshold(scores, pos)
	if th != 0.35 || !near(ba, 0.75) {
		t.Errorf("best = %v (%v), want 0.35 (0.75)", th, ba)
	}
}

func TestRankCorrelationsHandComputed(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{5, 6, 7, 8, 7}
	// Ranks of y: 1 2 3.5 5 3.5; sxy = 8, sxx = 10, syy = 9.5.
	if got, want := Spearman(x, y), 8/math.Sqrt(95); !near(got, want) {
		t.Errorf("Spearman = %v, want %v", got, want)
	}
	// 8 concordant, 1 discordant, 1 tied in y only: 7/sqrt(9*10).
	if got, want := KendallTauB(x, y), 7/math.Sqrt(90); !near(got, want) {
		t.Errorf("Kendall tau-b = %v, want %v", got, want)
	}
	rev := []float64{5, 4, 3, 2, 1}
	if got := Spearman(x, rev); !near(got, -1) {
		t.Errorf("Spearman reversed = %v, want -1", got)
	}
	if got := KendallTauB(x, rev); !near(got, -1) {
		t.Errorf("Kendall reversed = %v, want -1", got)
	}
	if got := Spearman(x, []float64{3, 3, 3, 3, 3}); !math.IsNaN(got) {
		t.Errorf("Spearman with a constant side = %v, want NaN", got)
	}
}

func TestPairAccuracyTiesCountHalf(t *testing.T) {
	got := PairAccuracy([]float64{0.9, 0.5, 0.2, 0.7}, []float64{0.1, 0.5, 0.6, 0.3})
	if !near(got, 2.5/4) {
		t.Errorf("pair accuracy = %v, want 0.625", got)
	}
	r := Pairwise([]Pair{
		{Better: Item{ID: "a", Score: 0.9}, Worse: Item{ID: "b", Score: 0.1}},
		{Better: Item{ID: "c", Score: 0.5}, Worse: Item{ID: "d", Score: 0.5}},
		{Better: Item{ID: "e", Score: 0.2}, Worse: Item{ID: "f", Score: 0.6}},
	}, Options{Seed: 1})
	if r.Wins != 1 || r.Ties != 1 || r.Losses != 1 || !near(r.Accuracy.Value, 0.5) || r.Accuracy.N != 3 {
		t.Errorf("Pairwise = %+v", r)
	}
	d := PairDisagreements([]Pair{
		{Better: Item{ID: "a", Score: 0.9}, Worse: Item{ID: "b", Score: 0.1}},
		{Better: Item{ID: "c", Score: 0.5}, Worse: Item{ID: "d", Score: 0.5}},
		{Better: Item{ID: "e", Score: 0.2}, Worse: Item{ID: "f", Score: 0.6}},
	}, 5)
	if len(d) != 2 || d[0].ID != "f" || d[0].OtherID != "e" || !near(d[0].Gap, 0.4) || d[1].ID != "d" {
		t.Errorf("PairDisagreements = %+v", d)
	}
}

func TestBinaryReport(t *testing.T) {
	items := []Item{{ID: "a", Score: 0.1}, {ID: "b", Score: 0.4}, {ID: "c", Score: 0.35, Label: 1, Text: "Yes"}, {ID: "d", Score: 0.8, Label: 1}}
	r := Binary(items, 0.5, Options{Seed: 7, Resamples: 500})
	if r.N != 4 || r.Positives != 2 || !near(r.AUC.Value, 0.75) {
		t.Errorf("Binary = %+v", r)
	}
	if r.At.Threshold != 0.5 || !near(r.At.BalancedAccuracy.Value, 0.75) || !near(r.At.Kappa.Value, 0.5) {
		t.Errorf("at 0.5: %+v", r.At)
	}
	if r.Best.Threshold != 0.35 || !near(r.Best.BalancedAccuracy.Value, 0.75) {
		t.Errorf("best: %+v", r.Best)
	}
	if !(r.AUC.Low <= r.AUC.Value && r.AUC.Value <= r.AUC.High) {
		t.Errorf("AUC interval [%v, %v] misses %v", r.AUC.Low, r.AUC.High, r.AUC.Value)
	}
	again := Binary(items, 0.5, Options{Seed: 7, Resamples: 500})
	if again.AUC != r.AUC || again.Best.Kappa != r.Best.Kappa {
		t.Errorf("same seed, different intervals: %+v vs %+v", again.AUC, r.AUC)
	}
	d := RowDisagreements(items, 2, 0, 1)
	// Gaps |score - label|: a 0.1, b 0.4, c 0.65, d 0.2.
	if len(d) != 2 || d[0].ID != "c" || d[0].Label != "Yes" || !near(d[0].Gap, 0.65) || d[1].ID != "b" || d[1].Label != "0" {
		t.Errorf("RowDisagreements = %+v", d)
	}
}

func TestEstimateJSONWritesNaNAsNull(t *testing.T) {
	b, err := json.Marshal(Binary([]Item{{ID: "a", Score: 1, Label: 1}}, 0.5, Options{}).AUC)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"value":null,"ci_low":null,"ci_high":null,"n":1}` {
		t.Errorf("JSON = %s", got)
	}
	if !strings.Contains(string(must(json.Marshal(Estimate{Value: 0.5, Low: 0.4, High: 0.6, N: 3}))), `"ci_low":0.4`) {
		t.Error("defined estimate lost its interval")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestBootstrapCoverage draws many data sets from populations whose true
// figure is known and checks that the 95% intervals cover it at about the
// nominal rate (a percentile bootstrap at these sizes runs a little
// under 95%).
func TestBootstrapCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const sims = 300
	rng := rand.New(rand.NewPCG(3, 4))
	t.Run("pairwise accuracy", func(t *testing.T) {
		const p, n = 0.75, 80
		covered := 0
		for s := range sims {
			pairs := make([]Pair, n)
			for i := range pairs {
				pairs[i] = Pair{Better: Item{Score: 1}, Worse: Item{Score: 0}}
				if rng.Float64() >= p {
					pairs[i].Worse.Score = 2
				}
			}
			e := Pairwise(pairs, Options{Seed: uint64(s), Resamples: 400}).Accuracy
			if e.Low <= p && p <= e.High {
				covered++
			}
		}
		checkCoverage(t, covered, sims)
	})
	t.Run("AUC", func(t *testing.T) {
		// Positives ~ N(1,1), negatives ~ N(0,1): AUC = Phi(1/sqrt 2).
		truth := 0.5 * math.Erfc(-1/math.Sqrt2/math.Sqrt2)
		covered := 0
		for s := range sims {
			items := make([]Item, 60)
			for i := range items {
				items[i].Label = float64(i % 2)
				items[i].Score = rng.NormFloat64() + items[i].Label
			}
			sc, pos := binaryColumns(items)
			e := estimate(len(items), Options{Seed: uint64(s), Resamples: 400}, 0, func(idx []int) float64 {
				return AUC(pick(sc, idx), pickBool(pos, idx))
			})
			if e.Low <= truth && truth <= e.High {
				covered++
			}
		}
		checkCoverage(t, covered, sims)
	})
}

func checkCoverage(t *testing.T, covered, sims int) {
	t.Helper()
	rate := float64(covered) / float64(sims)
	t.Logf("coverage %.3f over %d simulations", rate, sims)
	if rate < 0.89 || rate > 0.985 {
		t.Errorf("95%% interval covered the truth in %.3f of simulations, want about 0.95", rate)
	}
}
