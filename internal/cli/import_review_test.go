package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// importerFixture is a fixture of the importer's tests.
func importerFixture(name string) string { return filepath.Join("..", "importer", "testdata", name) }

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The import summary lists the columns taken as metadata, warns about a
// column of numbers and text, and counts in the singular when it should.
func TestImportReviewSummary(t *testing.T) {
	p := writeTemp(t, "r.csv", "user_input,faithfulness,version,topic\nq1,0.5,beta,billing\nq2,0.6,rc,billing\nq3,0.7,2,shipping\n")
	r := gate(t, nil, "import", p, "--out", filepath.Join(t.TempDir(), "r.json"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "metadata") || !strings.Contains(r.stdout, "topic") || !strings.Contains(r.stdout, "version") {
		t.Errorf("the summary does not list the metadata columns:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout+r.stderr, "warning: ") || !strings.Contains(r.stdout+r.stderr, "column version holds 1 number ") {
		t.Errorf("no warning about the column of numbers and text:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "3 samples, 1 metric\n") {
		t.Errorf("counts:\n%s", r.stdout)
	}
	one := writeTemp(t, "one.csv", "user_input,faithfulness\nq1,0.5\n")
	r = gate(t, nil, "import", one, "--out", filepath.Join(t.TempDir(), "r.json"))
	if r.code != 0 || !strings.Contains(r.stdout, "1 sample, 1 metric\n") {
		t.Errorf("exit %d, summary:\n%s", r.code, r.stdout)
	}
}

// A text cell in a user metric's column makes the head lose a score:
// gate check --scores sees it, where the column used to vanish into
// metadata and the regression passed.
func TestCheckScoresReviewTextCell(t *testing.T) {
	rows := func(cell string) string {
		var b strings.Builder
		b.WriteString("user_input,nv_accuracy\n")
		for i := 0; i < 30; i++ {
			v := "0.9"
			if cell != "" && i%3 == 0 {
				v = cell // a third of the rows: under --max-undefined
			}
			b.WriteString("question " + strings.Repeat("x", i) + "," + v + "\n")
		}
		return b.String()
	}
	base := writeTemp(t, "base.csv", rows(""))
	head := writeTemp(t, "head.csv", rows("TimeoutError()"))
	r := gate(t, nil, "check", "--scores", head, "--baseline", base)
	if r.code != 1 || !strings.Contains(r.stdout, "nv_accuracy") || !strings.Contains(r.stdout, "TimeoutError()") {
		t.Fatalf("exit %d, want 1 naming nv_accuracy and the error\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// An evaluator that failed on most rows is held to --max-undefined,
	// as a native judge is: exit 3, saying how to accept it.
	var most strings.Builder
	most.WriteString("user_input,nv_accuracy\n")
	for i := 0; i < 30; i++ {
		v := "TimeoutError()"
		if i < 5 {
			v = "0.9"
		}
		most.WriteString("question " + strings.Repeat("x", i) + "," + v + "\n")
	}
	r = gate(t, nil, "check", "--scores", writeTemp(t, "most.csv", most.String()), "--baseline", base)
	if r.code != 3 || !strings.Contains(r.stderr, "--max-undefined") {
		t.Errorf("25 of 30 undefined: exit %d, want 3 naming --max-undefined\n%s", r.code, r.stderr)
	}
}

// check --scores holds promptfoo's failed provider calls to
// --max-target-failures as a run with a target does: exit 3 over the
// limit, saying what to do.
func TestCheckScoresReviewTargetFailures(t *testing.T) {
	pf := importerFixture("promptfoo_v3.json") // 1 of 3 calls failed
	out := filepath.Join(t.TempDir(), "head.json")
	r := gate(t, nil, "check", "--scores", pf, "--out", out)
	if r.code != 3 || !strings.Contains(r.stderr, "1 of 3") || !strings.Contains(r.stderr, "--max-target-failures") {
		t.Fatalf("exit %d, want 3 naming the failures and the flag\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, out) {
		t.Errorf("the message does not say where the results were saved:\n%s", r.stderr)
	}
	if _, err := results.Read(out); err != nil {
		t.Errorf("--out not written: %v", err)
	}
	r = gate(t, nil, "check", "--scores", pf, "--max-target-failures", "0.5", "--out", out)
	if r.code == 3 {
		t.Fatalf("within the limit: exit 3\n%s", r.stderr)
	}
	// The file records the limit, so baseline put accepts it.
	store := filepath.Join(t.TempDir(), "b.json")
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", out); r.code != 0 {
		t.Errorf("baseline put of the checked file: exit %d\n%s", r.code, r.stderr)
	}
}

// check --scores takes a scores file as its baseline, as compare --base
// and baseline put do.
func TestCheckScoresReviewBaselineScoresFile(t *testing.T) {
	r := gate(t, nil, "check", "--scores", fixture("head-worse.csv"), "--baseline", fixture("base.csv"))
	if r.code != 1 || !strings.Contains(r.stdout, "faithfulness") {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = gate(t, nil, "check", "--scores", fixture("head-same.csv"), "--baseline", fixture("base.csv"))
	if r.code != 0 {
		t.Fatalf("same: exit %d\n%s", r.code, r.stderr)
	}
	r = gate(t, nil, "check", "--scores", fixture("head-same.csv"), "--baseline", fixture("bad.csv"))
	if r.code != 2 || !strings.Contains(r.stderr, "--baseline") || !strings.Contains(r.stderr, "bad.csv:4:") {
		t.Fatalf("bad baseline: exit %d\n%s", r.code, r.stderr)
	}
	// A baseline that is not JSON is not read as JSON.
	for _, content := range []string{"a,b\n1,2,3\n", "id;x\nq1;0,5\n", "hello\n", "[1,"} {
		bad := writeTemp(t, "base.csv", content)
		r = gate(t, nil, "check", "--scores", fixture("head-same.csv"), "--baseline", bad)
		if r.code != 2 || strings.Contains(r.stderr, "invalid character") || strings.Contains(r.stderr, "looking for") {
			t.Errorf("%q: exit %d, want 2 without Go's JSON wording\n%s", content, r.code, r.stderr)
		}
	}
}

// --model records the evaluation model of a file that names none.
func TestImportReviewModel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, nil, "import", fixture("base.csv"), "--model", "gpt-4o-mini", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil || f.Judge.Model != "gpt-4o-mini" {
		t.Fatalf("model %q, %v", f.Judge.Model, err)
	}
	// check --scores: a head scored by another model is a judge change.
	r = gate(t, nil, "check", "--scores", fixture("head-same.csv"), "--model", "gpt-4o", "--baseline", out, "--format", "json")
	if !strings.Contains(r.stdout, `"judge_changed": true`) || !strings.Contains(r.stdout, "gpt-4o") {
		t.Errorf("exit %d: no judge change\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// The comment shows an imported file's tool and version whole, says that
// a promptfoo upgrade is what changed the judge, and shows a latency per
// sample without three decimals of milliseconds.
func TestCompareReviewToolVersionAndLatency(t *testing.T) {
	pf := readFile(t, importerFixture("promptfoo_v3.json"))
	head := strings.Replace(pf, `"promptfooVersion": "0.112.3"`, `"promptfooVersion": "0.118.10"`, 1)
	head = strings.Replace(head, `"latencyMs": 812`, `"latencyMs": 1186`, 1)
	head = strings.Replace(head, `"namedScores": {"faithfulness": 1,`, `"namedScores": {"faithfulness": 0.2,`, 1)
	if head == pf {
		t.Fatal("the fixture changed")
	}
	base := writeTemp(t, "base.json", pf)
	hp := writeTemp(t, "head.json", head)
	r := gate(t, nil, "compare", "--base", base, "--head", hp, "--format", "markdown")
	if r.code == 2 {
		t.Fatalf("exit 2\n%s", r.stderr)
	}
	for _, want := range []string{"| prompts | promptfoo 0.112.3 | promptfoo 0.118.10 |", "prompts promptfoo 0.112.3 → promptfoo 0.118.10", "latency_ms ↓: 812 → 1186 (+374)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the comment lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "Usage and cost") {
		t.Errorf("the comment of imported scores has a usage section of zero calls:\n%s", r.stdout)
	}
}

// The action's input scores-format forces the scores file's format, as
// --scores-format does; a format it does not know is exit 2 naming it.
func TestActionReviewScoresFormat(t *testing.T) {
	abs, err := filepath.Abs(fixture("base.csv"))
	if err != nil {
		t.Fatal(err)
	}
	payload := map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}
	env := actionEnv(t, nil, "workflow_dispatch", payload, map[string]string{"scores": abs, "scores-format": "deepeval", "mode": "check"})
	r := gate(t, env, "action")
	if r.code != 2 || !strings.Contains(r.stderr, "base.csv") || !strings.Contains(r.stderr, "test cases") {
		t.Fatalf("forced deepeval: exit %d, want 2 reading base.csv as DeepEval\n%s", r.code, r.stderr)
	}
	env = actionEnv(t, nil, "workflow_dispatch", payload, map[string]string{"scores": abs, "scores-format": "csv", "mode": "check"})
	r = gate(t, env, "action")
	if r.code != 2 || !strings.Contains(r.stderr, "scores-format") {
		t.Fatalf("unknown format: exit %d, want 2 naming scores-format\n%s", r.code, r.stderr)
	}
}
