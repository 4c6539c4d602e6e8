package cli_test

import (
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/ghaction/ghactiontest"
	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/results"
)

const repoRoot = "../.."

// buildLikeDockerfile builds the gate binary with the very command of the
// Dockerfile's build stage, so the test exercises what the image ships.
func buildLikeDockerfile(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	df, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	var build string
	for _, line := range strings.Split(string(df), "\n") {
		if strings.HasPrefix(line, "RUN ") && strings.Contains(line, "go build") {
			build = strings.TrimPrefix(line, "RUN ")
		}
	}
	if build == "" || !strings.Contains(build, "CGO_ENABLED=0") || !strings.Contains(build, "-o /out/gate") {
		t.Fatalf("Dockerfile has no static `go build -o /out/gate` step: %q", build)
	}
	bin := filepath.Join(t.TempDir(), "gate")
	build = strings.ReplaceAll(build, "/out/gate", bin)
	cmd := exec.Command("sh", "-c", build)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "VERSION=v0.0.0-e2e")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", build, err, out)
	}
	// A static binary has no program interpreter: it runs on any base image.
	if runtime.GOOS == "linux" {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Fatal("the binary is dynamically linked; the Dockerfile must build it with CGO_ENABLED=0")
			}
		}
	}
	return bin
}

// runner imitates how GitHub runs a container action: the workspace is the
// working directory, inputs are INPUT_<NAME> (upper case, hyphens kept),
// and the GITHUB_* variables point at files the runner reads back.
type runner struct {
	t         *testing.T
	bin       string
	gh        *ghtest.Server
	workspace string
	runs      int
}

type actionRun struct {
	code    int
	stdout  string
	stderr  string
	outputs map[string]string
	summary string
}

func (r *runner) run(event string, payload map[string]any, inputs map[string]string) actionRun {
	t := r.t
	t.Helper()
	r.runs++
	dir := t.TempDir()
	eventPath := filepath.Join(dir, "workflow", "event.json")
	outPath := filepath.Join(dir, "file_commands", fmt.Sprintf("set_output_%d", r.runs))
	sumPath := filepath.Join(dir, "file_commands", fmt.Sprintf("step_summary_%d", r.runs))
	os.MkdirAll(filepath.Dir(eventPath), 0o755)
	os.MkdirAll(filepath.Dir(outPath), 0o755)
	b, _ := json.Marshal(payload)
	os.WriteFile(eventPath, b, 0o644)
	os.WriteFile(outPath, nil, 0o644)
	os.WriteFile(sumPath, nil, 0o644)

	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"CI=true",
		"GITHUB_ACTIONS=true",
		"GITHUB_EVENT_NAME=" + event,
		"GITHUB_EVENT_PATH=" + eventPath,
		"GITHUB_OUTPUT=" + outPath,
		"GITHUB_STEP_SUMMARY=" + sumPath,
		"GITHUB_WORKSPACE=" + r.workspace,
		"GITHUB_REPOSITORY=acme/support-rag",
		"GITHUB_REPOSITORY_OWNER=acme",
		"GITHUB_API_URL=" + strings.TrimSuffix(r.gh.URL, "/"),
		"GITHUB_SERVER_URL=" + r.gh.ServerURL,
		"GITHUB_RUN_ID=7001",
		"GITHUB_RUN_ATTEMPT=1",
		"GITHUB_ACTOR=maria-dev",
		"RUNNER_TEMP=" + dir,
	}
	switch event {
	case "pull_request":
		pr := payload["pull_request"].(map[string]any)
		env = append(env,
			"GITHUB_SHA="+pr["merge_commit_sha"].(string),
			fmt.Sprintf("GITHUB_REF=refs/pull/%v/merge", pr["number"]),
			"GITHUB_BASE_REF="+pr["base"].(map[string]any)["ref"].(string),
			"GITHUB_HEAD_REF="+pr["head"].(map[string]any)["ref"].(string))
	case "push":
		env = append(env, "GITHUB_SHA="+payload["after"].(string), "GITHUB_REF="+payload["ref"].(string))
	}
	for k, v := range inputs {
		env = append(env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(k, " ", "_"))+"="+v)
	}
	cmd := exec.Command(r.bin, "action")
	cmd.Dir = r.workspace
	cmd.Env = env
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	sum, _ := os.ReadFile(sumPath)
	return actionRun{code: code, stdout: stdout.String(), stderr: stderr.String(), outputs: ghactiontest.ReadOutputs(t, outPath).Values, summary: string(sum)}
}

func loadPayload(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "github", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestActionEndToEnd runs the container entrypoint as GitHub would:
// a push to main stores the baseline on the baseline branch; a pull
// request creates the sticky comment and passes; a new push to the PR with
// a worse pipeline updates the same comment and fails with exit 1; a fork
// PR without secrets is skipped.
func TestActionEndToEnd(t *testing.T) {
	bin := buildLikeDockerfile(t)
	const repo = "acme/support-rag"
	const token = "ghs_e2eTokenValue123"
	gh := ghtest.NewServer(t, ghtest.Enterprise(), ghtest.WithToken(token))
	gh.AddRepo(repo, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	// The base branch's thresholds: no floors. The PR's own copy (in the
	// workspace) would fail every run; it must be ignored.
	gh.PutFile(repo, "main", "eval/thresholds.yaml", []byte("version: 1\ndefaults:\n  tolerance: 0.02\n"))
	base := gh.BranchHead(repo, "main")

	ws := t.TempDir()
	copyFile(t, filepath.Join(repoRoot, "testdata/demo/golden.jsonl"), filepath.Join(ws, "eval/golden.jsonl"))
	copyFile(t, filepath.Join(repoRoot, "testdata/demo/responses-degraded.jsonl"), filepath.Join(ws, "eval/degraded.jsonl"))
	os.WriteFile(filepath.Join(ws, "eval/thresholds.yaml"), []byte("version: 1\nmetrics:\n  string_similarity: {min: 0.99}\n"), 0o644)
	r := &runner{t: t, bin: bin, gh: gh, workspace: ws}

	inputs := map[string]string{
		"dataset":      "golden.jsonl",
		"judge":        "offline",
		"thresholds":   "thresholds.yaml",
		"github-token": token,
		// working-directory is relative to the workspace.
		"working-directory": "eval",
		"comment":           "true",
	}

	// 1. Push to main: store the baseline.
	push := loadPayload(t, "push_main.json")
	push["after"] = base
	res := r.run("push", push, inputs)
	if res.code != 0 {
		t.Fatalf("push run: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if res.outputs["verdict"] != "stored" {
		t.Errorf("push outputs = %v", res.outputs)
	}
	stored, ok := gh.File(repo, "raggate-baselines", "baselines/main/"+base+".json")
	if !ok {
		t.Fatalf("no baseline stored; paths on raggate-baselines: %v", gh.Paths(repo, "raggate-baselines"))
	}
	if f, err := results.Parse(stored); err != nil || len(f.Samples) != 20 || f.Git.SHA != base {
		t.Fatalf("stored baseline: %v, %+v", err, f)
	}
	if _, ok := gh.File(repo, "raggate-baselines", "baselines/main/latest.json"); !ok {
		t.Error("latest.json not stored")
	}

	// 2. Pull request #42: first run creates the comment and passes.
	head1 := gh.AddCommit(repo, "add reranker", base)
	pr := loadPayload(t, "pull_request_opened_same_repo.json")
	setPR(pr, head1, base)
	res = r.run("pull_request", pr, inputs)
	if res.code != 0 {
		t.Fatalf("PR run 1: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	comments := gh.Comments(repo, 42)
	if len(comments) != 1 {
		t.Fatalf("%d comments after the first PR run, want 1", len(comments))
	}
	first := comments[0]
	// The trend of main's stored baselines (one so far), the head last.
	for _, want := range []string{"<!-- raggate:gate=raggate -->", "<!-- raggate:head=" + head1 + " -->", "| Metric |", short(base),
		"| Trend |", "```mermaid\nxychart-beta\n  title \"faithfulness\"\n  x-axis [\"" + base[:7] + "\", \"head\"]"} {
		if !strings.Contains(first.Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, first.Body)
		}
	}
	if res.outputs["passed"] != "true" || res.outputs["verdict"] != "pass" {
		t.Errorf("outputs = %v", res.outputs)
	}
	if !strings.Contains(res.summary, "faithfulness") {
		t.Errorf("step summary lacks the table:\n%s", res.summary)
	}
	// Paths are relative to the workspace: the container's
	// /github/workspace is another path for the steps that follow.
	if p := res.outputs["results-path"]; p != "eval/raggate-results.json" {
		t.Errorf("results-path = %q", p)
	} else if _, err := results.Read(filepath.Join(ws, p)); err != nil {
		t.Errorf("results file: %v", err)
	}
	if p := res.outputs["report-path"]; p != "eval/raggate-report.md" {
		t.Errorf("report-path = %q", p)
	}
	var sj map[string]any
	if err := json.Unmarshal([]byte(res.outputs["summary-json"]), &sj); err != nil || sj["passed"] != true {
		t.Errorf("summary-json = %q (%v)", res.outputs["summary-json"], err)
	}
	for _, line := range strings.Split(res.stdout+res.stderr, "\n") {
		if strings.Contains(line, token) && !strings.HasPrefix(line, "::add-mask::") {
			t.Errorf("the token appears in the log outside its mask command: %q", line)
		}
	}
	if !strings.Contains(res.stdout, "::add-mask::"+token) {
		t.Error("the token is not masked")
	}

	// 3. New commits on the PR with a worse pipeline: the same comment is
	// updated, and the step fails with exit 1 naming the regressions.
	head2 := gh.AddCommit(repo, "shorter prompt", head1)
	setPR(pr, head2, base)
	pr["action"] = "synchronize"
	worse := map[string]string{"responses": "degraded.jsonl", "trend": "false"}
	for k, v := range inputs {
		worse[k] = v
	}
	res = r.run("pull_request", pr, worse)
	if res.code != 1 {
		t.Fatalf("PR run 2: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	comments = gh.Comments(repo, 42)
	if len(comments) != 1 || comments[0].ID != first.ID {
		t.Fatalf("comments after the second run: %d (ids %v), want the first one updated", len(comments), ids(comments))
	}
	if body := comments[0].Body; !strings.Contains(body, "<!-- raggate:head="+head2+" -->") || !strings.Contains(body, "faithfulness") || !strings.Contains(body, "❌") ||
		strings.Contains(body, "mermaid") || strings.Contains(body, "| Trend |") {
		t.Errorf("updated comment:\n%s", body)
	}
	if res.outputs["passed"] != "false" || res.outputs["verdict"] != "fail" || !strings.Contains(res.outputs["regressions"], "faithfulness") {
		t.Errorf("outputs = %v", res.outputs)
	}
	if !strings.Contains(res.stdout, "::error") || !strings.Contains(res.stdout, "faithfulness regressed") {
		t.Errorf("no error annotation naming the regression:\n%s", res.stdout)
	}

	// 4. A run that cannot decide (here: the dataset is gone) exits 2 and
	// replaces the sticky comment, so the earlier verdict does not stay up.
	head3 := gh.AddCommit(repo, "move the dataset", head2)
	setPR(pr, head3, base)
	broken := map[string]string{}
	for k, v := range inputs {
		broken[k] = v
	}
	broken["dataset"] = "moved.jsonl"
	res = r.run("pull_request", pr, broken)
	if res.code != 2 || res.outputs["verdict"] != "error" {
		t.Fatalf("broken run: exit %d outputs %v\n%s", res.code, res.outputs, res.stderr)
	}
	comments = gh.Comments(repo, 42)
	if len(comments) != 1 || comments[0].ID != first.ID || !strings.Contains(comments[0].Body, "raggate: error") || !strings.Contains(comments[0].Body, "moved.jsonl") {
		t.Errorf("comment after an error:\n%+v", comments)
	}

	// 5. A fork PR gets no secrets: with the default judge (auto) and no
	// key the gate says why and is skipped, exit 0.
	fork := loadPayload(t, "pull_request_opened_fork.json")
	head4 := gh.AddCommit(repo, "typo", base)
	setPR(fork, head4, base)
	forkInputs := map[string]string{"dataset": "golden.jsonl", "working-directory": "eval", "github-token": token}
	res = r.run("pull_request", fork, forkInputs)
	if res.code != 0 || res.outputs["verdict"] != "skipped" {
		t.Fatalf("fork run: exit %d outputs %v\n%s\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "forks") {
		t.Errorf("fork run does not explain why it skipped:\n%s", res.stdout)
	}
}

func setPR(p map[string]any, head, base string) {
	pr := p["pull_request"].(map[string]any)
	pr["head"].(map[string]any)["sha"] = head
	pr["base"].(map[string]any)["sha"] = base
	pr["base"].(map[string]any)["ref"] = "main"
	pr["merge_commit_sha"] = strings.Repeat("e", 40)
}

func ids(cs []ghtest.Comment) []int64 {
	var out []int64
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func short(sha string) string { return sha[:7] }
