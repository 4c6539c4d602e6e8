package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// PValue is the p-value in the direction of the observed change: the
// test of a regression when the metric got worse, of an improvement
// otherwise, whatever the verdict.
func TestPValue(t *testing.T) {
	nan := results.NaN()
	for _, tt := range []struct {
		name  string
		delta results.Score
		want  results.Score
	}{
		{"worse", -0.04, 0.01},
		{"better", 0.04, 0.02},
		{"unchanged", 0, 0.02},
		{"undefined", nan, 0.02},
	} {
		p := compare.Paired{Delta: tt.delta, PWorseAdj: 0.01, PBetterAdj: 0.02}
		if got := PValue(p); got != tt.want {
			t.Errorf("%s: PValue = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// pReport has a metric that moved up without a significant change (its
// test of an improvement is tiny, its test of a regression near one) and
// a lower-is-better metric that got worse (its raw delta is positive).
func pReport() *compare.Report {
	m := func(name, dir string, raw, delta, pw, pb results.Score) compare.MetricResult {
		return compare.MetricResult{Metric: name, Direction: dir, Verdict: compare.VerdictNoChange, Change: compare.VerdictNoChange, Status: compare.StatusOK,
			BaseMean: 0.5, HeadMean: 0.5 + raw,
			Paired: compare.Paired{N: 40, PairedBaseMean: 0.5, PairedHeadMean: 0.5 + raw, RawDelta: raw, Delta: delta,
				RawDeltaCI: compare.Interval{Low: raw - 0.01, High: raw + 0.01}, PWorseAdj: pw, PBetterAdj: pb}}
	}
	return &compare.Report{Passed: true, Verdict: compare.VerdictPass, HasBaseline: true, Counts: compare.Counts{Base: 40, Head: 40, Paired: 40},
		Metrics: []compare.MetricResult{
			m("faithfulness", "higher", 0.012, 0.012, 0.97, 0.0004),
			m("noise_sensitivity_relevant", "lower", 0.015, -0.015, 0.0021, 0.99),
		}}
}

// Every renderer shows the p-value PValue picks: the comment, the job
// summary, the console and the action's summary-json (which used to show
// the test of a regression for every metric).
func TestEveryRendererShowsPValue(t *testing.T) {
	rep := pReport()
	var console bytes.Buffer
	if err := ConsoleWith(&console, rep, Options{}); err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"markdown": Markdown(rep, Options{}), "summary": Summary(rep, Options{}), "console": console.String()}
	for name, text := range texts {
		for metric, want := range map[string]string{"faithfulness": "<0.001", "noise_sensitivity_relevant": "0.002"} {
			line := lineOf(text, metric)
			if !strings.Contains(line, " "+want+" ") {
				t.Errorf("%s: the %s row %q does not show p %s", name, metric, line, want)
			}
		}
	}
	b, err := json.Marshal(SummaryJSON(rep))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Metrics []struct {
			Metric string
			P      float64
		}
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Metrics) != 2 || sum.Metrics[0].P != 0.0004 || sum.Metrics[1].P != 0.0021 {
		t.Errorf("summary-json metrics %+v, want p 0.0004 (faithfulness moved up) and 0.0021 (noise sensitivity got worse)", sum.Metrics)
	}
}

// lineOf is the first line of text that names metric in a table row.
func lineOf(text, metric string) string {
	for l := range strings.Lines(text) {
		if strings.Contains(l, metric) && strings.ContainsAny(l, "|│") {
			return l
		}
	}
	return ""
}

// The summary-json keeps its shape: passed, verdict, failures (worded,
// never null after Fill) and per metric its verdict, status, means,
// delta and p, undefined numbers as null.
func TestSummaryJSON(t *testing.T) {
	rep := pReport()
	rep.Metrics[0].HeadMean = results.NaN()
	b, err := json.Marshal(SummaryJSON(rep))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"failures":[],"metrics":[{"base":0.5,"delta":0.012,"head":null,"metric":"faithfulness","p":0.0004,"status":"ok","verdict":"~"},` +
		`{"base":0.5,"delta":0.015,"head":0.515,"metric":"noise_sensitivity_relevant","p":0.0021,"status":"ok","verdict":"~"}],"passed":true,"verdict":"pass"}`
	if string(b) != want {
		t.Errorf("summary-json\n got %s\nwant %s", b, want)
	}
}
