package ghaction_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/ghaction"
)

func payload(name string) string { return filepath.Join("..", "..", "testdata", "github", name) }

func TestInputs(t *testing.T) {
	a := ghaction.New(env(map[string]string{
		"INPUT_EMBEDDING-MODEL": "  text-embedding-3-small \n",
		"INPUT_API_KEY":         "sk-1",
		"INPUT_FAIL-ON-WARN":    "True",
		"INPUT_REPEATS":         "3",
		"INPUT_TOLERANCE":       "0.02",
		"INPUT_TIMEOUT":         "90s",
		"INPUT_METRICS":         "faithfulness, context_recall\n answer_relevancy\n\n",
		"INPUT_BAD-BOOL":        "yes",
		"INPUT_EMPTY":           "   ",
	}), nil)
	in := a.Inputs()
	if got := a.Input("embedding-model"); got != "text-embedding-3-small" {
		t.Errorf("embedding-model = %q (env INPUT_EMBEDDING-MODEL, trimmed)", got)
	}
	if got := a.Input("api key"); got != "sk-1" {
		t.Errorf("'api key' = %q (spaces become _)", got)
	}
	if got := ghaction.InputEnv("embedding-model"); got != "INPUT_EMBEDDING-MODEL" {
		t.Errorf("InputEnv = %q", got)
	}
	if b, err := in.Bool("fail-on-warn", false); err != nil || !b {
		t.Errorf("Bool = %v, %v", b, err)
	}
	if b, err := in.Bool("missing", true); err != nil || !b {
		t.Errorf("Bool default = %v, %v", b, err)
	}
	if _, err := in.Bool("bad-bool", false); err == nil || !strings.Contains(err.Error(), `"bad-bool"`) {
		t.Errorf("bad bool: %v", err)
	}
	if n, err := in.Int("repeats", 1); err != nil || n != 3 {
		t.Errorf("Int = %v, %v", n, err)
	}
	if _, err := in.Int("tolerance", 1); err == nil {
		t.Error("Int accepted 0.02")
	}
	if f, err := in.Float("tolerance", 0); err != nil || f != 0.02 {
		t.Errorf("Float = %v, %v", f, err)
	}
	if d, err := in.Duration("timeout", 0); err != nil || d != 90*time.Second {
		t.Errorf("Duration = %v, %v", d, err)
	}
	if got := strings.Join(in.List("metrics"), "|"); got != "faithfulness|context_recall|answer_relevancy" {
		t.Errorf("List = %q", got)
	}
	if _, ok := in.Lookup("empty"); ok {
		t.Error("blank input counted as set")
	}

	if err := a.Required("embedding-model", "api key"); err != nil {
		t.Errorf("Required: %v", err)
	}
	err := a.Required("dataset", "embedding-model", "empty", "judge-model")
	var missing *ghaction.MissingInputsError
	if !errors.As(err, &missing) || strings.Join(missing.Names, ",") != "dataset,empty,judge-model" {
		t.Fatalf("Required: %v", err)
	}
	for _, want := range []string{`"dataset"`, `"empty"`, `"judge-model"`, "with:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %s", err, want)
		}
	}
}

func TestContextFromPayloads(t *testing.T) {
	const (
		baseSHA  = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
		headSHA  = "8f3a1c2d9e4b5a6f7081920a1b2c3d4e5f6a7b8c"
		mergeSHA = "b2c4e6f8a0b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9"
		after    = "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"
		mqHead   = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	)
	common := map[string]string{
		"GITHUB_REPOSITORY": "acme/support-rag",
		"GITHUB_WORKSPACE":  "/github/workspace",
		"GITHUB_RUN_ID":     "12345678901",
		"GITHUB_ACTIONS":    "true",
	}
	tests := []struct {
		name, event, file string
		extra             map[string]string
		check             func(t *testing.T, c *ghaction.Context)
	}{
		{"pull request, same repository", "pull_request", "pull_request_opened_same_repo.json",
			map[string]string{"GITHUB_SHA": mergeSHA, "GITHUB_REF": "refs/pull/42/merge", "GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "rerank"},
			func(t *testing.T, c *ghaction.Context) {
				pr := c.PullRequest
				if pr == nil || pr.Number != 42 || pr.Fork || pr.Action != "opened" {
					t.Fatalf("pull request %+v", pr)
				}
				if c.HeadSHA() != headSHA || c.SHA != mergeSHA {
					t.Errorf("HeadSHA %s (GITHUB_SHA %s): want the PR head, not the merge commit", c.HeadSHA(), c.SHA)
				}
				if b, s := c.Base(); b != "main" || s != baseSHA {
					t.Errorf("Base = %s %s", b, s)
				}
				if pr.HeadRepo != "acme/support-rag" || pr.BaseRepo != "acme/support-rag" || pr.HeadRef != "rerank" {
					t.Errorf("repos %+v", pr)
				}
				if c.IsDefaultBranchPush() || !c.IsPullRequest() || c.IsFork() {
					t.Error("event predicates")
				}
				if c.Branch() != "" {
					t.Errorf("Branch = %q on a PR merge ref", c.Branch())
				}
			}},
		{"pull request from a fork", "pull_request", "pull_request_opened_fork.json", nil,
			func(t *testing.T, c *ghaction.Context) {
				pr := c.PullRequest
				if pr == nil || pr.Number != 43 || !pr.Fork || !c.IsFork() {
					t.Fatalf("pull request %+v: want a fork", pr)
				}
				if pr.HeadRepo != "contributor42/support-rag" || pr.HeadRef != "main" {
					t.Errorf("head %+v", pr)
				}
			}},
		{"pull_request_target payload", "pull_request_target", "pull_request_opened_fork.json", nil,
			func(t *testing.T, c *ghaction.Context) {
				if !c.IsFork() {
					t.Error("pull_request_target not parsed")
				}
			}},
		{"push to main", "push", "push_main.json",
			map[string]string{"GITHUB_SHA": after, "GITHUB_REF": "refs/heads/main"},
			func(t *testing.T, c *ghaction.Context) {
				p := c.Push
				if p == nil || p.Before != baseSHA || p.After != after || p.Forced || p.Deleted {
					t.Fatalf("push %+v", p)
				}
				if !c.IsDefaultBranchPush() || c.Branch() != "main" || c.DefaultBranch != "main" {
					t.Errorf("default branch push: %v %q %q", c.IsDefaultBranchPush(), c.Branch(), c.DefaultBranch)
				}
				if c.HeadSHA() != after || c.IsPullRequest() {
					t.Errorf("HeadSHA %s", c.HeadSHA())
				}
				if b, s := c.Base(); b != "" || s != "" {
					t.Errorf("Base on push = %q %q", b, s)
				}
			}},
		{"workflow_dispatch", "workflow_dispatch", "workflow_dispatch.json",
			map[string]string{"GITHUB_REF": "refs/heads/main", "GITHUB_SHA": after},
			func(t *testing.T, c *ghaction.Context) {
				d := c.Dispatch
				if d == nil || d.Ref != "refs/heads/main" || d.Inputs["repeats"] != "3" || d.Inputs["update-baseline"] != "true" {
					t.Fatalf("dispatch %+v", d)
				}
				if c.IsDefaultBranchPush() || c.Branch() != "main" || c.HeadSHA() != after {
					t.Error("dispatch predicates")
				}
			}},
		{"merge_group", "merge_group", "merge_group.json",
			map[string]string{"GITHUB_SHA": mqHead, "GITHUB_REF": "refs/heads/gh-readonly-queue/main/pr-42-" + baseSHA},
			func(t *testing.T, c *ghaction.Context) {
				mg := c.MergeGroup
				if mg == nil || mg.HeadSHA != mqHead {
					t.Fatalf("merge group %+v", mg)
				}
				if b, s := c.Base(); b != "main" || s != baseSHA {
					t.Errorf("Base = %q %q", b, s)
				}
				if c.IsDefaultBranchPush() || c.HeadSHA() != mqHead {
					t.Error("merge group predicates")
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := map[string]string{"GITHUB_EVENT_NAME": tt.event, "GITHUB_EVENT_PATH": payload(tt.file)}
			for k, v := range common {
				m[k] = v
			}
			for k, v := range tt.extra {
				m[k] = v
			}
			c, err := ghaction.New(env(m), nil).Context()
			if err != nil {
				t.Fatal(err)
			}
			if c.Owner != "acme" || c.Repo != "support-rag" || c.APIURL != ghaction.DefaultAPIURL || c.Workspace != "/github/workspace" {
				t.Errorf("context %+v", c)
			}
			if got := c.RunURL(); got != "https://github.com/acme/support-rag/actions/runs/12345678901" {
				t.Errorf("RunURL = %q", got)
			}
			tt.check(t, c)
		})
	}
}

func TestContextEnvironment(t *testing.T) {
	c, err := ghaction.ReadContext(env(map[string]string{
		"GITHUB_API_URL":     "https://ghe.example.com/api/v3/",
		"GITHUB_SERVER_URL":  "https://ghe.example.com",
		"GITHUB_REPOSITORY":  "team/app",
		"GITHUB_RUN_ID":      "77",
		"GITHUB_RUN_ATTEMPT": "2",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.APIURL != "https://ghe.example.com/api/v3" || c.RunURL() != "https://ghe.example.com/team/app/actions/runs/77/attempts/2" {
		t.Errorf("enterprise context %+v, run URL %s", c, c.RunURL())
	}
	if c.PullRequest != nil || c.Push != nil {
		t.Error("event parsed without a payload")
	}

	// Local run: nothing set is fine.
	c, err = ghaction.ReadContext(env(nil))
	if err != nil || c.ServerURL != ghaction.DefaultServerURL || c.RunURL() != "" {
		t.Errorf("empty environment: %+v %v", c, err)
	}

	dir := t.TempDir()
	deleted := filepath.Join(dir, "deleted_fork.json")
	os.WriteFile(deleted, []byte(`{"action":"synchronize","number":9,"pull_request":{"number":9,
		"head":{"sha":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","ref":"x","repo":null},
		"base":{"sha":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb","ref":"main","repo":{"full_name":"o/r","default_branch":"main"}}},
		"repository":{"full_name":"o/r","default_branch":"main"}}`), 0o644)
	c, err = ghaction.ReadContext(env(map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": deleted}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.IsFork() || c.Repository != "o/r" || c.Owner != "o" {
		t.Errorf("deleted head repository: %+v %+v", c, c.PullRequest)
	}

	broken := filepath.Join(dir, "broken.json")
	os.WriteFile(broken, []byte(`{"pull_request":`), 0o644)
	for name, m := range map[string]map[string]string{
		"missing payload":   {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": filepath.Join(dir, "nope.json")},
		"broken payload":    {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": broken},
		"bad repository":    {"GITHUB_REPOSITORY": "just-a-name"},
		"pr without number": {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": writeFile(t, dir, `{"pull_request":{"head":{},"base":{}}}`)},
	} {
		if _, err := ghaction.ReadContext(env(m)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The run id and attempt are optional: a malformed value is a warning, not
// a reason to stop the gate.
func TestContextIgnoresMalformedOptionalVariables(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantID  int64
		wantAtt int
		warn    string
	}{
		{"attempt not a number", map[string]string{"GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "abc"}, 77, 0, `GITHUB_RUN_ATTEMPT "abc"`},
		{"negative attempt", map[string]string{"GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "-2"}, 77, 0, `GITHUB_RUN_ATTEMPT "-2"`},
		{"run id not a number", map[string]string{"GITHUB_RUN_ID": "abc", "GITHUB_RUN_ATTEMPT": "2"}, 0, 2, `GITHUB_RUN_ID "abc"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ghaction.ReadContext(env(tt.env))
			if err != nil {
				t.Fatalf("err = %v, want the variable ignored", err)
			}
			if c.RunID != tt.wantID || c.RunAttempt != tt.wantAtt {
				t.Errorf("run %d attempt %d, want %d %d", c.RunID, c.RunAttempt, tt.wantID, tt.wantAtt)
			}
			if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], tt.warn) {
				t.Errorf("warnings %q, want one naming %s", c.Warnings, tt.warn)
			}
		})
	}
}

// A change under review without its payload has no known base: refuse it
// rather than trust the checkout.
func TestContextRequiresThePayloadOfAChangeUnderReview(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"no path", map[string]string{"GITHUB_EVENT_NAME": "pull_request"}},
		{"unreadable path", map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": filepath.Join(dir, "nope.json")}},
		{"empty file", map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": writeFile(t, dir, " \n")}},
		{"no pull_request object", map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": writeFile(t, dir, `{"action":"opened"}`)}},
		{"pull_request_target without path", map[string]string{"GITHUB_EVENT_NAME": "pull_request_target"}},
		{"merge group without object", map[string]string{"GITHUB_EVENT_NAME": "merge_group", "GITHUB_EVENT_PATH": writeFile(t, dir, `{}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ghaction.ReadContext(env(tt.env))
			if !errors.Is(err, ghaction.ErrNoPayload) {
				t.Fatalf("err = %v, want ErrNoPayload", err)
			}
		})
	}
	// Other events may run without a payload (a local run, a dispatch).
	for _, ev := range []string{"", "push", "workflow_dispatch"} {
		if _, err := ghaction.ReadContext(env(map[string]string{"GITHUB_EVENT_NAME": ev})); err != nil {
			t.Errorf("%q without a payload: %v", ev, err)
		}
	}
}

func writeFile(t *testing.T, dir, content string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "event-*.json")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(content)
	f.Close()
	return f.Name()
}
