package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/results"
)

// The evidence for sequential decisions (issue 25, docs/statistics.md
// "Sequential decisions"): seeded Monte Carlo over three score shapes,
// N = 200, 1,000 and 5,000 samples, and three heads (unchanged, a drop of
// the tolerance, a drop of twice the tolerance on the first metric), with
// a look after every batch of min(50, 5% of N) samples. Each run is
// decided twice on the same data: sequentially (SeqState, stopping at the
// first look that decides the gate) and by today's fixed design on every
// sample (SignFlipTest, BinomialUpperHalf, adjustHypotheses and
// decideHypotheses, as Compare runs them).

// seqSimMetrics is the family of every run: three gated metrics.
var seqSimMetrics = []string{"faithfulness", "context_recall", "factual_correctness"}

// binomFrac is a judged fraction: k verdicts, each true with probability
// q, drawn with one uniform by the inverse CDF.
func binomFrac(rng *rand.Rand, k int, q float64) float64 {
	switch {
	case q >= 1:
		return 1
	case q <= 0:
		return 0
	}
	u := rng.Float64()
	p := 1.0 // P(0) = (1-q)^k, k small
	for range k {
		p *= 1 - q
	}
	c := p
	j := 0
	for u > c && j < k {
		p *= float64(k-j) / float64(j+1) * q / (1 - q)
		j++
		c += p
	}
	return float64(j) / float64(k)
}

// A seqShape draws one sample's score of metric m on both sides, the
// head's true quality lowered by drop: the scores (NaN undefined) and the
// kinds of the undefined ones.
type seqShape struct {
	name string
	draw func(rng *rand.Rand, m int, drop float64) (h, b float64, hk, bk results.UndefinedKind)
}

// faithLike is near-binary: 80% of answers fully faithful (every
// statement supported: score 1 on both sides unless the head dropped),
// the others of quality U(0.3, 0.9), 3 to 6 statements.
func faithLike(rng *rand.Rand, drop float64) (h, b float64) {
	q := 1.0
	if rng.Float64() >= 0.8 {
		q = 0.3 + 0.6*rng.Float64()
	}
	k := 3 + rng.IntN(4)
	return binomFrac(rng, k, q-drop), binomFrac(rng, k, q)
}

// simLike is continuous: a sample's similarity U(0.55, 0.9), each side
// judged with noise N(0, 0.04), clipped to [0, 1].
func simLike(rng *rand.Rand, drop float64) (h, b float64) {
	mu := 0.55 + 0.35*rng.Float64()
	clip := func(x float64) float64 { return math.Min(1, math.Max(0, x)) }
	return clip(mu - drop + 0.04*rng.NormFloat64()), clip(mu + 0.04*rng.NormFloat64())
}

var seqShapes = []seqShape{
	{"near-binary (faithfulness-like)", func(rng *rand.Rand, _ int, drop float64) (float64, float64, results.UndefinedKind, results.UndefinedKind) {
		h, b := faithLike(rng, drop)
		return h, b, "", ""
	}},
	{"continuous (similarity-like)", func(rng *rand.Rand, _ int, drop float64) (float64, float64, results.UndefinedKind, results.UndefinedKind) {
		h, b := simLike(rng, drop)
		return h, b, "", ""
	}},
	// A mix: one metric of each kind above and a judged fraction of
	// quality U(0.5, 1) (the fixed design's simulations), each score
	// undefined at random with probability 0.03 on each side (a judge
	// failure or no statements), so the lost-scores tests see transitions.
	{"mix, 3% undefined each side", func(rng *rand.Rand, m int, drop float64) (h, b float64, hk, bk results.UndefinedKind) {
		switch m {
		case 0:
			h, b = faithLike(rng, drop)
		case 1:
			h, b = simLike(rng, drop)
		default:
			q, k := 0.5+0.5*rng.Float64(), 3+rng.IntN(4)
			h, b = binomFrac(rng, k, q-drop), binomFrac(rng, k, q)
		}
		undef := func() results.UndefinedKind {
			if rng.Float64() >= 0.03 {
				return ""
			}
			if rng.IntN(2) == 0 {
				return results.KindJudge
			}
			return results.KindMetric
		}
		if hk = undef(); hk != "" {
			h = math.NaN()
		}
		if bk = undef(); bk != "" {
			b = math.NaN()
		}
		return h, b, hk, bk
	}},
}

// seqCell sums one cell's runs.
type seqCell struct {
	runs               int
	fixedFail, seqFail int // the gate failed
	judged             float64
}

// seqRun is one run's data: per sample and metric.
type seqRun struct {
	n      int
	h, b   [][]float64
	hk, bk [][]results.UndefinedKind
}

func newSeqRun(n int) *seqRun {
	r := &seqRun{n: n}
	k := len(seqSimMetrics)
	r.h, r.b = make([][]float64, k), make([][]float64, k)
	r.hk, r.bk = make([][]results.UndefinedKind, k), make([][]results.UndefinedKind, k)
	for m := range k {
		r.h[m], r.b[m] = make([]float64, n), make([]float64, n)
		r.hk[m], r.bk[m] = make([]results.UndefinedKind, n), make([]results.UndefinedKind, n)
	}
	return r
}

// fill draws the run: the first metric's head dropped by drop.
func (r *seqRun) fill(rng *rand.Rand, sh seqShape, drop float64) {
	for i := range r.n {
		for m := range seqSimMetrics {
			d := 0.0
			if m == 0 {
				d = drop
			}
			r.h[m][i], r.b[m][i], r.hk[m][i], r.bk[m][i] = sh.draw(rng, m, d)
		}
	}
}

// fixedFails decides the run by today's fixed design on every sample:
// the sign-flip test of every metric and the lost-scores test, Holm over
// the family, the tolerance and alpha of th.
func (r *seqRun) fixedFails(th Thresholds, draws int) bool {
	rule := th.For(seqSimMetrics[0])
	ms := make([]MetricResult, len(seqSimMetrics))
	var tested []int
	for m := range seqSimMetrics {
		mr := &ms[m]
		*mr = newMetricResult(seqSimMetrics[m], "higher", rule, false)
		var d []float64
		lost, regained, counted := 0, 0, 0
		for i := range r.n {
			h, b := r.h[m][i], r.b[m][i]
			if !math.IsNaN(h) && !math.IsNaN(b) {
				d = append(d, h-b)
			}
			if r.hk[m][i] == results.KindData || r.bk[m][i] == results.KindData {
				continue
			}
			counted++
			switch {
			case r.hk[m][i] != "" && r.bk[m][i] == "":
				lost++
			case r.hk[m][i] == "" && r.bk[m][i] != "":
				regained++
			}
		}
		mr.N, mr.Delta = len(d), results.Score(mean(d))
		if counted > 0 {
			mr.LostShare = results.Score(float64(lost-regained) / float64(counted))
		}
		if k := lost + regained; k > 0 && math.Pow(0.5, float64(k)) < rule.Alpha {
			mr.PLost = results.Score(BinomialUpperHalf(lost, k))
		}
		if mr.N >= th.Defaults.MinSamples {
			sf := SignFlipTest(d, draws, seedOf("sim", d))
			mr.PWorse, mr.PBetter = results.Score(sf.PWorse), results.Score(sf.PBetter)
			tested = append(tested, m)
		}
	}
	ptrs, flags := pointers(ms, tested)
	adjustHypotheses(ptrs, flags, CorrectionHolm)
	decideHypotheses(ptrs, flags)
	for _, mr := range ms {
		if mr.Change == VerdictRegression || mr.LostScores {
			return true
		}
	}
	return false
}

// seqDecide decides the run sequentially: batches of batch samples in
// their drawn (random) order, a look after each, stopping at the first
// look that decides the gate. It returns whether the gate failed and the
// samples judged.
func (r *seqRun) seqDecide(th Thresholds, batch int, failAtTolerance bool) (bool, int) {
	cfg := SeqConfig{Total: r.n, MinSamples: th.Defaults.MinSamples}
	for _, m := range seqSimMetrics {
		cfg.Metrics = append(cfg.Metrics, SeqMetric{Name: m, Rule: th.For(m)})
	}
	s, err := NewSeqState(cfg)
	if err != nil {
		panic(err)
	}
	s.failAtTolerance = failAtTolerance
	k := len(seqSimMetrics)
	o := seqObs{head: make([]float64, k), base: make([]float64, k),
		hk: make([]results.UndefinedKind, k), bk: make([]results.UndefinedKind, k)}
	for i := range r.n {
		for m := range k {
			o.head[m], o.base[m], o.hk[m], o.bk[m] = r.h[m][i], r.b[m][i], r.hk[m][i], r.bk[m][i]
		}
		if err := s.add(o, false); err != nil {
			panic(err)
		}
		if (i+1)%batch != 0 && i+1 != r.n {
			continue
		}
		if out := s.decide(false); out.Decision != SeqUndecided {
			return out.Decision == SeqFailed, i + 1
		}
	}
	panic("the last look left the gate undecided")
}

// seqBatch is the look interval of the simulation: min(50, 5% of N).
func seqBatch(n int) int { return max(1, min(50, n/20)) }

// TestSimulationSequential runs the simulation and checks what it can
// promise: an unchanged head fails the gate at most alpha of the time
// (plus 3 Monte Carlo standard errors) in every cell. The other
// targets are printed as met or not met (docs/statistics.md gives the
// figures and why). The fixed design's sign-flip tests draw 1,000 sign
// patterns (20,000 in Compare): enough to tell p from alpha/3 within
// 0.004, and a third of the simulation's time.
func TestSimulationSequential(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large simulation: runs without -short and without -race (.ci/run's large-n step)")
	}
	const runs = 2000
	th := DefaultThresholds()
	alpha, tol := th.Defaults.Alpha, th.Defaults.Tolerance
	drops := []float64{0, tol, 2 * tol}
	start := time.Now()
	var table []string
	for si, sh := range seqShapes {
		for ni, n := range []int{200, 1000, 5000} {
			run := newSeqRun(n)
			cells := make([]seqCell, len(drops))
			for di, drop := range drops {
				rng := rand.New(rand.NewPCG(20261225, uint64(100*si+10*ni+di)))
				c := &cells[di]
				for range runs {
					run.fill(rng, sh, drop)
					c.runs++
					// The fixed design's A/A rate is TestSimulationAA's
					// and TestSimulationAALarge's evidence: here it runs
					// where power is compared.
					if drop > 0 && run.fixedFails(th, 1000) {
						c.fixedFail++
					}
					f, j := run.seqDecide(th, seqBatch(n), false)
					if f {
						c.seqFail++
					}
					c.judged += float64(j) / float64(n)
				}
			}
			aa, d1, d2 := cells[0], cells[1], cells[2]
			rate := func(k int) float64 { return float64(k) / float64(runs) }
			share := func(x float64) float64 { return x / float64(runs) }
			table = append(table, fmt.Sprintf("| %s | %d | %.4f | %.3f / %.3f | %.3f / %.3f | %.2f | %.2f | %.2f |",
				sh.name, n, rate(aa.seqFail),
				rate(d1.fixedFail), rate(d1.seqFail), rate(d2.fixedFail), rate(d2.seqFail),
				share(aa.judged), share(d1.judged), share(d2.judged)))
			limit := alpha + 3*math.Sqrt(alpha*(1-alpha)/float64(runs))
			if r := rate(aa.seqFail); r > limit {
				t.Errorf("%s, N = %d: sequential A/A false alarms %.4f exceed alpha + 3 SE = %.4f", sh.name, n, r, limit)
			}
			for di, c := range []seqCell{d1, d2} {
				if fp, sp := rate(c.fixedFail), rate(c.seqFail); fp > 0.8 {
					t.Logf("target power within 5 points of fixed (drop %.2f, %s, N = %d): fixed %.3f, sequential %.3f: %s",
						drops[di+1], sh.name, n, fp, sp, metWord(sp >= fp-0.05))
					// Met from N = 1,000 on in every shape: kept as a check.
					if n >= 1000 && sp < fp-0.05 {
						t.Errorf("%s, N = %d, drop %.2f: sequential power %.3f more than 5 points below the fixed design's %.3f", sh.name, n, drops[di+1], sp, fp)
					}
				}
			}
			if n == 1000 && share(d2.judged) > 0.3 {
				// Met in every shape: kept as a check.
				t.Errorf("%s, N = 1,000: heads that lose twice the tolerance judged %.2f of the samples on average, target 0.30", sh.name, share(d2.judged))
			}
			if n == 1000 {
				t.Logf("target share judged at N = 1,000 (%s): A/A %.2f (target <= 0.50: %s), drop 2x tolerance %.2f (target <= 0.30: %s)",
					sh.name, share(aa.judged), metWord(share(aa.judged) <= 0.5), share(d2.judged), metWord(share(d2.judged) <= 0.3))
			}
		}
	}
	t.Logf("%d runs per cell, alpha %.2f, tolerance %.2f, a look every min(50, 5%% of N) samples, 3 gated metrics (the drop on the first); %s\n"+
		"| shape | N | A/A false alarms, sequential | power at a drop of the tolerance, fixed / sequential | power at twice the tolerance, fixed / sequential | share judged, A/A | at the tolerance | at twice |\n|---|---|---|---|---|---|---|---|\n%s",
		runs, alpha, tol, time.Since(start).Round(time.Second), strings.Join(table, "\n"))
}

// TestSimulationSequentialRules compares the two fail rules the issue
// allows, on the same data (N = 1,000, 500 runs a cell, drops of 0, half
// the tolerance, the tolerance and twice it): "shown below 0 and estimated
// at or below -tolerance" (the rule SeqState uses, mirroring today's
// "significant and at least the tolerance") and "shown below -tolerance".
// It asserts the A/A bound for both.
func TestSimulationSequentialRules(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("large simulation: runs without -short and without -race (.ci/run's large-n step)")
	}
	const runs, n = 500, 1000
	th := DefaultThresholds()
	alpha, tol := th.Defaults.Alpha, th.Defaults.Tolerance
	var table []string
	for si, sh := range seqShapes {
		run := newSeqRun(n)
		for di, drop := range []float64{0, tol / 2, tol, 2 * tol} {
			rng := rand.New(rand.NewPCG(20261226, uint64(10*si+di)))
			var fixed, r1, r2 int
			var j1, j2 float64
			for range runs {
				run.fill(rng, sh, drop)
				if run.fixedFails(th, 1000) {
					fixed++
				}
				f, j := run.seqDecide(th, seqBatch(n), false)
				if f {
					r1++
				}
				j1 += float64(j) / n
				f, j = run.seqDecide(th, seqBatch(n), true)
				if f {
					r2++
				}
				j2 += float64(j) / n
			}
			table = append(table, fmt.Sprintf("| %s | %.2f | %.3f | %.3f (%.2f judged) | %.3f (%.2f judged) |",
				sh.name, drop, float64(fixed)/runs, float64(r1)/runs, j1/runs, float64(r2)/runs, j2/runs))
			limit := alpha + 3*math.Sqrt(alpha*(1-alpha)/runs)
			if drop == 0 && (float64(r1)/runs > limit || float64(r2)/runs > limit) {
				t.Errorf("%s: A/A false alarms %.4f / %.4f exceed %.4f", sh.name, float64(r1)/runs, float64(r2)/runs, limit)
			}
		}
	}
	t.Logf("N = %d, %d runs a cell: the gate's failure rate\n| shape | drop | fixed design | below 0 and estimate <= -tol | below -tol |\n|---|---|---|---|---|\n%s",
		n, runs, strings.Join(table, "\n"))
}

func metWord(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT MET"
}
