package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/action"
	"github.com/raggate/raggate/internal/ghaction/ghactiontest"
	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/judge/openaitest"
)

// dispatchPayload is a workflow_dispatch event of acme/support-rag.
func dispatchPayload() map[string]any {
	return map[string]any{"ref": "refs/heads/main", "repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}
}

// prPayload is a pull_request event of acme/support-rag with the given
// head and base commits.
func prPayload(number int, head, base string) map[string]any {
	return map[string]any{
		"action": "synchronize", "number": number,
		"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"},
		"pull_request": map[string]any{"number": number,
			"head": map[string]any{"sha": head, "ref": "feature", "repo": map[string]any{"full_name": "acme/support-rag"}},
			"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"full_name": "acme/support-rag"}}},
	}
}

// workspace returns a workspace holding the demo golden set at
// eval/golden.jsonl.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	b, err := os.ReadFile(repo + "/testdata/demo/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(ws, "eval"), 0o755)
	if err := os.WriteFile(filepath.Join(ws, "eval", "golden.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

// working-directory must stay inside the workspace, however it is spelt.
func TestActionWorkingDirectoryInsideWorkspace(t *testing.T) {
	parent := t.TempDir()
	ws := filepath.Join(parent, "ws")
	outside := filepath.Join(parent, "outside")
	for _, d := range []string{filepath.Join(ws, "eval"), outside} {
		os.MkdirAll(d, 0o755)
	}
	b, _ := os.ReadFile(repo + "/testdata/demo/golden.jsonl")
	for _, d := range []string{filepath.Join(ws, "eval"), outside} {
		os.WriteFile(filepath.Join(d, "golden.jsonl"), b, 0o644)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	tests := []struct {
		name, wd string
		wantCode int
	}{
		{"inside", "eval", 0},
		{"inside, absolute", filepath.Join(ws, "eval"), 0},
		{"inside, not clean", "eval/../eval/.", 0},
		{"parent", "../outside", 2},
		{"deeper parent", "../../outside", 2},
		{"dot-dot through a subdirectory", "eval/../../outside", 2},
		{"absolute outside", outside, 2},
		{"symbolic link to outside", "link", 2},
		{"missing", "nope", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := actionEnv(t, nil, "workflow_dispatch", dispatchPayload(), map[string]string{
				"dataset": "golden.jsonl", "judge": "offline", "working-directory": tt.wd,
				"baseline-store": "file", "baseline-path": "base.json", "results": "r.json", "report": "r.md",
			})
			env["GITHUB_WORKSPACE"] = ws
			r := gate(t, env, "action")
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.wantCode, r.stderr)
			}
			if tt.wantCode == 2 && !strings.Contains(r.stderr, "working-directory") {
				t.Errorf("the error does not name the input: %s", r.stderr)
			}
			if _, err := os.Stat(filepath.Join(outside, "r.json")); err == nil {
				t.Error("results were written outside the workspace")
			}
		})
	}
}

// An optional variable GitHub sets (the run attempt only makes the run's
// URL) that is malformed is a warning, not a failed gate.
func TestActionIgnoresMalformedRunAttempt(t *testing.T) {
	ws := workspace(t)
	env := actionEnv(t, nil, "workflow_dispatch", dispatchPayload(), map[string]string{
		"dataset": "eval/golden.jsonl", "judge": "offline", "baseline-store": "file", "baseline-path": "base.json",
	})
	env["GITHUB_WORKSPACE"] = ws
	env["GITHUB_RUN_ATTEMPT"] = "abc"
	r := gate(t, env, "action")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "::warning") || !strings.Contains(r.stdout, `GITHUB_RUN_ATTEMPT "abc"`) {
		t.Errorf("no warning annotation about GITHUB_RUN_ATTEMPT:\n%s", r.stdout)
	}
}

// A pull_request run whose payload is missing does not know its base: it
// must not fall back to the checkout's thresholds and baseline.
func TestActionPullRequestNeedsItsPayload(t *testing.T) {
	tests := []struct {
		name  string
		setup func(env map[string]string)
	}{
		{"no GITHUB_EVENT_PATH", func(env map[string]string) { delete(env, "GITHUB_EVENT_PATH") }},
		{"unreadable payload", func(env map[string]string) { env["GITHUB_EVENT_PATH"] += ".missing" }},
		{"empty payload", func(env map[string]string) { os.WriteFile(env["GITHUB_EVENT_PATH"], nil, 0o644) }},
		{"payload without the pull request", func(env map[string]string) {
			os.WriteFile(env["GITHUB_EVENT_PATH"], []byte(`{"action":"opened"}`), 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := workspace(t)
			// The checkout's own thresholds and baseline: what a PR could
			// loosen, and what the run must not fall back to.
			os.WriteFile(filepath.Join(ws, "thresholds.yaml"), []byte("version: 1\n"), 0o644)
			env := actionEnv(t, nil, "pull_request", prPayload(7, strings.Repeat("b", 40), strings.Repeat("a", 40)), map[string]string{
				"dataset": "eval/golden.jsonl", "judge": "offline", "thresholds": "thresholds.yaml",
				"baseline-store": "file", "baseline-path": "base.json",
			})
			env["GITHUB_WORKSPACE"] = ws
			tt.setup(env)
			r := gate(t, env, "action")
			if r.code != 2 || !strings.Contains(r.stderr, "event payload is required") {
				t.Fatalf("exit %d, want 2 saying the payload is required\n%s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(ws, "raggate-results.json")); err == nil {
				t.Error("the gate ran anyway")
			}
		})
	}
}

// gateCtx is gate with a context of the caller's.
func gateCtx(ctx context.Context, t *testing.T, env map[string]string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(ctx, args, Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
	})
	return runResult{code, out.String(), errb.String()}
}

// checkOutputs asserts that every output was written exactly once and
// that they agree with each other and with want.
func checkOutputs(t *testing.T, path, wantVerdict, wantPassed string) {
	t.Helper()
	outputs := ghactiontest.ReadOutputs(t, path)
	if len(outputs.Plain) > 0 {
		t.Fatalf("outputs %v written as name=value lines, want heredocs", outputs.Plain)
	}
	vals, counts := outputs.Values, outputs.Counts
	for _, n := range action.OutputNames {
		if counts[n] != 1 {
			t.Errorf("output %s written %d times, want once", n, counts[n])
		}
	}
	if len(counts) != len(action.OutputNames) {
		t.Errorf("outputs %v, want exactly %v", counts, action.OutputNames)
	}
	if vals["verdict"] != wantVerdict || vals["passed"] != wantPassed {
		t.Errorf("verdict=%q passed=%q, want %q %q", vals["verdict"], vals["passed"], wantVerdict, wantPassed)
	}
	var sum struct {
		Passed  *bool  `json:"passed"`
		Verdict string `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(vals["summary-json"]), &sum); err != nil {
		t.Fatalf("summary-json %q: %v", vals["summary-json"], err)
	}
	if sum.Verdict != vals["verdict"] || sum.Passed == nil || fmt.Sprint(*sum.Passed) != vals["passed"] {
		t.Errorf("summary-json %s contradicts verdict=%q passed=%q", vals["summary-json"], vals["verdict"], vals["passed"])
	}
}

// prRun sets up a pull request check of acme/support-rag on the GitHub
// fake (GITHUB_TOKEN identity, no baseline yet) with the offline judge.
func prRun(t *testing.T, gh *ghtest.Server, inputs map[string]string) map[string]string {
	t.Helper()
	const repo = "acme/support-rag"
	gh.AddRepo(repo, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	base := gh.Commit(repo, "main", "base")
	head := gh.AddCommit(repo, "change", base)
	in := map[string]string{"dataset": "eval/golden.jsonl", "judge": "offline", "github-token": "t"}
	for k, v := range inputs {
		in[k] = v
	}
	env := actionEnv(t, gh, "pull_request", prPayload(7, head, base), in)
	env["GITHUB_WORKSPACE"] = workspace(t)
	return env
}

// Every output is written once per run, and they tell one story: a
// comment that cannot be posted after a pass makes the verdict error
// everywhere, summary-json included.
func TestActionOutputsWrittenOnceWithOneVerdict(t *testing.T) {
	tests := []struct {
		name        string
		failComment bool
		wantCode    int
		wantVerdict string
		wantPassed  string
	}{
		{"pass", false, 0, "pass", "true"},
		{"comment fails after a pass", true, 3, "error", "false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := ghtest.NewServer(t, ghtest.Enterprise())
			env := prRun(t, gh, nil)
			if tt.failComment {
				gh.FailMatching("POST", "/repos/acme/support-rag/issues/7/comments", -1, ghtest.ServerError)
			}
			r := gate(t, env, "action")
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.wantCode, r.stderr)
			}
			checkOutputs(t, env["GITHUB_OUTPUT"], tt.wantVerdict, tt.wantPassed)
		})
	}
}

// A cancelled check (SIGTERM, a cancelled job) replaces the sticky
// comment with the error note, on a context of its own, and exits 130.
func TestActionCancelledCheckPostsTheErrorNote(t *testing.T) {
	gh := ghtest.NewServer(t, ghtest.Enterprise())
	judge := openaitest.NewServer(t)
	judge.Inject(openaitest.Stall().Times(-1))
	env := prRun(t, gh, map[string]string{"judge": "openai", "base-url": judge.URL, "api-key": "k", "model": "m", "embedding-model": "e"})
	old := "<!-- raggate:gate=raggate -->\n<!-- raggate:head=" + strings.Repeat("c", 40) + " -->\n### ✅ raggate: no significant regression\n"
	id := gh.AddComment("acme/support-rag", 7, ghtest.ActionsBot, old)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// Cancel once the judge holds a request: the run is under way.
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		defer wcancel()
		judge.Wait(wctx, 1)
		cancel()
	}()
	r := gateCtx(ctx, t, env, "action")
	if r.code != ExitCancelled {
		t.Fatalf("exit %d, want 130\n%s", r.code, r.stderr)
	}
	cs := gh.Comments("acme/support-rag", 7)
	if len(cs) != 1 || cs[0].ID != id {
		t.Fatalf("comments %+v, want the one sticky comment", cs)
	}
	if !strings.Contains(cs[0].Body, "raggate: error") || !strings.Contains(cs[0].Body, "cancelled") || strings.Contains(cs[0].Body, "no significant regression") {
		t.Errorf("the stale verdict stayed up:\n%s", cs[0].Body)
	}
	checkOutputs(t, env["GITHUB_OUTPUT"], "error", "false")
}

// With a GitHub App installation token (actions/create-github-app-token)
// GET /user is 403 and comments are by "<slug>[bot]": two runs update one
// comment. An explicit comment-author does the same without asking.
func TestActionAppTokenUpdatesOneComment(t *testing.T) {
	app := ghtest.Identity{Login: "raggate-app[bot]", ID: 777, Type: "Bot"}
	tests := []struct {
		name       string
		inputs     map[string]string
		failGraphQ bool
	}{
		{"identity from GitHub", nil, false},
		{"comment-author input", map[string]string{"comment-author": app.Login}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := ghtest.NewServer(t, ghtest.Enterprise())
			env := prRun(t, gh, tt.inputs)
			gh.UseIntegrationToken(app)
			if tt.failGraphQ {
				gh.FailMatching("POST", "/graphql", -1, ghtest.ServerError)
			}
			for run := 1; run <= 2; run++ {
				if r := gate(t, env, "action"); r.code != 0 {
					t.Fatalf("run %d: exit %d\n%s", run, r.code, r.stderr)
				}
				cs := gh.Comments("acme/support-rag", 7)
				if len(cs) != 1 || cs[0].User.Login != app.Login {
					t.Fatalf("after run %d: %d comments, want one by %s", run, len(cs), app.Login)
				}
			}
		})
	}
}

// gitIn runs git in dir with a fixed identity and no user configuration.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// With baseline-store: git, a baseline-path that is not at the base commit
// is exit 2 naming the nearest path, unless the pull request itself adds
// the file (then there is no baseline yet).
func TestActionGitStoreMissingBaseline(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	demoBaseline, err := os.ReadFile(repo + "/testdata/demo/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		baseHasFile  bool // eval/baseline.json committed at the base
		prAddsFile   bool // eval/baseline.json in the checkout only
		path         string
		wantCode     int
		wantInStderr string
	}{
		{"read at the base", true, false, "eval/baseline.json", 0, "20 paired"},
		{"mistyped path", true, false, "eval/baselne.json", 2, "did you mean eval/baseline.json?"},
		{"mistyped path, nothing at the base", false, false, "eval/baseline.json", 2, "eval/baseline.json is not in"},
		{"the pull request adds it", false, true, "eval/baseline.json", 0, "no baseline yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := workspace(t)
			gitIn(t, ws, "init", "-q", "-b", "main")
			if tt.baseHasFile {
				os.WriteFile(filepath.Join(ws, "eval", "baseline.json"), demoBaseline, 0o644)
			}
			gitIn(t, ws, "add", "-A")
			gitIn(t, ws, "commit", "-q", "-m", "base")
			base := gitIn(t, ws, "rev-parse", "HEAD")
			if tt.prAddsFile {
				os.WriteFile(filepath.Join(ws, "eval", "baseline.json"), demoBaseline, 0o644)
			}
			gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "change")
			head := gitIn(t, ws, "rev-parse", "HEAD")
			env := actionEnv(t, nil, "pull_request", prPayload(7, head, base), map[string]string{
				"dataset": "eval/golden.jsonl", "judge": "offline", "comment": "false",
				"baseline-store": "git", "baseline-path": tt.path,
			})
			env["GITHUB_WORKSPACE"] = ws
			r := gate(t, env, "action")
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.wantCode, r.stderr)
			}
			if !strings.Contains(r.stderr+r.stdout+readFile(t, env["GITHUB_STEP_SUMMARY"]), tt.wantInStderr) {
				t.Errorf("output does not say %q:\n%s\n%s", tt.wantInStderr, r.stdout, r.stderr)
			}
		})
	}
}
