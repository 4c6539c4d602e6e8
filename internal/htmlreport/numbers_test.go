package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// The page's verdict table shows every number as the pull request comment
// does: the same base, head, delta, interval and p-value strings, "n/a"
// for undefined values and "<0.001" for tiny p-values (it used to show
// "–" and raw p-values, and the p-value of a regression for a metric that
// moved up).
func TestTableNumbersAreTheComments(t *testing.T) {
	base, head := files(60, true)
	rep := compare.Compare(base, head, compare.DefaultThresholds())
	nan := results.NaN()
	up := compare.MetricResult{Metric: "answer_relevancy", Direction: "higher", Verdict: compare.VerdictNoChange, Change: compare.VerdictNoChange,
		BaseMean: 0.8, HeadMean: 0.83,
		Paired: compare.Paired{N: 60, PairedBaseMean: 0.8, PairedHeadMean: 0.83, RawDelta: 0.03, Delta: 0.03,
			RawDeltaCI: compare.Interval{Low: 0.01, High: 0.05}, PWorseAdj: 0.97, PBetterAdj: 0.0004}}
	undef := compare.MetricResult{Metric: "context_recall", Direction: "higher", Verdict: compare.VerdictNoChange, Change: compare.VerdictNoChange,
		BaseMean: nan, HeadMean: nan,
		Paired: compare.Paired{N: 1, PairedBaseMean: nan, PairedHeadMean: nan, RawDelta: nan, Delta: nan,
			RawDeltaCI: compare.Interval{Low: nan, High: nan}, PWorseAdj: nan, PBetterAdj: nan}}
	rep.Metrics = append(rep.Metrics, up, undef)

	md := report.Markdown(rep, report.Options{})
	for _, r := range rows(rep) {
		cells := "| " + strings.Join([]string{r.Base, r.Head, r.Delta, r.CI, r.P}, " | ") + " |"
		var line string
		for l := range strings.Lines(md) {
			if strings.HasPrefix(l, "| "+r.Metric+" ") {
				line = l // the diff table comes first
				break
			}
		}
		if !strings.Contains(line, cells) {
			t.Errorf("%s: the page's row shows %q; the comment's row is %q", r.Metric, cells, line)
		}
	}
	byName := map[string]row{}
	for _, r := range rows(rep) {
		byName[r.Metric] = r
	}
	if got := byName["answer_relevancy"].P; got != "<0.001" {
		t.Errorf("a metric that moved up shows p %q, want the p-value of the improvement, <0.001", got)
	}
	if got := byName["faithfulness"].P; got != "<0.001" {
		t.Errorf("the regressed metric shows p %q, want <0.001", got)
	}
	if r := byName["context_recall"]; r.Base != "n/a" || r.Delta != "n/a" || r.CI != "n/a" || r.P != "n/a" {
		t.Errorf("undefined numbers show as %+v, want n/a", r)
	}
}

// A sample's scores line uses the same wording: "n/a" where a side has no
// score, a delta that rounds to zero as "0.000".
func TestSampleScoresWording(t *testing.T) {
	m := metricInfo{name: "faithfulness", scale: 1}
	base := &results.Sample{ID: "a", Scores: map[string]results.Score{"faithfulness": 0.9}}
	head := &results.Sample{ID: "a", Scores: map[string]results.Score{"faithfulness": results.NaN()}, Undefined: map[string]string{"faithfulness": "no statements"}}
	if sv := scoreOf(m, base, head); sv.Base != "0.900" || sv.Head != "n/a" || sv.Delta != "n/a" {
		t.Errorf("lost score: %+v", sv)
	}
	head.Scores["faithfulness"] = 0.9
	if sv := scoreOf(m, base, head); sv.Delta != "0.000" {
		t.Errorf("unchanged score: delta %q, want 0.000", sv.Delta)
	}
	if got := edge(-3 * 0.1); got != "-0.30" {
		t.Errorf("bin edge -0.3 = %q, want -0.30", got)
	}
	if got := edge(-1e-9); got != "0.00" {
		t.Errorf("bin edge -1e-9 = %q, want 0.00", got)
	}
}

// The html format is in report's registry once this package is linked in,
// selected by name and by a report file's extension, and renders the page
// Render does.
func TestRegisteredFormat(t *testing.T) {
	f, ok := report.Lookup("html")
	if !ok || f.Samples == nil {
		t.Fatalf("report.Lookup(html) = %+v, %v; want the html format, which lists samples", f, ok)
	}
	if got := report.ByPath("out/REPORT.HTM").Name; got != "html" {
		t.Errorf("ByPath(REPORT.HTM) = %s, want html", got)
	}
	base, head := files(6, true)
	rep := compare.Compare(base, head, compare.DefaultThresholds())
	if ids := f.Samples(rep, tableOf(base), tableOf(head), 2); len(ids) != 2 {
		t.Errorf("Samples with limit 2 = %v", ids)
	}
	var viaRegistry, direct bytes.Buffer
	if err := f.Render(&viaRegistry, report.Input{Report: rep, Options: report.Options{Gate: "demo", BaselineSource: "file b.json"}, Base: tableOf(base), Head: tableOf(head), BaseSamples: base, HeadSamples: head, SampleLimit: 3}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&direct, rep, sidesOf(base, head), Options{Gate: "demo", BaselineSource: "file b.json", Limit: 3}); err != nil {
		t.Fatal(err)
	}
	if viaRegistry.String() != direct.String() {
		t.Error("the registered html format renders another page than Render with the same options")
	}
}
