package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
)

// Every bad flag value is exit 2 naming the flag and its valid range, and
// is found before anything is read: the dataset here does not exist, so a
// message about it means the flag was not checked first.
func TestBadFlagValuesExit2(t *testing.T) {
	const missing = "no-such-dataset.jsonl"
	run := func(extra ...string) []string {
		return append([]string{"run", "--dataset", missing, "--judge", "offline", "--out", filepath.Join(t.TempDir(), "r.json")}, extra...)
	}
	check := func(extra ...string) []string {
		return append([]string{"check", "--dataset", missing, "--judge", "offline", "--out", filepath.Join(t.TempDir(), "r.json")}, extra...)
	}
	tests := []struct {
		name string
		args []string
		want []string // each must be in stderr
	}{
		{"concurrency 0", run("--concurrency", "0"), []string{"--concurrency 0", "1 to 1000"}},
		{"concurrency -1", run("--concurrency", "-1"), []string{"--concurrency -1", "1 to 1000"}},
		{"concurrency huge", run("--concurrency", "100000"), []string{"--concurrency 100000", "1 to 1000"}},
		{"repeats 0", run("--repeats", "0"), []string{"--repeats 0", "1 to 100"}},
		{"repeats -2", run("--repeats", "-2"), []string{"--repeats -2", "1 to 100"}},
		{"strictness 0", run("--strictness", "0"), []string{"--strictness 0", "1 to 10"}},
		{"strictness 11", run("--strictness", "11"), []string{"--strictness 11", "1 to 10"}},
		{"max-retries -1", run("--max-retries", "-1"), []string{"--max-retries -1", "0 to 20"}},
		{"max-retries 21", run("--max-retries", "21"), []string{"--max-retries 21", "0 to 20"}},
		{"request-timeout 0", run("--request-timeout", "0"), []string{"--request-timeout 0s", "more than 0"}},
		{"request-timeout -1s", run("--request-timeout", "-1s"), []string{"--request-timeout -1s", "more than 0"}},
		{"request-timeout 2h", run("--request-timeout", "2h"), []string{"--request-timeout 2h0m0s", "at most 1h"}},
		{"max-duration -1s", run("--max-duration", "-1s"), []string{"--max-duration -1s", "0 (no limit) or more"}},
		{"rpm -1", run("--rpm", "-1"), []string{"--rpm -1", "0 (no limit) or more"}},
		{"tpm -5", run("--tpm", "-5"), []string{"--tpm -5", "0 (no limit) or more"}},
		{"max-completion-tokens 0", run("--max-completion-tokens", "0"), []string{"--max-completion-tokens 0", "1 to 1000000"}},
		{"max-completion-tokens -3", run("--max-completion-tokens", "-3"), []string{"--max-completion-tokens -3", "1 to 1000000"}},
		{"max-undefined NaN", run("--max-undefined", "NaN"), []string{"--max-undefined NaN", "0 to 1"}},
		{"max-undefined -0.1", run("--max-undefined", "-0.1"), []string{"--max-undefined -0.1", "0 to 1"}},
		{"max-undefined 1.5", run("--max-undefined", "1.5"), []string{"--max-undefined 1.5", "0 to 1"}},
		{"max-undefined Inf", run("--max-undefined", "Inf"), []string{"--max-undefined +Inf", "0 to 1"}},
		{"judge unknown", run("--judge", "gpt"), []string{`--judge "gpt"`, "auto, offline or openai"}},
		{"claims-atomicity unknown", run("--claims-atomicity", "medium"), []string{`--claims-atomicity "medium"`, "low or high"}},
		{"claims-coverage unknown", run("--claims-coverage", "High"), []string{`--claims-coverage "High"`, "low or high"}},
		{"response-format unknown", run("--response-format", "json"), []string{`--response-format "json"`, "json_schema, json_object or none"}},
		{"metrics unknown", run("--metrics", "faithfulnes"), []string{"--metrics", `did you mean "faithfulness"`}},
		{"field malformed", run("--field", "response"), []string{`--field "response"`, "canonical=name"}},
		{"shard 3/2", run("--shard", "3/2"), []string{"--shard", "1 <= i <= n"}},
		{"shard 0/4", run("--shard", "0/4"), []string{"--shard", "1 <= i <= n"}},
		{"base-url and azure", run("--base-url", "http://localhost:1/v1", "--azure-endpoint", "https://x.openai.azure.com"), []string{"--base-url", "--azure-endpoint", "not both"}},
		{"out empty", []string{"run", "--dataset", missing, "--out", ""}, []string{"--out", "results file"}},
		{"dataset missing", []string{"run"}, []string{"--dataset is required"}},
		{"two problems at once", run("--concurrency", "0", "--strictness", "0"), []string{"--concurrency 0", "--strictness 0"}},

		{"check format", check("--format", "html"), []string{`--format "html"`, "text, markdown or json"}},
		{"check both baselines", check("--baseline", "b.json", "--baseline-ref", "origin/main:b.json"), []string{"--baseline", "--baseline-ref", "not both"}},
		{"check baseline-ref without path", check("--baseline-ref", "origin/main"), []string{`--baseline-ref "origin/main"`, "REF:PATH"}},
		{"check concurrency", check("--concurrency", "-3"), []string{"--concurrency -3", "1 to 1000"}},

		{"calibrate repeats 1", []string{"calibrate", "--dataset", missing, "--repeats", "1"}, []string{"--repeats 1", "2 to 100"}},
		{"calibrate alpha 0", []string{"calibrate", "--dataset", missing, "--alpha", "0"}, []string{"--alpha 0", "more than 0 and less than 1"}},
		{"calibrate alpha NaN", []string{"calibrate", "--dataset", missing, "--alpha", "NaN"}, []string{"--alpha NaN", "more than 0 and less than 1"}},
		{"calibrate alpha 1", []string{"calibrate", "--dataset", missing, "--alpha", "1"}, []string{"--alpha 1", "more than 0 and less than 1"}},

		{"compare head missing", []string{"compare", "--base", "b.json"}, []string{"--head is required"}},
		{"compare format", []string{"compare", "--head", "h.json", "--format", "yaml"}, []string{`--format "yaml"`, "text, markdown or json"}},

		{"merge out empty", []string{"merge", "--out", "", "a.json"}, []string{"--out", "results file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := gate(t, nil, tt.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, missing) {
				t.Errorf("the dataset was read before the flags were checked:\n%s", r.stderr)
			}
		})
	}
}

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
		{map[string]string{"judge": "gpt"}, []string{`input "judge": "gpt"`, "auto, offline or openai"}},
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

// A dry run against Azure prices the configured deployment, as the real
// run reports it, not OpenAI's default model.
func TestDryRunAzureUsesTheConfiguredModel(t *testing.T) {
	r := gate(t, map[string]string{"AZURE_OPENAI_API_KEY": "k"}, "run", "--dry-run", "--dataset", repo+"/testdata/demo/golden.jsonl",
		"--judge", "openai", "--api-key-env", "AZURE_OPENAI_API_KEY", "--azure-endpoint", "https://acme.openai.azure.com",
		"--azure-deployment", "prod-chat", "--azure-embedding-deployment", "prod-embed")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `judge model "prod-chat", embeddings "prod-embed"`) || strings.Contains(r.stdout, "gpt-4o-mini") {
		t.Errorf("dry run does not describe the Azure deployments:\n%s", r.stdout)
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
