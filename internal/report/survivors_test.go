package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// Tests that pin figures and boundaries the golden cases do not reach
// (found by mutation testing, bench/mutation.sh).

// TestTrendLeavesOutEveryBaselineBeforeAJudgeChange: the count of left-out
// baselines includes the ones judged like the head before the change.
func TestTrendLeavesOutEveryBaselineBeforeAJudgeChange(t *testing.T) {
	r := caseNamed(t, "regression")
	h := trendOf(r, 5, 0)
	h.Points[2].Judge = "0ther0judge0000" // points 0, 1 and 2 are left out
	md := Markdown(r, Options{Trend: h})
	for _, want := range []string{
		"Trend: 2 stored baselines on main, then this head",
		"3 baselines judged by another judge left out (not comparable).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
}

// TestTrendWithOneBaseline: one stored baseline and the head make a chart
// of two points, and nothing is said about other judges.
func TestTrendWithOneBaseline(t *testing.T) {
	r := caseNamed(t, "regression")
	md := Markdown(r, Options{Trend: trendOf(r, 1, 0)})
	if !strings.Contains(md, "Trend: 1 stored baseline on main, then this head") || !strings.Contains(md, "```mermaid") {
		t.Errorf("no chart of one baseline and the head:\n%s", md)
	}
	if strings.Contains(md, "judged by another judge") {
		t.Errorf("comment speaks of other judges with none left out")
	}
}

func TestAxisRange(t *testing.T) {
	for _, tt := range []struct {
		lo, hi float64
		a, z   string
	}{
		{0.5, 0.5, "0.4", "0.5"}, // a flat series is a tenth wide
		{0.5, 0.7, "0.5", "0.7"}, // bounds on tenths stay
		{0.52, 0.68, "0.5", "0.7"},
		{0.3, 0.3, "0.2", "0.3"},
		{0, 0, "-0.1", "0.0"}, // never "-0.0"
		{0.95, 1, "0.9", "1.0"},
	} {
		if a, z := axisRange(tt.lo, tt.hi); a != tt.a || z != tt.z {
			t.Errorf("axisRange(%v, %v) = %s, %s, want %s, %s", tt.lo, tt.hi, a, z, tt.a, tt.z)
		}
	}
}

func TestEscapeEdges(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"2024", "2024"},
		{"1.", `1\.`},
		{"0. zero", `0\. zero`},
		{"9) nine", `9\) nine`},
		{". dot", ". dot"},
		{"a:/", "a:/"},
		{"a://", "a:\u200b//"},
		{"awww.-----", "awww.-----"},
		{"-www.x", "\\-www\u200b.x"},
		{"a\u202ab\u202ec\u2066d\u2069e\u200ef\u200fg\u061ch", "abcdefgh"},
		{"a\u2029b\u2065c\u206ad\u202fe", "a b\u2065c\u206ad e"},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatEdges(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{FormatCost(1), "$1.00"},
		{FormatCost(0.99994), "$0.9999"},
		{sayVs(0.7999994, 0.8), "0.7999994"},
		{sayVs(0.79, 0.8), "0.79"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestCodeSpans: a hash shows as a code span only when every character is
// plain; anything else is escaped text (a | in a code span would still
// split the table row).
func TestCodeSpans(t *testing.T) {
	if got := code("azAZ09.-_:", 40); got != "`azAZ09.-_:`" {
		t.Errorf("code(plain) = %q", got)
	}
	for _, s := range []string{"x|y", "x y", "x<y", "x~y", "x{y", "x@y", "x/y", "x`y", "é"} {
		if got := code(s, 40); strings.HasPrefix(got, "`") {
			t.Errorf("code(%q) = %q, want escaped text", s, got)
		}
	}
}

func TestCutBytes(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"héllo", 2, "h"},
		{"héllo", 3, "hé"},
		{"héllo", 0, ""},
	} {
		if got := cutBytes(tt.s, tt.n); got != tt.want {
			t.Errorf("cutBytes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// TestSummaryLimits: a rendering of exactly the limit is kept whole, and a
// hard cut keeps every whole line that fits with the notice.
func TestSummaryLimits(t *testing.T) {
	r := caseNamed(t, "regression")
	full := Summary(r, opts)
	o := opts
	o.Limit = len(full)
	if got := Summary(r, o); got != full {
		t.Errorf("summary of exactly the limit (%d bytes) was cut", len(full))
	}
	o.Limit = len(full) + MarkerRoom
	if got := Markdown(r, o); len(got) > len(full) {
		t.Errorf("comment with limit %d is %d bytes", o.Limit, len(got))
	}
	steps := ladder(false)
	last := render(r, opts, steps[len(steps)-1])
	notice := "\n_" + summaryNotice + "_\n"
	lines := strings.SplitAfter(last, "\n")
	keep := strings.Join(lines[:4], "")
	o.Limit = len(keep) + len(notice)
	if got, want := Summary(r, o), keep+notice; got != want {
		t.Errorf("hard cut at %d bytes:\n%q\nwant\n%q", o.Limit, got, want)
	}
}

// TestCommentMarkerRoom: the comment leaves MarkerRoom bytes for the
// markers once the limit allows 1 KiB of body, not before.
func TestCommentMarkerRoom(t *testing.T) {
	r := caseNamed(t, "regression")
	for _, tt := range []struct{ limit, budget int }{
		{MarkerRoom + 1024, 1024},
		{MarkerRoom + 1023, MarkerRoom + 1023},
		{1000, 1000},
	} {
		o := opts
		o.Limit = tt.limit
		if got, want := Markdown(r, o), fit(r, o, ladder(true), tt.budget); got != want {
			t.Errorf("limit %d: comment of %d bytes, want the %d-byte rendering within %d", tt.limit, len(got), len(want), tt.budget)
		}
	}
}

func TestWriteListCountsTheRest(t *testing.T) {
	var b strings.Builder
	writeList(&b, strings.Fields("a b c d e f g h i j k l"), profile{sentences: 10, textRunes: 100})
	if !strings.Contains(b.String(), "- … and 2 more\n") {
		t.Errorf("list:\n%s", b.String())
	}
}

// segReport is a hand-made report with significant segment changes of
// every rank, given in an order the reports must change.
func segReport() *compare.Report {
	r := &compare.Report{Passed: false, Verdict: compare.VerdictFail, HasBaseline: true}
	r.Settings.Defaults.MinSamples = 10
	sm := func(change compare.Verdict, st compare.Status, delta float64) compare.SegmentMetric {
		m := compare.SegmentMetric{Metric: "faithfulness", Change: change, Status: st}
		m.N, m.Delta, m.RawDelta = 40, results.Score(delta), results.Score(delta)
		m.PairedBaseMean, m.PairedHeadMean = 0.8, results.Score(0.8+delta)
		m.RawDeltaCI = compare.Interval{Low: results.Score(delta - 0.01), High: results.Score(delta + 0.01)}
		m.PBetterAdj, m.PWorseAdj = 0.9, 0.01
		return m
	}
	lost := sm(compare.VerdictNoChange, compare.StatusFail, 0)
	lost.LostScores, lost.Lost, lost.PLostAdj = true, 3, 0.02
	lostImproved := sm(compare.VerdictImprovement, compare.StatusFail, 0.02)
	lostImproved.LostScores, lostImproved.Lost, lostImproved.PLostAdj = true, 4, 0.03
	ro := sm(compare.VerdictRegression, compare.StatusOK, -0.30)
	ro.ReportOnly = true
	segs := []struct {
		v string
		m compare.SegmentMetric
	}{
		{"improved", sm(compare.VerdictImprovement, compare.StatusOK, 0.10)},
		{"reportonly", ro},
		{"warned", sm(compare.VerdictRegression, compare.StatusWarn, -0.20)},
		{"lostimproved", lostImproved},
		{"failed1", sm(compare.VerdictRegression, compare.StatusFail, -0.05)},
		{"lost", lost},
		{"failed2", sm(compare.VerdictRegression, compare.StatusFail, -0.05)},
		{"quiet", sm(compare.VerdictNoChange, compare.StatusOK, -0.01)},
	}
	k := compare.SegmentKey{Key: "topic", Values: len(segs)}
	for _, s := range segs {
		k.Segments = append(k.Segments, compare.Segment{Key: "topic", Value: s.v, Pairs: 40, Tested: true, Metrics: []compare.SegmentMetric{s.m}})
	}
	for i := range 5 { // improvements, after everything else
		m := sm(compare.VerdictImprovement, compare.StatusOK, 0.2+float64(i)/100)
		k.Segments = append(k.Segments, compare.Segment{Key: "topic", Value: fmt.Sprintf("better%d", i), Pairs: 40, Tested: true, Metrics: []compare.SegmentMetric{m}})
	}
	r.Segments = []compare.SegmentKey{k}
	return r
}

// segOrder is the order of the segments' values in text.
var segOrder = []string{"failed1", "failed2", "lost", "lostimproved", "warned", "reportonly", "improved", "better0", "better1", "better2", "better3", "better4"}

func checkSegOrder(t *testing.T, text string, want []string) {
	t.Helper()
	at := -1
	for _, v := range want {
		i := strings.Index(text, "topic="+v+" ")
		if i < 0 {
			i = strings.Index(text, "topic="+v+":")
		}
		if i < at {
			t.Errorf("topic=%s is not in its place (worst first: %v):\n%s", v, want, text)
			return
		}
		at = i
	}
}

// TestSegmentRowsWorstFirst: failing segment changes first (the largest
// drop first, ties in report order), then warnings, report-only changes
// and improvements; each row shows the p-value of its direction and its
// verdict.
func TestSegmentRowsWorstFirst(t *testing.T) {
	r := segReport()
	var b strings.Builder
	writeSegments(&b, r, profile{})
	md := b.String()
	checkSegOrder(t, md, segOrder)
	if strings.Contains(md, "topic=quiet") {
		t.Errorf("a segment without a significant change is listed")
	}
	for _, want := range []string{
		"| topic=lost | faithfulness | 40 | 0.800 | 0.800 | 0.000 | [-0.010, +0.010] | 0.900 | ❌ lost 3 scores (p 0.020) |",
		"| topic=failed1 | faithfulness | 40 | 0.800 | 0.750 | -0.050 | [-0.060, -0.040] | 0.010 | ❌ regression |",
		"| topic=warned | faithfulness | 40 | 0.800 | 0.600 | -0.200 | [-0.210, -0.190] | 0.010 | ⚠️ regression (warn level) |",
		"| topic=reportonly | faithfulness | 40 | 0.800 | 0.500 | -0.300 | [-0.310, -0.290] | 0.010 | regression, report-only |",
		"| topic=improved | faithfulness | 40 | 0.800 | 0.900 | +0.100 | [+0.090, +0.110] | 0.900 | ✅ improvement |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("segments lack %q:\n%s", want, md)
		}
	}
	b.Reset()
	writeSegments(&b, r, profile{segRows: 5})
	md = b.String()
	checkSegOrder(t, md, segOrder[:5])
	if !strings.Contains(md, "| … 7 more not shown (") || strings.Contains(md, "topic=reportonly") {
		t.Errorf("five rows of twelve:\n%s", md)
	}
	var c strings.Builder
	consoleSegments(&c, r)
	out := c.String()
	checkSegOrder(t, out, segOrder[:10])
	for _, want := range []string{
		"  - topic=lost: faithfulness 0.000 [-0.010, +0.010] 0.900, FAIL lost 3 scores (p 0.020) (n=40)\n",
		"  - topic=warned: faithfulness -0.200 [-0.210, -0.190] 0.010, WARN regression (warn level) (n=40)\n",
		"  ... and 2 more (--format json lists every segment)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}
}

// metricReport is a hand-made passing report with a baseline.
func metricReport(ms ...compare.MetricResult) *compare.Report {
	r := &compare.Report{Passed: true, Verdict: compare.VerdictPass, HasBaseline: true, Metrics: ms}
	r.Settings.Defaults.MinSamples = 10
	r.Counts = compare.Counts{Base: 50, Head: 50, Paired: 50}
	return r
}

func metric(name string, change compare.Verdict, n int, base, head float64) compare.MetricResult {
	m := compare.MetricResult{Metric: name, Direction: "higher", Change: change, Verdict: change, Status: compare.StatusOK,
		BaseMean: results.Score(base), HeadMean: results.Score(head), BaseN: 50, HeadN: 50}
	if n > 0 {
		m.N, m.PairedBaseMean, m.PairedHeadMean = n, results.Score(base), results.Score(head)
		m.Delta, m.RawDelta = results.Score(head-base), results.Score(head-base)
		m.PBetterAdj, m.PWorseAdj = 0.9, 0.2
	} else {
		m.PairedBaseMean, m.PairedHeadMean, m.Delta, m.RawDelta = results.NaN(), results.NaN(), results.NaN(), results.NaN()
		m.PBetterAdj, m.PWorseAdj = results.NaN(), results.NaN()
	}
	m.RawDeltaCI = compare.Interval{Low: results.NaN(), High: results.NaN()}
	return m
}

// TestTableFigures: a metric without pairs shows its all-sample means, and
// one without change shows the p-value of an improvement.
func TestTableFigures(t *testing.T) {
	r := metricReport(
		metric("faithfulness", compare.VerdictNoChange, 50, 0.8, 0.8),
		metric("context_recall", compare.VerdictInsufficientData, 0, 0.7, 0.6))
	md := Markdown(r, Options{})
	for _, want := range []string{
		": no significant regression\n", // zero pairs is not "too few pairs" (review of issue 22, 4)
		"| context_recall | 0.700 | 0.600 | n/a | n/a | n/a | not tested: no pairs |",
		"| faithfulness | 0.800 | 0.800 | 0.000 | n/a | 0.900 |",
		"| context_recall | 0.700 | 0.600 | n/a | n/a | n/a |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q:\n%s", want, md)
		}
	}
}

// TestHeadlineWithOnlyNewMetrics: a passing comparison whose metrics are
// all new is not "too few paired samples", nor "no significant
// regression": nothing gated was compared (review of issue 22, 4).
func TestHeadlineWithOnlyNewMetrics(t *testing.T) {
	r := metricReport(metric("faithfulness", compare.VerdictNewMetric, 0, results.NaN().Value(), 0.8))
	want := "no gated metric compared (1 new metric not in the baseline: store a baseline that scores them)"
	if h := headline(r); h.text != want || h.kind != kindWarn {
		t.Errorf("headline %q (%v), want %q, a warning", h.text, h.kind, want)
	}
}

func TestCeilingBreached(t *testing.T) {
	hi := 0.3
	m := metric("noise_sensitivity_relevant", compare.VerdictNoChange, 50, 0.25, 0.35)
	m.Direction, m.Floor, m.Status, m.Rule.Max = "lower", compare.FloorAboveMax, compare.StatusFail, &hi
	r := metricReport(m)
	r.Passed, r.Verdict = false, compare.VerdictFail
	if got := verdictCell(m).markdown(); !strings.Contains(got, "❌") || !strings.Contains(got, "above ceiling 0.30") {
		t.Errorf("verdict %q", got)
	}
}

// TestTableCapKeepsFailingMetrics: with more metrics than the table shows,
// the failing ones are kept and the rest counted.
func TestTableCapKeepsFailingMetrics(t *testing.T) {
	var ms []compare.MetricResult
	for i := range 45 {
		ms = append(ms, metric(fmt.Sprintf("m%02d", i), compare.VerdictNoChange, 50, 0.8, 0.8))
	}
	ms[44].Change, ms[44].Status, ms[44].Delta, ms[44].RawDelta = compare.VerdictRegression, compare.StatusFail, -0.1, -0.1
	var b strings.Builder
	writeTable(&b, metricReport(ms...), Options{}, profile{rowCap: 40})
	md := b.String()
	for _, want := range []string{"| m00 |", "| m38 |", "| m44 |", "| … 5 more metrics not shown |"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "| m39 |") {
		t.Errorf("table shows 41 metrics")
	}
}

func TestContextLine(t *testing.T) {
	r := metricReport()
	r.Head.Git = &results.Git{SHA: testHead}
	r.Base = &compare.Side{Git: &results.Git{SHA: testBase}}
	if got, want := contextLine(r, Options{RunURL: "http://ci.example/runs/1"}, true), "Head `9f3c2e1` · baseline `abc1234` · [workflow run](http://ci.example/runs/1)"; got != want {
		t.Errorf("context line %q, want %q", got, want)
	}
	if got, want := contextLine(r, Options{HeadSHA: testBase}, true), "Head `abc1234` · baseline `abc1234`"; got != want {
		t.Errorf("context line %q, want %q", got, want)
	}
}

func TestOnlyRemovedSamples(t *testing.T) {
	r := metricReport(metric("faithfulness", compare.VerdictNoChange, 50, 0.8, 0.8))
	r.Removed = []compare.SampleRef{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	r.Counts.Removed = 3
	md := Summary(r, Options{})
	if !strings.Contains(md, "<summary>New and removed samples (3 removed)</summary>") {
		t.Errorf("summary:\n%s", md)
	}
	r.New, r.Removed = r.Removed, nil
	if md := Summary(r, Options{}); !strings.Contains(md, "<summary>New and removed samples (3 new)</summary>") {
		t.Errorf("summary:\n%s", md)
	}
}

// TestFindingSentences: the listing and segment-key sentences name what
// the user has to fix.
func TestFindingSentences(t *testing.T) {
	r := metricReport()
	few := func(n int) []compare.Finding {
		var fs []compare.Finding
		for i := range n {
			fs = append(fs, compare.Finding{Kind: compare.KindSegmentFewPairs, Level: compare.LevelNote, Segment: fmt.Sprintf("topic=t%d", i), N: 3, Of: 10})
		}
		return fs
	}
	missing := compare.Finding{Kind: compare.KindSegmentKeyMissing, Level: compare.LevelWarn, Key: "Topic"}
	withSuggestion, withKnown := missing, missing
	withSuggestion.Suggestion = "topic"
	withKnown.Known = []string{"lang", "source"}
	for _, tt := range []struct {
		fs   []compare.Finding
		want string
	}{
		{[]compare.Finding{{Kind: compare.KindThresholdsUnused, Level: compare.LevelNote, Metric: "faithfulnes"}, {Kind: compare.KindThresholdsUnused, Level: compare.LevelNote, Metric: "recall"}},
			"the thresholds set rules for metrics neither side scored: faithfulnes, recall"},
		{few(10), "listed but not tested: topic=t0 (3), topic=t1 (3), topic=t2 (3), topic=t3 (3), topic=t4 (3), topic=t5 (3), topic=t6 (3), topic=t7 (3), topic=t8 (3), topic=t9 (3)"},
		{few(11), "topic=t8 (3), topic=t9 (3) and 1 more"},
		{[]compare.Finding{missing}, `segment key "Topic" is in no paired sample's metadata, so no segment was compared (the results carry no metadata`},
		{[]compare.Finding{withSuggestion}, `so no segment was compared; did you mean "topic"? (keys are column names as written, case included)`},
		{[]compare.Finding{withKnown}, `so no segment was compared; metadata keys: lang, source`},
		{[]compare.Finding{{Kind: compare.KindHeadTooSmall, Level: compare.LevelFail, N: 10, Of: 100, DatasetChanged: true}},
			"head pairs with only 10 of the base's 100 samples (at least half must pair): the dataset changed; store a baseline of the new dataset with `gate baseline put`"},
	} {
		r.Findings = tt.fs
		got := strings.Join(sentences(r, tt.fs[0].Level, nil), "\n")
		if !strings.Contains(got, tt.want) || strings.HasSuffix(tt.want, "(3)") && strings.Contains(got, "more") {
			t.Errorf("sentences %q, want %q", got, tt.want)
		}
	}
}

// historyOf is six stored baselines of main, the judge changed at the
// fourth; context_recall was added at the second.
func historyOf() *History {
	faith := []float64{0.8, 0.6, 0.7, 0.9, 0.75, 0.85}
	var files []HistoryFile
	for i, x := range faith {
		s := results.Sample{ID: "q-1", Scores: map[string]results.Score{"faithfulness": results.Score(x)}}
		names := []string{"faithfulness"}
		if i > 0 {
			s.Scores["context_recall"] = results.Score(0.5 + float64(i)/10)
			names = append(names, "context_recall")
		}
		f := fileFor(strings.Repeat(fmt.Sprint(i+1), 40), []results.Sample{s}, names)
		if i >= 3 {
			f.Judge.Fingerprint = "0ther0judge0000"
		}
		files = append(files, HistoryFile{SHA: f.Git.SHA, Date: created.Add(time.Duration(i) * time.Hour), File: f})
	}
	return NewHistory("main", files)
}

// TestHistoryOutputs: every format of the history shows each commit, its
// means, the judge change and the sparklines.
func TestHistoryOutputs(t *testing.T) {
	h := historyOf()
	var b bytes.Buffer
	if err := HistoryText(&b, h); err != nil {
		t.Fatal(err)
	}
	if want := `main: 6 stored baselines

  #  commit        date                  judge
  1  111111111111  2026-11-30 12:00Z     7e57ab1e5eed
  2  222222222222  2026-11-30 13:00Z     7e57ab1e5eed
  3  333333333333  2026-11-30 14:00Z     7e57ab1e5eed
  4  444444444444  2026-11-30 15:00Z     0ther0judge0  * judge changed: not comparable with the lines above
  5  555555555555  2026-11-30 16:00Z     0ther0judge0
  6  666666666666  2026-11-30 17:00Z     0ther0judge0

metric          trend      first     last      min      max
faithfulness    ▆▁▃|█▅▇    0.800    0.850    0.600    0.900
context_recall   ▁▃|▅▆█      n/a    1.000    0.600    1.000

| in a trend: the judge changed there (model, prompts or settings); values on either side are not comparable.
`; b.String() != want {
		t.Errorf("history text:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := HistoryMarkdown(&b, h); err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(`### raggate history: main

| Commit | Date | Judge | faithfulness | context_recall |
|:---|:---|:---|---:|---:|
| '111111111111' | 2026-11-30 12:00Z | '7e57ab1e5eed' | 0.800 | n/a |
| '222222222222' | 2026-11-30 13:00Z | '7e57ab1e5eed' | 0.600 | 0.600 |
| '333333333333' | 2026-11-30 14:00Z | '7e57ab1e5eed' | 0.700 | 0.700 |
| '444444444444' | 2026-11-30 15:00Z | '0ther0judge0' ⚠️ changed | 0.900 | 0.800 |
| '555555555555' | 2026-11-30 16:00Z | '0ther0judge0' | 0.750 | 0.900 |
| '666666666666' | 2026-11-30 17:00Z | '0ther0judge0' | 0.850 | 1.000 |
| trend | | | ▆▁▃\|█▅▇ |  ▁▃\|▅▆█ |

<sub>⚠️ changed: the judge fingerprint differs from the commit above (| in a trend): values across it are not comparable.</sub>
`, "'", "`"); b.String() != want {
		t.Errorf("history markdown:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := HistoryCSV(&b, h); err != nil {
		t.Fatal(err)
	}
	if want := `commit,date,judge,judge_changed,faithfulness,context_recall
1111111111111111111111111111111111111111,2026-11-30T12:00:00Z,7e57ab1e5eed1234abcd,false,0.8,
2222222222222222222222222222222222222222,2026-11-30T13:00:00Z,7e57ab1e5eed1234abcd,false,0.6,0.6
3333333333333333333333333333333333333333,2026-11-30T14:00:00Z,7e57ab1e5eed1234abcd,false,0.7,0.7
4444444444444444444444444444444444444444,2026-11-30T15:00:00Z,0ther0judge0000,true,0.9,0.8
5555555555555555555555555555555555555555,2026-11-30T16:00:00Z,0ther0judge0000,false,0.75,0.9
6666666666666666666666666666666666666666,2026-11-30T17:00:00Z,0ther0judge0000,false,0.85,1
`; b.String() != want {
		t.Errorf("history csv:\n%s\nwant\n%s", b.String(), want)
	}
	j, err := HistoryJSON(h)
	if err != nil {
		t.Fatal(err)
	}
	var back History
	if err := json.Unmarshal(j, &back); err != nil || len(back.Points) != 6 || !back.Points[3].JudgeChanged || back.Points[4].JudgeChanged || back.Points[5].Means["faithfulness"] != 0.85 {
		t.Errorf("history json does not read back (%v):\n%s", err, j)
	}
}

// TestHistoryWithoutJudgeChange: no change is marked or explained.
func TestHistoryWithoutJudgeChange(t *testing.T) {
	h := historyOf()
	h.Points = h.Points[:3]
	var b bytes.Buffer
	if err := HistoryText(&b, h); err != nil {
		t.Fatal(err)
	}
	if err := HistoryMarkdown(&b, h); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Contains(out, "changed") || strings.Contains(out, "|▁") {
		t.Errorf("history without a judge change:\n%s", out)
	}
}

// TestRunTableOrder: the run table lists the catalogue's metrics in
// catalogue order, then user-defined ones by name.
func TestRunTableOrder(t *testing.T) {
	names := []string{"zeta_custom", "context_recall", "alpha_custom", "faithfulness", "noise_sensitivity_relevant"}
	s := results.Sample{ID: "q-1", Scores: map[string]results.Score{}}
	for i, n := range names {
		s.Scores[n] = results.Score(float64(i) / 10)
	}
	f := fileFor(testHead, []results.Sample{s}, names)
	f.Summary = results.Summarize(names, f.Samples)
	var b bytes.Buffer
	if err := RunTable(&b, f); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	at := -1
	for _, n := range []string{"context_recall", "faithfulness", "noise_sensitivity_relevant", "alpha_custom", "zeta_custom"} {
		i := strings.Index(out, " "+n+" ")
		if i < at {
			t.Fatalf("%s out of order:\n%s", n, out)
		}
		at = i
	}
	if !strings.Contains(out, "0.400") || !strings.Contains(out, "lower") {
		t.Errorf("run table lacks a mean or a direction:\n%s", out)
	}
}
