package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/raggate/raggate/internal/cli"
	"github.com/raggate/raggate/internal/results"
)

// updateDocs makes the tests write the README's screenshots into docs/.
var updateDocs = flag.Bool("docs", false, "write the README screenshots (docs/*.png)")

// docsShot writes png to docs/name with -docs.
func docsShot(t *testing.T, name string, png []byte) {
	t.Helper()
	if !*updateDocs {
		return
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

const xss = "<script>alert(1)</script>"

var topics = []string{"install", "specs", "warranty"}

// demoFiles writes the demo dataset as base (with a topic column) and a
// head in which 8 responses are the degraded ones and one sample carries a
// script in its question and response, judges both with the offline judge
// through the gate, and returns the directory.
func demoFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	golden := readJSONL(t, filepath.Join("..", "..", "testdata", "demo", "golden.jsonl"))
	degraded := map[string]string{}
	for _, r := range readJSONL(t, filepath.Join("..", "..", "testdata", "demo", "responses-degraded.jsonl")) {
		degraded[r["id"].(string)] = r["response"].(string)
	}
	for i, r := range golden {
		r["topic"] = topics[i%len(topics)]
	}
	writeJSONL(t, filepath.Join(dir, "base.jsonl"), golden)
	for i, r := range golden {
		if i < 8 {
			r["response"] = degraded[r["id"].(string)]
		}
		if i == 1 {
			r["user_input"] = "What does " + xss + " do to the K2?"
			r["response"] = xss + " " + r["response"].(string)
		}
	}
	writeJSONL(t, filepath.Join(dir, "head.jsonl"), golden)
	gate(t, dir, 0, "run", "--dataset", "base.jsonl", "--judge", "offline", "--out", "base.json", "--quiet", "--no-cache")
	gate(t, dir, 0, "run", "--dataset", "head.jsonl", "--judge", "offline", "--out", "head.json", "--quiet", "--no-cache")
	return dir
}

// gate runs the gate in dir and checks its exit code.
func gate(t *testing.T, dir string, want int, args ...string) {
	t.Helper()
	var stderr bytes.Buffer
	if code := cli.Main(context.Background(), args, cli.Env{Dir: dir, Stderr: &stderr, Getenv: func(string) string { return "" }}); code != want {
		t.Fatalf("gate %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, stderr.String())
	}
}

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func writeJSONL(t *testing.T, path string, rows []map[string]any) {
	t.Helper()
	var b bytes.Buffer
	for _, r := range rows {
		line, _ := json.Marshal(r)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pageErrors collects the page's JavaScript exceptions, console errors and
// browser log errors (a script blocked by the page's Content Security
// Policy is one).
type pageErrors struct {
	mu   sync.Mutex
	errs []string
}

func (p *pageErrors) listen(ctx context.Context, t *testing.T) {
	err := chromedp.Listen(ctx, func(ev any) {
		var msg string
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			msg = "exception: " + e.ExceptionDetails.Text
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				msg = fmt.Sprintf("console.%s", e.Type)
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				msg = "log: " + e.Entry.Text
			}
		}
		if msg != "" {
			p.mu.Lock()
			p.errs = append(p.errs, msg)
			p.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (p *pageErrors) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.errs
	p.errs = nil
	return out
}

// load opens a page and waits for its script to have run.
func load(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady("#samples")); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// expected counts, from the results files, the head samples whose
// faithfulness dropped and those of one topic.
func expected(t *testing.T, dir string) (worse, topic int) {
	t.Helper()
	base, err := results.Read(filepath.Join(dir, "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	head, err := results.Read(filepath.Join(dir, "head.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := map[string]results.Score{}
	for _, s := range base.Samples {
		b[s.ID] = s.Scores["faithfulness"]
	}
	for _, s := range head.Samples {
		if h := s.Scores["faithfulness"]; !h.IsNaN() && !b[s.ID].IsNaN() && h < b[s.ID] {
			worse++
		}
		if s.Metadata["topic"] == "specs" {
			topic++
		}
	}
	return worse, topic
}

// TestHTMLReport renders the HTML report of two real results files with
// the gate, loads it from file:// in headless Chromium and checks what a
// reader relies on: no script error, the verdict table, a sample with its
// responses diffed, the dataset's script shown as text and never run, and
// the filters (metric + verdict, segment, text) showing the samples they
// should. Two broken variants of the page (an unescaped script, a script
// error) must be caught, so the check can fail.
func TestHTMLReport(t *testing.T) {
	ctx := browser(t)
	dir := demoFiles(t)
	gate(t, dir, 1, "compare", "--base", "base.json", "--head", "head.json", "--format", "html", "--out", "report.html")
	page := filepath.Join(dir, "report.html")
	var errs pageErrors
	errs.listen(ctx, t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1100, 1300)); err != nil {
		t.Fatal(err)
	}
	load(t, ctx, page)
	if e := errs.take(); len(e) > 0 {
		t.Fatalf("the page reported errors: %q", e)
	}
	if got := eval[string](t, ctx, `document.body.getAttribute("data-ready")`); got != "1" {
		t.Fatal("the page's script did not run to its end")
	}
	rows := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#verdicts tbody tr td:first-child")).map(td => td.textContent)`)
	if len(rows) < 5 || !contains(rows, "faithfulness") {
		t.Errorf("verdict table rows %q: want the metrics, faithfulness among them", rows)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#histograms svg rect").length`); n == 0 {
		t.Error("no histogram bars")
	}
	checkSample(t, ctx)
	checkFilters(t, ctx, dir)

	eval[bool](t, ctx, `(() => { const f = (id, v) => { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event("change")); };
		f("f-text", ""); f("f-segment", ""); f("f-metric", ""); f("f-verdict", "worse");
		document.querySelectorAll(".sample").forEach((s, i) => s.open = i === 0); window.scrollTo(0, 0); return true })()`)
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, "html-report.png", shot)
	docsShot(t, "html-report.png", shot)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1100, 1000)); err != nil {
		t.Fatal(err)
	}
	eval[bool](t, ctx, `(() => { document.querySelector("h2:nth-of-type(3)").scrollIntoView(); return true })()`)
	shot, err = chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, "html-report-sample.png", shot)
	docsShot(t, "html-report-sample.png", shot)
	if e := errs.take(); len(e) > 0 {
		t.Fatalf("the page reported errors while filtering: %q", e)
	}
	checkBrokenPagesFail(t, ctx, &errs, page)
}

// checkSample opens the worst sample and the one with the script.
func checkSample(t *testing.T, ctx context.Context) {
	t.Helper()
	first := eval[map[string]any](t, ctx, `(() => { const s = document.querySelector(".sample"); s.open = true;
		return {id: s.dataset.id, head: s.querySelector(".col.head .text").innerText, base: s.querySelector(".col.base").innerText,
			ins: s.querySelectorAll(".col.head ins").length, del: s.querySelectorAll(".col.base del").length,
			contexts: s.querySelectorAll(".contexts li").length, badges: s.querySelectorAll(".contexts .badge").length,
			statements: s.querySelectorAll("table.evidence tr").length, visible: s.querySelector(".col.head").offsetHeight > 0} })()`)
	if first["head"] == "" || first["visible"] != true {
		t.Errorf("the first sample shows no head response: %v", first)
	}
	if first["ins"].(float64) == 0 || first["del"].(float64) == 0 {
		t.Errorf("the worst sample (%v), a changed response, shows no word diff: %v", first["id"], first)
	}
	if first["contexts"].(float64) == 0 || first["badges"].(float64) == 0 || first["statements"].(float64) == 0 {
		t.Errorf("the worst sample lacks its contexts, usefulness verdicts or statements: %v", first)
	}
	x := eval[map[string]any](t, ctx, `(() => { const s = document.querySelector('.sample[data-id="k2-002"]'); s.open = true;
		return {q: s.querySelector(".q").textContent, head: s.querySelector(".col.head .text").textContent,
			scripts: document.querySelectorAll("#samples script").length, shown: s.querySelector(".question").offsetHeight > 0} })()`)
	if !strings.Contains(x["q"].(string), xss) || !strings.Contains(x["head"].(string), xss) || x["shown"] != true {
		t.Errorf("the sample's script is not shown as text: %v", x)
	}
	if x["scripts"].(float64) != 0 {
		t.Errorf("the sample browser holds %v script elements: the dataset's text was not escaped", x["scripts"])
	}
}

// checkFilters applies filters and compares the samples shown with counts
// taken from the results files.
func checkFilters(t *testing.T, ctx context.Context, dir string) {
	t.Helper()
	worse, topic := expected(t, dir)
	if worse == 0 || worse == 20 || topic == 0 {
		t.Fatalf("the demo data cannot test the filters: %d worse, %d of the topic", worse, topic)
	}
	set := func(metric, verdict, segment, text string) int {
		js := fmt.Sprintf(`(() => { const set = (id, v, ev) => { const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event(ev)); };
			set("f-metric", %q, "change"); set("f-verdict", %q, "change"); set("f-segment", %q, "change"); set("f-text", %q, "input");
			const n = document.querySelectorAll("#samples .sample:not([hidden])").length;
			if (String(n) !== document.getElementById("samples").dataset.shown) { throw new Error("count mismatch"); }
			return n })()`, metric, verdict, segment, text)
		return eval[int](t, ctx, js)
	}
	if n := set("", "", "", ""); n != 20 {
		t.Errorf("no filter: %d samples shown, want 20", n)
	}
	if n := set("faithfulness", "worse", "", ""); n != worse {
		t.Errorf("faithfulness worse: %d samples shown, want %d", n, worse)
	}
	if n := set("", "", "topic=specs", ""); n != topic {
		t.Errorf("segment topic=specs: %d samples shown, want %d", n, topic)
	}
	if n := set("", "", "", "alert(1)"); n != 1 {
		t.Errorf("text alert(1): %d samples shown, want 1", n)
	}
	if n := set("", "", "", "no such text anywhere"); n != 0 {
		t.Errorf("text with no match: %d samples shown, want 0", n)
	}
	if got := eval[string](t, ctx, `document.getElementById("f-count").textContent`); got != "0 of 20 samples shown" {
		t.Errorf("count line %q", got)
	}
}

// checkBrokenPagesFail loads the page with the script sample unescaped,
// and with its own script broken: both must be reported.
func checkBrokenPagesFail(t *testing.T, ctx context.Context, errs *pageErrors, page string) {
	t.Helper()
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	escaped := "&lt;script&gt;alert(1)&lt;/script&gt;"
	for name, broken := range map[string]string{
		"unescaped": strings.Replace(string(data), escaped, xss, 1),
		"js error":  strings.Replace(string(data), `"use strict";`, `"use strict"; undefinedFunction();`, 1),
	} {
		if broken == string(data) {
			t.Fatalf("%s: the page did not change", name)
		}
		p := filepath.Join(filepath.Dir(page), "broken.html")
		if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		load(t, ctx, p)
		if e := errs.take(); len(e) == 0 {
			t.Errorf("%s: a broken page reported no error; the check cannot fail", name)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
