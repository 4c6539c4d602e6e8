package report

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// hugeReport compares 5,000-sample files with long questions and judge
// reasons full of characters that grow when escaped, over the default
// metrics plus forty custom ones with long names.
var hugeReport = sync.OnceValue(func() *compare.Report {
	specs := defaultSpecs()
	specs = setSpec(specs, "faithfulness", func(s *metricSpec) { s.pHead, s.changed = 0.8, 0.5 })
	specs = setSpec(specs, "context_recall", func(s *metricSpec) { s.pHead, s.changed = 0.75, 0.5 })
	for i := range 40 {
		specs = append(specs, metricSpec{name: fmt.Sprintf("custom_groundedness_check_with_a_long_descriptive_name_%02d", i),
			pBase: 0.8, pHead: 0.7, changed: 0.6, statements: 4})
	}
	b, h := pairFiles(11, 4000, 1000, 1000, specs)
	long := func(i int, what string) string {
		return fmt.Sprintf("%s %d: ", what, i) + strings.Repeat("A <long> & winding | question about `refunds` @support [see](x) ", 20+i%20)
	}
	for _, f := range []*results.File{b, h} {
		for i := range f.Samples {
			s := &f.Samples[i]
			s.Question = long(i, "question")
			for m := range s.Reasons {
				s.Reasons[m] = long(i, "reason")
			}
		}
	}
	// Judge reasons quoting code are dense with characters that grow
	// when escaped.
	dense := strings.Repeat("if a<b && c>d { return x|y } ", 12)
	for i := range h.Samples {
		s := &h.Samples[i]
		s.Reasons = map[string]string{}
		for m := range s.Scores {
			s.Reasons[m] = fmt.Sprintf("%s on sample %d: %s", m, i, dense)
		}
	}
	th, err := compare.ParseThresholds("raggate.yaml", []byte(thresholdsYAML))
	if err != nil {
		panic(err)
	}
	return compare.Config{Bootstrap: 200, PermutationDraws: 1000}.Compare(b, h, th)
})

func TestHuge(t *testing.T) {
	r := hugeReport()
	if r.Counts.Paired != 4000 || r.Counts.New != 1000 || r.Counts.Removed != 1000 || len(r.Metrics) < 25 {
		t.Fatalf("fixture: counts %+v, %d metrics", r.Counts, len(r.Metrics))
	}
	md := Markdown(r, opts)
	golden(t, "huge.md", []byte(md))
	if len(md)+MarkerRoom > MaxCommentBytes {
		t.Errorf("comment is %d bytes (+%d for markers), limit %d", len(md), MarkerRoom, MaxCommentBytes)
	}
	if !strings.Contains(md, commentNotice[:40]) || !strings.Contains(md, "[workflow run](") {
		t.Error("the cut comment does not say so")
	}
	for _, want := range []string{"### ❌ raggate: ", "| Metric | Base | Head |", "**Failures**", "**Samples:** 4,000 paired · 1,000 new · 1,000 removed"} {
		if !strings.Contains(md, want) {
			t.Errorf("the cut comment lost %q", want)
		}
	}
	checkMarkdown(t, md)

	sum := Summary(r, opts)
	if len(sum) > MaxSummaryBytes {
		t.Errorf("summary is %d bytes", len(sum))
	}
	if strings.Contains(sum, summaryNotice) || !strings.Contains(sum, "Most regressed samples (10)") {
		t.Errorf("summary of the huge report was cut or lost its samples")
	}
	checkMarkdown(t, sum)
}

// TestLimits renders the huge report at many limits: the output always
// fits, says when it was cut, and keeps the verdict as long as there is room.
func TestLimits(t *testing.T) {
	r := hugeReport()
	fullMD, fullSum := Markdown(r, Options{Limit: 1 << 30}), Summary(r, Options{Limit: 1 << 30})
	if strings.Contains(fullMD+fullSum, "Some details were left out") {
		t.Fatal("an unlimited report was cut")
	}
	for _, limit := range []int{1, 100, 500, 2000, 4000, 16000, 40000, 65536, 200000} {
		for _, kind := range []string{"markdown", "summary"} {
			out, full, reserve := Summary(r, Options{Limit: limit}), fullSum, 0
			if kind == "markdown" {
				out, full, reserve = Markdown(r, Options{Limit: limit}), fullMD, MarkerRoom
			}
			if len(out) > limit {
				t.Errorf("%s limit %d: %d bytes", kind, limit, len(out))
			}
			switch {
			case len(full)+reserve <= limit:
				if out != full {
					t.Errorf("%s limit %d: cut although the whole report fits", kind, limit)
				}
			case limit >= 500 && !strings.Contains(out, "Some details were left out"):
				t.Errorf("%s limit %d: cut without a notice", kind, limit)
			}
			if limit >= 4000 && (!strings.Contains(out, "### ❌ raggate: ") || !strings.Contains(out, "| faithfulness |")) {
				t.Errorf("%s limit %d: lost the title or the table", kind, limit)
			}
		}
	}
}

// TestPathological fits a report whose required parts alone are too big.
func TestPathological(t *testing.T) {
	r := &compare.Report{Verdict: compare.VerdictFail, HasBaseline: true, Base: &compare.Side{}}
	for i := range 800 {
		name := fmt.Sprintf("metric_%04d_%s", i, strings.Repeat("<x>|", 50))
		r.Metrics = append(r.Metrics, compare.MetricResult{Metric: name, Direction: "higher", Change: compare.VerdictRegression,
			Status: compare.StatusFail, Paired: compare.Paired{N: 20, PairedBaseMean: 0.9, PairedHeadMean: 0.8, RawDelta: -0.1,
				RawDeltaCI: compare.Interval{Low: -0.2, High: -0.05}, PWorseAdj: 0.001, Delta: -0.1}})
		r.Findings = append(r.Findings, compare.Finding{Kind: compare.KindRegression, Level: compare.LevelFail, Metric: name, Value: 0.1, P: 0.001})
	}
	for _, limit := range []int{0, 1000, 20000} {
		md := Markdown(r, Options{Limit: limit})
		if l := limit; l == 0 && len(md) > MaxCommentBytes || l > 0 && len(md) > l {
			t.Errorf("limit %d: %d bytes", limit, len(md))
		}
		if !strings.Contains(md, "Some details were left out") {
			t.Errorf("limit %d: no notice", limit)
		}
		checkMarkdown(t, md)
	}
	if md := Markdown(r, Options{}); !strings.Contains(md, "more metrics not shown") {
		t.Error("the row cap does not say how many rows are hidden")
	}
}

var (
	allowedTag = regexp.MustCompile(`^<(!-- raggate:(gate|head)=[^\n]* -->|/?details( open)?>|/?summary>|/?sub>|br>|0\.001)`)
	mention    = regexp.MustCompile(`@[\p{L}\p{N}_-]`)
)

// checkMarkdown checks a rendered report: the only HTML is ours, nothing
// pings, and every table row has the cells of its header.
func checkMarkdown(t *testing.T, md string) {
	t.Helper()
	for i := 0; i < len(md); i++ {
		if md[i] == '<' && !allowedTag.MatchString(md[i:]) {
			t.Errorf("raw HTML at byte %d: %q", i, md[i:min(len(md), i+40)])
			return
		}
	}
	if m := mention.FindStringIndex(md); m != nil {
		t.Errorf("mention at byte %d: %q", m[0], md[m[0]:min(len(md), m[0]+30)])
	}
	cells := -1
	for line := range strings.SplitSeq(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cells = -1
			continue
		}
		n := countCells(line)
		if cells == -1 {
			cells = n
		} else if n != cells {
			t.Errorf("table row with %d cells, header has %d: %q", n, cells, line[:min(len(line), 200)])
			return
		}
	}
}

func TestGoldenMarkdownIsWellFormed(t *testing.T) {
	for _, c := range cases {
		r := c.make(t)
		checkMarkdown(t, Markdown(r, opts))
		checkMarkdown(t, Summary(r, opts))
	}
}

// TestManySegmentsFit: ten keys of fifty long, hostile values, every
// segment and metric a significant regression (2,500 failures), still fit
// the comment, worst first, and the comment says how many rows it left out.
func TestManySegmentsFit(t *testing.T) {
	var base reportCase
	for _, base = range cases {
		if base.name == "segments" {
			break
		}
	}
	r := base.make(t)
	r.Segments, r.Findings = nil, nil
	for k := range 10 {
		key := compare.SegmentKey{Key: fmt.Sprintf("key_%d_%s", k, strings.Repeat("<k>|", 20)), Values: 50}
		for v := range 50 {
			seg := compare.Segment{Key: key.Key, Value: fmt.Sprintf("value %02d %s", v, strings.Repeat("@team|<b>", 30)), Pairs: 20, Tested: true}
			for _, m := range r.Metrics {
				d := -0.05 - 0.0001*float64(k*50+v)
				seg.Metrics = append(seg.Metrics, compare.SegmentMetric{Metric: m.Metric, Change: compare.VerdictRegression,
					Verdict: compare.VerdictRegression, Status: compare.StatusFail, Paired: compare.Paired{N: 20, PairedBaseMean: 0.9,
						PairedHeadMean: results.Score(0.9 + d), RawDelta: results.Score(d), Delta: results.Score(d),
						RawDeltaCI: compare.Interval{Low: -0.2, High: -0.01}, PWorseAdj: 0.001, PBetterAdj: 1}})
				r.Findings = append(r.Findings, compare.Finding{Kind: compare.KindRegression, Level: compare.LevelFail,
					Metric: m.Metric, Segment: seg.Key + "=" + seg.Value, Value: -d, P: 0.001})
			}
			key.Segments = append(key.Segments, seg)
		}
		r.Segments = append(r.Segments, key)
	}
	md := Markdown(r, opts)
	if len(md)+MarkerRoom > MaxCommentBytes {
		t.Fatalf("comment is %d bytes", len(md))
	}
	checkMarkdown(t, md)
	for _, want := range []string{"<summary>Segments: 2500 significant changes</summary>", "more not shown (`gate compare --format json` lists every segment)",
		"| key_9", "value 49", "❌ regression |"} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	if i, j := strings.Index(md, "value 49"), strings.Index(md, "value 48"); i < 0 || j >= 0 && j < i {
		t.Error("the worst segment is not first")
	}
}
