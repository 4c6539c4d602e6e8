package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
)

// The defaults, and the values at the edge of each range, are accepted.
func TestEdgeFlagValuesAccepted(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "golden.jsonl")
	copyTestFile(t, repo+"/testdata/demo/golden.jsonl", ds)
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, nil, "run", "--quiet", "--dataset", ds, "--judge", "offline", "--out", out, "--metrics", "faithfulness",
		"--concurrency", "1", "--repeats", "1", "--strictness", "10", "--max-retries", "0", "--rpm", "0", "--tpm", "0",
		"--max-duration", "0", "--request-timeout", "1h", "--max-completion-tokens", "1", "--max-undefined", "1",
		"--response-format", "none", "--shard", "1/1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

// The action's inputs go through the same checks: exit 2 naming the input.
func TestActionBadNumericInputs(t *testing.T) {
	dispatch := map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}
	tests := []struct {
		inputs map[string]string
		want   []string
	}{
		{map[string]string{"concurrency": "-3"}, []string{`input "concurrency": -3`, "1 to 1000"}},
		{map[string]string{"concurrency": "0"}, []string{`input "concurrency": 0`, "1 to 1000"}},
		{map[string]string{"concurrency": "5000"}, []string{`input "concurrency": 5000`, "1 to 1000"}},
		{map[string]string{"judge": "gpt"}, []string{`input "judge": "gpt"`, "auto, offline, openai or azure"}},
		{map[string]string{"metrics": "faithfulnes"}, []string{`input "metrics"`, `did you mean "faithfulness"`}},
		{map[string]string{"fields": "response"}, []string{`input "fields": "response"`, "canonical=name"}},
		{map[string]string{"base-url": "http://localhost:1/v1", "azure-endpoint": "https://x.openai.azure.com"}, []string{`input "base-url"`, `input "azure-endpoint"`, "not both"}},
	}
	for _, tt := range tests {
		name := ""
		for k, v := range tt.inputs {
			name += k + "=" + v + " "
		}
		t.Run(name, func(t *testing.T) {
			in := map[string]string{"dataset": "golden.jsonl", "judge": "offline"}
			for k, v := range tt.inputs {
				in[k] = v
			}
			env := actionEnv(t, nil, "workflow_dispatch", dispatch, in)
			r := gate(t, env, "action")
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
		})
	}
}

// An output path that names an input is refused before anything is
// written: the user's golden file is never overwritten, whatever path
// reaches it.
func TestOutputNamingAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.jsonl")
	copyTestFile(t, repo+"/testdata/demo/golden.jsonl", golden)
	resp := filepath.Join(dir, "responses.jsonl")
	copyTestFile(t, repo+"/testdata/demo/responses-degraded.jsonl", resp)
	base := filepath.Join(dir, "base.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", golden, "--judge", "offline", "--metrics", "string_similarity", "--out", base); r.code != 0 {
		t.Fatalf("base run: exit %d\n%s", r.code, r.stderr)
	}
	thresholds := filepath.Join(dir, "thresholds.yaml")
	os.WriteFile(thresholds, []byte("version: 1\n"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(golden, link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	other := filepath.Join(dir, "other.json")

	inputs := []string{golden, resp, base, thresholds}
	before := map[string][]byte{}
	for _, p := range inputs {
		before[p], _ = os.ReadFile(p)
	}
	run := []string{"run", "--quiet", "--judge", "offline", "--dataset", golden}
	tests := []struct {
		name string
		args []string
		want string // the flag named as the input
	}{
		{"run --out = --dataset", append(run, "--out", golden), "--dataset"},
		{"run --out = --dataset via ..", append(run, "--out", filepath.Join(sub, "..", "golden.jsonl")), "--dataset"},
		{"run --out = --dataset via a symlink", append(run, "--out", link), "--dataset"},
		{"run --out = --responses", append(run, "--responses", resp, "--out", resp), "--responses"},
		{"calibrate --out = --dataset", []string{"calibrate", "--quiet", "--judge", "offline", "--dataset", golden, "--out", golden}, "--dataset"},
		{"check --out = --baseline", append([]string{"check", "--quiet", "--judge", "offline", "--dataset", golden}, "--baseline", base, "--out", base), "--baseline"},
		{"check --out = --thresholds", append([]string{"check", "--quiet", "--judge", "offline", "--dataset", golden}, "--thresholds", thresholds, "--out", thresholds), "--thresholds"},
		{"check --report = --dataset", append([]string{"check", "--quiet", "--judge", "offline", "--dataset", golden}, "--out", other, "--report", golden), "--dataset"},
		{"check --report = --out", append([]string{"check", "--quiet", "--judge", "offline", "--dataset", golden}, "--out", other, "--report", other), "--out"},
		{"compare --out = --head", []string{"compare", "--base", base, "--head", base, "--out", base}, "--head"},
		{"compare --out = --thresholds", []string{"compare", "--head", base, "--thresholds", thresholds, "--out", thresholds}, "--thresholds"},
		{"merge --out = an input", []string{"merge", "--out", base, base}, base},
		{"baseline get --out = --path", []string{"baseline", "get", "--store", "file", "--path", base, "--out", base}, "--path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gate(t, nil, tt.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tt.want) || !strings.Contains(r.stderr, "would overwrite") {
				t.Errorf("stderr does not say which input would be overwritten (%s):\n%s", tt.want, r.stderr)
			}
			for _, p := range inputs {
				if b, _ := os.ReadFile(p); !bytes.Equal(b, before[p]) {
					t.Fatalf("%s was changed", filepath.Base(p))
				}
			}
		})
	}
}

// The action refuses a results or report path that names an input too.
func TestActionOutputNamingAnInputIsRefused(t *testing.T) {
	ws := t.TempDir()
	copyTestFile(t, repo+"/testdata/demo/golden.jsonl", filepath.Join(ws, "golden.jsonl"))
	before, _ := os.ReadFile(filepath.Join(ws, "golden.jsonl"))
	dispatch := map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}
	for _, input := range []string{"results", "report"} {
		t.Run(input, func(t *testing.T) {
			env := actionEnv(t, nil, "workflow_dispatch", dispatch, map[string]string{"dataset": "golden.jsonl", "judge": "offline",
				"baseline-store": "file", "baseline-path": "base.json", input: "./golden.jsonl"})
			env["GITHUB_WORKSPACE"] = ws
			r := gate(t, env, "action")
			if r.code != 2 || !strings.Contains(r.stderr, `input "`+input+`"`) || !strings.Contains(r.stderr, "would overwrite") {
				t.Fatalf("exit %d, want 2 naming input %s\n%s", r.code, input, r.stderr)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "golden.jsonl")); !bytes.Equal(b, before) {
				t.Fatal("the dataset was overwritten")
			}
		})
	}
}

// An output that cannot be written is found before the judge is called,
// and the check leaves no file behind.
func TestUnwritableOutputFoundBeforeJudging(t *testing.T) {
	srv := openaitest.NewServer(t)
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.jsonl")
	copyTestFile(t, repo+"/testdata/demo/golden.jsonl", golden)
	notADir := filepath.Join(dir, "file.txt")
	os.WriteFile(notADir, []byte("x"), 0o644)
	env := map[string]string{"OPENAI_API_KEY": "k"}
	judgeArgs := []string{"--dataset", golden, "--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--no-cache"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"run --out under a file", append(append([]string{"run"}, judgeArgs...), "--out", filepath.Join(notADir, "r.json")), "--out"},
		{"run --out is a directory", append(append([]string{"run"}, judgeArgs...), "--out", dir), "--out"},
		{"check --report under a file", append(append([]string{"check"}, judgeArgs...), "--out", filepath.Join(dir, "r.json"), "--report", filepath.Join(notADir, "sub", "report.md")), "--report"},
		{"compare --out under a file", []string{"compare", "--head", golden, "--out", filepath.Join(notADir, "x.md")}, "--out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gate(t, env, tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, want 2 naming %s\n%s", r.code, tt.want, r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests reached the judge", n)
			}
		})
	}
	// A writable output is probed without leaving anything behind.
	if r := gate(t, env, append([]string{"run", "--dry-run"}, append(judgeArgs, "--out", filepath.Join(dir, "r.json"))...)...); r.code != 0 {
		t.Fatalf("dry run: exit %d\n%s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left behind: %v", names)
	}
}

// A missing embedding model is a configuration error found before the
// first judge call (it used to surface after every chat call of the run);
// so is a broken price table (it used to be ignored after the run).
func TestMissingEmbeddingModelExits2BeforeAnyCall(t *testing.T) {
	srv := openaitest.NewServer(t)
	dir := t.TempDir()
	env := map[string]string{"OPENAI_API_KEY": "k"}
	common := []string{"--quiet", "--dataset", repo + "/testdata/demo/golden.jsonl", "--judge", "openai", "--base-url", srv.URL, "--model", "m", "--no-cache"}
	prices := filepath.Join(dir, "prices.yaml")
	os.WriteFile(prices, []byte("m: {input_per_mtok: [}\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"run, default suite", append(append([]string{"run"}, common...), "--out", filepath.Join(dir, "r.json")),
			[]string{"--embedding-model", "answer_relevancy", "semantic_similarity"}},
		{"run, answer_correctness", append(append([]string{"run"}, common...), "--metrics", "faithfulness,answer_correctness", "--out", filepath.Join(dir, "r.json")),
			[]string{"--embedding-model", "answer_correctness", "--metrics faithfulness"}},
		{"check", append(append([]string{"check"}, common...), "--out", filepath.Join(dir, "r.json")),
			[]string{"--embedding-model", "answer_relevancy"}},
		{"dry run", append(append([]string{"run", "--dry-run"}, common...), "--out", filepath.Join(dir, "r.json")),
			[]string{"--embedding-model"}},
		{"calibrate", append(append([]string{"calibrate"}, common...), "--out", filepath.Join(dir, "c.json")),
			[]string{"--embedding-model"}},
		{"broken price table", append(append([]string{"run"}, common...), "--embedding-model", "e", "--prices", prices, "--out", filepath.Join(dir, "r.json")),
			[]string{"--prices"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gate(t, env, tt.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d requests reached the judge before the configuration error", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
				t.Error("a results file was written")
			}
		})
	}
	// Metrics that need no embeddings run without an embedding model.
	r := gate(t, env, append(append([]string{"run"}, common...), "--metrics", "faithfulness", "--out", filepath.Join(dir, "ok.json"))...)
	if r.code != 0 {
		t.Fatalf("faithfulness alone: exit %d\n%s", r.code, r.stderr)
	}
}

func copyTestFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
