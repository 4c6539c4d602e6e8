package compare

import (
	"math"
	"sort"

	"github.com/raggate/raggate/internal/results"
)

// Too few pairs, for a gate that blocks merges: a gated metric with no
// pair at all because a side has no score for it is not comparable and
// fails (a broken baseline must not make every change pass); one with 1 to
// min_samples-1 pairs passes with a warning; a metric that neither side
// could score for want of data (the dataset has no field for it), or a
// report-only one, is a note.

// untested is the finding of metric mr, scored on both sides, whose
// sign-flip test did not run for want of pairs: not comparable, or too
// few pairs. It sets mr's change when not comparable.
func (cmp *comparison) untested(mr *MetricResult) Finding {
	if f, ok := cmp.notComparable(mr); ok {
		mr.Change, mr.NotComparable = VerdictNotComparable, f.notComparable
		return f.Finding
	}
	level := LevelNote
	if mr.N > 0 && !mr.ReportOnly {
		level = LevelWarn
	}
	return Finding{Kind: KindFewPairs, Level: level, Metric: mr.Metric, N: mr.N, Of: cmp.def.MinSamples}
}

// incomparable is a KindNotComparable finding and the MetricResult's
// NotComparable value.
type incomparable struct {
	Finding
	notComparable string
}

// notComparable returns the finding of a gated metric with no pair: which
// side has no score, how many samples each side scored and the most
// frequent reason. ok is false with pairs, for a report-only metric, and
// when every undefined score on both sides is for want of data.
func (cmp *comparison) notComparable(mr *MetricResult) (incomparable, bool) {
	if mr.N > 0 || mr.ReportOnly {
		return incomparable{}, false
	}
	hs, bs, m := cmp.hs, cmp.bs, mr.Metric
	headData, headReason := hs.unscored(m)
	baseData, baseReason := bs.unscored(m)
	f := Finding{Kind: KindNotComparable, Level: metricLevel(false, mr.Rule.Level), Metric: m}
	// A file may hold reasons of any length (one written before reasons
	// were bounded, or by hand): the report says the bounded sentence.
	headReason, baseReason = results.ClipReason(headReason), results.ClipReason(baseReason)
	var why string
	switch {
	case mr.BaseN == 0 && mr.HeadN == 0:
		if headData && baseData {
			return incomparable{}, false // the dataset has no field for it
		}
		why, f.Side, f.Of, f.Reason = NotComparableBoth, "both", mr.HeadUndefined, headReason
		if headData {
			f.Reason = baseReason
		}
	case mr.BaseN == 0:
		why, f.Side, f.Of, f.Reason = NotComparableBase, "base", mr.BaseUndefined, baseReason
		if baseData {
			// The base's dataset lacked a field the head's has: like a
			// new metric, nothing to compare, but said.
			f.Level = LevelWarn
		}
	case mr.HeadN == 0:
		why, f.Side, f.Of, f.Reason = NotComparableHead, "head", mr.HeadUndefined, headReason
	default:
		why, f.N, f.Of, f.BaseN, f.BaseOf = NotComparableDisjoint, mr.HeadN, mr.HeadN+mr.HeadUndefined, mr.BaseN, mr.BaseN+mr.BaseUndefined
	}
	return incomparable{f, why}, true
}

// unscored tells whether this side's data lacked what metric m needs:
// some sample has m undefined for want of data and every undefined score
// of m is of that kind (a side with no samples, or whose samples carry no
// score of m at all, lacked nothing: it is broken or empty); and the most
// frequent reason of its undefined scores (the first in byte order on a
// tie).
func (s *side) unscored(m string) (dataOnly bool, top string) {
	col, ok := s.scores[m]
	if !ok {
		return false, ""
	}
	data, other := 0, 0
	reasons := map[string]int{}
	for i := range col.Len() {
		if !math.IsNaN(col.At(i)) {
			continue
		}
		e, said := s.undefined(i, m)
		switch {
		case s.kindOf(i, m) != results.KindData:
			other++
		case said: // a sample with no entry for m says nothing
			data++
		}
		if said {
			reasons[e.Reason]++
		}
	}
	keys := make([]string, 0, len(reasons))
	for r := range reasons {
		keys = append(keys, r)
	}
	sort.Strings(keys)
	n := 0
	for _, r := range keys {
		if reasons[r] > n {
			top, n = r, reasons[r]
		}
	}
	return data > 0 && other == 0, top
}

// judgeUndefined counts the samples whose score of metric m the judge
// failed to give (kind judge).
func (s *side) judgeUndefined(m string) int {
	col, ok := s.scores[m]
	if !ok {
		return 0
	}
	n := 0
	for i := range col.Len() {
		if math.IsNaN(col.At(i)) && s.kindOf(i, m) == results.KindJudge {
			n++
		}
	}
	return n
}
