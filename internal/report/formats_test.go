package report

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

// The built-in formats render what their functions render, so that a
// front end that goes through the registry prints what it printed before.
func TestFormatsRenderTheirFunctions(t *testing.T) {
	rep := pReport()
	opts := Options{Gate: "demo", BaselineSource: "file base.json"}
	var console bytes.Buffer
	if err := ConsoleWith(&console, rep, opts); err != nil {
		t.Fatal(err)
	}
	js, err := JSON(rep)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"text": console.String(), "markdown": Markdown(rep, opts), "json": string(js)} {
		f, ok := Lookup(name)
		if !ok {
			t.Fatalf("format %s is not registered", name)
		}
		if f.Samples != nil {
			t.Errorf("format %s asks for sample texts; it renders the report only", name)
		}
		var got strings.Builder
		if err := f.Render(&got, Input{Report: rep, Options: opts}); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("format %s renders another text than its function:\n%s", name, got.String())
		}
	}
	if names := Names(); len(names) < 3 || !slices.Equal(names[:3], []string{"text", "markdown", "json"}) {
		t.Errorf("Names() = %v, want text, markdown, json first", names)
	}
	if _, ok := Lookup("pdf"); ok {
		t.Error("Lookup(pdf) found a format")
	}
}

// A report file's extension picks its format, whatever its case; any
// other name is text.
func TestByPath(t *testing.T) {
	for path, want := range map[string]string{
		"report.md": "markdown", "REPORT.MARKDOWN": "markdown", "out/r.json": "json",
		"report.txt": "text", "report": "text", "dir.md/report": "text", ".md": "markdown",
	} {
		if got := ByPath(path).Name; got != want {
			t.Errorf("ByPath(%q) = %s, want %s", path, got, want)
		}
	}
}

// Register refuses a second format of a name or an extension, and a
// format it could not render.
func TestRegisterRefuses(t *testing.T) {
	render := func(io.Writer, Input) error { return nil }
	for name, f := range map[string]Format{
		"taken name":      {Name: "markdown", Render: render},
		"taken extension": {Name: "gfm", Exts: []string{".md"}, Render: render},
		"no name":         {Render: render},
		"no render":       {Name: "pdf"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			Register(f)
		}()
	}
	if slices.Contains(Names(), "gfm") || slices.Contains(Names(), "pdf") {
		t.Errorf("a refused format was registered: %v", Names())
	}
}

// Each history format renders what its function renders.
func TestHistoryFormats(t *testing.T) {
	h := trendOf(pReport(), 4, 1)
	if got := HistoryNames(); !slices.Equal(got, []string{"text", "markdown", "json", "csv"}) {
		t.Errorf("HistoryNames() = %v", got)
	}
	js, err := HistoryJSON(h)
	if err != nil {
		t.Fatal(err)
	}
	var text, md, csv bytes.Buffer
	if err := HistoryText(&text, h); err != nil {
		t.Fatal(err)
	}
	if err := HistoryMarkdown(&md, h); err != nil {
		t.Fatal(err)
	}
	if err := HistoryCSV(&csv, h); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"text": text.String(), "markdown": md.String(), "json": string(js), "csv": csv.String()} {
		render, ok := LookupHistory(name)
		if !ok {
			t.Fatalf("history format %s is missing", name)
		}
		var got bytes.Buffer
		if err := render(&got, h); err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("history format %s renders %q, want %q", name, got.String(), want)
		}
	}
	if text.String() == md.String() || md.String() == csv.String() {
		t.Error("the history formats render the same text: the test would not tell them apart")
	}
	if _, ok := LookupHistory("html"); ok {
		t.Error("LookupHistory(html) found a format")
	}
}
