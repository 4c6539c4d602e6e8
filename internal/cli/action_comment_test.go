package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/ghtest"
)

// Comment mode (the workflow_run half of the fork-safe pattern) with
// baseline-store: git reads the baseline file at the pull request's base
// commit through the API: the job's checkout, when there is one, is a
// shallow clone of the default branch that need not hold the base commit
// or the file.
func TestCommentModeGitStoreInShallowClone(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	const repoName = "acme/support-rag"
	demoBaseline, err := os.ReadFile(repo + "/testdata/demo/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	gh := ghtest.NewServer(t, ghtest.Enterprise())
	gh.AddRepo(repoName, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	gh.PutFile(repoName, "main", "eval/baseline.json", demoBaseline)
	base := gh.BranchHead(repoName, "main")
	head := gh.AddCommit(repoName, "fork change", base)
	gh.AddPull(repoName, 43, head, "contributor42/support-rag", "main", base)

	// The default branch has moved on since the PR's base (the baseline
	// file was removed); the job has a depth-1 clone of its tip.
	origin := t.TempDir()
	gitIn(t, origin, "init", "-q", "-b", "main")
	os.MkdirAll(filepath.Join(origin, "eval"), 0o755)
	os.WriteFile(filepath.Join(origin, "eval", "baseline.json"), demoBaseline, 0o644)
	gitIn(t, origin, "add", "-A")
	gitIn(t, origin, "commit", "-q", "-m", "base")
	gitIn(t, origin, "rm", "-q", "eval/baseline.json")
	gitIn(t, origin, "commit", "-q", "-m", "tip")
	ws := filepath.Join(t.TempDir(), "ws")
	gitIn(t, filepath.Dir(ws), "clone", "-q", "--depth", "1", "file://"+origin, ws)
	if got := gitIn(t, ws, "rev-parse", "--is-shallow-repository"); got != "true" {
		t.Fatalf("clone is not shallow: %s", got)
	}

	art := filepath.Join(ws, "raggate-artifact")
	out := filepath.Join(art, "raggate-results.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--out", out); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(art, "raggate-report.pr.json"), []byte(`{"gate":"raggate","pr":43,"head_sha":"`+head+`"}`), 0o644)
	payload := map[string]any{
		"action":     "completed",
		"repository": map[string]any{"full_name": repoName, "default_branch": "main"},
		"workflow_run": map[string]any{"id": 5, "head_sha": head, "event": "pull_request",
			"head_repository": map[string]any{"full_name": "contributor42/support-rag"}, "pull_requests": []any{}},
	}
	env := actionEnv(t, gh, "workflow_run", payload, map[string]string{
		"mode": "comment", "github-token": "t",
		"results": "raggate-artifact/raggate-results.json", "report": "raggate-artifact/raggate-report.md",
		"baseline-store": "git", "baseline-path": "eval/baseline.json",
	})
	env["GITHUB_WORKSPACE"] = ws
	r := gate(t, env, "action")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	cs := gh.Comments(repoName, 43)
	if len(cs) != 1 || strings.Contains(cs[0].Body, "No baseline yet") || !strings.Contains(cs[0].Body, short(base)) {
		t.Fatalf("the comment does not compare with the baseline at the base commit %s:\n%+v", short(base), cs)
	}
}
