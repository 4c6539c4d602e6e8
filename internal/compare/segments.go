package compare

import (
	"sort"
	"strings"

	"github.com/raggate/raggate/internal/results"
)

// Segment limits (README "Segments").
const (
	// MaxSegmentKeys is the most segment keys a thresholds file names.
	MaxSegmentKeys = 10
	// MaxSegmentValues is the most values of one key that are listed and
	// tested: those with the most paired samples; the others are counted
	// in SegmentKey.Omitted and neither tested nor listed.
	MaxSegmentValues = 50
	// NoSegmentValue is the segment of the samples without the key (or
	// with an empty value).
	NoSegmentValue = "(none)"
)

// SegmentKey is the comparison of the segments of one metadata key.
type SegmentKey struct {
	Key string `json:"key"`
	// Values is the number of distinct values among the paired samples,
	// NoSegmentValue included.
	Values int `json:"values"`
	// Omitted counts the values beyond MaxSegmentValues.
	Omitted int `json:"omitted"`
	// Segments are the listed values, most paired samples first.
	Segments []Segment `json:"segments"`
}

// Segment is one value of a key: the paired samples that carry it.
type Segment struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	// Pairs is the number of paired samples in the segment.
	Pairs int `json:"pairs"`
	// Tested is false with fewer than min_samples pairs: then Metrics is
	// empty.
	Tested  bool            `json:"tested"`
	Metrics []SegmentMetric `json:"metrics"`
}

// SegmentMetric is one metric compared over one segment's pairs: the paired
// fields of MetricResult, with the same meaning. The p-values are adjusted
// in the family of the metric together with the whole-set tests.
type SegmentMetric struct {
	Metric     string   `json:"metric"`
	ReportOnly bool     `json:"report_only"`
	Verdict    Verdict  `json:"verdict"`
	Change     Verdict  `json:"change"`
	Status     Status   `json:"status"`
	Reasons    []string `json:"reasons,omitempty"`
	// Paired holds the paired statistics, with MetricResult's meaning.
	Paired
	MDE        results.Score `json:"mde"`
	Lost       int           `json:"lost"`
	Regained   int           `json:"regained"`
	PLostAdj   results.Score `json:"p_lost_adj"`
	LostScores bool          `json:"lost_scores"`
}

// segmentRun is the work of comparing segments: the keys for the report,
// and every segment's metric results, with a pointer to each (and whether
// it was tested) for the family-wise correction.
type segmentRun struct {
	keys     []SegmentKey
	results  [][]MetricResult // per tested segment, in the order of where
	where    [][2]int         // key and segment index of each results entry
	ptrs     []*MetricResult
	tested   []bool
	warnings []Finding
	notes    []Finding
}

// segmentValue is pair p's value of key: head's metadata, else base's, else
// NoSegmentValue.
func segmentValue(hs, bs *side, p pair, key string) (string, bool) {
	for _, md := range []struct {
		t *results.Table
		i int
	}{{hs.t, int(p.h)}, {bs.t, int(p.b)}} {
		if v, ok := md.t.Meta(md.i, key); ok && strings.TrimSpace(v) != "" {
			return v, true
		}
	}
	return NoSegmentValue, false
}

// metadataValue is the value of key in head's metadata, else base's, and
// whether either has one; NoSegmentValue when neither does.
func metadataValue(head, base map[string]string, key string) (string, bool) {
	for _, md := range []map[string]string{head, base} {
		if v, ok := md[key]; ok && strings.TrimSpace(v) != "" {
			return v, true
		}
	}
	return NoSegmentValue, false
}

// compareSegments compares every metric of whole (the whole-set results)
// that both sides scored, over each segment of each key.
func (st statsConfig) compareSegments(keys []string, hs, bs *side, pairs []pair, whole []MetricResult) *segmentRun {
	run := &segmentRun{}
	if bs == nil {
		return run
	}
	for _, key := range keys {
		groups, order, found := groupPairs(hs, bs, pairs, key)
		sk := SegmentKey{Key: key, Values: len(order), Segments: []Segment{}}
		switch {
		case !found:
			run.warnings = append(run.warnings, missingKey(key, hs, bs, pairs))
		case len(order) == 1:
			run.notes = append(run.notes, Finding{Kind: KindSegmentKeyOneValue, Level: LevelNote, Key: key})
		default:
			if len(order) > MaxSegmentValues {
				sk.Omitted = len(order) - MaxSegmentValues
				order = order[:MaxSegmentValues]
				run.notes = append(run.notes, Finding{Kind: KindSegmentValuesCapped, Level: LevelNote, Key: key, N: sk.Values, Of: MaxSegmentValues})
			}
			for _, v := range order {
				sk.Segments = append(sk.Segments, st.compareSegment(run, len(run.keys), len(sk.Segments), key, v, groups[v], hs, bs, whole))
			}
		}
		run.keys = append(run.keys, sk)
	}
	return run
}

// groupPairs splits pairs by their value of key: the groups, the values
// (most pairs first, then by name), and whether any pair has the key.
func groupPairs(hs, bs *side, pairs []pair, key string) (map[string][]pair, []string, bool) {
	groups := map[string][]pair{}
	found := false
	for _, p := range pairs {
		v, ok := segmentValue(hs, bs, p, key)
		found = found || ok
		groups[v] = append(groups[v], p)
	}
	order := make([]string, 0, len(groups))
	for v := range groups {
		order = append(order, v)
	}
	sort.Slice(order, func(i, j int) bool {
		if a, b := len(groups[order[i]]), len(groups[order[j]]); a != b {
			return a > b
		}
		return order[i] < order[j]
	})
	return groups, order, found
}

// missingKey is the warning for a key no paired sample has, with the
// nearest metadata key as a suggestion, or else the keys there are.
func missingKey(key string, hs, bs *side, pairs []pair) Finding {
	seen := map[string]bool{}
	for _, p := range pairs {
		for _, k := range hs.t.MetaKeys(int(p.h)) {
			seen[k] = true
		}
		for _, k := range bs.t.MetaKeys(int(p.b)) {
			seen[k] = true
		}
	}
	known := make([]string, 0, len(seen))
	for k := range seen {
		known = append(known, k)
	}
	sort.Strings(known)
	f := Finding{Kind: KindSegmentKeyMissing, Level: LevelWarn, Key: key, Suggestion: closest(key, known)}
	if f.Suggestion == "" {
		f.Known = known
	}
	return f
}

// compareSegment compares one segment: with at least min_samples pairs,
// every metric of whole that both sides scored.
func (st statsConfig) compareSegment(run *segmentRun, ki, si int, key, value string, pairs []pair, hs, bs *side, whole []MetricResult) Segment {
	seg := Segment{Key: key, Value: value, Pairs: len(pairs), Metrics: []SegmentMetric{}}
	if len(pairs) < st.minSamples {
		return seg
	}
	seg.Tested = true
	var ms []MetricResult
	var tested []bool
	for _, w := range whole {
		if !hs.present[w.Metric] || !bs.present[w.Metric] || w.Change == VerdictNotComparable {
			continue
		}
		mr := newMetricResult(w.Metric, w.Direction, w.Rule, w.ReportOnly)
		_, ok := st.testPairs(&mr, hs, bs, pairs, w.Metric+"@"+key+"="+value)
		ms, tested = append(ms, mr), append(tested, ok)
	}
	run.results = append(run.results, ms)
	run.where = append(run.where, [2]int{ki, si})
	last := run.results[len(run.results)-1]
	for i := range last {
		run.ptrs = append(run.ptrs, &last[i])
	}
	run.tested = append(run.tested, tested...)
	return seg
}

// verdicts sets each segment metric's verdict and status once the
// p-values are adjusted, fills the report's segments, and returns the
// findings of the gated metrics and those of the report-only ones. level is
// the thresholds' segment_level.
func (run *segmentRun) verdicts(level Level) (gated, reportOnly []Finding) {
	for i, ms := range run.results {
		k, s := run.where[i][0], run.where[i][1]
		seg := &run.keys[k].Segments[s]
		for j := range ms {
			sm, fs := segmentVerdict(&ms[j], seg.Key+"="+seg.Value)
			if len(fs) > 0 {
				l := level
				if ms[j].Rule.Level == LevelWarn {
					l = LevelWarn
				}
				l = metricLevel(sm.ReportOnly, l)
				for f := range fs {
					fs[f].Level, fs[f].ReportOnly = l, sm.ReportOnly
				}
				if sm.ReportOnly {
					reportOnly = append(reportOnly, fs...)
				} else {
					sm.Status = statusOf(l)
					gated = append(gated, fs...)
				}
			}
			seg.Metrics = append(seg.Metrics, sm)
		}
	}
	return gated, reportOnly
}

// segmentVerdict is mr's segment view, with its verdict, and its findings
// (their Level unset) naming the segment where.
func segmentVerdict(mr *MetricResult, where string) (SegmentMetric, []Finding) {
	sm := SegmentMetric{Metric: mr.Metric, ReportOnly: mr.ReportOnly, Verdict: mr.Change, Change: mr.Change,
		Status: StatusOK, Paired: mr.Paired, MDE: mr.MDE,
		Lost: mr.Lost, Regained: mr.Regained, PLostAdj: mr.PLostAdj, LostScores: mr.LostScores}
	var fs []Finding
	if mr.Change == VerdictRegression {
		p, seq := pOf(mr, mr.PWorseAdj)
		fs = append(fs, Finding{Kind: KindRegression, Metric: mr.Metric, Segment: where, Value: -mr.Delta.Value(), P: p, Sequential: seq})
	}
	if mr.LostScores {
		fs = append(fs, lostFinding(mr, where))
		if mr.Change != VerdictRegression {
			sm.Verdict = VerdictLostScores
		}
	}
	return sm, fs
}

// untested notes the segments with too few pairs to test.
func (run *segmentRun) untested(minSamples int) []Finding {
	var fs []Finding
	for _, k := range run.keys {
		for _, s := range k.Segments {
			if !s.Tested {
				fs = append(fs, Finding{Kind: KindSegmentFewPairs, Level: LevelNote, Key: s.Key, Segment: s.Key + "=" + s.Value, N: s.Pairs, Of: minSamples})
			}
		}
	}
	return fs
}

// sampleSegments returns pair p's values of the segment keys (keys the
// sample does not have are left out); nil without keys.
func sampleSegments(keys []string, hs, bs *side, p pair) map[string]string {
	var out map[string]string
	for _, k := range keys {
		if v, ok := segmentValue(hs, bs, p, k); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}
