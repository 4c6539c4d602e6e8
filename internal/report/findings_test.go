package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/compare"
)

// kinds returns every Kind constant declared in package compare, read from
// its source, so that a new kind without words fails this test.
func kinds(t *testing.T) []compare.Kind {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../compare/finding.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []compare.Kind
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Kind" {
				continue
			}
			for _, v := range vs.Values {
				out = append(out, compare.Kind(strings.Trim(v.(*ast.BasicLit).Value, `"`)))
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("found %d kinds in finding.go: the parser missed some", len(out))
	}
	return out
}

// TestEveryKindIsWorded: every finding kind has a sentence of its own,
// not the fallback that names the kind.
func TestEveryKindIsWorded(t *testing.T) {
	r := &compare.Report{Base: &compare.Side{}}
	for _, k := range kinds(t) {
		for _, level := range []compare.Level{compare.LevelFail, compare.LevelWarn, compare.LevelNote} {
			f := compare.Finding{Kind: k, Level: level, Metric: "faithfulness", Side: "head", Segment: "topic=billing", Key: "topic", N: 3, Of: 5}
			if got := Sentence(r, f); got == "" || got == string(k) {
				t.Errorf("%s at %s: %q", k, level, got)
			}
		}
	}
}

// TestFillWordsByLevel: Fill puts each finding in the list of its level,
// joins listing findings into one sentence, and gives each metric (and
// segment metric) its own reasons only.
func TestFillWordsByLevel(t *testing.T) {
	r := &compare.Report{
		Metrics: []compare.MetricResult{{Metric: "faithfulness"}, {Metric: "answer_relevancy"}},
		Segments: []compare.SegmentKey{{Key: "topic", Segments: []compare.Segment{{Key: "topic", Value: "billing",
			Metrics: []compare.SegmentMetric{{Metric: "faithfulness"}}}}}},
		Findings: []compare.Finding{
			{Kind: compare.KindRegression, Level: compare.LevelFail, Metric: "faithfulness", Value: 0.123, P: 0.0004},
			{Kind: compare.KindRegression, Level: compare.LevelWarn, Metric: "faithfulness", Segment: "topic=billing", Value: 0.0041, P: 0.012},
			{Kind: compare.KindFewPairs, Level: compare.LevelNote, Metric: "faithfulness", N: 3, Of: 10},
			{Kind: compare.KindFewPairs, Level: compare.LevelNote, Metric: "answer_relevancy", N: 4, Of: 10},
			{Kind: compare.KindRegression, Level: compare.LevelNote, ReportOnly: true, Metric: "answer_relevancy", Value: 0.2, P: 0.01},
			{Kind: compare.KindBelowFloor, Level: compare.LevelNote, ReportOnly: true, Metric: "answer_relevancy", Value: 0.5, Bound: 0.6},
		},
	}
	Fill(r)
	want := func(name string, got, want []string) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	want("failures", r.Failures, []string{"faithfulness regressed by 0.12 (p<0.001)"})
	want("warnings", r.Warnings, []string{"faithfulness regressed by 0.004 on topic=billing (p=0.012)"})
	want("notes", r.Notes, []string{
		"fewer than 10 paired samples, reported but not tested: faithfulness (3), answer_relevancy (4)",
		"report-only metrics (not gated, see the thresholds' gate and report_only): answer_relevancy regressed by 0.20 (p=0.010); answer_relevancy 0.50 below floor 0.60",
	})
	want("faithfulness reasons", r.Metrics[0].Reasons, []string{"faithfulness regressed by 0.12 (p<0.001)"})
	want("answer_relevancy reasons", r.Metrics[1].Reasons, []string{"answer_relevancy regressed by 0.20 (p=0.010)", "answer_relevancy 0.50 below floor 0.60"})
	want("segment reasons", r.Segments[0].Segments[0].Metrics[0].Reasons, []string{"faithfulness regressed by 0.004 on topic=billing (p=0.012)"})
}
