package cli

// Bounded inputs (issue 22, items 11, 13, 14, 16 and 17): every input
// file is size-limited and regular, decoded Parquet is bounded like JSON
// Lines, the texts a metric or the HTML report works on are capped, a full
// temporary directory does not lose the run, and sibling columns are not
// typos. Run only these with
//
//	go test ./internal/cli -run Inputs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/results"
)

// gateEnv runs the CLI in-process with env as given (its test hooks set).
func gateEnv(t *testing.T, env Env, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	env.Stdin, env.Stdout, env.Stderr = strings.NewReader(""), &out, &errb
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	code := Main(context.Background(), args, env)
	return runResult{code, out.String(), errb.String()}
}

// wikiEvalShape is two rows shaped like WikiEval: the question, the answer,
// two versions of the contexts and alternative answers as columns of their
// own.
const wikiEvalShape = `{"answer": "The film was released in 2022.", "question": "When was the film released?", "context_v1": ["The film was released in 2022 by the studio."], "context_v2": ["The film premiered at a festival.", "The film was released in 2022 by the studio."], "ungrounded_answer": "It came out in 1999.", "source": "Film", "poor_answer": "Recently."}
{"answer": "Paris is the capital.", "question": "What is the capital of France?", "context_v1": ["Paris is the capital of France."], "context_v2": ["France is in Europe.", "Paris is the capital of France."], "ungrounded_answer": "Lyon.", "source": "France", "poor_answer": "A city."}
`

// Item 17: mapping one of two sibling columns (context_v1) leaves the
// other (context_v2) as metadata; it is not reported as a typo of it.
func TestInputsSiblingColumnsAreNotTypos(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "wikieval.jsonl")
	if err := os.WriteFile(ds, []byte(wikiEvalShape), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"context_v1", "context_v2"} {
		t.Run(v, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", ds, "--out", out,
				"--field", "user_input=question", "--field", "response=answer", "--field", "retrieved_contexts="+v)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "did you mean") {
				t.Errorf("a sibling column is called a typo:\n%s", r.stderr)
			}
		})
	}
	// A real typo of the mapped name is still caught.
	typo := filepath.Join(dir, "typo.jsonl")
	if err := os.WriteFile(typo, []byte(strings.ReplaceAll(wikiEvalShape, `"context_v2"`, `"contetx_v1"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", typo, "--out", filepath.Join(dir, "r.json"),
		"--field", "user_input=question", "--field", "response=answer", "--field", "retrieved_contexts=context_v1")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `did you mean "context_v1"`) {
		t.Errorf("exit %d, want 2 with a did-you-mean for the typo\n%s", r.code, r.stderr)
	}
}

// Item 16: when the temporary directory is full, whether before the run
// (the texts file cannot be created) or during it (writing the texts
// fails), the run is not lost: the results are written without texts,
// with a warning, and the exit code is the run's own.
func TestInputsFullTempDirKeepsTheRun(t *testing.T) {
	errFull := errors.New("write /tmp/raggate-texts-1.jsonl: no space left on device")
	tests := []struct {
		name  string
		spill func(dir string) (*results.Spill, error)
	}{
		{"the texts file cannot be created", func(string) (*results.Spill, error) {
			return nil, errFull
		}},
		{"writing the texts fails during the run", func(dir string) (*results.Spill, error) {
			sp, err := results.NewSpill(t.TempDir())
			if err != nil {
				return nil, err
			}
			sp.Close() // every write fails from now on
			return sp, nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			r := gateEnv(t, Env{newSpill: tt.spill}, "run", "--quiet", "--judge", "offline",
				"--dataset", repo+"/testdata/demo/golden.jsonl", "--out", out)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0 (the run is not lost)\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "warning:") || !strings.Contains(r.stderr, "without texts") {
				t.Errorf("stderr does not warn that the texts were left out:\n%s", r.stderr)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatalf("no results file: %v", err)
			}
			if len(f.Samples) != 20 {
				t.Errorf("%d samples saved, want 20", len(f.Samples))
			}
			for _, s := range f.Samples {
				if s.HasTexts() {
					t.Fatalf("sample %s has texts; the spill failed, so none were kept", s.ID)
				}
			}
			if !strings.Contains(strings.Join(f.Warnings, "\n"), "without texts") {
				t.Errorf("the results file's warnings do not say the texts were left out: %q", f.Warnings)
			}
		})
	}
}

// gatePrompt runs the CLI and fails the test when it has not returned
// within a generous bound: a FIFO or a device must be refused, not read
// (the command would block or fill memory).
func gatePrompt(t *testing.T, args ...string) runResult {
	t.Helper()
	done := make(chan runResult, 1)
	go func() { done <- gate(t, nil, args...) }()
	select {
	case r := <-done:
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("gate %s: still running after 30 s: it blocks on (or reads) a file it should refuse", strings.Join(args, " "))
	}
	return runResult{}
}

// Item 11: every input file is opened by one regular-file-only opener: a
// FIFO, a device (also behind a symbolic link) or a directory given for any
// input is refused at once, exit 2, naming the flag.
func TestInputsNonRegularFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "base.json")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	zeroLink := filepath.Join(dir, "z.json")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	history := filepath.Join(dir, "history")
	if err := os.MkdirAll(history, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(history, "z.json")); err != nil {
		t.Fatal(err)
	}
	golden := repo + "/testdata/demo/golden.jsonl"
	base := repo + "/testdata/demo/baseline.json"
	out := filepath.Join(dir, "out.json")
	tests := []struct {
		name string
		args []string
		flag string // what the message must name
	}{
		{"compare --base FIFO", []string{"compare", "--base", fifo, "--head", base}, "--base"},
		{"compare --head /dev/zero", []string{"compare", "--base", base, "--head", "/dev/zero"}, "--head"},
		{"compare --base symlink to /dev/zero", []string{"compare", "--base", zeroLink, "--head", base}, "--base"},
		{"compare --base directory", []string{"compare", "--base", dir, "--head", base}, "--base"},
		{"compare --thresholds /dev/zero", []string{"compare", "--base", base, "--head", base, "--thresholds", "/dev/zero"}, "--thresholds"},
		{"compare --history with a link to /dev/zero", []string{"compare", "--base", base, "--head", base, "--history", history}, "--history"},
		{"check --baseline FIFO", []string{"check", "--judge", "offline", "--dataset", golden, "--baseline", fifo, "--out", out}, "--baseline"},
		{"merge /dev/zero", []string{"merge", "--out", out, base, "/dev/zero"}, "/dev/zero"},
		{"baseline put --results /dev/zero", []string{"baseline", "put", "--store", "file", "--path", out, "--results", "/dev/zero"}, "--results"},
		{"agree --results FIFO", []string{"agree", "--results", fifo, "--label", "human", "--positive", "yes"}, "--results"},
		{"run --responses /dev/zero", []string{"run", "--judge", "offline", "--dataset", golden, "--responses", "/dev/zero", "--out", out}, "--responses"},
		{"run --metrics-file /dev/zero", []string{"run", "--judge", "offline", "--dataset", golden, "--metrics-file", "/dev/zero", "--out", out}, "--metrics-file"},
		{"run --target-config FIFO", []string{"run", "--judge", "offline", "--dataset", golden, "--target-config", fifo, "--out", out}, "--target-config"},
		{"run --prices /dev/zero", []string{"run", "--dry-run", "--judge", "openai", "--dataset", golden, "--prices", "/dev/zero"}, "--prices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gatePrompt(t, tt.args...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "not a regular file") || !strings.Contains(r.stderr, tt.flag) {
				t.Errorf("stderr does not say that %s is not a regular file:\n%s", tt.flag, r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written although an input was refused", out)
			}
		})
	}
}

// Item 11: a results file or a config file over its limit is refused
// before it is read, exit 2, naming the flag and the limit. The limits are
// lowered for the test instead of writing gigabytes.
func TestInputsOversizedFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	base := repo + "/testdata/demo/baseline.json" // about 50 KB: over 32 KiB
	big := filepath.Join(dir, "thresholds.yaml")
	if err := os.WriteFile(big, []byte("version: 1\n"+strings.Repeat("# a long comment line\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.json")
	f, err := results.Read(base)
	if err != nil {
		t.Fatal(err)
	}
	f.Samples = f.Samples[:2]
	if err := results.Write(small, f); err != nil {
		t.Fatal(err)
	}
	defer inputfile.SetLimits(32<<10, 1<<10)()
	tests := []struct {
		name        string
		args        []string
		flag, limit string
	}{
		{"compare --base", []string{"compare", "--base", base, "--head", small}, "--base", "32 KiB"},
		{"baseline put --results", []string{"baseline", "put", "--store", "file", "--path", filepath.Join(dir, "b.json"), "--results", base}, "--results", "32 KiB"},
		{"compare --thresholds", []string{"compare", "--base", small, "--head", small, "--thresholds", big}, "--thresholds", "1 KiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gate(t, nil, tt.args...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.flag) || !strings.Contains(r.stderr, "larger than "+tt.limit) {
				t.Errorf("stderr does not name %s and the limit %s:\n%s", tt.flag, tt.limit, r.stderr)
			}
		})
	}
	// Within the limits, the same files are read.
	if r := gate(t, nil, "compare", "--base", small, "--head", small); r.code != 0 {
		t.Errorf("a small results file: exit %d\n%s", r.code, r.stderr)
	}
}

// Item 14: the retrieved contexts of a sample are capped (--max-contexts,
// default 50), from a target and from the dataset alike: the first ones
// are judged, the cut is warned about, and a dry run's estimate counts
// the capped contexts.
func TestInputsContextsPerSampleAreCapped(t *testing.T) {
	many := make([]map[string]string, 1000)
	for i := range many {
		many[i] = map[string]string{"text": fmt.Sprintf("Context %d about the Kestrel K2 battery.", i+1), "id": fmt.Sprintf("c%d", i+1)}
	}
	srv := demoService(t, 0, func(w http.ResponseWriter, q string) bool {
		_ = json.NewEncoder(w).Encode(map[string]any{"answer": "The K2 stores 13.5 kWh.", "docs": many})
		return true
	})
	for _, tt := range []struct {
		flags []string
		want  int
	}{{nil, 50}, {[]string{"--max-contexts", "5"}, 5}} {
		t.Run(fmt.Sprint(tt.want), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"run", "--dataset", demo, "--judge", "offline", "--metrics", "faithfulness,context_precision", "--out", out}, targetArgs(srv.URL)...)
			r := gate(t, nil, append(args, tt.flags...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, fmt.Sprintf("more than %d retrieved contexts", tt.want)) || !strings.Contains(r.stderr, "--max-contexts") {
				t.Errorf("stderr does not warn about the cut:\n%s", r.stderr)
			}
			for _, s := range readResults(t, out).Samples {
				if len(s.Contexts) != tt.want {
					t.Fatalf("sample %s: %d contexts recorded, want the first %d", s.ID, len(s.Contexts), tt.want)
				}
			}
		})
	}

	// The dry run of a dataset with 120 contexts a sample estimates what a
	// dataset with 50 would cost.
	dir := t.TempDir()
	withContexts := func(name string, n int) string {
		ctxs := make([]string, n)
		for i := range ctxs {
			ctxs[i] = fmt.Sprintf("Context %d about the Kestrel K2 battery.", i+1)
		}
		var b strings.Builder
		for i := range 3 {
			line, _ := json.Marshal(map[string]any{"user_input": fmt.Sprintf("Question %d?", i), "response": "It stores 13.5 kWh.",
				"reference": "The K2 stores 13.5 kWh.", "retrieved_contexts": ctxs})
			b.Write(append(line, '\n'))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	calls := func(ds string) string {
		r := gate(t, nil, "run", "--dry-run", "--judge", "openai", "--dataset", ds)
		if r.code != 0 {
			t.Fatalf("dry run: exit %d\n%s", r.code, r.stderr)
		}
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.Contains(l, "chat calls") {
				return strings.Fields(l)[2]
			}
		}
		t.Fatalf("no chat calls in the dry run:\n%s", r.stdout)
		return ""
	}
	if got, want := calls(withContexts("120.jsonl", 120)), calls(withContexts("50.jsonl", 50)); got != want {
		t.Errorf("dry run of 120 contexts a sample: %s chat calls, want the %s of 50 (the cap)", got, want)
	}
}

// With a target the contexts are the target's: the dry run states the
// bound --max-contexts puts on the chat calls (a target returning 1,000
// contexts made 113 calls a sample where the estimate said 15).
func TestInputsDryRunOfATargetStatesTheContextsBound(t *testing.T) {
	for _, c := range []struct {
		maxContexts, want string
	}{
		{"50", "at most            1140 chat calls (57 per sample) if the target returns --max-contexts 50 contexts for every sample"},
		{"10", "at most            340 chat calls (17 per sample) if the target returns --max-contexts 10 contexts for every sample"},
		{"0", "no bound: --max-contexts 0"},
	} {
		r := gate(t, nil, "run", "--dry-run", "--judge", "openai", "--dataset", demo, "--target", "http://127.0.0.1:9/ask",
			"--metrics", "faithfulness,context_precision,context_recall,factual_correctness", "--max-contexts", c.maxContexts)
		if r.code != 0 || !strings.Contains(r.stdout, c.want) {
			t.Errorf("--max-contexts %s: exit %d, want %q in\n%s%s", c.maxContexts, r.code, c.want, r.stdout, r.stderr)
		}
	}
}
