package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/ghtest"
)

// corruptBaseline is a results file that parses as JSON but is not valid
// (a sample without an id).
const corruptBaseline = `{"schema":"raggate.results/v1","samples":[{"id":1}]}`

// A corrupt baseline is a file to fix (exit 2) on every path that reads
// one: gate check, gate baseline get, and the action with each store.
func TestCorruptBaselineExitsTwoEverywhere(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.json")
	if err := os.WriteFile(corrupt, []byte(corruptBaseline), 0o644); err != nil {
		t.Fatal(err)
	}
	actionBranchStore := func(t *testing.T) map[string]string {
		gh := ghtest.NewServer(t, ghtest.Enterprise())
		env := prRun(t, gh, map[string]string{"comment": "false"})
		gh.PutFile("acme/support-rag", "raggate-baselines", "baselines/main/latest.json", []byte(corruptBaseline))
		return env
	}
	actionFileStore := func(t *testing.T) map[string]string {
		ws := workspace(t)
		os.WriteFile(filepath.Join(ws, "eval", "base.json"), []byte(corruptBaseline), 0o644)
		env := actionEnv(t, nil, "workflow_dispatch", dispatchPayload(), map[string]string{
			"mode": "check", "dataset": "eval/golden.jsonl", "judge": "offline",
			"baseline-store": "file", "baseline-path": "eval/base.json",
		})
		env["GITHUB_WORKSPACE"] = ws
		return env
	}
	tests := []struct {
		name string
		env  func(t *testing.T) map[string]string
		args []string
	}{
		{"gate check", nil, []string{"check", "--dataset", repo + "/testdata/demo/golden.jsonl", "--judge", "offline", "--baseline", corrupt, "--out", filepath.Join(dir, "h.json")}},
		{"gate baseline get", nil, []string{"baseline", "get", "--store", "file", "--path", corrupt}},
		{"action, branch store", actionBranchStore, []string{"action"}},
		{"action, file store", actionFileStore, []string{"action"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env map[string]string
			if tt.env != nil {
				env = tt.env(t)
			}
			r := gate(t, env, tt.args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, "invalid results file") {
				t.Fatalf("exit %d, want 2 naming the invalid file\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
