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
// record against GitHub, re-renders and comments.
func TestActionCommentMode(t *testing.T) {
	const repo = "acme/support-rag"
	gh := ghtest.NewServer(t, ghtest.Enterprise())
	gh.AddRepo(repo, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	base := gh.Commit(repo, "main", "init")
	head := gh.AddCommit(repo, "fork change", base)
	gh.AddPull(repo, 43, head, "main", base)

	ws := t.TempDir()
	// The artifact: results from the PR run plus its PR record.
	out := filepath.Join(ws, "raggate-results.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", "../../testdata/demo/golden.jsonl", "--judge", "offline", "--out", out); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	meta := func(pr int, sha string) {
		b, _ := json.Marshal(prMeta{Gate: "raggate", PR: pr, HeadSHA: sha})
		os.WriteFile(filepath.Join(ws, "raggate-report.pr.json"), b, 0o644)
	}
	payload := map[string]any{
		"action":       "completed",
		"repository":   map[string]any{"full_name": repo, "default_branch": "main"},
		"workflow_run": map[string]any{"head_sha": head, "event": "pull_request"},
	}
	inputs := map[string]string{"mode": "comment", "github-token": "t", "working-directory": ws}

	meta(43, head)
	env := actionEnv(t, gh, "workflow_run", payload, inputs)
	env["GITHUB_WORKSPACE"] = ws
	r := gate(t, env, "action")
	if r.code != 0 {
		t.Fatalf("comment mode: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	cs := gh.Comments(repo, 43)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "No baseline yet for main: floors only") || !strings.Contains(cs[0].Body, "raggate:head="+head) {
		t.Fatalf("comments = %+v", cs)
	}

	// A forged record (the PR is not at that head) is refused: nothing is written.
	meta(43, strings.Repeat("a", 40))
	r = gate(t, env, "action")
	if r.code != 2 || !strings.Contains(r.stderr, "not commenting stale or forged results") {
		t.Fatalf("forged record: exit %d %s", r.code, r.stderr)
	}
	if got := gh.Comments(repo, 43); len(got) != 1 || got[0].Body != cs[0].Body {
		t.Error("a forged record changed the comment")
	}
}
