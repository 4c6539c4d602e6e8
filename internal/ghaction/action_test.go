package ghaction_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/ghaction"
	"github.com/raggate/raggate/internal/ghaction/ghactiontest"
)

// env returns a getenv over m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// parseOutputs parses a GITHUB_OUTPUT file the way the runner does and
// returns the outputs and the delimiters used; the file must end with a
// newline.
func parseOutputs(t *testing.T, data string) (map[string]string, []string) {
	t.Helper()
	if !strings.HasSuffix(data, "\n") {
		t.Fatalf("output file does not end with a newline: %q", data)
	}
	o, err := ghactiontest.ParseOutputs(data)
	if err != nil {
		t.Fatal(err)
	}
	return o.Values, o.Delimiters
}

func TestSetOutputRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	var stdout bytes.Buffer
	a := ghaction.New(env(map[string]string{"GITHUB_OUTPUT": path}), &stdout)
	values := map[string]string{
		"verdict":    "pass",
		"empty":      "",
		"report":     "| metric | base | head |\n|---|---|---|\n| faithfulness | 0.81 | 0.84 |\n",
		"tricky":     "line\nEOF\n_GitHubActionsFileCommandDelimeter_\nghadelimiter_\nname=value\nx<<y",
		"unicode":    "Größe ✓ 漢字",
		"trailing-n": "a\n\n",
		"with space": "leading and trailing spaces kept  ",
	}
	for _, name := range []string{"verdict", "empty", "report", "tricky", "unicode", "trailing-n", "with space"} {
		if err := a.SetOutput(name, values[name]); err != nil {
			t.Fatalf("SetOutput(%q): %v", name, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, delims := parseOutputs(t, string(data))
	for name, want := range values {
		if got[name] != want {
			t.Errorf("output %q = %q, want %q", name, got[name], want)
		}
	}
	seen := map[string]bool{}
	for _, d := range delims {
		if seen[d] {
			t.Errorf("delimiter %q used twice: delimiters must be random per value", d)
		}
		seen[d] = true
		if d == "_GitHubActionsFileCommandDelimeter_" || len(d) < 32 {
			t.Errorf("weak delimiter %q", d)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing when GITHUB_OUTPUT is set", stdout.String())
	}

	// SetOutputs appends in name order.
	if err := a.SetOutputs(map[string]string{"b": "2", "a": "1"}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	got, _ = parseOutputs(t, string(data))
	if got["a"] != "1" || got["b"] != "2" || got["verdict"] != "pass" {
		t.Errorf("after SetOutputs: %v", got)
	}

	for _, bad := range []string{"", "a=b", "a<<b", "two\nlines"} {
		if err := a.SetOutput(bad, "v"); err == nil {
			t.Errorf("output name %q accepted", bad)
		}
	}
}

func TestOutputsAndSummaryOutsideActions(t *testing.T) {
	var stdout bytes.Buffer
	a := ghaction.New(env(map[string]string{}), &stdout)
	for _, kv := range [][2]string{{"verdict", "fail"}, {"regressions", "2"}} {
		if err := a.SetOutput(kv[0], kv[1]); err != nil {
			t.Fatalf("SetOutput without GITHUB_OUTPUT: %v", err)
		}
	}
	if err := a.AddSummary("# Report"); err != nil {
		t.Fatalf("AddSummary without GITHUB_STEP_SUMMARY: %v", err)
	}
	if err := a.AddSummary("more"); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	for _, want := range []string{"GITHUB_OUTPUT is not set", "output verdict=fail", "output regressions=2", "GITHUB_STEP_SUMMARY is not set"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout %q lacks %q", out, want)
		}
	}
	if strings.Count(out, "GITHUB_OUTPUT is not set") != 1 || strings.Count(out, "GITHUB_STEP_SUMMARY is not set") != 1 {
		t.Errorf("notes repeated:\n%s", out)
	}
	if a.InActions() {
		t.Error("InActions without GITHUB_ACTIONS")
	}
}

func TestAddSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.md")
	a := ghaction.New(env(map[string]string{"GITHUB_STEP_SUMMARY": path}), &bytes.Buffer{})
	if err := a.AddSummary("## raggate\n\n| a | b |"); err != nil {
		t.Fatal(err)
	}
	if err := a.AddSummary("second\n"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "## raggate\n\n| a | b |\nsecond\n"; string(data) != want {
		t.Errorf("summary %q, want %q", data, want)
	}
	err := a.AddSummary(strings.Repeat("x", ghaction.MaxSummaryBytes))
	if !errors.Is(err, ghaction.ErrSummaryTooLarge) {
		t.Errorf("err = %v, want ErrSummaryTooLarge", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Error("oversized summary was written")
	}

	bad := ghaction.New(env(map[string]string{"GITHUB_STEP_SUMMARY": filepath.Join(t.TempDir(), "no", "dir", "x")}), &bytes.Buffer{})
	if err := bad.AddSummary("x"); err == nil {
		t.Error("unwritable summary: no error")
	}
}

func TestAnnotations(t *testing.T) {
	var stdout bytes.Buffer
	a := ghaction.New(env(nil), &stdout)
	a.Error("faithfulness dropped 5% (0.84 -> 0.79)\nsee the summary", ghaction.Annotation{
		Title: "raggate: regression, faithfulness", File: "eval/golden.jsonl", Line: 12, Col: 3,
	})
	a.Warning("judge changed: gpt-4o-mini -> gpt-4o", ghaction.Annotation{})
	a.Notice("100%\rdone", ghaction.Annotation{File: "a,b:c.jsonl", EndLine: 4})
	a.Debug("cache hits: 80")
	a.Group("Judge")
	a.EndGroup()
	want := strings.Join([]string{
		"::error col=3,file=eval/golden.jsonl,line=12,title=raggate%3A regression%2C faithfulness::faithfulness dropped 5%25 (0.84 -> 0.79)%0Asee the summary",
		"::warning::judge changed: gpt-4o-mini -> gpt-4o",
		"::notice endLine=4,file=a%2Cb%3Ac.jsonl::100%25%0Ddone",
		"::debug::cache hits: 80",
		"::group::Judge",
		"::endgroup::",
		"",
	}, "\n")
	if got := stdout.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestMask(t *testing.T) {
	var stdout bytes.Buffer
	a := ghaction.New(env(nil), &stdout)
	a.Mask("sk-abc123")
	a.Mask("")
	a.Mask("line1\nline2")
	want := "::add-mask::sk-abc123\n::add-mask::line1%0Aline2\n::add-mask::line1\n::add-mask::line2\n"
	if got := stdout.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestBrokenStdoutDoesNotPanic(t *testing.T) {
	a := ghaction.New(env(nil), failingWriter{})
	a.Error("x", ghaction.Annotation{})
	a.Mask("secret")
	if err := a.SetOutput("x", "y"); err != nil {
		t.Errorf("SetOutput fallback: %v", err)
	}
	if a.Err() == nil {
		t.Error("write error not reported by Err")
	}
}

func TestConcurrentOutputs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	a := ghaction.New(env(map[string]string{"GITHUB_OUTPUT": path}), &bytes.Buffer{})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.SetOutput("o"+string(rune('a'+i)), strings.Repeat("v\n", i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(path)
	got, _ := parseOutputs(t, string(data))
	if len(got) != 20 {
		t.Errorf("%d outputs, want 20", len(got))
	}
}
