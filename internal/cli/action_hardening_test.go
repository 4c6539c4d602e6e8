package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
