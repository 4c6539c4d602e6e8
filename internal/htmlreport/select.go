package htmlreport

import (
	"math"
	"sort"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// DefaultLimit is how many samples the page shows by default: the worst.
const DefaultLimit = 2000

// Per-sample verdicts of one metric, as the page's verdict filter names
// them.
const (
	vWorse  = "worse"     // the oriented delta is negative
	vBetter = "better"    // positive
	vSame   = "same"      // zero
	vLost   = "lost"      // scored on base, undefined on head
	vNew    = "new"       // no base score to compare with (a new sample, or undefined on base)
	vUndef  = "undefined" // undefined on head, and on base or without one
)

// metricInfo is what ranking needs of a compared metric.
type metricInfo struct {
	name  string
	lower bool    // lower is better
	scale float64 // width of the score range (max |delta| when unbounded)
}

// ranked is a head sample with its base, if paired, and its rank key.
type ranked struct {
	head  *results.Sample
	base  *results.Sample
	key   float64 // the worst normalised oriented delta; lost scores rank first
	order int     // position in the head file
}

// Select returns the ids of the head samples the page shows, worst first,
// at most limit (DefaultLimit when 0), and how many samples it leaves out.
// Worst is the most negative oriented delta of any metric, relative to the
// metric's score range; a score lost on head ranks before any delta. Call
// it with the scores only, then read the texts of these samples for
// Render.
func Select(rep *compare.Report, base, head *results.File, limit int) (ids []string, leftOut int) {
	rs := rank(rep, base, head)
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(rs) > limit {
		leftOut = len(rs) - limit
		rs = rs[:limit]
	}
	ids = make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.head.ID
	}
	return ids, leftOut
}

// rank orders head's samples worst first (ties in file order).
func rank(rep *compare.Report, base, head *results.File) []ranked {
	ms := metricInfos(rep, base, head)
	byID := map[string]*results.Sample{}
	if base != nil {
		for i := range base.Samples {
			byID[base.Samples[i].ID] = &base.Samples[i]
		}
	}
	out := make([]ranked, 0, len(head.Samples))
	for i := range head.Samples {
		h := &head.Samples[i]
		if notJudged(h) {
			continue // nothing to show: a sequential check never judged it
		}
		r := ranked{head: h, base: byID[h.ID], order: i}
		for _, m := range ms {
			v, d := verdict(m, r.base, h)
			switch v {
			case vLost:
				r.key = math.Min(r.key, -2)
			case vWorse, vBetter:
				r.key = math.Min(r.key, d/m.scale)
			}
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].key < out[b].key })
	return out
}

// metricInfos returns the report's metrics with their direction and scale.
func metricInfos(rep *compare.Report, base, head *results.File) []metricInfo {
	out := make([]metricInfo, 0, len(rep.Metrics))
	for _, mr := range rep.Metrics {
		m := metricInfo{name: mr.Metric, lower: mr.Direction == "lower", scale: 1}
		if cm, ok := head.Metric(mr.Metric); ok {
			lo, hi := cm.ScoreRange()
			if w := hi - lo; w > 0 && !math.IsInf(w, 0) {
				m.scale = w
			} else {
				m.scale = maxAbsDelta(m, base, head)
			}
		}
		out = append(out, m)
	}
	return out
}

// maxAbsDelta is the largest |delta| of metric m over the paired samples
// (1 when there is none).
func maxAbsDelta(m metricInfo, base, head *results.File) float64 {
	if base == nil {
		return 1
	}
	bs := map[string]*results.Sample{}
	for i := range base.Samples {
		bs[base.Samples[i].ID] = &base.Samples[i]
	}
	out := 0.0
	for i := range head.Samples {
		if _, d := verdict(m, bs[head.Samples[i].ID], &head.Samples[i]); !math.IsNaN(d) {
			out = math.Max(out, math.Abs(d))
		}
	}
	if out == 0 {
		return 1
	}
	return out
}

// verdict is the per-sample verdict of metric m and the oriented delta
// (positive is better; NaN when not both scored).
func verdict(m metricInfo, base, head *results.Sample) (string, float64) {
	h, hok := score(head, m.name)
	b, bok := score(base, m.name)
	switch {
	case !hok && head != nil && notJudged(head):
		// A sequential check left it unjudged: nothing was lost.
		return vUndef, math.NaN()
	case !hok && bok:
		return vLost, math.NaN()
	case !hok:
		return vUndef, math.NaN()
	case !bok:
		return vNew, math.NaN()
	}
	d := h - b
	if m.lower {
		d = -d
	}
	switch {
	case d < 0:
		return vWorse, d
	case d > 0:
		return vBetter, d
	}
	return vSame, 0
}

// score is a sample's defined score of metric m.
func score(s *results.Sample, m string) (float64, bool) {
	if s == nil {
		return 0, false
	}
	v, ok := s.Scores[m]
	if !ok || v.IsNaN() {
		return 0, false
	}
	return v.Value(), true
}

// notJudged reports whether a sequential check left sample s unjudged.
func notJudged(s *results.Sample) bool {
	for m := range s.Scores {
		if s.KindOf(m) == results.KindNotJudged {
			return true
		}
	}
	return false
}
