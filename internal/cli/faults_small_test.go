package cli

// Smaller faults of the second black-box pass (issue 22): each case runs
// the real command in-process through Main and checks what a user relies
// on: the exit code, what is written, what stderr says. Run only them with
//
//	go test ./internal/cli -run Small

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// ghRefRE matches a "GH-123" issue reference GitHub would link.
var ghRefRE = regexp.MustCompile(`(?i)(^|[^\pL\pN_])gh-\d`)

// smallBase judges the demo with the offline judge into dir/base.json.
func smallBase(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "base.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", demo, "--judge", "offline", "--metrics", "faithfulness,factual_correctness", "--out", out); r.code != 0 {
		t.Fatalf("base run: exit %d\n%s", r.code, r.stderr)
	}
	return out
}

// editResults reads a results file, lets edit change it and writes it to
// path.
func editResults(t *testing.T, from, path string, edit func(f *results.File)) string {
	t.Helper()
	f, err := results.Read(from)
	if err != nil {
		t.Fatal(err)
	}
	edit(f)
	if err := results.Write(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

// "GH-123" in a question reaches the PR comment as text, not as a link to
// (and a cross-reference on) issue 123, like "#123" does.
func TestSmallGHReferenceEscapedInComment(t *testing.T) {
	dir := t.TempDir()
	base := smallBase(t, dir)
	head := editResults(t, base, filepath.Join(dir, "head.json"), func(f *results.File) {
		for i := range f.Samples {
			f.Samples[i].Scores[metrics.FaithfulnessName] = 0
			f.Samples[i].Question = "Why does GH-123 (and gh-7) still fail?"
		}
	})
	r := gate(t, nil, "compare", "--base", base, "--head", head, "--format", "markdown")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (faithfulness regressed)\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "GH-\u200b123") || ghRefRE.MatchString(r.stdout) {
		t.Errorf("comment links an issue:\n%s", r.stdout)
	}
}

// gate agree's markdown escapes like the comment: no issue references,
// mentions or links from the dataset's ids.
func TestSmallAgreeMarkdownEscaped(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(labelled)
	if err != nil {
		t.Fatal(err)
	}
	// Every id becomes one that GitHub would link or ping.
	data := regexp.MustCompile(`"id": ?"([^"]*)"`).ReplaceAllString(string(b), `"id": "GH-1 @octocat www.x.example $1"`)
	ds := filepath.Join(dir, "labelled.jsonl")
	if err := os.WriteFile(ds, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gate(t, nil, "agree", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics", "faithfulness", "--label", "human",
		"--positive", "yes", "--out", filepath.Join(dir, "r.json"), "--format", "markdown")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "| GH-\u200b1 @\u200boctocat www\u200b.x.example") {
		t.Fatalf("disagreements not listed, or not escaped:\n%s", r.stdout)
	}
	if ghRefRE.MatchString(r.stdout) || strings.Contains(r.stdout, "@octocat") || strings.Contains(r.stdout, "www.x") {
		t.Errorf("markdown links or pings:\n%s", r.stdout)
	}
}
