package compare

import (
	"math"
	"sort"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// The per-metric paired test: differences over a set of pairs (every pair,
// or one segment's), their statistics and the sign-flip test.

// diffs are a metric's oriented differences over a set of pairs, each with
// its index in that set.
type diffs struct {
	pairIdx []int32
	d       []float64
}

// statsConfig is what the paired statistics of one metric need.
type statsConfig struct{ boot, draws, minSamples int }

// testPairs fills mr's paired statistics over pairs (every pair, or one
// segment's): the paired means and delta, its interval, the worse / same /
// better counts, the MDE, the lost-scores counts and test, and with at
// least minSamples differences the sign-flip test (else the change is
// VerdictInsufficientData). label names the random streams. It returns the
// differences and whether the sign-flip test ran.
func (st statsConfig) testPairs(mr *MetricResult, hs, bs *side, pairs []pair, label string) (diffs, bool) {
	m, lower := mr.Metric, mr.Direction == metrics.LowerIsBetter.String()
	dd, sums := pairDiffs(mr, hs.scores[m], bs.scores[m], pairs, lower)
	if hs.notJudged > 0 {
		// A sequential check's unjudged samples are no pairing gap.
		for _, p := range pairs {
			if h, b := hs.scores[m].At(int(p.h)), bs.scores[m].At(int(p.b)); math.IsNaN(h) && !math.IsNaN(b) && hs.t.Seq(int(p.h)) == 0 {
				mr.Unpaired--
			}
		}
	}
	testLost(mr, hs, bs, pairs)
	mr.N = len(dd.d)
	if mr.N > 0 {
		n := float64(mr.N)
		mr.PairedBaseMean, mr.PairedHeadMean = results.Score(sums.base/n), results.Score(sums.head/n)
		mr.RawDelta, mr.Delta = results.Score(sums.raw/n), results.Score(mean(dd.d))
		mr.SD = results.Score(stddev(dd.d))
		countSigns(mr, dd.d)
		if st.boot > 0 && mr.N >= 2 {
			lo, hi := BootstrapMeanCI(dd.d, ciLevel, st.boot, seedOf("bootstrap:"+label, dd.d))
			mr.DeltaCI = Interval{Low: results.Score(lo), High: results.Score(hi)}
			mr.RawDeltaCI = mr.DeltaCI
			if lower {
				mr.RawDeltaCI = Interval{Low: results.Score(-hi), High: results.Score(-lo)}
			}
		}
		mr.MDE = results.Score(MinDetectableEffect(stddev(dd.d), mr.N, mr.Rule.Alpha, mdePower))
	}
	if mr.N < st.minSamples {
		mr.Change = VerdictInsufficientData
		return dd, false
	}
	sf := SignFlipTest(dd.d, st.draws, seedOf("signflip:"+label, dd.d))
	mr.PWorse, mr.PBetter, mr.Exact = results.Score(sf.PWorse), results.Score(sf.PBetter), sf.Exact
	return dd, true
}

// pairSums are the sums, in pair order, of the head and base scores and of
// the raw differences of the pairs pairDiffs kept: divided by the count,
// the means mean() would give of the same values.
type pairSums struct{ head, base, raw float64 }

// pairDiffs returns the oriented differences of the pairs where both
// scores are defined, with the sums of the head and base scores and of the
// raw differences, and counts in mr the pairs scored on one side only.
func pairDiffs(mr *MetricResult, hcol, bcol *results.Column, pairs []pair, lower bool) (dd diffs, sums pairSums) {
	dd.pairIdx, dd.d = make([]int32, 0, len(pairs)), make([]float64, 0, len(pairs))
	for pi, p := range pairs {
		h, b := hcol.At(int(p.h)), bcol.At(int(p.b))
		if math.IsNaN(h) != math.IsNaN(b) {
			mr.Unpaired++
		}
		if math.IsNaN(h) || math.IsNaN(b) {
			continue
		}
		x := h - b
		sums.head, sums.base, sums.raw = sums.head+h, sums.base+b, sums.raw+x
		if lower {
			x = -x
		}
		dd.pairIdx = append(dd.pairIdx, int32(pi))
		dd.d = append(dd.d, x)
	}
	return dd, sums
}

// countSigns counts the worse, same and better differences.
func countSigns(mr *MetricResult, d []float64) {
	for _, x := range d {
		switch {
		case x > zeroDiff:
			mr.Better++
		case x < -zeroDiff:
			mr.Worse++
		default:
			mr.Same++
		}
	}
}

// newMetricResult is a metric's result before any statistic: every number
// undefined, status ok.
func newMetricResult(m, dir string, rule MetricRule, reportOnly bool) MetricResult {
	return MetricResult{
		Metric: m, Direction: dir, Rule: rule, Status: StatusOK, ReportOnly: reportOnly,
		LostShare: results.NaN(), PLost: results.NaN(), PLostAdj: results.NaN(),
		BaseMean: results.NaN(), HeadMean: results.NaN(),
		BaseJudgeNoise: results.NaN(), HeadJudgeNoise: results.NaN(),
		Paired: nanPaired(), MDE: results.NaN(), BaseDist: nanDist(), HeadDist: nanDist(),
	}
}

// nanPaired is the paired view before any pair is counted.
func nanPaired() Paired {
	return Paired{
		PairedBaseMean: results.NaN(), PairedHeadMean: results.NaN(),
		RawDelta: results.NaN(), Delta: results.NaN(), SD: results.NaN(),
		RawDeltaCI: nanInterval(), DeltaCI: nanInterval(),
		PWorse: results.NaN(), PBetter: results.NaN(), PWorseAdj: results.NaN(), PBetterAdj: results.NaN(),
	}
}

func isTested(v Verdict) bool {
	return v == VerdictRegression || v == VerdictImprovement || v == VerdictNoChange
}

func nanInterval() Interval { return Interval{Low: results.NaN(), High: results.NaN()} }

func nanDist() Distribution {
	return Distribution{P10: results.NaN(), Median: results.NaN(), P90: results.NaN()}
}

func dist(xs []float64) Distribution {
	if len(xs) == 0 {
		return nanDist()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return Distribution{
		P10:    results.Score(quantileSorted(s, 0.1)),
		Median: results.Score(quantileSorted(s, 0.5)),
		P90:    results.Score(quantileSorted(s, 0.9)),
	}
}
