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
	// base and head are the metric's columns of the sides' tables (nil:
	// no sample of that side records it, or no base).
	base, head *results.TableKey
}

// pairing pairs the head's samples with the base's by id, by position in
// their tables: a few bytes a sample, never the samples.
type pairing struct {
	base, head *results.Table // base nil: no baseline
	// pair[i] is the base position of head sample i (-1: none).
	pair []int32
	// notJudged[i]: a sequential check left head sample i unjudged.
	notJudged []bool
}

// pairOf pairs head's samples with base's (nil: no baseline).
func pairOf(base, head *results.Table) *pairing {
	p := &pairing{base: base, head: head, pair: make([]int32, head.Len()), notJudged: make([]bool, head.Len())}
	for i := range p.pair {
		p.pair[i] = -1
		if base != nil {
			if j, ok := base.Index(head.ID(i)); ok {
				p.pair[i] = int32(j)
			}
		}
		p.notJudged[i] = notJudgedAt(head, i)
	}
	return p
}

// ranked is a head sample with its base, if paired (-1: none), by
// position in their tables, and its rank key.
type ranked struct {
	head, base int32
	key        float64 // the worst normalised oriented delta; lost scores rank first
}

// Select returns the ids of the head samples the page shows, worst first,
// at most limit (DefaultLimit when 0), and how many samples it leaves out.
// Worst is the most negative oriented delta of any metric, relative to the
// metric's score range; a score lost on head ranks before any delta. It
// reads the sides by columns (base nil: no baseline); Render then takes
// these samples whole, with their texts.
func Select(rep *compare.Report, base, head *results.Table, limit int) (ids []string, leftOut int) {
	p := pairOf(base, head)
	rs := rank(p, metricInfos(rep, p))
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(rs) > limit {
		leftOut = len(rs) - limit
		rs = rs[:limit]
	}
	ids = make([]string, len(rs))
	for i, r := range rs {
		ids[i] = head.ID(int(r.head))
	}
	return ids, leftOut
}

// rank orders the head's samples worst first (ties in file order).
func rank(p *pairing, ms []metricInfo) []ranked {
	out := make([]ranked, 0, p.head.Len())
	for i := range p.head.Len() {
		if p.notJudged[i] {
			continue // nothing to show: a sequential check never judged it
		}
		r := ranked{head: int32(i), base: p.pair[i]}
		for _, m := range ms {
			v, d := p.verdict(m, i)
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

// metricInfos returns the report's metrics with their direction, scale
// and columns.
func metricInfos(rep *compare.Report, p *pairing) []metricInfo {
	out := make([]metricInfo, 0, len(rep.Metrics))
	for _, mr := range rep.Metrics {
		m := metricInfo{name: mr.Metric, lower: mr.Direction == "lower", scale: 1, head: p.head.Key(mr.Metric)}
		if p.base != nil {
			m.base = p.base.Key(mr.Metric)
		}
		if cm, ok := p.head.File.Metric(mr.Metric); ok {
			lo, hi := cm.ScoreRange()
			if w := hi - lo; w > 0 && !math.IsInf(w, 0) {
				m.scale = w
			} else {
				m.scale = maxAbsDelta(m, p)
			}
		}
		out = append(out, m)
	}
	return out
}

// maxAbsDelta is the largest |delta| of metric m over the paired samples
// (1 when there is none).
func maxAbsDelta(m metricInfo, p *pairing) float64 {
	if p.base == nil {
		return 1
	}
	out := 0.0
	for i := range p.head.Len() {
		if _, d := p.verdict(m, i); !math.IsNaN(d) {
			out = math.Max(out, math.Abs(d))
		}
	}
	if out == 0 {
		return 1
	}
	return out
}

// verdict is verdict of metric m for head sample i and its base.
func (p *pairing) verdict(m metricInfo, i int) (string, float64) {
	h, hok := scoreAt(m.head, i)
	b, bok := scoreAt(m.base, int(p.pair[i]))
	return verdictOf(m, b, bok, h, hok, !hok && p.notJudged[i])
}

// verdict is the per-sample verdict of metric m and the oriented delta
// (positive is better; NaN when not both scored).
func verdict(m metricInfo, base, head *results.Sample) (string, float64) {
	h, hok := score(head, m.name)
	b, bok := score(base, m.name)
	return verdictOf(m, b, bok, h, hok, !hok && head != nil && notJudged(head))
}

// verdictOf is the verdict of metric m of a head score h (hok: defined)
// against a base score b (bok: defined); unjudged: the head sample is
// one a sequential check left unjudged.
func verdictOf(m metricInfo, b float64, bok bool, h float64, hok, unjudged bool) (string, float64) {
	switch {
	case !hok && unjudged:
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

// scoreAt is sample i's defined score in column k (none when k is nil or
// i negative).
func scoreAt(k *results.TableKey, i int) (float64, bool) {
	if k == nil || i < 0 {
		return 0, false
	}
	x := k.Scores.At(i)
	return x, !math.IsNaN(x)
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

// notJudgedAt is notJudged of sample i of t: a key of its scores (an
// undefined one, recorded in its scores) whose kind is not judged.
func notJudgedAt(t *results.Table, i int) bool {
	for _, k := range t.Keys() {
		if e, ok := t.Undefined(k, i); ok && e.InScores && e.Kind == results.KindNotJudged {
			return true
		}
	}
	return false
}
