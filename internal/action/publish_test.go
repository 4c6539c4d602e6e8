package action

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/ghcomment"
	"github.com/raggate/raggate/internal/redact"
)

// memory is a Publisher that keeps everything in memory.
type memory struct {
	annotations []string // "level title: msg"
	summary     strings.Builder
	outputs     map[string]string
	writes      int
	masked      []string
	comments    []Comment
}

var _ Publisher = (*memory)(nil)

func (m *memory) Error(msg, title string) {
	m.annotations = append(m.annotations, "error "+title+": "+msg)
}
func (m *memory) Warning(msg, title string) {
	m.annotations = append(m.annotations, "warning "+title+": "+msg)
}
func (m *memory) Notice(msg, title string) {
	m.annotations = append(m.annotations, "notice "+title+": "+msg)
}
func (m *memory) Mask(secret string) { m.masked = append(m.masked, secret) }
func (m *memory) AddSummary(md string) error {
	m.summary.WriteString(md)
	return nil
}
func (m *memory) SetOutputs(v map[string]string) error {
	m.outputs, m.writes = v, m.writes+1
	return nil
}
func (m *memory) Comment(_ context.Context, c Comment) (ghcomment.Result, error) {
	m.comments = append(m.comments, c)
	return ghcomment.Result{Action: ghcomment.Created, URL: "https://example.test/c/1"}, nil
}

// runInMemory runs the action on event with inputs, in a workspace
// holding the demo golden set at golden.jsonl, publishing into memory.
func runInMemory(t *testing.T, event string, payload map[string]any, inputs map[string]string) (*memory, error) {
	t.Helper()
	ws := t.TempDir()
	data, err := os.ReadFile("../../testdata/demo/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "golden.jsonl"), data, 0o644)
	ev := filepath.Join(ws, "event.json")
	b, _ := json.Marshal(payload)
	os.WriteFile(ev, b, 0o644)
	vars := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": ev,
		"GITHUB_REPOSITORY": "acme/support-rag", "GITHUB_WORKSPACE": ws, "GITHUB_SHA": strings.Repeat("a", 40), "GITHUB_REF": "refs/heads/main"}
	for k, v := range inputs {
		vars["INPUT_"+strings.ToUpper(k)] = v
	}
	env := app.Env{Log: io.Discard, Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return nil }, Red: redact.New()}
	m := &memory{}
	return m, RunWith(context.Background(), env, m)
}

func TestPublishCheckIntoMemory(t *testing.T) {
	repo := map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}
	m, err := runInMemory(t, "workflow_dispatch", map[string]any{"ref": "refs/heads/main", "repository": repo},
		map[string]string{"dataset": "golden.jsonl", "judge": "offline", "baseline-store": "file", "baseline-path": "base.json", "github-token": "x"})
	if err != nil {
		t.Fatalf("check: %v\n%v", err, m.annotations)
	}
	if m.writes != 1 || m.outputs["verdict"] == "" || m.outputs["results-path"] != "raggate-results.json" || m.outputs["report-path"] != "raggate-report.md" {
		t.Errorf("outputs written %d times: %v", m.writes, m.outputs)
	}
	if !strings.Contains(m.summary.String(), "raggate") {
		t.Errorf("summary %q", m.summary.String())
	}
	if len(m.comments) != 0 {
		t.Errorf("commented outside a pull request: %v", m.comments)
	}
}

func TestPublishSkipWithoutKeyIntoMemory(t *testing.T) {
	payload := map[string]any{"number": 7, "repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"},
		"pull_request": map[string]any{"number": 7,
			"head": map[string]any{"sha": strings.Repeat("b", 40), "ref": "feature", "repo": map[string]any{"full_name": "fork/support-rag"}},
			"base": map[string]any{"sha": strings.Repeat("c", 40), "ref": "main", "repo": map[string]any{"full_name": "acme/support-rag"}}}}
	m, err := runInMemory(t, "pull_request", payload, map[string]string{"dataset": "golden.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if m.outputs["verdict"] != "skipped" || m.writes != 1 {
		t.Errorf("outputs %v written %d times, want verdict skipped once", m.outputs, m.writes)
	}
	if len(m.annotations) != 1 || !strings.HasPrefix(m.annotations[0], "warning raggate skipped: no API key") {
		t.Errorf("annotations %q", m.annotations)
	}
}

// With judge auto an Azure endpoint asks for the LLM judge, as in gate run:
// without a key the action refuses (skip-without-key: false) or skips, and
// never falls back to the offline judge; a baseline is refused.
func TestAutoJudgeAzureWithoutKey(t *testing.T) {
	repo := map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}
	dispatch := map[string]any{"ref": "refs/heads/main", "repository": repo}
	inputs := func(extra ...string) map[string]string {
		in := map[string]string{"dataset": "golden.jsonl", "azure-endpoint": "https://acme.openai.azure.com",
			"azure-deployment": "prod-chat", "baseline-store": "file", "baseline-path": "base.json", "github-token": "x"}
		for i := 0; i < len(extra); i += 2 {
			in[extra[i]] = extra[i+1]
		}
		return in
	}
	m, err := runInMemory(t, "workflow_dispatch", dispatch, inputs("mode", "check", "skip-without-key", "false"))
	if err == nil || !strings.Contains(err.Error(), "Set the api-key input, or judge: offline") || m.outputs["verdict"] != "error" {
		t.Errorf("check, skip-without-key false: %v, outputs %v, annotations %q", err, m.outputs, m.annotations)
	}
	m, err = runInMemory(t, "workflow_dispatch", dispatch, inputs("mode", "check"))
	if err != nil || m.outputs["verdict"] != "skipped" {
		t.Errorf("check: %v, outputs %v", err, m.outputs)
	}
	m, err = runInMemory(t, "workflow_dispatch", dispatch, inputs("mode", "baseline", "skip-without-key", "false"))
	if err == nil || !strings.Contains(err.Error(), "a baseline needs the same judge") {
		t.Errorf("baseline: %v, outputs %v", err, m.outputs)
	}
}
