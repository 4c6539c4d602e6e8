package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/goldenfile"
	"github.com/raggate/raggate/internal/results"
)

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

var (
	created  = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	testHead = "9f3c2e1b7a6d5c4b3a29180706f5e4d3c2b1a090"
	testBase = "abc1234def5678901234567890abcdef12345678"
	opts     = Options{
		HeadSHA:        testHead,
		BaselineSource: "baseline from abc1234 (nearest ancestor of main with a stored baseline)",
		RunURL:         "https://github.com/acme/rag-service/actions/runs/987654321",
	}
)

// optsFor returns the render options of a golden case: the caller names
// the baseline it used, or says there was none.
func optsFor(name string) Options {
	o := opts
	if name == "no_baseline" {
		o.BaselineSource = "no baseline yet for main: floors only"
	}
	return o
}

const thresholdsYAML = `version: 1
defaults:
  tolerance: 0.02
  alpha: 0.05
metrics:
  faithfulness:       {min: 0.85, tolerance: 0.03}
  context_recall:     {min: 0.80}
  context_precision:  {min: 0.70}
  answer_relevancy:   {min: 0.80, level: warn}
  noise_sensitivity_relevant: {max: 0.30}
`

func thresholds(t testing.TB) compare.Thresholds {
	t.Helper()
	th, err := compare.ParseThresholds(".github/raggate.yaml", []byte(thresholdsYAML))
	if err != nil {
		t.Fatal(err)
	}
	return th
}

var questions = []string{
	"How long is the refund window for orders placed during a sale?",
	"Can I change the delivery address after the order has shipped?",
	"What does the premium plan include that the basic plan does not?",
	"How do I reset two-factor authentication if I lost my phone?",
	"Which payment methods are accepted for international orders?",
	"Is there a warranty on refurbished laptops, and how long does it last?",
	"How are shipping costs calculated for oversized items?",
	"Can a gift card be used together with a discount code?",
	"What happens to my data when I close my account?",
	"How do I export my invoices for the last financial year?",
	"Why was my order split into several deliveries?",
	"Do you offer student discounts on annual subscriptions?",
}

var reasons = map[string][]string{
	"faithfulness": {
		"The response says refunds take 14 days; the retrieved policy says 30 days.",
		"The claim that premium includes phone support is not in any retrieved context.",
		"Two of five statements (a 2-year warranty, free return shipping) are not supported by the contexts.",
	},
	"context_recall": {
		"The reference mentions the customs fee, but no retrieved chunk covers it.",
		"The retrieved chunks cover the first half of the reference answer only.",
	},
}

// metricSpec generates one metric's scores: each sample's score is the
// fraction of `statements` judge verdicts that came out true with
// probability pBase (base) or pHead (head). A share `changed` of the
// samples is re-judged on head; the others keep their base score, as the
// judge cache guarantees for unchanged inputs.
type metricSpec struct {
	name         string
	pBase, pHead float64
	changed      float64
	statements   int
}

// fileFor builds a results file.
func fileFor(sha string, samples []results.Sample, metricNames []string) *results.File {
	return &results.File{
		Schema:    results.Schema,
		Tool:      results.Tool{Name: "raggate", Version: "v0.1.0"},
		CreatedAt: created,
		Git:       &results.Git{SHA: sha, Ref: "refs/heads/main"},
		Dataset:   results.Dataset{Path: "eval/golden.jsonl", SHA256: "5d41402abc4b2a76b9719d911017c592ae2b8e1f0c3d", Samples: len(samples)},
		Judge: results.Judge{Provider: "openai", Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small",
			Prompts: "c0ffee00d15ea5e5", Fingerprint: "7e57ab1e5eed1234abcd"},
		Config: results.Config{Metrics: metricNames, Repeats: 1},
		Usage: results.Usage{ChatCalls: 9 * len(samples), CachedCalls: 2 * len(samples), PromptTokens: 1530 * len(samples),
			CompletionTokens: 210 * len(samples), EmbeddingTokens: 95 * len(samples), EmbeddingCalls: 1 + len(samples)/64,
			EstimatedCostUSD: 0.00031 * float64(len(samples))},
		Samples: samples,
	}
}

// pairFiles builds base and head files: base has ids [0, n+removed), head
// has ids [removed, n+removed+added); the samples in between are paired.
func pairFiles(seed uint64, n, removed, added int, specs []metricSpec) (*results.File, *results.File) {
	rng := rand.New(rand.NewPCG(seed, 7))
	frac := func(p float64, k int) float64 {
		hits := 0
		for range k {
			if rng.Float64() < p {
				hits++
			}
		}
		return float64(hits) / float64(k)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	var bs, hs []results.Sample
	for i := range n + removed + added {
		id := fmt.Sprintf("q-%03d", i)
		q := questions[i%len(questions)]
		b := results.Sample{ID: id, Question: q, Scores: map[string]results.Score{}}
		h := results.Sample{ID: id, Question: q, Scores: map[string]results.Score{}}
		for _, s := range specs {
			k := max(s.statements, 1)
			bv := frac(s.pBase, k)
			hv := bv
			if rng.Float64() < s.changed {
				hv = frac(s.pHead, k)
			}
			b.Scores[s.name] = results.Score(bv)
			h.Scores[s.name] = results.Score(hv)
			if rs := reasons[s.name]; len(rs) > 0 && hv < bv {
				if h.Reasons == nil {
					h.Reasons = map[string]string{}
				}
				h.Reasons[s.name] = rs[i%len(rs)]
			}
		}
		if i < n+removed {
			bs = append(bs, b)
		}
		if i >= removed {
			hs = append(hs, h)
		}
	}
	return fileFor(testBase, bs, names), fileFor(testHead, hs, names)
}

// defaultSpecs is a healthy pipeline that did not change.
func defaultSpecs() []metricSpec {
	return []metricSpec{
		{name: "context_precision", pBase: 0.82, pHead: 0.82, changed: 0.2, statements: 5},
		{name: "context_recall", pBase: 0.88, pHead: 0.88, changed: 0.2, statements: 5},
		{name: "faithfulness", pBase: 0.93, pHead: 0.93, changed: 0.2, statements: 6},
		{name: "answer_relevancy", pBase: 0.88, pHead: 0.88, changed: 0.2, statements: 8},
		{name: "noise_sensitivity_relevant", pBase: 0.12, pHead: 0.12, changed: 0.2, statements: 5},
	}
}

func setSpec(specs []metricSpec, name string, f func(*metricSpec)) []metricSpec {
	for i := range specs {
		if specs[i].name == name {
			f(&specs[i])
			return specs
		}
	}
	panic("no spec " + name)
}

type reportCase struct {
	name  string
	build func(t testing.TB) *compare.Report
}

var (
	builtMu sync.Mutex
	built   = map[string]*compare.Report{}
)

// make returns a shallow copy of the case's report, built once.
func (c reportCase) make(t testing.TB) *compare.Report {
	builtMu.Lock()
	defer builtMu.Unlock()
	r, ok := built[c.name]
	if !ok {
		r = c.build(t)
		built[c.name] = r
	}
	cp := *r
	return &cp
}

var cases = []reportCase{
	{"pass", func(t testing.TB) *compare.Report {
		b, h := pairFiles(1, 50, 0, 0, defaultSpecs())
		return compare.Compare(b, h, thresholds(t))
	}},
	{"regression", func(t testing.TB) *compare.Report {
		specs := defaultSpecs()
		specs = setSpec(specs, "faithfulness", func(s *metricSpec) { s.pHead, s.changed = 0.74, 0.6 })
		specs = setSpec(specs, "context_recall", func(s *metricSpec) { s.pHead, s.changed = 0.70, 0.6 })
		b, h := pairFiles(2, 48, 1, 2, specs)
		return compare.Compare(b, h, thresholds(t))
	}},
	{"improvement", func(t testing.TB) *compare.Report {
		specs := append(defaultSpecs(), metricSpec{name: "precision_at_k", pBase: 0.6, pHead: 0.8, changed: 0.7, statements: 5})
		specs = setSpec(specs, "context_precision", func(s *metricSpec) { s.pBase, s.pHead, s.changed = 0.7, 0.92, 0.7 })
		b, h := pairFiles(3, 60, 0, 0, specs)
		return compare.Compare(b, h, thresholds(t))
	}},
	{"no_baseline", func(t testing.TB) *compare.Report {
		specs := append(defaultSpecs(), metricSpec{name: "semantic_similarity", pBase: 0.9, pHead: 0.9, statements: 10})
		specs = setSpec(specs, "context_recall", func(s *metricSpec) { s.pBase = 0.72 })
		_, h := pairFiles(4, 30, 0, 0, specs)
		return compare.Compare(nil, h, thresholds(t))
	}},
	{"judge_changed", func(t testing.TB) *compare.Report {
		b, h := pairFiles(5, 40, 0, 0, defaultSpecs())
		h.Judge.Model, h.Judge.Fingerprint = "gpt-4o", "0ddba11cafe5678"
		h.Dataset.SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b"
		b.Config.Repeats, h.Config.Repeats = 3, 3
		for _, f := range []*results.File{b, h} {
			for i := range f.Samples {
				s := &f.Samples[i]
				v := s.Scores["faithfulness"].Value()
				s.Runs = map[string][]results.Score{"faithfulness": {results.Score(v), results.Score(v), results.Score(min(1, v+0.05*float64(i%3)))}}
			}
		}
		return compare.Compare(b, h, thresholds(t))
	}},
	{"insufficient", func(t testing.TB) *compare.Report {
		b, h := pairFiles(6, 6, 0, 0, defaultSpecs())
		for i := range h.Samples {
			h.Samples[i].Scores["semantic_similarity"] = results.Score(0.8 + 0.02*float64(i))
		}
		h.Config.Metrics = append(h.Config.Metrics, "semantic_similarity")
		return compare.Compare(b, h, thresholds(t))
	}},
	{"warnings", func(t testing.TB) *compare.Report {
		specs := defaultSpecs()
		specs = setSpec(specs, "answer_relevancy", func(s *metricSpec) { s.pBase, s.pHead, s.changed = 0.85, 0.6, 0.7 })
		b, h := pairFiles(8, 45, 0, 0, specs)
		b.Incomplete = "time budget of 10m0s exceeded"
		return compare.Compare(b, h, thresholds(t))
	}},
	{"lost_scores", func(t testing.TB) *compare.Report {
		// Garbage answers: a third of the head's responses have nothing to
		// judge, so the response metrics are undefined there.
		specs := append(defaultSpecs(), metricSpec{name: "semantic_similarity", pBase: 0.9, pHead: 0.9, statements: 10})
		b, h := pairFiles(9, 30, 0, 0, specs)
		for i := range 10 {
			s := &h.Samples[i]
			s.Undefined = map[string]string{}
			for _, m := range []string{"faithfulness", "answer_relevancy", "semantic_similarity"} {
				s.Scores[m] = results.NaN()
				s.Undefined[m] = "no statements in response"
			}
			s.Reasons = nil
		}
		return compare.Compare(b, h, thresholds(t))
	}},
	{"segments", func(t testing.TB) *compare.Report {
		// Faithfulness drops on the billing questions only.
		b, h := segmentFiles(10, 60, 0.15)
		th, err := compare.ParseThresholds(".github/raggate.yaml", []byte(segmentThresholdsYAML))
		if err != nil {
			t.Fatal(err)
		}
		return compare.Compare(b, h, th)
	}},
	{"untrusted", func(t testing.TB) *compare.Report {
		specs := defaultSpecs()
		specs = setSpec(specs, "faithfulness", func(s *metricSpec) { s.pHead, s.changed = 0.6, 0.8 })
		b, h := pairFiles(7, 30, 1, 1, specs)
		evil := []string{
			"@octocat please look <script>alert(1)</script> | col | ![img](https://evil.example/x.png)",
			"```\nfenced\n```\n# heading [link](https://evil.example) **bold** owner/repo#12 $x^2$",
			"1. ordered? \\| backslash-pipe & &lt;entity&gt; \u202eevil\u202c ~~strike~~ <!-- raggate:gate=raggate -->",
		}
		for i := range h.Samples {
			s := &h.Samples[i]
			s.Question = evil[i%len(evil)]
			for m := range s.Reasons {
				s.Reasons[m] = "judge says: " + evil[(i+1)%len(evil)]
			}
		}
		for i := range h.Samples {
			h.Samples[i].Scores["x|<b>@team\x1b[2J_metric"] = results.Score(0.5)
			b.Samples[i].Scores["x|<b>@team\x1b[2J_metric"] = results.Score(0.5)
			h.Samples[i].Scores["www.evil.example/metric"] = results.Score(0.5)
			b.Samples[i].Scores["www.evil.example/metric"] = results.Score(0.5)
		}
		h.Samples[0].ID = "id|with|pipes @admin"
		h.Samples[len(h.Samples)-1].Question = "new: <img src=x onerror=alert(1)> @everyone"
		b.Samples[0].Question = "removed: [click](javascript:alert(1))"
		h.Judge.Model = "gpt-4o-mini <b>|</b> http://evil.example/model"
		h.Dataset.Path = "eval/<golden>|@team.jsonl"
		return compare.Compare(b, h, thresholds(t))
	}},
}

func TestGolden(t *testing.T) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.make(t)
			opts := optsFor(c.name)
			md := Markdown(r, opts)
			golden(t, c.name+".md", []byte(md))
			if len(md) > MaxCommentBytes {
				t.Errorf("markdown is %d bytes", len(md))
			}
			if !strings.HasPrefix(md, "### ") || strings.Contains(md, "<!--") {
				t.Errorf("markdown does not start with the title, or has a marker (ghcomment adds them):\n%s", md[:min(len(md), 200)])
			}
			if strings.Contains(md, commentNotice) {
				t.Errorf("a small report was cut")
			}
			sum := Summary(r, opts)
			golden(t, c.name+".summary.md", []byte(sum))
			if strings.Contains(sum, "<!--") {
				t.Errorf("the summary has a marker")
			}
			var buf bytes.Buffer
			if err := Console(&buf, r); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".txt", buf.Bytes())
		})
	}
}

func TestGoldenJSON(t *testing.T) {
	r := cases[1].make(t)
	b, err := JSON(r)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "regression.json", b)
	if !bytes.HasSuffix(b, []byte("}\n")) {
		t.Error("no trailing newline")
	}
	if !bytes.Contains(b, []byte("p<0.001")) || bytes.Contains(b, []byte(`\u003c`)) {
		t.Error("HTML characters were escaped")
	}
	var back compare.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("JSON does not read back: %v", err)
	}
	if back.Verdict != r.Verdict || len(back.Metrics) != len(r.Metrics) {
		t.Errorf("read back %q with %d metrics", back.Verdict, len(back.Metrics))
	}
}

// segmentFiles builds n paired samples of the default specs with a topic
// (billing, shipping, account) and a language (en, de). Faithfulness drops
// by drop on every billing sample; elsewhere it moves by 0.3 up or down as
// often, so that the whole set does not show the billing drop.
func segmentFiles(seed uint64, n int, drop float64) (*results.File, *results.File) {
	b, h := pairFiles(seed, n, 0, 0, defaultSpecs())
	for i := range h.Samples {
		md := map[string]string{"topic": []string{"billing", "shipping", "account"}[i%3], "language": []string{"en", "de"}[i%2]}
		b.Samples[i].Metadata, h.Samples[i].Metadata = md, md
		bf := b.Samples[i].Scores["faithfulness"].Value()
		hf := bf - drop
		if drop > 0 {
			hf += 0.05 * float64(i/3%3-1) // -0.05, 0, +0.05 around the drop
		}
		if md["topic"] != "billing" {
			bf = 0.6
			hf = 0.6 + 0.3*float64(1-2*(i/3%2))
		}
		b.Samples[i].Scores["faithfulness"], h.Samples[i].Scores["faithfulness"] = results.Score(bf), results.Score(hf)
		if hf < bf {
			h.Samples[i].Reasons = map[string]string{"faithfulness": reasons["faithfulness"][i%3]}
		}
	}
	return b, h
}

const segmentThresholdsYAML = `version: 1
segments: [topic, language]
metrics:
  faithfulness: {tolerance: 0.03}
`

func TestGoldenSegmentsJSON(t *testing.T) {
	var c reportCase
	for _, c = range cases {
		if c.name == "segments" {
			break
		}
	}
	b, err := JSON(c.make(t))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "segments.json", b)
	var back compare.Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	// Every segment of every key is listed with its per-metric verdict.
	if len(back.Segments) != 2 || len(back.Segments[0].Segments) != 3 || len(back.Segments[1].Segments) != 2 {
		t.Fatalf("segments %+v", back.Segments)
	}
	for _, k := range back.Segments {
		for _, s := range k.Segments {
			if !s.Tested || len(s.Metrics) != 5 {
				t.Errorf("%s=%s: tested %v, %d metrics", s.Key, s.Value, s.Tested, len(s.Metrics))
			}
		}
	}
}

// TestSegmentsWithoutChange: configured segments that did not change get
// one line in each report.
func TestSegmentsWithoutChange(t *testing.T) {
	b, h := segmentFiles(10, 60, 0)
	r := compare.Config{Bootstrap: 200}.Compare(b, h, compare.DefaultThresholds().WithSegments("topic"))
	md := Markdown(r, opts)
	if !strings.Contains(md, "**Segments:** topic (3 of 3 values tested); no significant change in any segment.") {
		t.Errorf("markdown lacks the segment line")
	}
	var buf bytes.Buffer
	if err := Console(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "Segments: topic (3 of 3 values tested); no significant change.") {
		t.Errorf("console lacks the segment line:\n%s", buf.String())
	}
	if r := compare.Compare(b, h, compare.DefaultThresholds()); strings.Contains(Markdown(r, opts), "Segments") {
		t.Error("a report without segment keys talks about segments")
	}
}

// TestGoldenCasesSayWhatTheyShould guards the fixtures: each golden must
// show the situation it is named after.
func TestGoldenCasesSayWhatTheyShould(t *testing.T) {
	want := map[string][]string{
		"pass":          {"### ✅ raggate: no significant regression\n"},
		"regression":    {"### ❌ raggate: 2 metrics regressed", "❌ regression, below floor 0.85", "judge: “", "<details open><summary>Diagnosis</summary>"},
		"improvement":   {"### ✅ raggate: no significant regression; 2 metrics improved", "✅ improvement"},
		"no_baseline":   {"no baseline yet: floors only", "**No baseline yet for main: floors only.**", "❌ below floor 0.8", "✅ meets floor 0.85", "| Metric | Head | n | Verdict |"},
		"judge_changed": {"### ❌ raggate: judge changed", "(changed)", "<summary>Judge noise</summary>"},
		"insufficient":  {"too few paired samples", "⚠️ too few pairs (n=6)", "new metric"},
		"warnings":      {"### ⚠️ raggate: passed with 3 warnings", "⚠️ regression, below floor 0.80 (warn level)", "**Warnings**", "base run is incomplete"},
		"lost_scores":   {"### ❌ raggate: 1 metric lost scores", "❌ lost 10 scores (p 0.007)", "⚠️ lost 10 scores (p 0.007) (warn level)", "~ lost 10 scores (p 0.002), report-only", "lost N scores: ", "report-only: not in the gated family"},
		"untrusted":     {"@\u200bocto", "&lt;script&gt;", `\|`},
		"segments": {"### ❌ raggate: 1 segment regression", "<details open><summary>Segments: 1 significant change</summary>",
			"| topic=billing | faithfulness | 20 |", "- faithfulness regressed by 0.15 on topic=billing (p", "| faithfulness | 0.", " · topic=billing, language=",
			"same Holm correction as the table above"},
	}
	for _, c := range cases {
		md := Markdown(c.make(t), optsFor(c.name))
		for _, w := range want[c.name] {
			if !strings.Contains(md, w) {
				t.Errorf("%s: markdown lacks %q", c.name, w)
			}
		}
	}
}

// Text from the data never becomes a link, table cells included: GitHub
// autolinks bare "https://..." and "www." in comments. The only links are
// the report's own (the workflow run).
func TestUntrustedURLsAreNotLinks(t *testing.T) {
	for _, c := range cases {
		if c.name != "untrusted" {
			continue
		}
		opts := optsFor(c.name)
		r := c.make(t)
		for name, md := range map[string]string{"markdown": Markdown(r, opts), "summary": Summary(r, opts)} {
			if !strings.Contains(md, "evil.example/model") || !strings.Contains(md, "evil.example/metric |") {
				t.Fatalf("%s: the fixture's URLs in table cells are not shown", name)
			}
			rest := strings.ReplaceAll(md, "]("+opts.RunURL+")", "")
			if strings.Contains(rest, "://") {
				t.Errorf("%s: a URL from the data would be autolinked:\n%s", name, rest)
			}
			if strings.Contains(strings.ToLower(rest), "www.") {
				t.Errorf("%s: a www. name from the data would be autolinked", name)
			}
		}
	}
}

func TestRunURL(t *testing.T) {
	tests := map[string]string{
		"https://github.com/o/r/actions/runs/1":    "https://github.com/o/r/actions/runs/1",
		"https://ghe.example/o/r/actions/runs/1 ":  "https://ghe.example/o/r/actions/runs/1",
		"javascript:alert(1)":                      "",
		"https://x.example/a(b)":                   "https://x.example/a%28b%29",
		"/relative":                                "",
		"https://user:pw@github.com/o/r":           "",
		"https://github.com/o/r/runs/1) [x](http:": "https://github.com/o/r/runs/1%29%20%5Bx%5D%28http:",
	}
	for in, want := range tests {
		if got := runURL(in); got != want {
			t.Errorf("runURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNilReport(t *testing.T) {
	if md := Markdown(nil, Options{}); !strings.Contains(md, "No metrics were scored.") {
		t.Errorf("nil report: %q", md)
	}
	var buf bytes.Buffer
	if err := Console(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := JSON(nil); err != nil || string(b) != "null\n" {
		t.Errorf("JSON(nil) = %q, %v", b, err)
	}
}

func TestHeadline(t *testing.T) {
	floorOK := compare.MetricResult{Metric: "faithfulness", Change: compare.VerdictNoBaseline, Floor: compare.FloorOK}
	noFloor := compare.MetricResult{Metric: "faithfulness", Change: compare.VerdictNoBaseline}
	failBaseline := compare.Defaults{OnMissingBaseline: compare.ActionFail}
	tests := []struct {
		name string
		r    compare.Report
		want string
	}{
		{"no baseline, floors met", compare.Report{Passed: true, Verdict: compare.VerdictPass,
			Metrics: []compare.MetricResult{floorOK, floorOK}}, "✅ no baseline yet: floors only; all 2 floors met"},
		{"no baseline, one floor", compare.Report{Passed: true, Verdict: compare.VerdictPass,
			Metrics: []compare.MetricResult{floorOK, noFloor}}, "✅ no baseline yet: floors only; 1 floor met"},
		{"no baseline, no floors", compare.Report{Passed: true, Verdict: compare.VerdictPass,
			Metrics: []compare.MetricResult{noFloor}}, "✅ no baseline yet: floors only (no floors set)"},
		{"no baseline fails", compare.Report{Verdict: compare.VerdictFail, Findings: []compare.Finding{{Kind: compare.KindMissingBaseline, Level: compare.LevelFail}},
			Settings: compare.Settings{Defaults: failBaseline}}, "❌ no baseline"},
		{"no baseline with warnings", compare.Report{Passed: true, Verdict: compare.VerdictPassWithWarnings, Findings: []compare.Finding{{Kind: compare.KindShardOnly, Level: compare.LevelWarn, Side: "head", Reason: "1/2"}}},
			"⚠️ passed with 1 warning (no baseline yet: floors only)"},
		{"unexplained failure", compare.Report{HasBaseline: true, Verdict: compare.VerdictFail}, "❌ failed"},
		{"empty head", compare.Report{HasBaseline: true, Verdict: compare.VerdictFail, Findings: []compare.Finding{{Kind: compare.KindHeadEmpty, Level: compare.LevelFail}}}, "❌ head has no samples"},
		{"head too small", compare.Report{HasBaseline: true, Verdict: compare.VerdictFail, Findings: []compare.Finding{{Kind: compare.KindHeadTooSmall, Level: compare.LevelFail, N: 4, Of: 20}}}, "❌ head too small to stand for the base"},
		{"head too small, a warning only", compare.Report{HasBaseline: true, Verdict: compare.VerdictFail, Findings: []compare.Finding{{Kind: compare.KindHeadTooSmall, Level: compare.LevelWarn}}}, "❌ failed"},
		{"incomplete head", compare.Report{HasBaseline: true, Verdict: compare.VerdictFail, Findings: []compare.Finding{{Kind: compare.KindIncomplete, Level: compare.LevelFail}},
			Head: compare.Side{Incomplete: "cancelled"}}, "❌ head run incomplete"},
	}
	for _, tt := range tests {
		if got := headline(&tt.r).markdown(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestReadmeShowsTheSegmentGolden: the rendered segment section of
// docs/segments.md is the golden file's.
func TestReadmeShowsTheSegmentGolden(t *testing.T) {
	readme, err := os.ReadFile("../../docs/segments.md")
	if err != nil {
		t.Fatal(err)
	}
	g, err := os.ReadFile("testdata/segments.md")
	if err != nil {
		t.Fatal(err)
	}
	md := string(g)
	start := strings.Index(md, "**Failures**")
	end := strings.Index(md[start:], "</details>") + start + len("</details>")
	if start < 0 || end < start || !strings.Contains(string(readme), md[start:end]) {
		t.Error("docs/segments.md's example differs from testdata/segments.md (copy the section from **Failures** to the segments' </details>)")
	}
}
