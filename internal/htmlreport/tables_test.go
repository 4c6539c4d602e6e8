package htmlreport

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"math/rand"
	"path/filepath"
	"sort"
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// mixedFiles makes base and head of n samples each with every case the
// page ranks and bins: deltas of three metrics (one lower is better and
// unbounded, so its scale is the largest delta), many ties, scores lost
// on head and undefined on base, samples only in head (new) or only in
// base (removed), a run of samples a sequential check left unjudged,
// metadata, and texts on some samples only (textsOn selects the base
// samples that record texts).
func mixedFiles(n int, seed int64, textsOn func(i int) bool) (base, head *results.File) {
	rng := rand.New(rand.NewSource(seed))
	latency := metrics.Definition{Name: "latency_ms", Kind: metrics.KindNumeric, Reads: []string{"latency"}, Direction: metrics.LowerIsBetter}
	mk := func(sha string) *results.File {
		return &results.File{Schema: results.Schema, Git: &results.Git{SHA: sha},
			Judge:       results.Judge{Provider: "offline", Model: "m-1"},
			Config:      results.Config{Metrics: []string{"faithfulness", "context_precision", "latency_ms"}},
			UserMetrics: []metrics.Definition{latency}}
	}
	base, head = mk("0123456789abcdef0123"), mk("fedcba9876543210fedc")
	head.Incomplete = "time budget reached"
	quarter := func() results.Score { return results.Score(float64(rng.Intn(5)) / 4) } // ties
	for i := range n {
		id := fmt.Sprintf("s-%04d", (i*7919)%n) // ids not in file order
		b := results.Sample{ID: id, Question: fmt.Sprintf("Question %d?", i), InputHash: fmt.Sprintf("%016x", i),
			Scores: map[string]results.Score{"faithfulness": quarter(), "context_precision": results.Score(rng.Float64()),
				"latency_ms": results.Score(100 + rng.Float64()*900)},
			Metadata: map[string]string{"topic": []string{"specs", "install", "app"}[i%3], "row": fmt.Sprint(i)}}
		h := b
		h.Scores = map[string]results.Score{"faithfulness": quarter(), "context_precision": b.Scores["context_precision"],
			"latency_ms": results.Score(100 + rng.Float64()*900)}
		if i%4 == 0 {
			h.Scores["context_precision"] = results.Score(rng.Float64())
			h.InputHash = fmt.Sprintf("%016x", i+1_000_000)
		}
		h.Reasons = map[string]string{"faithfulness": fmt.Sprintf("reason %d", i)}
		switch {
		case i%17 == 3: // lost on head
			h.Scores["faithfulness"] = results.NaN()
			h.Undefined = map[string]string{"faithfulness": "judge returned no verdict"}
		case i%19 == 5: // undefined on base
			b.Scores["context_precision"] = results.NaN()
			b.Undefined = map[string]string{"context_precision": "missing field retrieved_contexts"}
		}
		h.SetTexts(results.Texts{Response: fmt.Sprintf("Head answer %d with a few words.", i), Contexts: []string{"ctx a", fmt.Sprint("ctx ", i)},
			Evidence: map[string][]results.Evidence{"faithfulness": {{Text: "a statement", Verdict: i % 2, Reason: "why"}}}})
		if textsOn(i) {
			b.SetTexts(results.Texts{Response: fmt.Sprintf("Base answer %d with some words.", i), Contexts: []string{"ctx a"}})
		}
		if i >= n-n/10 { // the last tenth: a sequential check stopped before them
			u := results.Sample{ID: h.ID, InputHash: h.InputHash, Metadata: h.Metadata, Scores: map[string]results.Score{},
				Undefined: map[string]string{}, UndefinedKind: map[string]results.UndefinedKind{}}
			for _, m := range head.Config.Metrics {
				u.Scores[m], u.Undefined[m], u.UndefinedKind[m] = results.NaN(), "not judged: the gate was decided", results.KindNotJudged
			}
			h = u
		}
		switch i % 23 {
		case 7:
			h.ID += "-new" // only in head
		case 8:
			base.Samples = append(base.Samples, b)
			continue // only in base
		}
		base.Samples = append(base.Samples, b)
		head.Samples = append(head.Samples, h)
	}
	return base, head
}

// The page made from the tables and the samples it lists, read again
// alone (ReadTable, ReadOptions.Only), is the page the whole files made
// before (oldPage: the files read whole, scores only, to pick the
// samples, then again keeping those samples' texts), byte for byte: with
// and without a base, with a limit below and above the samples, with a
// base that records texts on every sample, on some, or only on samples
// the page does not list.
func TestTablesPageIsWholeFilesPage(t *testing.T) {
	const n = 400
	for _, tc := range []struct {
		name    string
		textsOn func(int) bool
		noBase  bool
		limit   int
	}{
		{"all texts", func(int) bool { return true }, false, 37},
		{"some texts", func(i int) bool { return i%5 == 0 }, false, 60},
		{"texts of unlisted only", func(i int) bool { return i%23 == 8 }, false, 25},
		{"no base texts", func(int) bool { return false }, false, 50},
		{"limit above samples", func(i int) bool { return i%3 == 0 }, false, 5000},
		{"no base", func(int) bool { return true }, true, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, head := mixedFiles(n, 3, tc.textsOn)
			if tc.noBase {
				base = nil
			}
			dir := t.TempDir()
			headPath, basePath := filepath.Join(dir, "head.json"), filepath.Join(dir, "base.json")
			if err := results.Write(headPath, head); err != nil {
				t.Fatal(err)
			}
			if base != nil {
				if err := results.Write(basePath, base); err != nil {
					t.Fatal(err)
				}
			}
			rep := compare.Compare(base, head, compare.DefaultThresholds())
			report.Fill(rep)
			opts := Options{Gate: "demo", BaselineSource: "file base.json", Limit: tc.limit}

			want, keepOld := oldPage(t, rep, basePath, headPath, base != nil, opts)
			// The cases are there: scores lost and new, the unbounded
			// metric, and the base texts said missing when the listed
			// base samples record none.
			if base != nil && tc.limit > n {
				for _, w := range []string{"faithfulness:lost", "context_precision:new", "latency_ms:worse", "latency_ms:better"} {
					if !bytes.Contains([]byte(want), []byte(w)) {
						t.Errorf("the page lacks %q: the samples miss a case", w)
					}
				}
			}
			if noTexts := bytes.Contains([]byte(want), []byte(`id="no-base-texts"`)); base != nil && noTexts != (tc.name == "texts of unlisted only" || tc.name == "no base texts") {
				t.Errorf("the page says the base records no texts: %v", noTexts)
			}

			ht, err := results.ReadTable(headPath, results.ScoresOnly)
			if err != nil {
				t.Fatal(err)
			}
			var bt *results.Table
			if base != nil {
				if bt, err = results.ReadTable(basePath, results.ScoresOnly); err != nil {
					t.Fatal(err)
				}
			}
			ids, _ := Select(rep, bt, ht, tc.limit)
			if fmt.Sprint(ids) != fmt.Sprint(keepOld) {
				t.Fatalf("Select over tables = %v\nover whole files %v", ids, keepOld)
			}
			keep := map[string]bool{}
			for _, id := range ids {
				keep[id] = true
			}
			only := results.ReadOptions{Texts: func(id string) bool { return keep[id] }, Only: true}
			s := Sides{Base: bt, Head: ht}
			if s.HeadSamples, err = results.ReadWith(headPath, only); err != nil {
				t.Fatal(err)
			}
			if base != nil {
				if s.BaseSamples, err = results.ReadWith(basePath, only); err != nil {
					t.Fatal(err)
				}
				if len(s.BaseSamples.Samples) > len(ids) {
					t.Errorf("the base read again holds %d samples, more than the %d listed", len(s.BaseSamples.Samples), len(ids))
				}
			}
			if len(s.HeadSamples.Samples) != len(ids) {
				t.Errorf("the head read again holds %d samples, want the %d listed", len(s.HeadSamples.Samples), len(ids))
			}
			var got bytes.Buffer
			if err := Render(&got, rep, s, opts); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Errorf("the page from tables differs from the page from whole files at byte %d", firstDiff(got.String(), want))
			}
			// The page of in-memory files (TableOf) is the same page.
			var mem bytes.Buffer
			if err := Render(&mem, rep, sidesOf(base, head), opts); err != nil {
				t.Fatal(err)
			}
			// (A whole base that records texts on samples the page does not
			// list only says so: compared where that cannot differ.)
			if tc.name != "texts of unlisted only" && tc.name != "some texts" && mem.String() != want {
				t.Errorf("the page from in-memory files differs at byte %d", firstDiff(mem.String(), want))
			}
		})
	}
}

// A listed sample missing from the samples read again (the file changed
// since the comparison) is an error, not a page without it.
func TestRenderListedSampleMissing(t *testing.T) {
	base, head := files(6, true)
	rep := compare.Compare(base, head, compare.DefaultThresholds())
	s := sidesOf(base, head)
	s.HeadSamples = &results.File{Samples: head.Samples[1:]}
	if err := Render(&bytes.Buffer{}, rep, s, Options{}); err == nil {
		t.Error("Render with a listed head sample missing: no error")
	}
	s = sidesOf(base, head)
	s.BaseSamples = &results.File{Samples: base.Samples[1:]}
	if err := Render(&bytes.Buffer{}, rep, s, Options{}); err == nil {
		t.Error("Render with a listed base sample missing: no error")
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// oldPage renders the page as the whole-file path did: both files read
// whole with the scores only to pick the samples, then read whole again
// keeping the texts of those, and ranked, binned and counted over every
// sample held. It returns the page and the ids picked.
func oldPage(t *testing.T, rep *compare.Report, basePath, headPath string, hasBase bool, opts Options) (string, []string) {
	t.Helper()
	read := func(path string, o results.ReadOptions) *results.File {
		f, err := results.ReadWith(path, o)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	head := read(headPath, results.ScoresOnly)
	var base *results.File
	if hasBase {
		base = read(basePath, results.ScoresOnly)
	}
	limit := opts.Limit
	rs := oldRank(rep, base, head)
	if len(rs) > limit {
		rs = rs[:limit]
	}
	var ids []string
	keep := map[string]bool{}
	for _, r := range rs {
		ids = append(ids, r.head.ID)
		keep[r.head.ID] = true
	}
	texts := results.ReadOptions{Texts: func(id string) bool { return keep[id] }}
	head = read(headPath, texts)
	if hasBase {
		base = read(basePath, texts)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, oldBuild(rep, base, head, opts)); err != nil {
		t.Fatal(err)
	}
	return b.String(), ids
}

// What follows is the whole-file page of before, kept as the reference:
// build, rank, metricInfos, maxAbsDelta, histogramOf, describe and
// anyTexts over results files held whole.

type oldRanked struct {
	head, base *results.Sample
	key        float64
}

func oldBuild(rep *compare.Report, base, head *results.File, opts Options) *page {
	if opts.Gate == "" {
		opts.Gate = "raggate"
	}
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	p := &page{
		Title: opts.Gate, Verdict: string(rep.Verdict), Passed: rep.Passed, Source: opts.BaselineSource,
		Failures: rep.Failures, Warnings: rep.Warnings, Notes: rep.Notes, Rows: rows(rep),
		Counts: rep.Counts, HasBase: base != nil, Sequential: report.SequentialLine(rep),
		CSS: template.CSS(pageCSS), JS: template.JS(pageJS), ScriptHash: scriptHash,
	}
	p.HeadDesc = oldDescribe(head)
	ms := oldMetricInfos(rep, base, head)
	for _, m := range ms {
		p.Metrics = append(p.Metrics, m.name)
		if base != nil {
			p.Histograms = append(p.Histograms, oldHistogramOf(m, base, head))
		}
	}
	if base != nil {
		p.BaseDesc = oldDescribe(base)
		p.BaseTexts = anyTexts(base)
	}
	rs := oldRank(rep, base, head)
	if len(rs) > opts.Limit {
		p.LeftOut = len(rs) - opts.Limit
		rs = rs[:opts.Limit]
	}
	p.Samples = make([]sampleView, len(rs))
	for i, r := range rs {
		p.Samples[i] = sampleOf(r.head, r.base, i+1, ms)
	}
	p.Listed = len(p.Samples)
	p.Segments = segmentsOf(p.Samples)
	return p
}

func oldRank(rep *compare.Report, base, head *results.File) []oldRanked {
	ms := oldMetricInfos(rep, base, head)
	byID := map[string]*results.Sample{}
	if base != nil {
		for i := range base.Samples {
			byID[base.Samples[i].ID] = &base.Samples[i]
		}
	}
	out := make([]oldRanked, 0, len(head.Samples))
	for i := range head.Samples {
		h := &head.Samples[i]
		if notJudged(h) {
			continue
		}
		r := oldRanked{head: h, base: byID[h.ID]}
		for _, m := range ms {
			v, d := oldVerdict(m, r.base, h)
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

func oldMetricInfos(rep *compare.Report, base, head *results.File) []metricInfo {
	out := make([]metricInfo, 0, len(rep.Metrics))
	for _, mr := range rep.Metrics {
		m := metricInfo{name: mr.Metric, lower: mr.Direction == "lower", scale: 1}
		if cm, ok := head.Metric(mr.Metric); ok {
			lo, hi := cm.ScoreRange()
			if w := hi - lo; w > 0 && !math.IsInf(w, 0) {
				m.scale = w
			} else {
				m.scale = oldMaxAbsDelta(m, base, head)
			}
		}
		out = append(out, m)
	}
	return out
}

func oldMaxAbsDelta(m metricInfo, base, head *results.File) float64 {
	if base == nil {
		return 1
	}
	bs := map[string]*results.Sample{}
	for i := range base.Samples {
		bs[base.Samples[i].ID] = &base.Samples[i]
	}
	out := 0.0
	for i := range head.Samples {
		if _, d := oldVerdict(m, bs[head.Samples[i].ID], &head.Samples[i]); !math.IsNaN(d) {
			out = math.Max(out, math.Abs(d))
		}
	}
	if out == 0 {
		return 1
	}
	return out
}

func oldHistogramOf(m metricInfo, base, head *results.File) histogram {
	h := histogram{Metric: m.name, Width: histW, Height: histH + 16, Label: histH + 13, Range: edge(m.scale)}
	counts := make([]int, 2*halfBins+1)
	bs := map[string]*results.Sample{}
	for i := range base.Samples {
		bs[base.Samples[i].ID] = &base.Samples[i]
	}
	for i := range head.Samples {
		b := bs[head.Samples[i].ID]
		if b == nil {
			continue
		}
		v, d := oldVerdict(m, b, &head.Samples[i])
		switch v {
		case vLost:
			h.Lost++
			continue
		case vWorse:
			h.Worse++
		case vBetter:
			h.Better++
		case vSame:
			h.Same++
		default:
			continue
		}
		counts[bin(d, m.scale)]++
	}
	h.Bars = bars(counts, m.scale)
	return h
}

func oldDescribe(f *results.File) string {
	s := fmt.Sprintf("%d samples, judge %s", len(f.Samples), f.Judge.Provider)
	if f.Judge.Model != "" {
		s += " " + f.Judge.Model
	}
	if f.Git != nil && f.Git.SHA != "" {
		s = "commit " + results.ShortHash(f.Git.SHA) + ", " + s
	}
	if f.Incomplete != "" {
		s += " (incomplete: " + f.Incomplete + ")"
	}
	return s
}

func oldVerdict(m metricInfo, base, head *results.Sample) (string, float64) {
	h, hok := score(head, m.name)
	b, bok := score(base, m.name)
	switch {
	case !hok && head != nil && notJudged(head):
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

// BenchmarkHTMLPass is the page's pass after a comparison of n typical
// samples (typicalFiles) whose sides the comparison holds by columns:
// pick the samples, read them again alone from the results files
// (ReadOptions.Only) and render the page of the 2,000 worst. Memory holds
// the tables, a few bytes a sample of pairing and ranks, and the samples
// listed: compare samples=10000 with samples=40000 (B/op grows with the
// samples decoded and let go of, not with what is held).
func BenchmarkHTMLPass(b *testing.B) {
	for _, n := range []int{10000, 40000} {
		b.Run(fmt.Sprintf("samples=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			basePath, headPath := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
			base, head := typicalFiles(n)
			if err := results.Write(basePath, base); err != nil {
				b.Fatal(err)
			}
			if err := results.Write(headPath, head); err != nil {
				b.Fatal(err)
			}
			base, head = nil, nil
			bt, err := results.ReadTable(basePath, results.ScoresOnly)
			if err != nil {
				b.Fatal(err)
			}
			ht, err := results.ReadTable(headPath, results.ScoresOnly)
			if err != nil {
				b.Fatal(err)
			}
			rep := compare.Config{}.CompareTables(bt, ht, compare.DefaultThresholds())
			report.Fill(rep)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				ids, _ := Select(rep, bt, ht, DefaultLimit)
				keep := make(map[string]bool, len(ids))
				for _, id := range ids {
					keep[id] = true
				}
				only := results.ReadOptions{Texts: func(id string) bool { return keep[id] }, Only: true}
				s := Sides{Base: bt, Head: ht}
				if s.BaseSamples, err = results.ReadWith(basePath, only); err != nil {
					b.Fatal(err)
				}
				if s.HeadSamples, err = results.ReadWith(headPath, only); err != nil {
					b.Fatal(err)
				}
				if err := Render(io.Discard, rep, s, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
