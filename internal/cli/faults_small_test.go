package cli

// Smaller faults of the second black-box pass (issue 22): each case runs
// the real command in-process through Main and checks what a user relies
// on: the exit code, what is written, what stderr says. Run only them with
//
//	go test ./internal/cli -run Small

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// writeLabelled writes the labelled demo to dir/name with edit applied to
// each line (1-based).
func writeLabelled(t *testing.T, dir, name string, edit func(line int, s string) string) string {
	t.Helper()
	b, err := os.ReadFile(labelled)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" {
			out.WriteString(edit(i+1, l))
		}
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A label that is neither a --positive value nor the one other value is a
// typo, not a negative: exit 2 naming the file, the line and the value,
// before any judge call.
func TestSmallAgreeLabelTypos(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ typo, want string }{
		{"N0", `typo.jsonl:4: label human="N0" is neither a good value (--positive yes) nor the other value "No": did you mean "No"?`},
		{"Yse", `typo.jsonl:4: label human="Yse" is neither a good value (--positive yes) nor the other value "No": did you mean "yes"?`},
	} {
		t.Run(tt.typo, func(t *testing.T) {
			ds := writeLabelled(t, dir, "typo.jsonl", func(line int, s string) string {
				if line == 4 {
					return strings.Replace(s, `"human": "No"`, `"human": "`+tt.typo+`"`, 1)
				}
				return s
			})
			out := filepath.Join(dir, "r.json")
			r := gate(t, nil, "agree", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics", "faithfulness",
				"--label", "human", "--positive", "yes", "--out", out)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q\n%s", r.code, tt.want, r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("the dataset was judged before its labels were checked")
			}
		})
	}
	// A results file judged before: the sample is named.
	good := filepath.Join(dir, "good.json")
	if r := gate(t, nil, "agree", "--quiet", "--dataset", labelled, "--judge", "offline", "--metrics", "faithfulness",
		"--label", "human", "--positive", "yes", "--out", good); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	bad := editResults(t, good, filepath.Join(dir, "bad.json"), func(f *results.File) { f.Samples[5].Metadata["human"] = "Noo" })
	r := gate(t, nil, "agree", "--results", bad, "--label", "human", "--positive", "yes")
	if want := `bad.json: sample "k2-003-b": label human="Noo" is neither a good value`; r.code != ExitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("--results: exit %d, want 2 with %q\n%s", r.code, want, r.stderr)
	}
}

// Labels of one class measure nothing: a warning says so.
func TestSmallAgreeOneClassWarns(t *testing.T) {
	dir := t.TempDir()
	ds := writeLabelled(t, dir, "yes.jsonl", func(_ int, s string) string {
		if strings.Contains(s, `"human": "No"`) {
			return ""
		}
		return s
	})
	r := gate(t, nil, "agree", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics", "faithfulness",
		"--label", "human", "--positive", "yes", "--out", filepath.Join(dir, "r.json"))
	want := `warning: every label in column "human" is good (20 rows): the figures need labels of both classes`
	if r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stdout, want[len("warning: "):]) {
		t.Errorf("exit %d, want 0 with %q on stderr and in the report\n%s\n%s", r.code, want, r.stdout, r.stderr)
	}
}

// --pair-by over a column whose every value is unique pairs nothing: the
// report says so, and --min fails.
func TestSmallAgreeNoPartners(t *testing.T) {
	dir := t.TempDir()
	ds := writeLabelled(t, dir, "nopair.jsonl", func(line int, s string) string {
		return regexp.MustCompile(`"pair": "[^"]*"`).ReplaceAllString(s, `"pair": "p`+strings.Repeat("x", line)+`"`)
	})
	args := []string{"agree", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics", "faithfulness",
		"--label", "grade", "--pair-by", "pair", "--out", filepath.Join(dir, "r.json")}
	want := `warning: no labelled row has a partner: every value of column "pair" is on one row (35 rows); a pair is two rows with the same value`
	r := gate(t, nil, args...)
	if r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, want 0 with %q\n%s", r.code, want, r.stderr)
	}
	r = gate(t, nil, append(args, "--min", "pairwise_accuracy=0.5")...)
	if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "pairwise_accuracy n/a < min 0.5") {
		t.Errorf("--min: exit %d, want 1\n%s", r.code, r.stderr)
	}
}

// numericMetricsFile defines a numeric metric reading the column cost.
const numericMetricsFile = `version: 1
metrics:
  cost:
    kind: numeric
    description: cost of the answer
    reads: [cost]
    direction: lower
`

// writeCostDataset writes the demo with a cost column of value(i).
func writeCostDataset(t *testing.T, dir, name string, value func(i int) string) string {
	t.Helper()
	b, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		out.WriteString(strings.TrimSuffix(l, "}") + `, "cost": ` + value(i) + "}\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Numeric values near the largest float overflow a mean to +Inf, and a
// comparison of infinities passed. A dataset value that large leaves the
// sample's score undefined (saying why); a results file holding one is
// refused, naming the file, the sample and the metric.
func TestSmallNumericValuesThatCannotBeSummed(t *testing.T) {
	dir := t.TempDir()
	mf := filepath.Join(dir, "metrics.yaml")
	if err := os.WriteFile(mf, []byte(numericMetricsFile), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, value func(i int) string) (runResult, string) {
		ds := writeCostDataset(t, dir, name+".jsonl", value)
		out := filepath.Join(dir, name+".json")
		return gate(t, nil, "run", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics-file", mf, "--metrics", "faithfulness,cost", "--out", out), out
	}
	r, base := run("base", func(i int) string { return strconv.Itoa(100 + i) })
	if r.code != 0 {
		t.Fatalf("base: exit %d\n%s", r.code, r.stderr)
	}
	r, huge := run("huge", func(i int) string { return "1.7e308" })
	if r.code != 0 {
		t.Fatalf("huge: exit %d\n%s", r.code, r.stderr)
	}
	f := readResults(t, huge)
	s := f.Samples[0]
	if !s.Scores["cost"].IsNaN() || !strings.Contains(s.Undefined["cost"], "cost: 1.7e308 is too large") {
		t.Errorf("score %v, reason %q: want undefined, too large", s.Scores["cost"], s.Undefined["cost"])
	}

	// A results file written by hand (or another tool) with such values.
	head := editResults(t, base, filepath.Join(dir, "head.json"), func(f *results.File) {
		for i := range f.Samples {
			f.Samples[i].Scores["cost"] = 1.7e308
		}
	})
	r = gate(t, nil, "compare", "--base", base, "--head", head)
	want := `head.json: invalid results file: sample "k2-001": cost score 1.7e+308 is too large`
	if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("compare: exit %d, want 2 with %q\n%s", r.code, want, r.stderr)
	}
}

// A target reporting an absurd token usage (2^62 prompt and completion
// tokens) overflowed the total into a negative count that read as the best
// score: such a reply is refused, saying why.
func TestSmallTargetUsageOverflow(t *testing.T) {
	rows := demoRows(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Q string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"answer": %q, "usage": {"prompt_tokens": 4611686018427387904, "completion_tokens": 4611686018427387904}}`, rows[req.Q].Response)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, nil, "run", "--quiet", "--dataset", demo, "--judge", "offline", "--out", out, "--target", srv.URL,
		"--target-body", `{"q": "{{user_input}}"}`, "--target-response-path", "answer", "--target-usage-path", "usage", "--target-retries", "0")
	want := `usage path "usage": prompt_tokens: 4611686018427387904 is not a count of tokens (at most 9007199254740992)`
	if r.code != ExitOperational || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, want 3 with %q\n%s", r.code, want, r.stderr)
	}
	if f, err := results.Read(out); err == nil {
		for _, s := range f.Samples {
			if v, ok := s.Scores[colTokens]; ok && !v.IsNaN() && v.Value() < 0 {
				t.Errorf("sample %s: %s = %v", s.ID, colTokens, v.Value())
			}
		}
	}
}

// A second YAML document in a config file ("---" and more keys) was
// silently ignored: exit 2, before any call.
func TestSmallSecondYAMLDocument(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	target := write("target.yaml", "target:\n  url: http://127.0.0.1:1/ask\n  body: {q: \"{{user_input}}\"}\n  response: answer\n---\ntarget:\n  timeout: 5s\n")
	prices := write("prices.yaml", "judge-model: {input_per_mtok: 1, output_per_mtok: 2}\n---\njudge-model: {input_per_mtok: 100, output_per_mtok: 200}\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--judge", "offline", "--target-config", target}, "target.yaml:5: a second YAML document; a target config holds one (remove the \"---\" line and what follows, or merge it into the first)"},
		{[]string{"--base-url", "http://127.0.0.1:1/v1", "--model", "judge-model", "--dry-run", "--metrics", "faithfulness", "--prices", prices}, "prices.yaml:2: a second YAML document; a price table holds one"},
	} {
		args := append([]string{"run", "--quiet", "--dataset", demo, "--out", filepath.Join(dir, "r.json")}, tt.args...)
		r := gate(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", tt.args, r.code, tt.want, r.stderr)
		}
	}
}

// The 10-key segment cap applies to the union of the thresholds' keys
// and --segment-by: 6 + 5 keys are 11, exit 2 before anything is judged.
func TestSmallSegmentCapCountsTheUnion(t *testing.T) {
	dir := t.TempDir()
	th := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(th, []byte("version: 1\nsegments: [a, b, c, d, e, f]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := smallBase(t, dir)
	want := "--segment-by: 11 segment keys with the thresholds' (a, b, c, d, e, f, g, h, i, j, k), at most 10"
	for _, args := range [][]string{
		{"compare", "--base", base, "--head", base},
		{"check", "--quiet", "--dataset", demo, "--judge", "offline", "--baseline", base, "--out", filepath.Join(dir, "r.json")},
	} {
		// b repeats a thresholds key: the union counts it once.
		r := gate(t, nil, append(args, "--thresholds", th, "--segment-by", "g,h,b,i,j,k")...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, want 2 with %q\n%s", args[0], r.code, want, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Error("check judged before refusing the keys")
	}
	// Ten in all is fine (the dataset has none of them: that is another error).
	r := gate(t, nil, "compare", "--base", base, "--head", base, "--thresholds", th, "--segment-by", "g,h,b,i,j")
	if strings.Contains(r.stderr, "at most 10") {
		t.Errorf("10 keys refused\n%s", r.stderr)
	}
}

// A corrupt results file's error names the file, the sample (index and
// id) and the field in the file's own terms, never Go's ("Go struct field
// Sample.samples.id of type string").
func TestSmallCorruptBaselineNamesSampleAndField(t *testing.T) {
	dir := t.TempDir()
	base := smallBase(t, dir)
	b, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := func(name string, edit func(f map[string]any)) string {
		var f map[string]any
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		edit(f)
		out, _ := json.MarshalIndent(f, "", "  ")
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sample := func(f map[string]any, i int) map[string]any { return f["samples"].([]any)[i].(map[string]any) }
	for _, tt := range []struct {
		name string
		edit func(f map[string]any)
		want string
	}{
		{"id.json", func(f map[string]any) { sample(f, 2)["id"] = 5 }, `samples[2]: id is a number, want text`},
		{"score.json", func(f map[string]any) { sample(f, 3)["scores"].(map[string]any)["faithfulness"] = "high" },
			`samples[3] (id "k2-004"): scores.faithfulness is text, want a number or null`},
		{"contexts.json", func(f map[string]any) { sample(f, 1)["retrieved_contexts"] = "one context" },
			`samples[1] (id "k2-002"): retrieved_contexts is text, want a list of texts`},
		{"sample.json", func(f map[string]any) { f["samples"].([]any)[4] = "k2-005" }, `samples[4] is text, want an object`},
		{"usage.json", func(f map[string]any) { f["usage"].(map[string]any)["chat_calls"] = "many" }, `usage.chat_calls is text, want an integer`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := corrupt(tt.name, tt.edit)
			for _, args := range [][]string{
				{"compare", "--base", p, "--head", base},
				{"check", "--quiet", "--dataset", demo, "--judge", "offline", "--baseline", p, "--out", filepath.Join(dir, "r.json")},
			} {
				r := gate(t, nil, args...)
				want := tt.name + ": invalid results file: line "
				if r.code != ExitUsage || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "Go ") {
					t.Errorf("%s: exit %d, want 2 with %q and %q\n%s", args[0], r.code, want, tt.want, r.stderr)
				}
			}
		})
	}
}
