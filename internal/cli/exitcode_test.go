package cli

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/results"
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

// The exit-code table of docs/commands.md is the code's: every row of
// exitCodes, in order, and nothing else.
func TestREADMEExitCodesMatchCode(t *testing.T) {
	b, err := os.ReadFile(repo + "/docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Exit codes\n")
	if !ok {
		t.Fatal("docs/commands.md has no \"## Exit codes\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var got []string
	for _, l := range strings.Split(section, "\n") {
		if strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| code |") {
			got = append(got, l)
		}
	}
	var want []string
	for _, c := range exitCodes {
		want = append(want, fmt.Sprintf("| %d | %s |", c.code, c.meaning))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/commands.md exit-code rows:\n%s\n\nwant (from exitCodes in exitcode.go):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// exitCodeOf decides by kind, wherever the error was wrapped.
func TestExitCodeOf(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("read the baseline: %w", err) }
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitPass},
		{"help", flag.ErrHelp, ExitPass},
		{"gate failed", errFailed, ExitFail},
		{"chosen code", withCode(ExitUsage, errors.New("x")), ExitUsage},
		{"chosen code wins over the kind", withCode(ExitOperational, wrap(results.ErrInvalid)), ExitOperational},
		{"shallow checkout", wrap(baseline.ErrShallow), ExitUsage},
		{"unknown ref", wrap(baseline.ErrUnknownRef), ExitUsage},
		{"missing path", wrap(baseline.ErrMissingPath), ExitUsage},
		{"read-only store", wrap(baseline.ErrReadOnly), ExitUsage},
		{"nothing stored", wrap(baseline.ErrNotFound), ExitUsage},
		{"corrupt file", wrap(results.ErrInvalid), ExitUsage},
		{"other schema", wrap(results.ErrSchema), ExitUsage},
		{"a directory", wrap(ghapi.ErrNotAFile), ExitUsage},
		{"no permission", wrap(ghapi.ErrNoPermission), ExitOperational},
		{"bad credentials", wrap(ghapi.ErrUnauthorized), ExitOperational},
		{"rate limited", wrap(ghapi.ErrRateLimited), ExitOperational},
		{"anything else", errors.New("connection refused"), ExitOperational},
		{"unreadable baseline file", baselineErr("baseline", &fs.PathError{Op: "read", Path: "b.json", Err: errors.New("is a directory")}), ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCodeOf(tt.err); got != tt.want {
				t.Errorf("exitCodeOf(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

// A file store that cannot write is an operational failure (3), a
// read-only store a configuration error (2).
func TestBaselinePutExitCodes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	res := filepath.Join(dir, "r.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--out", res); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	blocked := filepath.Join(dir, "blocked")
	os.WriteFile(blocked, nil, 0o644) // a file where a directory should be
	sha := strings.Repeat("a", 40)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"file store cannot write", []string{"--store", "file", "--path", filepath.Join(blocked, "base.json")}, ExitOperational},
		{"git store is read-only", []string{"--store", "git", "--path", "base.json"}, ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"baseline", "put", "--results", res, "--sha", sha}, tt.args...)
			if r := gate(t, nil, args...); r.code != tt.want {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.want, r.stderr)
			}
		})
	}
}
