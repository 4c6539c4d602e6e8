package compare

import (
	"math"

	"github.com/raggate/raggate/internal/results"
)

// testLost counts the metric's lost and regained scores among the pairs
// and tests them. A transition test whose smallest possible p-value (all
// transitions one way, 2^-n) is not below alpha can never reject, so it is
// left untested and out of the family, where it would only dilute the
// others (Tarone's argument; the count n is ancillary under the null).
func testLost(mr *MetricResult, hs, bs *side, pairs []pair) {
	lost, regained, counted, reason := transitions(hs, bs, pairs, mr.Metric)
	mr.Lost, mr.Regained, mr.LostReason = lost, regained, results.ClipReason(reason)
	if counted > 0 {
		mr.LostShare = results.Score(float64(lost-regained) / float64(counted))
	}
	if n := lost + regained; n > 0 && math.Pow(0.5, float64(n)) < mr.Rule.Alpha {
		mr.PLost = results.Score(BinomialUpperHalf(lost, n))
	}
}

// pointers returns a pointer to every metric of ms and whether it is
// tested.
func pointers(ms []MetricResult, tested []int) ([]*MetricResult, []bool) {
	ptrs, flags := make([]*MetricResult, len(ms)), make([]bool, len(ms))
	for i := range ms {
		ptrs[i] = &ms[i]
	}
	for _, i := range tested {
		flags[i] = true
	}
	return ptrs, flags
}

// adjustHypotheses corrects the p-values for multiple comparisons: the
// gated metrics form one family and the report-only metrics another, so
// that metrics nobody gates on never dilute the ones that matter. ms holds
// the whole-set results and every segment's: a segment's test joins its
// metric's family, so that the chance of any false regression stays below
// alpha across metrics and segments together. Within a family, Holm runs
// over the regression hypotheses (every tested PWorse and every tested
// PLost together) and, separately, over the improvement hypotheses
// (PBetter).
func adjustHypotheses(ms []*MetricResult, tested []bool, correction Correction) {
	for _, reportOnly := range []bool{false, true} {
		var worse, better []*results.Score // adjusted values to fill
		var pw, pb []float64
		for i, mr := range ms {
			if mr.ReportOnly != reportOnly {
				continue
			}
			if tested[i] {
				worse, pw = append(worse, &mr.PWorseAdj), append(pw, mr.PWorse.Value())
				better, pb = append(better, &mr.PBetterAdj), append(pb, mr.PBetter.Value())
			}
			if !mr.PLost.IsNaN() {
				worse, pw = append(worse, &mr.PLostAdj), append(pw, mr.PLost.Value())
			}
		}
		if correction == CorrectionHolm {
			pw, pb = HolmAdjust(pw), HolmAdjust(pb)
		}
		for k, dst := range worse {
			*dst = results.Score(pw[k])
		}
		for k, dst := range better {
			*dst = results.Score(pb[k])
		}
	}
}

// decideHypotheses sets the paired verdict of the tested metrics and flags
// significant losses of scores, from the adjusted p-values.
func decideHypotheses(ms []*MetricResult, tested []bool) {
	for i, mr := range ms {
		if !tested[i] {
			continue
		}
		delta := mr.Delta.Value()
		switch {
		case delta <= -mr.Rule.Tolerance+eps && mr.PWorseAdj.Value() < mr.Rule.Alpha:
			mr.Change = VerdictRegression
		case delta >= mr.Rule.Tolerance-eps && mr.PBetterAdj.Value() < mr.Rule.Alpha:
			mr.Change = VerdictImprovement
		default:
			mr.Change = VerdictNoChange
		}
	}
	for _, mr := range ms {
		mr.LostScores = !mr.PLostAdj.IsNaN() && mr.PLostAdj.Value() < mr.Rule.Alpha &&
			mr.LostShare.Value() >= mr.Rule.Tolerance-eps
	}
}

// lostFinding is the finding of a significant loss of scores, on the
// whole set (segment "") or on one segment ("topic=billing"); its Level is
// set by the caller.
func lostFinding(mr *MetricResult, segment string) Finding {
	p, seq := pOf(mr, mr.PLostAdj)
	return Finding{Kind: KindLostScores, Metric: mr.Metric, Segment: segment, N: mr.Lost,
		Regained: mr.Regained, P: p, Sequential: seq, Reason: mr.LostReason}
}

// headCompleteness returns why the head cannot be judged complete: an
// incomplete or empty run fails, and so does a head that pairs with fewer
// than half of the base's samples, unless it scored its whole dataset and
// that dataset changed (then it only warns).
func headCompleteness(r *Report, bs, hs *side) []Finding {
	var fs []Finding
	head := hs.f
	n := hs.t.Len()
	if head.Config.Sequential != nil {
		n = head.Config.Sequential.Judged // the others were never judged
	}
	if head.Incomplete != "" {
		fs = append(fs, Finding{Kind: KindIncomplete, Level: LevelFail, Side: "head", Reason: head.Incomplete, N: n})
	}
	if n == 0 {
		return append(fs, Finding{Kind: KindHeadEmpty, Level: LevelFail})
	}
	if bs == nil || bs.t.Len() == 0 || 2*r.Counts.Paired >= bs.t.Len() || head.Incomplete != "" {
		return fs
	}
	f := Finding{Kind: KindHeadTooSmall, Level: LevelFail, N: r.Counts.Paired, Of: bs.t.Len()}
	if r.DatasetChanged && head.Dataset.Samples > 0 && n >= head.Dataset.Samples {
		f.Level, f.DatasetChanged = LevelWarn, true
	}
	return append(fs, f)
}

// transitions counts the pairs whose metric m is defined on base and
// undefined on head (lost) and the reverse (regained), over the pairs where
// neither side is undefined for reasons of the data; reason is the head's
// most frequent reason among the lost.
func transitions(hs, bs *side, pairs []pair, m string) (lost, regained, counted int, reason string) {
	reasons := map[string]int{}
	// With another judge, a sample whose inputs did not change can only
	// lose (or regain) its score by the judge's doing: the judge change is
	// reported on its own, not as lost scores.
	judgeChanged := hs.f.Judge.Fingerprint != bs.f.Judge.Fingerprint
	for _, p := range pairs {
		hk, bk := hs.kindOf(int(p.h), m), bs.kindOf(int(p.b), m)
		if hk == results.KindData || bk == results.KindData {
			continue
		}
		if judgeChanged && hk != bk {
			if h, b := hs.t.InputHash(int(p.h)), bs.t.InputHash(int(p.b)); h != "" && h == b {
				continue
			}
		}
		counted++
		switch {
		case hk != "" && bk == "":
			lost++
			e, _ := hs.undefined(int(p.h), m)
			reasons[e.Reason]++
		case hk == "" && bk != "":
			regained++
		}
	}
	top := 0
	for r, c := range reasons {
		if c > top || (c == top && r < reason) {
			reason, top = r, c
		}
	}
	return lost, regained, counted, reason
}
