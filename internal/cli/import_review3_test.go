package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pfFailedCalls is a promptfoo output of 10 tests of which 3 are failed
// provider calls (failureReason 2, no scores).
func pfFailedCalls() string {
	var rs []string
	for i := 0; i < 10; i++ {
		if i < 3 {
			rs = append(rs, fmt.Sprintf(`{"testIdx": %d, "promptIdx": 0, "provider": {"id": "openai:gpt-4o"}, "vars": {"question": "q%d"},
 "success": false, "score": 0, "namedScores": {}, "gradingResult": null, "response": {"error": "429 Too Many Requests"}, "failureReason": 2, "error": "API error: 429"}`, i, i))
			continue
		}
		rs = append(rs, fmt.Sprintf(`{"testIdx": %d, "promptIdx": 0, "provider": {"id": "openai:gpt-4o"}, "vars": {"question": "q%d"},
 "success": true, "score": 0.8, "namedScores": {"Faithfulness": 0.9}, "response": {"output": "a"}, "failureReason": 0}`, i, i))
	}
	return `{"evalId": "e", "results": {"version": 3, "results": [` + strings.Join(rs, ",\n") + `]}}`
}

// baseline put holds an imported file to --max-target-failures (and
// --max-undefined): the defaults refuse 3 failed calls of 10, the flag
// given lets it be stored.
func TestBaselinePutReview3Limits(t *testing.T) {
	pf := writeTemp(t, "pf.json", pfFailedCalls())
	store := filepath.Join(t.TempDir(), "b.json")
	put := func(extra ...string) runResult {
		return gate(t, nil, append([]string{"baseline", "put", "--store", "file", "--path", store, "--results", pf}, extra...)...)
	}
	if r := put(); r.code != 2 || !strings.Contains(r.stderr, "target") {
		t.Fatalf("defaults: exit %d, want 2 naming the failed target calls\n%s", r.code, r.stderr)
	}
	if r := put("--max-target-failures", "0.5"); r.code != 0 {
		t.Fatalf("--max-target-failures 0.5: exit %d, want 0\n%s", r.code, r.stderr)
	}

	// A metric undefined on 4 of 10 rows: refused at --max-undefined 0.2.
	var b strings.Builder
	b.WriteString("id,faithfulness\n")
	for i := 0; i < 10; i++ {
		v := "0.9"
		if i < 4 {
			v = "TimeoutError()"
		}
		fmt.Fprintf(&b, "s%d,%s\n", i, v)
	}
	csv := writeTemp(t, "r.csv", b.String())
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", csv, "--max-undefined", "0.2"); r.code != 2 || !strings.Contains(r.stderr, "0.2") {
		t.Fatalf("--max-undefined 0.2: exit %d, want 2\n%s", r.code, r.stderr)
	}
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", csv); r.code != 0 {
		t.Fatalf("default --max-undefined 0.5: exit %d, want 0\n%s", r.code, r.stderr)
	}
}

// The action's baseline mode holds an imported scores file to its
// max-target-failures input.
func TestActionBaselineReview3Limits(t *testing.T) {
	pf := writeTemp(t, "pf.json", pfFailedCalls())
	payload := map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}
	run := func(extra ...string) runResult {
		dir := t.TempDir()
		in := map[string]string{"scores": pf, "mode": "baseline", "comment": "false", "baseline-store": "file",
			"baseline-path": filepath.Join(dir, "store.json"), "results": filepath.Join(dir, "results.json")}
		for i := 0; i+1 < len(extra); i += 2 {
			in[extra[i]] = extra[i+1]
		}
		env := actionEnv(t, nil, "push", payload, in)
		env["GITHUB_REF"], env["GITHUB_SHA"] = "refs/heads/main", strings.Repeat("2", 40)
		return gate(t, env, "action")
	}
	if r := run(); r.code != 2 {
		t.Fatalf("default max-target-failures: exit %d, want 2\n%s", r.code, r.stderr)
	}
	if r := run("max-target-failures", "0.5"); r.code != 0 {
		t.Fatalf("max-target-failures 0.5: exit %d, want 0\n%s", r.code, r.stderr)
	}
}

// acRagas is a Ragas 0.1 export of answer_correctness and
// answer_similarity (report-only catalogue metrics), worse by shift.
func acRagas(shift float64) string {
	var b strings.Builder
	b.WriteString(",question,answer,ground_truth,answer_correctness,answer_similarity\n")
	for i := 0; i < 30; i++ {
		v := 0.5 + 0.4*float64(i%7)/7 - shift
		fmt.Fprintf(&b, "%d,Question %d?,ans,gt,%.4f,%.4f\n", i, i, v, v+0.05)
	}
	return b.String()
}

// An imported head that gates nothing says so, naming the metrics it
// could gate; the thresholds' gate list makes them gate.
func TestCheckScoresReview3NothingGated(t *testing.T) {
	base := writeTemp(t, "base.csv", acRagas(0))
	head := writeTemp(t, "head.csv", acRagas(0.2))
	r := gate(t, nil, "check", "--scores", head, "--baseline", base)
	out := r.stdout + r.stderr
	if r.code != 0 || !strings.Contains(out, "no gated metric compared") || !strings.Contains(out, "report-only: semantic_similarity, answer_correctness") {
		t.Fatalf("exit %d, want 0 with a warning naming the report-only metrics\n%s", r.code, out)
	}
	th := writeTemp(t, "t.yaml", "version: 1\ngate: [faithfulness, answer_correctness]\n")
	if r := gate(t, nil, "check", "--scores", head, "--baseline", base, "--thresholds", th); r.code != 1 {
		t.Fatalf("answer_correctness gated: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A JSON object whose schema is not a string is never read as a results
// file: the error is the importer's, not Go's.
func TestCheckScoresReview3SchemaObject(t *testing.T) {
	p := writeTemp(t, "s.json", `{"schema": {"fields": []}, "other": 1}`)
	r := gate(t, nil, "check", "--scores", p)
	if r.code != 2 || strings.Contains(r.stderr, "Go struct") || !strings.Contains(r.stderr, "matches none of the formats") {
		t.Fatalf("exit %d, want 2 with the formats expected\n%s", r.code, r.stderr)
	}
}

// A missing scores file says so with the path as given; the action's
// scores-format is read in any case.
func TestActionReview3ScoresInput(t *testing.T) {
	var b strings.Builder
	b.WriteString("user_input,faithfulness\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "q%d,0.%d\n", i, 5+i%4)
	}
	scores := writeTemp(t, "scores.csv", b.String())
	base := filepath.Join(t.TempDir(), "base.json")
	if r := gate(t, nil, "import", scores, "--out", base); r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	payload := map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}
	run := func(in map[string]string) runResult {
		dir := t.TempDir()
		m := map[string]string{"mode": "check", "comment": "false", "baseline-store": "file", "baseline-path": base,
			"results": filepath.Join(dir, "results.json"), "report": filepath.Join(dir, "report.md")}
		for k, v := range in {
			m[k] = v
		}
		return gate(t, actionEnv(t, nil, "workflow_dispatch", payload, m), "action")
	}
	r := run(map[string]string{"scores": "evals/out.csv"})
	want := `input "scores": evals/out.csv does not exist (give the path of the file your evaluator wrote, relative to the working directory)`
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Fatalf("missing file: exit %d, want 2 saying %q\n%s", r.code, want, r.stderr)
	}
	if r := run(map[string]string{"scores": scores, "scores-format": "Ragas"}); r.code != 0 {
		t.Fatalf("scores-format Ragas: exit %d, want 0\n%s", r.code, r.stderr)
	}
	if r := gate(t, nil, "check", "--scores", "nope.csv"); r.code != 2 || !strings.Contains(r.stderr, "--scores: nope.csv does not exist") {
		t.Fatalf("check --scores nope.csv: exit %d\n%s", r.code, r.stderr)
	}
}

// The action with scores warns about the inputs it ignores, and its model
// input names the scores' evaluation model.
func TestActionReview3IgnoredInputsAndModel(t *testing.T) {
	var b strings.Builder
	b.WriteString("user_input,faithfulness\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "q%d,0.%d\n", i, 5+i%4)
	}
	scores := writeTemp(t, "scores.csv", b.String())
	dir := t.TempDir()
	out := filepath.Join(dir, "results.json")
	payload := map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}
	in := map[string]string{"scores": scores, "mode": "check", "comment": "false", "baseline-store": "file",
		"baseline-path": filepath.Join(dir, "none.json"), "results": out, "report": filepath.Join(dir, "report.md"),
		"metrics": "faithfulness", "base-url": "http://x", "judge": "auto", "model": "gpt-4o-mini"}
	r := gate(t, actionEnv(t, nil, "workflow_dispatch", payload, in), "action")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	warn := "::warning title=raggate::input scores gates another evaluator's scores; these inputs are for a run of raggate's own judge and are ignored: metrics, base-url"
	if !strings.Contains(r.stdout, warn+"\n") {
		t.Errorf("no warning naming metrics and base-url (and only them):\n%s", r.stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), `"model": "gpt-4o-mini"`) {
		t.Errorf("results do not record the model input as the evaluation model: %v\n%.400s", err, data)
	}
}

// A command in a finding's sentence shows as code in the comment, not as
// escaped backticks.
func TestCompareReview3CommandInMarkdown(t *testing.T) {
	var b, h strings.Builder
	b.WriteString("id,user_input,faithfulness\n")
	h.WriteString("id,user_input,faithfulness\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "s%d,q%d,0.%d\n", i, i, 5+i%4)
		if i < 5 {
			fmt.Fprintf(&h, "s%d,q%d,0.%d\n", i, i, 5+i%4)
		} else {
			fmt.Fprintf(&h, "n%d,new%d,0.%d\n", i, i, 5+i%4)
		}
	}
	r := gate(t, nil, "compare", "--base", writeTemp(t, "b.csv", b.String()), "--head", writeTemp(t, "h.csv", h.String()), "--format", "markdown")
	if !strings.Contains(r.stdout, "store a baseline of the new dataset with `gate baseline put`") || strings.Contains(r.stdout, "\\`") {
		t.Fatalf("exit %d: want the command as code, no escaped backticks\n%s%s", r.code, r.stdout, r.stderr)
	}
}
