package compare

import (
	"fmt"
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
	mr.Lost, mr.Regained, mr.LostReason = lost, regained, reason
	if counted > 0 {
		mr.LostShare = results.Score(float64(lost-regained) / float64(counted))
	}
	if n := lost + regained; n > 0 && math.Pow(0.5, float64(n)) < mr.Rule.Alpha {
		mr.PLost = results.Score(BinomialUpperHalf(lost, n))
	}
}

// adjustFamilies corrects the p-values for multiple comparisons: the gated
// metrics form one family and the report-only metrics another, so that
// metrics nobody gates on never dilute the ones that matter. Within a
// family, Holm runs over the regression hypotheses (every tested metric's
// PWorse and every tested PLost together) and, separately, over the
// improvement hypotheses (PBetter).
func adjustFamilies(ms []MetricResult, tested []int, correction Correction) {
	isTested := make(map[int]bool, len(tested))
	for _, i := range tested {
		isTested[i] = true
	}
	for _, reportOnly := range []bool{false, true} {
		var worse, better []*results.Score // adjusted values to fill
		var pw, pb []float64
		for i := range ms {
			mr := &ms[i]
			if mr.ReportOnly != reportOnly {
				continue
			}
			if isTested[i] {
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

// decide sets the paired verdict of the tested metrics and flags
// significant losses of scores, from the adjusted p-values.
func decide(ms []MetricResult, tested []int) {
	for _, i := range tested {
		mr := &ms[i]
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
	for i := range ms {
		mr := &ms[i]
		mr.LostScores = !mr.PLostAdj.IsNaN() && mr.PLostAdj.Value() < mr.Rule.Alpha &&
			mr.LostShare.Value() >= mr.Rule.Tolerance-eps
	}
}

// lostMessage is the failure sentence of a significant loss of scores.
func lostMessage(mr *MetricResult) string {
	msg := fmt.Sprintf("%s lost its score on %d paired samples (scored on base, undefined on head; %d the other way, %s)",
		mr.Metric, mr.Lost, mr.Regained, fmtP(mr.PLostAdj.Value()))
	if mr.LostReason != "" {
		msg += fmt.Sprintf(", most often: %s", mr.LostReason)
	}
	return msg
}

// headCompleteness returns why the head cannot be judged complete: an
// incomplete or empty run fails, and so does a head that pairs with fewer
// than half of the base's samples, unless it scored its whole dataset and
// that dataset changed (then it only warns).
func headCompleteness(r *Report, base, head *results.File) (fail, warn []string) {
	n := len(head.Samples)
	if head.Incomplete != "" {
		fail = append(fail, fmt.Sprintf("head run is incomplete (%s): %d samples scored; an incomplete run cannot pass, re-run `gate run` to completion (raise --max-duration, or wait for the judge to recover)", head.Incomplete, n))
	}
	if n == 0 {
		fail = append(fail, "head has no scored samples: nothing was compared; re-run `gate run` to completion on the dataset")
		return fail, warn
	}
	if base == nil || len(base.Samples) == 0 || 2*r.Counts.Paired >= len(base.Samples) || head.Incomplete != "" {
		return fail, warn
	}
	msg := fmt.Sprintf("head pairs with only %d of the base's %d samples (at least half must pair)", r.Counts.Paired, len(base.Samples))
	if r.DatasetChanged && head.Dataset.Samples > 0 && n >= head.Dataset.Samples {
		return fail, append(warn, msg+": the dataset changed; store a baseline of the new dataset with `gate baseline put`")
	}
	return append(fail, msg+": the head run scored too few samples to stand for the base; re-run `gate run` on the whole dataset (not one --shard; merge shards with `gate merge`)"), warn
}
