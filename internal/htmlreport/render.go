package htmlreport

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// Options configures the page.
type Options struct {
	// Gate names the gate in the title (default "raggate").
	Gate string
	// BaselineSource says where the baseline came from.
	BaselineSource string
	// Limit is how many samples the browser lists, the worst (default
	// DefaultLimit); the page says how many it leaves out.
	Limit int
}

var (
	//go:embed page.html.tmpl
	pageTemplate string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string

	tmpl = template.Must(template.New("page").Funcs(template.FuncMap{
		"isEqual":  func(k OpKind) bool { return k == Equal },
		"isDelete": func(k OpKind) bool { return k == Delete },
		"isInsert": func(k OpKind) bool { return k == Insert },
	}).Parse(pageTemplate))
)

// scriptHash allows the page's own script and no other (Content Security
// Policy): a script that got into the page by a mistake of escaping would
// not run.
var scriptHash = func() string {
	sum := sha256.Sum256([]byte(pageJS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

// Sides are the compared results files as the page reads them.
type Sides struct {
	// Base and Head hold every sample by columns (Base nil: no
	// baseline): the page ranks, counts and bins their scores.
	Base, Head *results.Table
	// BaseSamples and HeadSamples hold the samples the page lists whole,
	// texts included: Select's ids, read again with
	// results.ReadOptions{Texts: ids, Only: true}. They may hold other
	// samples, which the page does not use; the base records texts (the
	// page says so when not) when any sample of BaseSamples does. A
	// listed sample that Base or Head holds and these lack is an error:
	// the file changed since it was compared.
	BaseSamples, HeadSamples *results.File
}

// Render writes the page of rep, the comparison of s.Base (nil: none)
// with s.Head. The samples are those Select picks, each shown whole from
// s.BaseSamples and s.HeadSamples: a sample without texts is shown with
// its scores and reasons.
func Render(w io.Writer, rep *compare.Report, s Sides, opts Options) error {
	p, err := build(rep, s, opts)
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := tmpl.Execute(bw, p); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return bw.Flush()
}

// build makes the page's data.
func build(rep *compare.Report, s Sides, opts Options) (*page, error) {
	if opts.Gate == "" {
		opts.Gate = "raggate"
	}
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	base, head := s.Base, s.Head
	p := &page{
		Title: opts.Gate, Verdict: string(rep.Verdict), Passed: rep.Passed, Source: opts.BaselineSource,
		Failures: rep.Failures, Warnings: rep.Warnings, Notes: rep.Notes, Rows: rows(rep),
		Counts: rep.Counts, HasBase: base != nil, Sequential: report.SequentialLine(rep),
		CSS: template.CSS(pageCSS), JS: template.JS(pageJS), ScriptHash: scriptHash,
	}
	p.HeadDesc = describe(head)
	pairs := pairOf(base, head)
	ms := metricInfos(rep, pairs)
	for _, m := range ms {
		p.Metrics = append(p.Metrics, m.name)
		if base != nil {
			p.Histograms = append(p.Histograms, histogramOf(m, pairs))
		}
	}
	if base != nil {
		p.BaseDesc = describe(base)
		p.BaseTexts = anyTexts(s.BaseSamples)
	}
	rs := rank(pairs, ms)
	if len(rs) > opts.Limit {
		p.LeftOut = len(rs) - opts.Limit
		rs = rs[:opts.Limit]
	}
	heads, bases := listed(rs, base, head, s.BaseSamples, s.HeadSamples)
	p.Samples = make([]sampleView, len(rs))
	for i, r := range rs {
		h := heads[head.ID(int(r.head))]
		if h == nil {
			return nil, fmt.Errorf("sample %q of the head is not in the results file read again: it changed since it was compared", head.ID(int(r.head)))
		}
		var b *results.Sample
		if r.base >= 0 {
			if b = bases[base.ID(int(r.base))]; b == nil {
				return nil, fmt.Errorf("sample %q of the base is not in the results file read again: it changed since it was compared", base.ID(int(r.base)))
			}
		}
		p.Samples[i] = sampleOf(h, b, i+1, ms)
	}
	p.Listed = len(p.Samples)
	p.Segments = segmentsOf(p.Samples)
	return p, nil
}

// listed finds the samples rs lists in baseFile and headFile by id (a
// results file holds each id once): at most one map entry per sample
// listed, whatever the files hold.
func listed(rs []ranked, base, head *results.Table, baseFile, headFile *results.File) (heads, bases map[string]*results.Sample) {
	heads, bases = make(map[string]*results.Sample, len(rs)), map[string]*results.Sample{}
	for _, r := range rs {
		heads[head.ID(int(r.head))] = nil
		if r.base >= 0 {
			bases[base.ID(int(r.base))] = nil
		}
	}
	find := func(f *results.File, want map[string]*results.Sample) {
		if f == nil {
			return
		}
		for i := range f.Samples {
			if _, ok := want[f.Samples[i].ID]; ok {
				want[f.Samples[i].ID] = &f.Samples[i]
			}
		}
	}
	find(headFile, heads)
	find(baseFile, bases)
	return heads, bases
}

// describe says which commit, dataset and judge a results file is of.
func describe(t *results.Table) string {
	f := t.File
	s := fmt.Sprintf("%d samples, judge %s", t.Len(), f.Judge.Provider)
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

// anyTexts reports whether any sample of f holds texts (none when f is
// nil).
func anyTexts(f *results.File) bool {
	if f == nil {
		return false
	}
	for i := range f.Samples {
		if f.Samples[i].HasTexts() {
			return true
		}
	}
	return false
}
