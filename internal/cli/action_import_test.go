package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/results"
)

// TestActionScoresEndToEnd runs the container entrypoint with the scores
// input, as a workflow whose earlier step ran another evaluator: a push
// to main stores its scores as the baseline; pull requests are gated on
// theirs with the same sticky comment, summary and outputs as a native
// run, with no dataset and no judge key (the default skip-without-key
// would skip a native run here); the thresholds at the base may give an
// imported metric its direction; a bad scores file is exit 2 with its
// line, in the comment too.
func TestActionScoresEndToEnd(t *testing.T) {
	bin := buildLikeDockerfile(t)
	const repo = "acme/support-rag"
	const token = "ghs_e2eScoresToken456"
	gh := ghtest.NewServer(t, ghtest.Enterprise(), ghtest.WithToken(token))
	gh.AddRepo(repo, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	gh.PutFile(repo, "main", "eval/thresholds.yaml", []byte("version: 1\nmetrics:\n  hops: {direction: lower, tolerance: 0.5}\n"))
	base := gh.BranchHead(repo, "main")

	ws := t.TempDir()
	for _, name := range []string{"base.csv", "head-same.csv", "head-worse.csv", "head-more-hops.csv", "bad.csv"} {
		copyFile(t, filepath.Join("testdata", "import", name), filepath.Join(ws, "eval", name))
	}
	// The PR's own thresholds would pass anything; they must be ignored.
	os.WriteFile(filepath.Join(ws, "eval", "thresholds.yaml"), []byte("version: 1\nreport_only: [faithfulness, hops]\n"), 0o644)
	r := &runner{t: t, bin: bin, gh: gh, workspace: ws}
	with := func(scores string) map[string]string {
		return map[string]string{"scores": scores, "thresholds": "thresholds.yaml", "github-token": token, "working-directory": "eval"}
	}

	// 1. Push to main: the evaluator's scores become the baseline.
	push := loadPayload(t, "push_main.json")
	push["after"] = base
	res := r.run("push", push, with("base.csv"))
	if res.code != 0 || res.outputs["verdict"] != "stored" {
		t.Fatalf("push: exit %d, outputs %v\nstdout:\n%s\nstderr:\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	stored, ok := gh.File(repo, "raggate-baselines", "baselines/main/"+base+".json")
	if !ok {
		t.Fatalf("no baseline stored; paths: %v", gh.Paths(repo, "raggate-baselines"))
	}
	f, err := results.Parse(stored)
	if err != nil || len(f.Samples) != 20 || f.Git == nil || f.Git.SHA != base {
		t.Fatalf("stored baseline: %v, %+v", err, f)
	}
	if _, ok := f.Metric("hops"); !ok {
		t.Error("the stored baseline does not define the imported metric hops")
	}
	if p := res.outputs["results-path"]; p != "eval/raggate-results.json" {
		t.Errorf("results-path = %q", p)
	} else if _, err := results.Read(filepath.Join(ws, p)); err != nil {
		t.Errorf("results file: %v", err)
	}
	if !strings.Contains(res.summary, "baseline stored") {
		t.Errorf("summary:\n%s", res.summary)
	}

	// 2. A pull request whose scores are the same: the comment is created
	// and the check passes, without a judge key.
	head1 := gh.AddCommit(repo, "tune the prompt", base)
	pr := loadPayload(t, "pull_request_opened_same_repo.json")
	setPR(pr, head1, base)
	res = r.run("pull_request", pr, with("head-same.csv"))
	if res.code != 0 || res.outputs["verdict"] != "pass" || res.outputs["passed"] != "true" {
		t.Fatalf("PR same: exit %d, outputs %v\nstdout:\n%s\nstderr:\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	comments := gh.Comments(repo, 42)
	if len(comments) != 1 {
		t.Fatalf("%d comments, want 1", len(comments))
	}
	first := comments[0]
	for _, want := range []string{"<!-- raggate:head=" + head1 + " -->", "| Metric |", "faithfulness", "hops", short(base)} {
		if !strings.Contains(first.Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, first.Body)
		}
	}
	if !strings.Contains(res.summary, "faithfulness") {
		t.Errorf("summary lacks the table:\n%s", res.summary)
	}
	var sj map[string]any
	if err := json.Unmarshal([]byte(res.outputs["summary-json"]), &sj); err != nil || sj["passed"] != true {
		t.Errorf("summary-json = %q (%v)", res.outputs["summary-json"], err)
	}
	if strings.Contains(res.stdout, "skipped") || strings.Contains(res.stdout, "offline judge") {
		t.Errorf("a scores check spoke of a judge:\n%s", res.stdout)
	}

	// 3. Worse faithfulness: the same comment is updated and the step
	// fails with exit 1 naming the regression.
	head2 := gh.AddCommit(repo, "shorter prompt", head1)
	setPR(pr, head2, base)
	pr["action"] = "synchronize"
	res = r.run("pull_request", pr, with("head-worse.csv"))
	if res.code != 1 || res.outputs["verdict"] != "fail" || res.outputs["regressions"] != "faithfulness" {
		t.Fatalf("PR worse: exit %d, outputs %v\nstdout:\n%s\nstderr:\n%s", res.code, res.outputs, res.stdout, res.stderr)
	}
	comments = gh.Comments(repo, 42)
	if len(comments) != 1 || comments[0].ID != first.ID || !strings.Contains(comments[0].Body, "<!-- raggate:head="+head2+" -->") || !strings.Contains(comments[0].Body, "❌") {
		t.Fatalf("comments after the worse run: %+v", comments)
	}
	if !strings.Contains(res.stdout, "::error") || !strings.Contains(res.stdout, "faithfulness regressed") {
		t.Errorf("no error annotation naming the regression:\n%s", res.stdout)
	}

	// 4. More hops: the base's thresholds make hops lower-is-better.
	head3 := gh.AddCommit(repo, "two-stage retrieval", head2)
	setPR(pr, head3, base)
	res = r.run("pull_request", pr, with("head-more-hops.csv"))
	if res.code != 1 || res.outputs["regressions"] != "hops" {
		t.Fatalf("PR more hops: exit %d, outputs %v\n%s", res.code, res.outputs, res.stderr)
	}

	// 5. A bad scores file: exit 2 with its line, and the comment says so.
	head4 := gh.AddCommit(repo, "broken export", head3)
	setPR(pr, head4, base)
	res = r.run("pull_request", pr, with("bad.csv"))
	if res.code != 2 || res.outputs["verdict"] != "error" || !strings.Contains(res.stderr, "bad.csv:4:") {
		t.Fatalf("bad scores: exit %d, outputs %v\n%s", res.code, res.outputs, res.stderr)
	}
	comments = gh.Comments(repo, 42)
	if len(comments) != 1 || !strings.Contains(comments[0].Body, "raggate: error") || !strings.Contains(comments[0].Body, "bad.csv:4") {
		t.Errorf("comment after a bad scores file:\n%+v", comments)
	}

	// 6. scores and dataset together: exit 2 naming both inputs.
	both := with("head-same.csv")
	both["dataset"] = "golden.jsonl"
	res = r.run("pull_request", pr, both)
	if res.code != 2 || !strings.Contains(res.stderr, `input "scores"`) || !strings.Contains(res.stderr, `input "dataset"`) {
		t.Fatalf("scores and dataset: exit %d\n%s", res.code, res.stderr)
	}
	// Neither: the dataset is required.
	neither := with("")
	res = r.run("pull_request", pr, neither)
	if res.code != 2 || !strings.Contains(res.stderr, "dataset") {
		t.Fatalf("neither scores nor dataset: exit %d\n%s", res.code, res.stderr)
	}
}
