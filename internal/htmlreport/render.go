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

// Render writes the page of rep, the comparison of base (nil: none) with
// head. The samples are those Select picks; their texts are the ones base
// and head hold (read with results.ReadWith selecting Select's ids): a
// sample without texts is shown with its scores and reasons.
func Render(w io.Writer, rep *compare.Report, base, head *results.File, opts Options) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := tmpl.Execute(bw, build(rep, base, head, opts)); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return bw.Flush()
}

// build makes the page's data.
func build(rep *compare.Report, base, head *results.File, opts Options) *page {
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
	p.HeadDesc = describe(head)
	ms := metricInfos(rep, base, head)
	for _, m := range ms {
		p.Metrics = append(p.Metrics, m.name)
		if base != nil {
			p.Histograms = append(p.Histograms, histogramOf(m, base, head))
		}
	}
	if base != nil {
		p.BaseDesc = describe(base)
		p.BaseTexts = anyTexts(base)
	}
	rs := rank(rep, base, head)
	if len(rs) > opts.Limit {
		p.LeftOut = len(rs) - opts.Limit
		rs = rs[:opts.Limit]
	}
	p.Samples = make([]sampleView, len(rs))
	for i, r := range rs {
		p.Samples[i] = sampleOf(r, i+1, ms)
	}
	p.Listed = len(p.Samples)
	p.Segments = segmentsOf(p.Samples)
	return p
}

// describe says which commit, dataset and judge a results file is of.
func describe(f *results.File) string {
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

// anyTexts reports whether any sample of f holds texts.
func anyTexts(f *results.File) bool {
	for i := range f.Samples {
		if f.Samples[i].HasTexts() {
			return true
		}
	}
	return false
}
