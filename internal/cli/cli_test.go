package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// repo is the repository root, relative to this package.
const repo = "../.."

type runResult struct {
	code           int
	stdout, stderr string
}

// gate runs the CLI in-process with the given environment variables.
func gate(t *testing.T, env map[string]string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
	})
	return runResult{code, out.String(), errb.String()}
}

func TestRunDemoWithOfflineJudge(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	r := gate(t, nil, "run", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Samples) != 20 || f.Dataset.Samples != 20 {
		t.Fatalf("%d samples, want 20", len(f.Samples))
	}
	// The demo has every field, so the whole default suite runs.
	want := metrics.DefaultSuite(func(metrics.Field) bool { return true })
	if len(f.Config.Metrics) != len(want) {
		t.Errorf("metrics = %v, want the %d of the default suite", f.Config.Metrics, len(want))
	}
	for _, m := range want {
		s, ok := f.Summary[m.Name]
		if !ok || s.N != 20 {
			t.Errorf("%s: summary %+v, want 20 defined scores", m.Name, s)
		}
	}
	if f.Judge.Provider != "offline" || f.Judge.Fingerprint == "" || f.Judge.Prompts == "" {
		t.Errorf("judge = %+v", f.Judge)
	}
	if !strings.Contains(r.stdout, "faithfulness") || !strings.Contains(r.stdout, "median") {
		t.Errorf("console table missing:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "judged 20/20 samples") {
		t.Errorf("no progress on stderr:\n%s", r.stderr)
	}
}

func TestRunSharedDatasets(t *testing.T) {
	tests := []struct {
		file    string
		samples int
		fields  []string
	}{
		{"amnesty_qa/amnesty_qa_eval.english_v2.fbf1aec.jsonl", 20, nil},
		{"amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl", 20, nil},
		{"fiqa/fiqa.jsonl", 30, nil},
	}
	var v2, v3 *results.File
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/datasets/"+tt.file, "--judge", "offline", "--out", out)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Samples) != tt.samples {
				t.Fatalf("%d samples, want %d", len(f.Samples), tt.samples)
			}
			// Every metric the data allows (user_input, contexts, response,
			// reference): the LLM suite and the string metrics.
			for _, m := range []string{"context_precision", "precision_at_k", "context_recall", "faithfulness", "answer_relevancy",
				"factual_correctness", "noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "semantic_similarity",
				"string_similarity", "exact_match", "string_presence"} {
				if s, ok := f.Summary[m]; !ok || s.N+s.Undefined != tt.samples {
					t.Errorf("%s: %+v", m, s)
				}
			}
			for _, m := range []string{"id_context_precision", "nonllm_context_recall"} {
				if _, ok := f.Summary[m]; ok {
					t.Errorf("%s ran though the dataset has no such fields", m)
				}
			}
			switch {
			case strings.Contains(tt.file, "v2"):
				v2 = f
			case strings.Contains(tt.file, "v3"):
				v3 = f
			}
		})
	}
	if v2 != nil && v3 != nil {
		// Old and new Ragas vocabularies describe the same data: same scores.
		for i := range v2.Samples {
			a, b := v2.Samples[i], v3.Samples[i]
			if a.ID != b.ID {
				t.Fatalf("sample %d: ids %s vs %s", i, a.ID, b.ID)
			}
			for m, s := range a.Scores {
				if s != b.Scores[m] && !(s.IsNaN() && b.Scores[m].IsNaN()) {
					t.Errorf("sample %s %s: v2 %v, v3 %v", a.ID, m, s, b.Scores[m])
				}
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"user_input":"q","response":"r"}`+"\n"+`{"user_input":"q2","retreived_contexts":["c"]}`+"\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no dataset", []string{"run"}, 2, "--dataset is required"},
		{"missing file", []string{"run", "--dataset", filepath.Join(dir, "nope.jsonl")}, 2, "nope.jsonl"},
		{"bad field", []string{"run", "--dataset", bad, "--judge", "offline"}, 2, `bad.jsonl:2:20: unknown field "retreived_contexts": did you mean "retrieved_contexts"?`},
		{"unknown metric", []string{"run", "--dataset", repo + "/testdata/demo/golden.jsonl", "--metrics", "faithfullness"}, 2, `unknown metric "faithfullness"`},
		{"unknown judge", []string{"run", "--dataset", repo + "/testdata/demo/golden.jsonl", "--judge", "gpt"}, 2, `--judge "gpt"`},
		{"bad mapping", []string{"run", "--dataset", repo + "/testdata/demo/golden.jsonl", "--field", "response"}, 2, "want canonical=name-in-file"},
		{"unknown flag", []string{"run", "--datset", "x"}, 2, "flag provided but not defined"},
		{"stray argument", []string{"run", "--dataset", "x", "extra"}, 2, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args, "--out", filepath.Join(dir, "r.json"))
			if tt.name == "stray argument" {
				args = tt.args
			}
			r := gate(t, nil, args...)
			if r.code != tt.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tt.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr does not contain %q:\n%s", tt.want, r.stderr)
			}
		})
	}
}

func TestAutoJudgeSaysOffline(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, map[string]string{}, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--metrics", "faithfulness", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "using the offline judge") {
		t.Errorf("auto judge without a key did not say it uses the offline judge:\n%s", r.stderr)
	}
}

func TestHelpVersionUnknown(t *testing.T) {
	if r := gate(t, nil, "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "gate ") {
		t.Errorf("version: %d %q", r.code, r.stdout)
	}
	if r := gate(t, nil, "help"); r.code != 0 || !strings.Contains(r.stdout, "Exit codes") {
		t.Errorf("help: %d %q", r.code, r.stdout)
	}
	if r := gate(t, nil, "help", "run"); r.code != 0 || !strings.Contains(r.stderr, "-dataset") {
		t.Errorf("help run: %d %q", r.code, r.stderr)
	}
	if r := gate(t, nil, "rnu"); r.code != 2 || !strings.Contains(r.stderr, `Did you mean "run"?`) {
		t.Errorf("unknown command: %d %q", r.code, r.stderr)
	}
	if r := gate(t, nil); r.code != 2 {
		t.Errorf("no args: exit %d", r.code)
	}
}

func TestBaselineGetPut(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store", "base.json")
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", repo+"/testdata/demo/baseline.json"); r.code != 0 {
		t.Fatalf("put: %d %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "got.json")
	if r := gate(t, nil, "baseline", "get", "--store", "file", "--path", store, "--out", out); r.code != 0 {
		t.Fatalf("get: %d %s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil || len(f.Samples) != 20 {
		t.Fatalf("got %v %v", f, err)
	}
	if r := gate(t, nil, "baseline", "get", "--store", "file", "--path", filepath.Join(dir, "none.json")); r.code != 2 || !strings.Contains(r.stderr, "no baseline") {
		t.Errorf("missing baseline: %d %s", r.code, r.stderr)
	}
	if r := gate(t, nil, "baseline"); r.code != 2 {
		t.Errorf("no subcommand: exit %d", r.code)
	}
	if r := gate(t, nil, "baseline", "put", "--store", "git", "--path", "x.json", "--results", out); r.code != 2 || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("git put: %d %s", r.code, r.stderr)
	}
}

func TestShardAndMerge(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--out", whole); r.code != 0 {
		t.Fatal(r.stderr)
	}
	var shards []string
	total := 0
	for i := 1; i <= 3; i++ {
		p := filepath.Join(dir, "shard"+string(rune('0'+i))+".json")
		r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--shard", string(rune('0'+i))+"/3", "--out", p)
		if r.code != 0 {
			t.Fatal(r.stderr)
		}
		f, _ := results.Read(p)
		if f.Shard != string(rune('0'+i))+"/3" {
			t.Errorf("shard field %q", f.Shard)
		}
		total += len(f.Samples)
		shards = append(shards, p)
	}
	if total != 20 {
		t.Fatalf("shards hold %d samples, want 20 in all", total)
	}
	merged := filepath.Join(dir, "merged.json")
	if r := gate(t, nil, append([]string{"merge", "--quiet", "--out", merged}, shards...)...); r.code != 0 {
		t.Fatal(r.stderr)
	}
	a, _ := results.Read(whole)
	b, _ := results.Read(merged)
	if len(b.Samples) != 20 || b.Shard != "" {
		t.Fatalf("merged: %d samples, shard %q", len(b.Samples), b.Shard)
	}
	for m, s := range a.Summary {
		if got := b.Summary[m]; got.N != s.N || math.Abs(got.Mean.Value()-s.Mean.Value()) > 1e-12 {
			t.Errorf("%s: merged summary %+v, whole run %+v", m, got, s)
		}
	}
	// A missing shard is an error naming it.
	r := gate(t, nil, "merge", "--out", merged, shards[0], shards[2])
	if r.code != 2 || !strings.Contains(r.stderr, "2/3 are missing") {
		t.Errorf("missing shard: %d %s", r.code, r.stderr)
	}
	if r := gate(t, nil, "run", "--dataset", repo+"/testdata/demo/golden.jsonl", "--shard", "4/3"); r.code != 2 {
		t.Errorf("bad shard: exit %d", r.code)
	}
}

// The acceptance of the comparison: the demo passes against its own
// baseline and fails, naming the regressed metrics, with the degraded
// responses.
func TestCheckDemo(t *testing.T) {
	dir := t.TempDir()
	base := repo + "/testdata/demo/baseline.json"
	r := gate(t, nil, "check", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--baseline", base, "--judge", "offline",
		"--out", filepath.Join(dir, "head.json"), "--report", filepath.Join(dir, "report.md"))
	if r.code != 0 {
		t.Fatalf("check against its own baseline: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "PASS") {
		t.Errorf("no pass verdict:\n%s", r.stdout)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "| Metric | Base | Head |") {
		t.Errorf("markdown report: %v\n%s", err, md)
	}

	r = gate(t, nil, "check", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--responses", repo+"/testdata/demo/responses-degraded.jsonl",
		"--baseline", base, "--judge", "offline", "--out", filepath.Join(dir, "worse.json"))
	if r.code != 1 {
		t.Fatalf("degraded: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "faithfulness regressed by") {
		t.Errorf("the regressed metric is not named:\n%s", r.stdout)
	}

	// No baseline yet: floors only, said plainly, exit 0.
	r = gate(t, nil, "check", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--baseline", filepath.Join(dir, "none.json"),
		"--judge", "offline", "--out", filepath.Join(dir, "h2.json"))
	if r.code != 0 || !strings.Contains(r.stderr, "no baseline yet") {
		t.Errorf("no baseline: exit %d\n%s", r.code, r.stderr)
	}
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	worse := filepath.Join(dir, "worse.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--responses", repo+"/testdata/demo/responses-degraded.jsonl", "--judge", "offline", "--out", worse); r.code != 0 {
		t.Fatal(r.stderr)
	}
	base := repo + "/testdata/demo/baseline.json"
	r := gate(t, nil, "compare", "--base", base, "--head", worse, "--format", "json")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Passed   bool     `json:"passed"`
		Failures []string `json:"failures"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Passed || len(rep.Failures) == 0 {
		t.Fatalf("json report: %v %+v\n%s", err, rep, r.stdout)
	}
	out := filepath.Join(dir, "c.md")
	if r := gate(t, nil, "compare", "--base", base, "--head", base, "--format", "markdown", "--out", out); r.code != 0 || r.stdout != "" {
		t.Fatalf("identical: exit %d, stdout %q", r.code, r.stdout)
	}
	if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "### ✅ raggate: ") || !strings.Contains(string(b), "| Metric |") {
		t.Errorf("markdown:\n%s", b)
	}
	// Floors only without a base.
	th := filepath.Join(dir, "t.yaml")
	os.WriteFile(th, []byte("version: 1\nmetrics:\n  faithfulness: {min: 0.9}\n"), 0o644)
	if r := gate(t, nil, "compare", "--head", worse, "--thresholds", th); r.code != 1 || !strings.Contains(r.stdout, "below floor") {
		t.Errorf("floor: exit %d\n%s", r.code, r.stdout)
	}
	// Bad inputs: exit 2 with the place.
	os.WriteFile(th, []byte("version: 1\ndefaults:\n  tolerence: 0.1\n"), 0o644)
	if r := gate(t, nil, "compare", "--head", worse, "--thresholds", th); r.code != 2 || !strings.Contains(r.stderr, `t.yaml:3:3: unknown key "tolerence"`) {
		t.Errorf("thresholds typo: exit %d\n%s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(dir, "v2.json"), []byte(`{"schema":"raggate.results/v2"}`), 0o644)
	if r := gate(t, nil, "compare", "--head", filepath.Join(dir, "v2.json")); r.code != 2 || !strings.Contains(r.stderr, "raggate.results/v2") {
		t.Errorf("schema: exit %d\n%s", r.code, r.stderr)
	}
	if r := gate(t, nil, "compare", "--head", worse, "--format", "html"); r.code != 2 {
		t.Errorf("format: exit %d", r.code)
	}
}

// An interrupted run (SIGINT/SIGTERM cancel the context in main) exits 130
// and keeps what finished.
func TestCancelledRunExits130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, buf bytes.Buffer
	// Cancel once judging has begun (the dataset is loaded by then).
	stderr := &cancelOn{w: &buf, text: "judged ", cancel: cancel}
	code := Main(ctx, []string{"run", "--dataset", repo + "/testdata/demo/golden.jsonl", "--judge", "offline", "--out", out},
		Env{Stdout: &stdout, Stderr: stderr, Getenv: func(string) string { return "" }})
	if code != ExitCancelled {
		t.Fatalf("exit %d, want 130\n%s", code, buf.String())
	}
	f, err := results.Read(out)
	if err != nil || !strings.HasPrefix(f.Incomplete, "cancelled") {
		t.Fatalf("saved results: %v %+v", err, f)
	}
}

// cancelOn is a writer that calls cancel when text is written to it.
type cancelOn struct {
	mu     sync.Mutex
	w      io.Writer
	text   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.Contains(string(p), c.text) {
		c.cancel()
	}
	return c.w.Write(p)
}

// --baseline-ref reads the baseline with git show, as a CI job on a
// checkout of the PR would.
func TestCheckBaselineRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	gitRun := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitRun("init", "-q", "-b", "main")
	b, _ := os.ReadFile(repo + "/testdata/demo/baseline.json")
	os.MkdirAll(filepath.Join(dir, "eval"), 0o755)
	os.WriteFile(filepath.Join(dir, "eval", "results.json"), b, 0o644)
	gitRun("add", ".")
	gitRun("commit", "-q", "-m", "baseline")
	headOut, _ := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	head := strings.TrimSpace(string(headOut))
	// The working tree's copy is gone (as on a PR that deletes it): the
	// committed one is read.
	os.Remove(filepath.Join(dir, "eval", "results.json"))

	abs, _ := filepath.Abs(repo + "/testdata/demo/golden.jsonl")
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), []string{"check", "--quiet", "--dataset", abs, "--judge", "offline",
		"--baseline-ref", "main:eval/results.json", "--out", filepath.Join(dir, "head.json")},
		Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: dir})
	if code != 0 || !strings.Contains(stdout.String(), "20 paired") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	// A mistyped ref or path is not "no baseline yet": exit 2, naming it
	// and the nearest existing one, before any judge call.
	for _, tt := range []struct{ ref, want string }{
		{"mian:eval/results.json", "mian does not exist in the repository at " + dir + "; did you mean main?"},
		{"main:eval/result.json", "eval/result.json is not in main (commit " + head[:12] + "); did you mean eval/results.json?"},
		{"main:eval/missing.json", "eval/missing.json is not in main"},
	} {
		stdout.Reset()
		stderr.Reset()
		code = Main(context.Background(), []string{"check", "--quiet", "--dataset", abs, "--judge", "offline",
			"--baseline-ref", tt.ref, "--out", filepath.Join(dir, "typo.json")},
			Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Dir: dir})
		if code != 2 || !strings.Contains(stderr.String(), tt.want) || strings.Contains(stderr.String(), "floors only") {
			t.Errorf("--baseline-ref %s: exit %d, want 2 saying %q\n%s", tt.ref, code, tt.want, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "typo.json")); err == nil {
			t.Errorf("--baseline-ref %s: the judge ran before the baseline was checked", tt.ref)
		}
	}
}

func TestExitCodesOfBadInputs(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, []byte(`{"schema":"raggate.results/v1","samples":[{"id":1}]}`), 0o644)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"check with a corrupt baseline", []string{"check", "--dataset", repo + "/testdata/demo/golden.jsonl", "--judge", "offline", "--baseline", corrupt, "--out", filepath.Join(dir, "h.json")}, nil, "invalid results file"},
		{"compare with a corrupt base", []string{"compare", "--base", corrupt, "--head", repo + "/testdata/demo/baseline.json"}, nil, "invalid results file"},
		{"version with a bad flag", []string{"version", "--bogus"}, nil, "flag provided but not defined"},
		{"openai judge without a key", []string{"run", "--dataset", repo + "/testdata/demo/golden.jsonl", "--judge", "openai", "--out", filepath.Join(dir, "r.json")}, map[string]string{}, "no API key in $OPENAI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gate(t, tt.env, tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
}
