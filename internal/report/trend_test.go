package report

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// trendOf makes a history of n stored baselines of main for r's metrics
// (seeded), the first `other` judged by another judge.
func trendOf(r *compare.Report, n, other int) *History {
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	h := &History{Schema: HistorySchema, Branch: "main"}
	for _, m := range r.Metrics {
		h.Metrics = append(h.Metrics, m.Metric)
	}
	for i := range n {
		p := HistoryPoint{SHA: fmt.Sprintf("%016x%016x%08x", rng.Uint64(), rng.Uint64(), rng.Uint32()), Date: created.Add(time.Duration(i-n) * 24 * time.Hour),
			Judge: r.Head.Judge.Fingerprint, Means: map[string]results.Score{}}
		if i < other {
			p.Judge = "0ther0judge0000"
		}
		p.JudgeChanged = i == other && other > 0
		for _, m := range r.Metrics {
			base := m.BaseMean.Value()
			if !finite(base) {
				base = 0.8
			}
			p.Means[m.Metric] = results.Score(min(1, max(0, base+0.04*(rng.Float64()-0.5))))
		}
		h.Points = append(h.Points, p)
	}
	return h
}

func caseNamed(t *testing.T, name string) *compare.Report {
	for _, c := range cases {
		if c.name == name {
			return c.make(t)
		}
	}
	t.Fatalf("no case %s", name)
	return nil
}

// TestGoldenTrend: the comment, summary and console table of a regression
// with 12 stored baselines of main, the first 2 judged otherwise.
func TestGoldenTrend(t *testing.T) {
	r := caseNamed(t, "regression")
	o := opts
	o.Trend = trendOf(r, 12, 2)
	md := Markdown(r, o)
	golden(t, "trend.md", []byte(md))
	for _, want := range []string{
		"| Metric | Base | Head | Δ | 95% CI | p | Verdict | Trend |",
		"<details><summary>Trend: 10 stored baselines on main, then this head</summary>",
		"2 baselines judged by another judge left out (not comparable).",
		"```mermaid\nxychart-beta\n  title \"faithfulness\"\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	// One chart per gated metric: the report-only ones get none.
	gated := 0
	for _, m := range r.Metrics {
		if !m.ReportOnly {
			gated++
		}
	}
	if got := strings.Count(md, "```mermaid"); got != gated {
		t.Errorf("%d charts, want %d (the gated metrics)", got, gated)
	}
	// The head's mean is the last point of each chart and of each sparkline.
	faith := r.Metrics[2]
	if faith.Metric != "faithfulness" || !strings.Contains(md, fmt.Sprintf(", %.3f]\n```", faith.HeadMean.Value())) {
		t.Errorf("the faithfulness chart does not end with the head's mean %.3f", faith.HeadMean.Value())
	}
	sum := Summary(r, o)
	golden(t, "trend.summary.md", []byte(sum))
	if !strings.Contains(sum, "<details open><summary>Trend:") {
		t.Error("the summary's trend is not open")
	}
	var buf bytes.Buffer
	if err := ConsoleWith(&buf, r, o); err != nil {
		t.Fatal(err)
	}
	golden(t, "trend.txt", buf.Bytes())
	if !strings.Contains(strings.SplitN(buf.String(), "\n", 5)[3], " trend ") {
		t.Error("the console table has no trend column")
	}
}

// A history judged entirely by another judge gives no trend at all.
func TestTrendOtherJudgeOnly(t *testing.T) {
	r := caseNamed(t, "regression")
	o := opts
	o.Trend = trendOf(r, 5, 5)
	if md := Markdown(r, o); strings.Contains(md, "mermaid") || strings.Contains(md, "| Trend |") {
		t.Error("a trend across a judge change was drawn")
	}
}

// TestTrendFits: 30 commits x 16 metrics of history still fit the comment
// with its charts; and when the comment is too big the charts are the
// first thing dropped, before any other detail.
func TestTrendFits(t *testing.T) {
	specs := defaultSpecs()
	for i := range 11 {
		specs = append(specs, metricSpec{name: fmt.Sprintf("custom_metric_%02d", i), pBase: 0.8, pHead: 0.8, changed: 0.2, statements: 5})
	}
	b, h := pairFiles(5, 200, 3, 3, specs)
	th := thresholds(t)
	th.Gate = nil
	for _, s := range specs {
		th.Gate = append(th.Gate, s.name)
	}
	r := compare.Config{Bootstrap: 200, PermutationDraws: 1000}.Compare(b, h, th)
	if len(r.Metrics) != 16 {
		t.Fatalf("%d metrics", len(r.Metrics))
	}
	o := opts
	o.Trend = trendOf(r, 30, 0)
	md := Markdown(r, o)
	if len(md)+MarkerRoom > MaxCommentBytes {
		t.Errorf("comment is %d bytes", len(md))
	}
	if n := strings.Count(md, "```mermaid"); n != 16 || strings.Contains(md, commentNotice[:30]) {
		t.Errorf("%d charts (want 16), or the comment was cut", n)
	}

	full := Markdown(r, Options{Trend: o.Trend, Limit: 1 << 30})
	noChart := Markdown(r, Options{Limit: 1 << 30})
	limit := len(full) - 10 + MarkerRoom
	cut := Markdown(r, Options{Trend: o.Trend, Limit: limit})
	if strings.Contains(cut, "```mermaid") || !strings.Contains(cut, commentNotice[:30]) {
		t.Fatal("the charts were not dropped first, or without a notice")
	}
	// Everything else is still there: the notice and the table's trend
	// column are the only differences from a report without a trend.
	for _, want := range []string{"Distributions and sensitivity", "Usage and cost", "Judge and dataset"} {
		if strings.Contains(noChart, want) && !strings.Contains(cut, want) {
			t.Errorf("dropping the charts also dropped %q", want)
		}
	}
}

func TestSparkline(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{0, 0.5, 1}, "▁▅█"},
		{[]float64{0.7, 0.7}, "▄▄"},
		{[]float64{0.2, results.NaN().Value(), 0.4}, "▁ █"},
		{nil, ""},
	} {
		if got := Sparkline(c.in); got != c.want {
			t.Errorf("Sparkline(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
