package browsertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

var mermaidBlock = regexp.MustCompile("(?s)```mermaid\n(.*?)```")

// charts returns the Mermaid blocks of the report's golden files.
func charts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{"trend.md", "trend.summary.md"} {
		data, err := os.ReadFile(filepath.Join("..", "report", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range mermaidBlock.FindAllStringSubmatch(string(data), -1) {
			out[fmt.Sprintf("%s#%d", name, i+1)] = m[1]
		}
	}
	if len(out) < 2 {
		t.Fatalf("only %d charts in the golden files", len(out))
	}
	return out
}

// TestMermaidChartsParseAndRender loads the real Mermaid library in
// headless Chromium, parses every chart of the golden comment and summary
// (a broken chart in the same page must fail, so the check can fail), and
// renders one to SVG, checking that the user sees its title, the head's
// label and one line.
func TestMermaidChartsParseAndRender(t *testing.T) {
	js := mermaidJS(t)
	ctx := browser(t)
	page := filepath.Join(t.TempDir(), "mermaid.html")
	html := `<!doctype html><meta charset="utf-8"><body><div id="out"></div>` +
		`<script src="file://` + filepath.ToSlash(js) + `"></script>` +
		`<script>mermaid.initialize({startOnLoad: false}); window.ready = true;</script></body>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page), chromedp.WaitReady("#out")); err != nil {
		t.Fatal(err)
	}
	ready, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.ready === true && typeof mermaid === "object"`))
	if err != nil || !ready {
		t.Fatalf("mermaid did not load from %s: %v", js, err)
	}
	parse := func(src string) string {
		q, _ := json.Marshal(src)
		res, err := chromedp.Run(ctx, chromedp.Evaluate[string](`mermaid.parse(`+string(q)+`).then(r => "ok:" + r.diagramType, e => "error:" + e.message)`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for name, src := range charts(t) {
		if got := parse(src); got != "ok:xychart" {
			t.Errorf("%s: the real Mermaid parser says %s\n%s", name, got, src)
		}
	}
	broken := "xychart-beta\n  title \"x\"\n  x-axis [\"a\", \"b\"\n  line [0.5, 0.6]\n"
	if got := parse(broken); !strings.HasPrefix(got, "error:") {
		t.Fatalf("a broken chart parsed (%s): the check cannot fail", got)
	}

	src := charts(t)["trend.md#3"]
	q, _ := json.Marshal(src)
	svg, err := chromedp.Run(ctx,
		chromedp.Evaluate[string](`mermaid.render("chart", `+string(q)+`).then(r => { document.getElementById("out").innerHTML = r.svg; return r.svg; })`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"faithfulness", ">head<", "<path"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the rendered chart lacks %q", want)
		}
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot("#out svg"))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, "trend-chart.png", png)
	docsShot(t, "trend-chart.png", png)
}
