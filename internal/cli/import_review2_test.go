package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// pfAskedBySome is a promptfoo output of 25 tests of which 9 ask for
// Faithfulness.
func pfAskedBySome() string {
	var rs []string
	for i := 0; i < 25; i++ {
		named := fmt.Sprintf(`"relevance": 0.%d`, 5+i%4)
		if i%3 == 0 {
			named += fmt.Sprintf(`, "Faithfulness": 0.%d`, 6+i%3)
		}
		rs = append(rs, fmt.Sprintf(`{"testIdx": %d, "promptIdx": 0, "provider": "openai:gpt-4o", "vars": {"question": "q%d"},
 "testCase": {"description": "case %d"}, "success": true, "score": 0.7, "namedScores": {%s}, "latencyMs": 100}`, i, i, i, named))
	}
	return `{"evalId": "e", "results": {"version": 3, "results": [` + strings.Join(rs, ",\n") + `]}}`
}

// A metric only some tests ask for does not make check --scores exit 3,
// and baseline put stores the file.
func TestCheckScoresReview2MetricAskedBySome(t *testing.T) {
	pf := writeTemp(t, "pf.json", pfAskedBySome())
	out := filepath.Join(t.TempDir(), "head.json")
	r := gate(t, nil, "check", "--scores", pf, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0: Faithfulness on 9 of 25 tests is no evaluator failure\n%s", r.code, r.stderr)
	}
	store := filepath.Join(t.TempDir(), "b.json")
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", pf); r.code != 0 {
		t.Errorf("baseline put: exit %d\n%s", r.code, r.stderr)
	}
}

// The action has an input max-undefined, as gate check has the flag, and
// its message over the limit names the input.
func TestActionReview2MaxUndefined(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,nv_accuracy\n")
	for i := 0; i < 30; i++ {
		v := "TimeoutError()"
		if i < 20 {
			v = "0.9"
		}
		fmt.Fprintf(&b, "s%d,%s\n", i, v)
	}
	scores := writeTemp(t, "scores.csv", b.String()) // 10 of 30 undefined
	base := filepath.Join(t.TempDir(), "base.json")
	if r := gate(t, nil, "import", writeTemp(t, "base.csv", strings.ReplaceAll(b.String(), "TimeoutError()", "0.9")), "--out", base); r.code != 0 {
		t.Fatalf("import of the base: exit %d\n%s", r.code, r.stderr)
	}
	payload := map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}
	in := func(extra ...string) map[string]string {
		dir := t.TempDir()
		m := map[string]string{"scores": scores, "mode": "check", "comment": "false", "baseline-store": "file", "baseline-path": base,
			"results": filepath.Join(dir, "results.json"), "report": filepath.Join(dir, "report.md")}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	env := actionEnv(t, nil, "workflow_dispatch", payload, in("max-undefined", "0.2"))
	r := gate(t, env, "action")
	if r.code != 3 || !strings.Contains(r.stderr, "the action's input max-undefined") {
		t.Fatalf("max-undefined 0.2: exit %d, want 3 naming the input\n%s", r.code, r.stderr)
	}
	env = actionEnv(t, nil, "workflow_dispatch", payload, in())
	if r := gate(t, env, "action"); r.code == 3 || r.code == 2 {
		t.Fatalf("default 0.5: exit %d\n%s", r.code, r.stderr)
	}
	env = actionEnv(t, nil, "workflow_dispatch", payload, in("max-undefined", "2"))
	if r := gate(t, env, "action"); r.code != 2 || !strings.Contains(r.stderr, `input "max-undefined"`) {
		t.Fatalf("max-undefined 2: exit %d, want 2 naming the input\n%s", r.code, r.stderr)
	}
}

// The import summary lists the metrics in the file's order.
func TestImportReview2SummaryOrder(t *testing.T) {
	p := writeTemp(t, "t.csv", "ID,zeta,faithfulness,alpha\na,1,0.5,2\nb,2,0.6,3\n")
	r := gate(t, nil, "import", p, "--out", filepath.Join(t.TempDir(), "r.json"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	z, f, a := strings.Index(r.stdout, "  zeta "), strings.Index(r.stdout, "  faithfulness "), strings.Index(r.stdout, "  alpha ")
	if z < 0 || f < 0 || a < 0 || !(z < f && f < a) {
		t.Errorf("metrics not in the file's order (zeta, faithfulness, alpha):\n%s", r.stdout)
	}
}
