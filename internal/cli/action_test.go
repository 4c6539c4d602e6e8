package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/ghtest"
)

// actionEnv is the environment of a container action run in-process.
func actionEnv(t *testing.T, gh *ghtest.Server, event string, payload any, inputs map[string]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	ev := filepath.Join(dir, "event.json")
	b, _ := json.Marshal(payload)
	os.WriteFile(ev, b, 0o644)
	env := map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   event,
		"GITHUB_EVENT_PATH":   ev,
		"GITHUB_REPOSITORY":   "acme/support-rag",
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary"),
		"GITHUB_RUN_ID":       "99",
	}
	if gh != nil {
		env["GITHUB_API_URL"] = strings.TrimSuffix(gh.URL, "/")
		env["GITHUB_SERVER_URL"] = gh.ServerURL
	}
	for k, v := range inputs {
		env["INPUT_"+strings.ToUpper(k)] = v
	}
	return env
}

func TestActionMissingInputs(t *testing.T) {
	env := actionEnv(t, nil, "workflow_dispatch", map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}, nil)
	r := gate(t, env, "action")
	if r.code != 2 || !strings.Contains(r.stderr, "dataset") {
		t.Fatalf("exit %d, stderr %q: want 2 naming the missing input", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "::error") {
		t.Errorf("no error annotation:\n%s", r.stdout)
	}
}

func TestActionBadInputs(t *testing.T) {
	env := actionEnv(t, nil, "workflow_dispatch", map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}},
		map[string]string{"dataset": "x.jsonl", "baseline-store": "s3", "concurrency": "many"})
	r := gate(t, env, "action")
	if r.code != 2 || !strings.Contains(r.stderr, "baseline-store") || !strings.Contains(r.stderr, "concurrency") {
		t.Fatalf("exit %d, stderr %q: want 2 naming both bad inputs", r.code, r.stderr)
	}
}

// TestActionCommentMode is the privileged half of the fork-safe pattern: a
// workflow_run job reads the results the PR run uploaded, checks the PR
// record against what GitHub says about the triggering run, re-renders and
// comments; forged records are refused.
func TestActionCommentMode(t *testing.T) {
	const repo = "acme/support-rag"
	gh := ghtest.NewServer(t, ghtest.Enterprise())
	gh.AddRepo(repo, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	// The base's thresholds: no floors. A thresholds file next to the
	// artifact (forged by the fork) demands the impossible; it must be ignored.
	gh.PutFile(repo, "main", "eval/thresholds.yaml", []byte("version: 1\n"))
	base := gh.BranchHead(repo, "main")
	forkHead := gh.AddCommit(repo, "fork change", base)
	victimHead := gh.AddCommit(repo, "someone else's change", base)
	gh.AddPull(repo, 43, forkHead, "contributor42/support-rag", "main", base)
	gh.AddPull(repo, 44, victimHead, "", "main", base)

	ws := t.TempDir()
	eval := filepath.Join(ws, "eval")
	out := filepath.Join(eval, "raggate-results.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", "../../testdata/demo/golden.jsonl", "--judge", "offline", "--out", out); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(eval, "thresholds.yaml"), []byte("version: 1\nmetrics:\n  string_similarity: {min: 0.99}\n"), 0o644)
	meta := func(pr int, sha string) {
		b, _ := json.Marshal(struct {
			Gate    string `json:"gate"`
			PR      int    `json:"pr"`
			HeadSHA string `json:"head_sha"`
		}{Gate: "raggate", PR: pr, HeadSHA: sha})
		os.WriteFile(filepath.Join(eval, "raggate-report.pr.json"), b, 0o644)
	}
	payload := map[string]any{
		"action":     "completed",
		"repository": map[string]any{"full_name": repo, "default_branch": "main"},
		"workflow_run": map[string]any{"id": 5, "head_sha": forkHead, "event": "pull_request",
			"head_repository": map[string]any{"full_name": "contributor42/support-rag"}, "pull_requests": []any{}},
	}
	inputs := map[string]string{"mode": "comment", "github-token": "t", "working-directory": "eval", "thresholds": "thresholds.yaml"}
	env := actionEnv(t, gh, "workflow_run", payload, inputs)
	env["GITHUB_WORKSPACE"] = ws

	meta(43, forkHead)
	r := gate(t, env, "action")
	if r.code != 0 {
		t.Fatalf("comment mode: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	cs := gh.Comments(repo, 43)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "No baseline yet for main: floors only") || !strings.Contains(cs[0].Body, "raggate:head="+forkHead) {
		t.Fatalf("comments = %+v", cs)
	}
	if strings.Contains(cs[0].Body, "below floor") {
		t.Error("the thresholds next to the artifact were used")
	}

	forged := []struct {
		name string
		pr   int
		sha  string
		want string
	}{
		{"another PR at its real head", 44, victimHead, "not commenting forged or stale results"},
		{"another PR with the triggering head", 44, forkHead, "pull request #44 is at"},
		{"unknown head", 43, strings.Repeat("a", 40), "not commenting forged or stale results"},
	}
	for _, f := range forged {
		t.Run(f.name, func(t *testing.T) {
			meta(f.pr, f.sha)
			r := gate(t, env, "action")
			if r.code != 2 || !strings.Contains(r.stderr, f.want) {
				t.Fatalf("exit %d, stderr %q: want 2 and %q", r.code, r.stderr, f.want)
			}
		})
	}
	if got := gh.Comments(repo, 44); len(got) != 0 {
		t.Errorf("a forged record commented on #44: %+v", got)
	}
	if got := gh.Comments(repo, 43); len(got) != 1 || got[0].Body != cs[0].Body {
		t.Error("a forged record changed the comment")
	}

	// Outside a workflow_run the mode refuses to run.
	env2 := actionEnv(t, gh, "pull_request_target", prPayload(43, strings.Repeat("b", 40), strings.Repeat("a", 40)), inputs)
	env2["GITHUB_WORKSPACE"] = ws
	if r := gate(t, env2, "action"); r.code != 2 || !strings.Contains(r.stderr, "workflow_run") {
		t.Errorf("comment mode on pull_request_target: exit %d %s", r.code, r.stderr)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, _ := os.ReadFile(p)
	return string(b)
}

// Changes under review never read the baseline from their own checkout,
// never store a baseline, and a run that cannot decide still says so in
// the outputs and the job summary.
func TestActionRefusesUntrustedSourcesAndReportsErrors(t *testing.T) {
	pr := map[string]any{
		"action": "opened", "number": 7,
		"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"},
		"pull_request": map[string]any{"number": 7,
			"head": map[string]any{"sha": strings.Repeat("b", 40), "ref": "f", "repo": map[string]any{"full_name": "acme/support-rag"}},
			"base": map[string]any{"sha": strings.Repeat("a", 40), "ref": "main", "repo": map[string]any{"full_name": "acme/support-rag"}}},
	}
	tests := []struct {
		name   string
		inputs map[string]string
		want   string
	}{
		{"file store on a PR", map[string]string{"dataset": "golden.jsonl", "judge": "offline", "baseline-store": "file", "baseline-path": "base.json"}, "baseline-store: file reads the baseline from the checkout"},
		{"baseline mode on a PR", map[string]string{"mode": "baseline", "dataset": "golden.jsonl", "judge": "offline"}, "mode: baseline stores the results of a branch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := actionEnv(t, nil, "pull_request", pr, tt.inputs)
			r := gate(t, env, "action")
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if out := readFile(t, env["GITHUB_OUTPUT"]); !strings.Contains(out, "verdict<<") || !strings.Contains(out, "\nerror\n") {
				t.Errorf("outputs after an error:\n%s", out)
			}
			if sum := readFile(t, env["GITHUB_STEP_SUMMARY"]); !strings.Contains(sum, "raggate: error") {
				t.Errorf("summary after an error:\n%s", sum)
			}
		})
	}
}

// A merge group is a change under review too: its thresholds come from the
// base commit, not from the checkout.
func TestActionMergeGroupReadsThresholdsAtBase(t *testing.T) {
	const repo = "acme/support-rag"
	gh := ghtest.NewServer(t, ghtest.Enterprise())
	gh.AddRepo(repo, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	gh.PutFile(repo, "main", "thresholds.yaml", []byte("version: 1\n"))
	base := gh.BranchHead(repo, "main")
	head := gh.AddCommit(repo, "queued", base)

	ws := t.TempDir()
	b, _ := os.ReadFile("../../testdata/demo/golden.jsonl")
	os.WriteFile(filepath.Join(ws, "golden.jsonl"), b, 0o644)
	os.WriteFile(filepath.Join(ws, "thresholds.yaml"), []byte("version: 1\nmetrics:\n  string_similarity: {min: 0.99}\n"), 0o644)
	payload := map[string]any{
		"action":      "checks_requested",
		"repository":  map[string]any{"full_name": repo, "default_branch": "main"},
		"merge_group": map[string]any{"head_sha": head, "head_ref": "refs/heads/gh-readonly-queue/main/pr-1", "base_sha": base, "base_ref": "refs/heads/main"},
	}
	env := actionEnv(t, gh, "merge_group", payload, map[string]string{"dataset": "golden.jsonl", "judge": "offline", "thresholds": "thresholds.yaml", "github-token": "t"})
	env["GITHUB_WORKSPACE"] = ws
	r := gate(t, env, "action")
	if r.code != 0 {
		t.Fatalf("exit %d: the checkout's thresholds were used?\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
