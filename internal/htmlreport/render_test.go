package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// files makes n paired samples of two metrics; the head's faithfulness
// drops on every third sample. Every sample records texts unless
// baseTexts is false (then the base records none).
func files(n int, baseTexts bool) (base, head *results.File) {
	rng := rand.New(rand.NewSource(7))
	mk := func() *results.File {
		return &results.File{Schema: results.Schema, Config: results.Config{Metrics: []string{"faithfulness", "context_precision"}}}
	}
	base, head = mk(), mk()
	for i := range n {
		id := fmt.Sprintf("q-%04d", i)
		q := fmt.Sprintf("Question %d about the battery?", i)
		b := results.Sample{ID: id, Question: q, Scores: map[string]results.Score{"faithfulness": 1, "context_precision": results.Score(rng.Float64())},
			Metadata: map[string]string{"topic": []string{"specs", "install"}[i%2]}, InputHash: "h"}
		h := b
		h.Scores = map[string]results.Score{"faithfulness": 1, "context_precision": b.Scores["context_precision"]}
		if i%3 == 0 {
			h.Scores["faithfulness"] = 0.5
			h.InputHash = "changed"
		}
		ctxs := []string{"The K2 stores 13.5 kWh.", "Up to four units stack."}
		ev := map[string][]results.Evidence{
			"faithfulness":      {{Text: "The K2 stores 13.5 kWh.", Verdict: 1, Reason: "found"}},
			"context_precision": {{Context: 1, Verdict: 1, Reason: "states the capacity"}, {Context: 2, Verdict: 0}},
		}
		h.SetTexts(results.Texts{Response: fmt.Sprintf("The K2 stores %d kWh.", i), Contexts: ctxs, Evidence: ev})
		if baseTexts {
			b.SetTexts(results.Texts{Response: "The K2 stores 13.5 kWh.", Contexts: ctxs, Evidence: ev})
		}
		base.Samples = append(base.Samples, b)
		head.Samples = append(head.Samples, h)
	}
	return base, head
}

func render(t *testing.T, base, head *results.File, opts Options) string {
	t.Helper()
	rep := compare.Compare(base, head, compare.DefaultThresholds())
	var b bytes.Buffer
	if err := Render(&b, rep, sidesOf(base, head), opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sidesOf is the sides of the page of two files held whole (base nil:
// none): their tables, and the files for the samples listed.
func sidesOf(base, head *results.File) Sides {
	return Sides{Base: tableOf(base), Head: tableOf(head), BaseSamples: base, HeadSamples: head}
}

// tableOf is results.TableOf, nil for a nil file.
func tableOf(f *results.File) *results.Table {
	if f == nil {
		return nil
	}
	return results.TableOf(f)
}

// Dataset text is escaped everywhere it appears: question, response,
// contexts, evidence, metadata, ids.
func TestRenderEscapesDatasetText(t *testing.T) {
	const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>"'&`
	base, head := files(3, true)
	s := &head.Samples[0]
	s.ID = "q-0000" // paired
	s.Question, s.Response = evil, evil
	s.Contexts = []string{evil}
	s.Evidence["faithfulness"][0].Text = evil
	s.Evidence["faithfulness"][0].Reason = evil
	s.Metadata["topic"] = evil
	page := render(t, base, head, Options{Gate: evil})
	if strings.Count(page, "<script") != 1 {
		t.Errorf("the page has %d <script elements, want only its own", strings.Count(page, "<script"))
	}
	if strings.Contains(page, "<img") || strings.Contains(page, "onerror=alert") && !strings.Contains(page, "onerror=alert(2)&gt;") {
		t.Error("an element of the dataset's text got into the page")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the dataset's script is not shown as text")
	}
}

// The page loads nothing: no src or href to a network address, and a
// Content Security Policy that allows its own script only.
func TestRenderIsSelfContained(t *testing.T) {
	base, head := files(5, true)
	page := render(t, base, head, Options{})
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//`).FindString(page); m != "" {
		t.Errorf("the page loads from the network: %s", m)
	}
	if strings.Contains(page, "@import") || strings.Contains(page, "url(") {
		t.Error("the page's CSS fetches something")
	}
	sum := sha256.Sum256([]byte(pageJS))
	hash := "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
	m := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no Content Security Policy")
	}
	csp := html.UnescapeString(m[1])
	if !strings.Contains(csp, "script-src '"+hash+"'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("the Content Security Policy %q does not allow exactly the page's script (%s) and forbid fetching", csp, hash)
	}
	if !strings.Contains(page, "<script>"+pageJS+"</script>") {
		t.Error("the page's script is not inlined verbatim: its hash would not match")
	}
}

// Worst first, limited, with the number left out said; a base without
// texts is said too.
func TestRenderWorstFirstLimitAndMissingBaseTexts(t *testing.T) {
	base, head := files(30, false)
	page := render(t, base, head, Options{Limit: 5})
	ids := regexp.MustCompile(`class="sample" data-id="(q-\d+)"`).FindAllStringSubmatch(page, -1)
	if len(ids) != 5 {
		t.Fatalf("%d samples listed, want 5", len(ids))
	}
	for _, m := range ids {
		var i int
		fmt.Sscanf(m[1], "q-%d", &i)
		if i%3 != 0 {
			t.Errorf("sample %s listed among the 5 worst, but its faithfulness did not drop", m[1])
		}
	}
	if !strings.Contains(page, `<b id="left-out">25 more samples are not listed</b>`) {
		t.Error("the page does not say how many samples it leaves out")
	}
	if !strings.Contains(page, `id="no-base-texts"`) || !strings.Contains(page, "base text not recorded") {
		t.Error("the page does not say that the base records no texts")
	}
	if strings.Contains(page, "<del>") {
		t.Error("a diff against a base text that is not recorded")
	}
	if !strings.Contains(page, "<option>topic=install</option>") {
		t.Error("the segment filter lacks the metadata values")
	}
}

func TestSelect(t *testing.T) {
	base, head := files(10, true)
	rep := compare.Compare(base, head, compare.DefaultThresholds())
	ids, left := Select(rep, tableOf(base), tableOf(head), 3)
	if strings.Join(ids, ",") != "q-0000,q-0003,q-0006" || left != 7 {
		t.Errorf("Select = %v, %d left out; want the first three drops in file order, 7 left out", ids, left)
	}
	// Without a base every sample is new: file order.
	ids, _ = Select(compare.Compare(nil, head, compare.DefaultThresholds()), nil, tableOf(head), 2)
	if strings.Join(ids, ",") != "q-0000,q-0001" {
		t.Errorf("Select without base = %v", ids)
	}
}

func TestHistogramBins(t *testing.T) {
	for _, tt := range []struct {
		d    float64
		want int
	}{{0, 10}, {-1, 0}, {-0.05, 9}, {-0.1, 9}, {-0.11, 8}, {0.05, 11}, {1, 20}, {2, 20}, {-3, 0}} {
		if got := bin(tt.d, 1); got != tt.want {
			t.Errorf("bin(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
	base, head := files(9, true)
	pairs := pairOf(tableOf(base), tableOf(head))
	h := histogramOf(metricInfo{name: "faithfulness", scale: 1, base: pairs.base.Key("faithfulness"), head: pairs.head.Key("faithfulness")}, pairs)
	if h.Worse != 3 || h.Same != 6 || h.Better != 0 {
		t.Errorf("histogram counts %d worse %d same %d better, want 3 6 0", h.Worse, h.Same, h.Better)
	}
	if len(h.Bars) != 2 || h.Bars[0].Class != "worse" || !strings.HasPrefix(h.Bars[0].Title, "3 samples with delta in [-0.50, -0.40)") {
		t.Errorf("bars %+v", h.Bars)
	}
}

// BenchmarkRender2000 renders the page of 2,000 samples with typical
// texts (a question, two responses, five contexts of about 350
// characters, evidence of three metrics) and reports its size.
func BenchmarkRender2000(b *testing.B) {
	base, head := typicalFiles(2000)
	rep := compare.Compare(base, head, compare.DefaultThresholds())
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := Render(&buf, rep, sidesOf(base, head), Options{}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size)/1e6, "MB/page")
}

// The evidence a results file left out (its marker) is said where the
// judge's verdicts are listed, for statements and for per-context
// verdicts alike.
func TestRenderShowsEvidenceLeftOut(t *testing.T) {
	base, head := files(3, true)
	s := &head.Samples[0]
	s.Evidence = map[string][]results.Evidence{
		"faithfulness":      {{Text: "The K2 stores 20 kWh.", Verdict: 0}, {More: 7}},
		"context_precision": {{Context: 1, Verdict: 1}, {More: 12}},
	}
	page := render(t, base, head, Options{})
	for _, want := range []string{
		`<tr class="more"><td colspan="4">… 7 more not recorded</td></tr>`,
		`<tr class="more"><td colspan="4">… 12 more not recorded</td></tr>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %s", want)
		}
	}
	s.Evidence["faithfulness"] = s.Evidence["faithfulness"][:1]
	s.Evidence["context_precision"] = s.Evidence["context_precision"][:1]
	without := render(t, base, head, Options{})
	if n, w := strings.Count(page, `<tr class="no">`), strings.Count(without, `<tr class="no">`); n != w {
		t.Errorf("%d failing rows with the markers, %d without: a marker shows as a verdict", n, w)
	}
}

// A reason's right-to-left override is dropped in the HTML report, as in
// the markdown: the cell reads as its bytes do.
func TestReasonBidiOverrideDropped(t *testing.T) {
	base, head := files(3, true)
	s := &head.Samples[0]
	s.Scores["faithfulness"] = 0.5
	s.Reasons = map[string]string{"faithfulness": "bad \u202ereversed\u202c text"}
	page := render(t, base, head, Options{})
	if strings.Contains(page, "\u202e") || !strings.Contains(page, "bad reversed text") {
		t.Errorf("the reason keeps its right-to-left override, or is missing")
	}
}
