package htmlreport

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// page is what the template renders.
type page struct {
	Title    string
	Verdict  string
	Passed   bool
	Source   string
	BaseDesc string
	HeadDesc string
	Failures []string
	Warnings []string
	Notes    []string
	// Sequential is the sentence about a sequential check ("" for none).
	Sequential string
	Rows       []row
	Histograms []histogram
	Metrics    []string
	Segments   []string
	Samples    []sampleView
	Counts     compare.Counts
	Listed     int
	LeftOut    int
	HasBase    bool
	// BaseTexts is false when the base file records no texts (written
	// before they were recorded, or with --record-texts=false).
	BaseTexts  bool
	CSS        any
	JS         any
	ScriptHash string
}

// row is one line of the verdict table.
type row struct {
	Metric, Verdict, Class, Base, Head, Delta, CI, P, N, Floor string
}

// sampleView is one sample of the browser.
type sampleView struct {
	ID, Question string
	Meta         []string // "key=value"
	Scores       []scoreView
	Verdicts     string // "metric:verdict ..." for the filter, "same" left out
	Deltas       string // JSON {metric: oriented delta / range} for sorting, zeros left out
	Segs         string // JSON ["key=value", ...] for the filter
	Rank         int
	Paired       bool
	BaseText     bool // the base response is recorded
	Diff         []Op
	Contexts     []contextView
	BaseContexts []string // the base's contexts when they differ from head's
	Evidence     []evidenceGroup
	BaseEvidence []evidenceGroup
}

type scoreView struct {
	Metric, Base, Head, Delta, Class, Reason string
}

type contextView struct {
	N        int
	Text     string
	Verdicts []contextVerdict
}

type contextVerdict struct {
	Metric string
	Useful bool
	Reason string
}

type evidenceGroup struct {
	Metric string
	Items  []results.Evidence
	More   int // items the results file left out (its marker)
}

// rows makes the verdict table.
func rows(rep *compare.Report) []row {
	out := make([]row, 0, len(rep.Metrics))
	for _, m := range rep.Metrics {
		text, class := report.VerdictText(m)
		r := row{Metric: m.Metric, Verdict: text, Class: rowClass(class),
			Base: report.FormatScore(m.PairedBaseMean), Head: report.FormatScore(m.PairedHeadMean), Delta: report.FormatDelta(m.RawDelta),
			CI: report.FormatCI(m.RawDeltaCI.Low, m.RawDeltaCI.High), P: report.FormatP(report.PValue(m.Paired)), N: fmt.Sprint(m.N), Floor: string(m.Floor)}
		if !rep.HasBaseline || m.N == 0 {
			r.Head = report.FormatScore(m.HeadMean)
		}
		out = append(out, r)
	}
	return out
}

// rowClass is the CSS class of a verdict row for report's verdict class.
func rowClass(class string) string {
	switch class {
	case "fail", "warn", "better":
		return class
	}
	return "ok"
}

// sampleOf builds the view of head sample h, the rank-th listed, with its
// base b (nil: not paired).
func sampleOf(h, b *results.Sample, rank int, ms []metricInfo) sampleView {
	v := sampleView{ID: h.ID, Question: clip(h.Question), Rank: rank, Paired: b != nil}
	for _, k := range slices.Sorted(maps.Keys(h.Metadata)) {
		v.Meta = append(v.Meta, k+"="+h.Metadata[k])
	}
	segs, _ := json.Marshal(v.Meta)
	v.Segs = string(segs)
	var verdicts []string
	deltas := map[string]float64{}
	for _, m := range ms {
		sv := scoreOf(m, b, h)
		v.Scores = append(v.Scores, sv)
		if sv.Class != vSame {
			verdicts = append(verdicts, m.name+":"+sv.Class)
		}
		if _, d := verdict(m, b, h); !math.IsNaN(d) && d != 0 {
			deltas[m.name] = math.Round(d/m.scale*1e4) / 1e4
		} else if sv.Class == vLost {
			deltas[m.name] = -2
		}
	}
	v.Verdicts = strings.Join(verdicts, " ")
	dj, _ := json.Marshal(deltas)
	v.Deltas = string(dj)
	v.texts(h, b)
	return v
}

// scoreOf is the scores line of metric m.
func scoreOf(m metricInfo, base, head *results.Sample) scoreView {
	cls, d := verdict(m, base, head)
	sv := scoreView{Metric: m.name, Class: cls, Base: report.Undefined, Head: report.Undefined, Delta: report.FormatDelta(results.Score(d))}
	if x, ok := score(base, m.name); ok {
		sv.Base = report.FormatScore(results.Score(x))
	}
	if x, ok := score(head, m.name); ok {
		sv.Head = report.FormatScore(results.Score(x))
	}
	switch {
	case head.Undefined[m.name] != "":
		sv.Reason = "undefined: " + report.Flatten(results.ClipReason(head.Undefined[m.name]))
	case head.Reasons[m.name] != "":
		sv.Reason = report.Flatten(results.ClipReason(head.Reasons[m.name]))
	}
	return sv
}

// texts fills the responses, their diff, the contexts and the evidence
// of head sample h and its base b (nil: not paired).
func (v *sampleView) texts(h, b *results.Sample) {
	base := ""
	if b != nil {
		v.BaseText = b.HasTexts()
		base = clip(b.Response)
	}
	if v.BaseText {
		v.Diff = DiffWords(base, clip(h.Response))
	} else {
		v.Diff = []Op{{Kind: Equal, Text: clip(h.Response)}}
	}
	v.Contexts = contextsOf(h)
	v.Evidence = evidenceOf(h)
	if v.BaseText {
		if !slices.Equal(b.Contexts, h.Contexts) {
			v.BaseContexts = clipAll(b.Contexts)
		}
		if b.InputHash == "" || b.InputHash != h.InputHash {
			v.BaseEvidence = evidenceOf(b)
		}
	}
}

// contextsOf lists the sample's contexts with the per-context verdicts.
func contextsOf(s *results.Sample) []contextView {
	out := make([]contextView, len(s.Contexts))
	for i, c := range s.Contexts {
		out[i] = contextView{N: i + 1, Text: clip(c)}
	}
	for _, m := range slices.Sorted(maps.Keys(s.Evidence)) {
		for _, e := range s.Evidence[m] {
			if e.Context >= 1 && e.Context <= len(out) {
				out[e.Context-1].Verdicts = append(out[e.Context-1].Verdicts, contextVerdict{Metric: m, Useful: e.Verdict == 1, Reason: clip(e.Reason)})
			}
		}
	}
	return out
}

// evidenceOf groups the sample's judged statements (not the per-context
// verdicts) by metric, with how many items of each metric the results
// file left out (of statements or of per-context verdicts).
func evidenceOf(s *results.Sample) []evidenceGroup {
	var out []evidenceGroup
	for _, m := range slices.Sorted(maps.Keys(s.Evidence)) {
		g := evidenceGroup{Metric: m}
		for _, e := range s.Evidence[m] {
			switch {
			case e.More > 0:
				g.More += e.More
			case e.Context == 0:
				g.Items = append(g.Items, e)
			}
		}
		if len(g.Items) > 0 || g.More > 0 {
			g.Items = clipEvidence(g.Items)
			out = append(out, g)
		}
	}
	return out
}

// segmentsOf lists the metadata values of the listed samples for the
// segment filter: keys with at most maxSegmentValues values.
func segmentsOf(samples []sampleView) []string {
	byKey := map[string]map[string]bool{}
	for _, s := range samples {
		for _, kv := range s.Meta {
			k, _, _ := strings.Cut(kv, "=")
			if byKey[k] == nil {
				byKey[k] = map[string]bool{}
			}
			byKey[k][kv] = true
		}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		if len(byKey[k]) <= maxSegmentValues {
			out = append(out, slices.Sorted(maps.Keys(byKey[k]))...)
		}
	}
	return out
}

// maxSegmentValues bounds the values of a key offered as segments: a key
// with more (an id, a URL) is not a segment.
const maxSegmentValues = 50
