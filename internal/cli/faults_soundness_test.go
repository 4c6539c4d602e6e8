package cli

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/ghaction/ghactiontest"
	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
)

// Soundness faults of issue 22: a broken pipeline, an empty baseline or a
// dataset with nothing to score must not pass.

// sndDemoRows rewrites the demo dataset keeping only the given keys of each
// row, with alter (if any) applied to every row; it returns the new file.
func sndDemoRows(t *testing.T, keep []string, alter func(row map[string]any)) string {
	t.Helper()
	golden, err := os.ReadFile(repo + "/testdata/demo/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		out := map[string]any{}
		for _, k := range keep {
			if v, ok := row[k]; ok {
				out[k] = v
			}
		}
		if alter != nil {
			alter(out)
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	path := filepath.Join(t.TempDir(), "golden.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNothingToScoreIsAnError (issue 22, item 18): a default run on a
// dataset of questions and answers only scores nothing; that is a usage
// error (exit 2) naming the fields the data lacks and the metrics that
// need them, before any judge call, in `gate run` and `gate check`; the
// same when the columns are there but empty on every sample.
func TestNothingToScoreIsAnError(t *testing.T) {
	qa := sndDemoRows(t, []string{"id", "user_input", "response"}, nil)
	emptyCols := sndDemoRows(t, []string{"id", "user_input", "retrieved_contexts", "response", "reference"}, func(row map[string]any) {
		row["reference"] = ""
	})
	t.Run("run, offline", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "r.json")
		r := gate(t, nil, "run", "--dataset", qa, "--out", out, "--quiet")
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
		}
		for _, want := range []string{"no metric can be scored", "retrieved_contexts", "faithfulness needs retrieved_contexts"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("a results file was written (%v)", err)
		}
	})
	t.Run("check, offline", func(t *testing.T) {
		r := gate(t, nil, "check", "--quiet", "--dataset", qa, "--baseline", repo+"/testdata/demo/baseline.json",
			"--out", filepath.Join(t.TempDir(), "r.json"))
		if r.code != 2 || !strings.Contains(r.stderr, "no metric can be scored") {
			t.Fatalf("exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("LLM judge: no call", func(t *testing.T) {
		srv := openaitest.NewServer(t)
		r := gate(t, map[string]string{"OPENAI_API_KEY": "k"}, "check", "--quiet", "--dataset", qa,
			"--baseline", repo+"/testdata/demo/baseline.json", "--base-url", srv.URL, "--model", "m", "--embedding-model", "e",
			"--metrics", "faithfulness,factual_correctness", "--no-cache", "--out", filepath.Join(t.TempDir(), "r.json"))
		if r.code != 2 || !strings.Contains(r.stderr, "no metric can be scored") {
			t.Fatalf("exit %d, want 2\n%s%s", r.code, r.stdout, r.stderr)
		}
		if n := srv.ChatCalls() + srv.EmbeddingCalls(); n != 0 {
			t.Errorf("%d judge calls, want none", n)
		}
	})
	t.Run("columns present but empty", func(t *testing.T) {
		r := gate(t, nil, "run", "--dataset", emptyCols, "--judge", "offline", "--metrics", "string_similarity",
			"--out", filepath.Join(t.TempDir(), "r.json"), "--quiet")
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
		}
		for _, want := range []string{"no metric could be scored on any sample", "string_similarity: empty field reference"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	})
}

// downBaseline is the results of a baseline run whose target was down on
// every sample, accepted with --max-target-failures 1: no scored value.
func downBaseline(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	srv := demoService(t, 0, func(w http.ResponseWriter, _ string) bool {
		http.Error(w, "upstream down", http.StatusBadGateway)
		return true
	})
	out := filepath.Join(dir, "base.json")
	args := append([]string{"run", "--dataset", withoutAnswers(t, dir), "--judge", "offline", "--out", out, "--max-target-failures", "1"}, targetArgs(srv.URL)...)
	if r := gate(t, nil, args...); r.code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", r.code, r.stderr)
	}
	return out
}

// TestEmptyBaselineIsNotStored (issue 22, item 1): `gate baseline put`
// refuses a results file with no scored value, and one whose target or
// judge failures exceed the run's own limits (recorded in the file), with
// exit 2 and the reason; the store is not written.
func TestEmptyBaselineIsNotStored(t *testing.T) {
	targetFailed := func(f *results.File, n int) {
		for i := range n {
			f.Samples[i].Target = &results.TargetCall{Status: results.TargetFailed, Error: "HTTP 502: upstream down"}
		}
	}
	judgeFailed := func(f *results.File, n int) {
		for i := range n {
			s := &f.Samples[i]
			s.Scores["faithfulness"] = results.NaN()
			s.Undefined = map[string]string{"faithfulness": "judge refused"}
			s.UndefinedKind = map[string]results.UndefinedKind{"faithfulness": results.KindJudge}
		}
	}
	share := func(x float64) *float64 { return &x }
	tests := []struct {
		name    string
		results func(t *testing.T) string
		want    string
	}{
		{"target down everywhere", downBaseline, "has no scored value: every score of its 20 samples is undefined (most often: target call failed: HTTP 502"},
		{"target failures above the run's limit", func(t *testing.T) string {
			f := demoBaseline(t)
			f.Config.MaxTargetFailures = share(0.1)
			targetFailed(f, 3)
			return writeResults(t, f)
		}, "the target failed on 3 of 20 samples (more than --max-target-failures 0.1)"},
		{"target failures of a file without limits (the default, 0)", func(t *testing.T) string {
			f := demoBaseline(t)
			targetFailed(f, 1)
			return writeResults(t, f)
		}, "the target failed on 1 of 20 samples (more than --max-target-failures 0)"},
		{"judge failures above the run's limit", func(t *testing.T) string {
			f := demoBaseline(t)
			f.Config.MaxUndefined = share(0.25)
			judgeFailed(f, 6)
			return writeResults(t, f)
		}, "faithfulness undefined for 6 of 20 samples (most often: judge refused); the run's --max-undefined was 0.25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "store.json")
			r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", tt.results(t))
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, want 2 with %q\n%s", r.code, tt.want, r.stderr)
			}
			if _, err := os.Stat(store); !os.IsNotExist(err) {
				t.Errorf("the store was written (%v)", err)
			}
		})
	}
	// Within its limits, a file with failures is a baseline.
	f := demoBaseline(t)
	f.Config.MaxTargetFailures = share(0.2)
	targetFailed(f, 3)
	store := filepath.Join(t.TempDir(), "store.json")
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", writeResults(t, f)); r.code != 0 {
		t.Fatalf("within the limits: exit %d\n%s", r.code, r.stderr)
	}
}

// TestRunRecordsItsLimits: a run records the limits it was held to, so
// that `baseline put` can hold its file to them.
func TestRunRecordsItsLimits(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	if r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--max-undefined", "0.3"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f := readResults(t, out)
	if f.Config.MaxUndefined == nil || *f.Config.MaxUndefined != 0.3 || f.Config.MaxTargetFailures == nil || *f.Config.MaxTargetFailures != 0 {
		t.Errorf("config %+v: want max_undefined 0.3 and max_target_failures 0", f.Config)
	}
}

// TestEmptyBaselineDoesNotPass (issue 22, item 1): with a baseline that
// scored nothing (stored before it was refused), a pipeline answering ""
// to every question fails `gate check` as not comparable; it used to pass
// with "too few paired samples to test (20; ...)".
func TestEmptyBaselineDoesNotPass(t *testing.T) {
	dir := t.TempDir()
	empty := sndDemoRows(t, []string{"id", "user_input", "retrieved_contexts", "retrieved_context_ids", "response", "reference", "reference_context_ids", "reference_contexts"},
		func(row map[string]any) { row["response"] = "" })
	// string_similarity is gated: the head scores it (0 for the empty
	// answers), the base does not.
	th := writeFile(t, filepath.Join(dir, "th.yaml"), "version: 1\ngate: [faithfulness, string_similarity]\n")
	r := gate(t, nil, "check", "--dataset", empty, "--baseline", downBaseline(t), "--judge", "offline", "--thresholds", th, "--out", filepath.Join(dir, "head.json"))
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"raggate: FAIL: ", "not comparable", "string_similarity is not comparable: the baseline has no score for it (0 of 20 base samples scored; most often: target call failed: HTTP 502", "faithfulness is not comparable: neither side has a score for it"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "(20; the thresholds need") {
		t.Errorf("the pairs are miscounted:\n%s", r.stdout)
	}
}

// TestFewPairsWarnInTheHeadline (issue 22, item 1): a gated metric with 1
// to min_samples-1 pairs passes with a warning in the headline, counting
// the metric's pairs (not the paired samples).
func TestFewPairsWarnInTheHeadline(t *testing.T) {
	base, head := demoBaseline(t), demoBaseline(t)
	for _, f := range []*results.File{base, head} {
		f.Config.Metrics, f.Summary = []string{"faithfulness"}, nil
		for i := range f.Samples {
			f.Samples[i].Scores = map[string]results.Score{"faithfulness": f.Samples[i].Scores["faithfulness"]}
		}
	}
	for i := 4; i < len(base.Samples); i++ {
		s := &base.Samples[i]
		s.Scores["faithfulness"] = results.NaN()
		s.Undefined = map[string]string{"faithfulness": "missing field retrieved_contexts"}
		s.UndefinedKind = map[string]results.UndefinedKind{"faithfulness": results.KindData}
	}
	r := gate(t, nil, "compare", "--base", writeResults(t, base), "--head", writeResults(t, head))
	want := "raggate: PASS: with 1 warning: too few paired samples to test (4; the thresholds need 10)"
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Fatalf("exit %d, want 0 with %q\n%s\n%s", r.code, want, r.stdout, r.stderr)
	}
	r = gate(t, nil, "compare", "--base", writeResults(t, base), "--head", writeResults(t, head), "--format", "markdown")
	if want := "### ⚠️ raggate: passed with 1 warning: too few paired samples to test (4; the thresholds need 10)"; !strings.Contains(r.stdout, want) {
		t.Errorf("markdown lacks %q:\n%s", want, r.stdout)
	}
}

// TestActionRefusesAnEmptyBaseline (issue 22, item 1): the action's
// mode: baseline does not store the results of a run whose target was
// down everywhere, even under max-target-failures 1: exit 2, the reason
// said, verdict=error (never stored), nothing on the baseline branch.
func TestActionRefusesAnEmptyBaseline(t *testing.T) {
	gh := ghtest.NewServer(t, ghtest.Enterprise(), ghtest.WithToken(faultToken))
	gh.AddRepo(faultRepo, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	sha := gh.Commit(faultRepo, "main", "base")
	srv := demoService(t, 0, func(w http.ResponseWriter, _ string) bool {
		http.Error(w, "upstream down", http.StatusBadGateway)
		return true
	})
	ws := t.TempDir()
	withoutAnswers(t, ws)
	cfg := "target:\n  body:\n    q: \"{{user_input}}\"\n  response: answer\n  contexts: docs[*].text\n  retries: 0\n"
	if err := os.WriteFile(filepath.Join(ws, "target.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	push := map[string]any{"ref": "refs/heads/main", "after": sha,
		"repository": map[string]any{"full_name": faultRepo, "default_branch": "main"}}
	env := actionEnv(t, gh, "push", push, map[string]string{"mode": "baseline", "dataset": "questions.jsonl", "judge": "offline",
		"target": srv.URL, "target-config": "target.yaml", "max-target-failures": "1", "github-token": faultToken})
	env["GITHUB_WORKSPACE"], env["GITHUB_SHA"], env["GITHUB_REF"] = ws, sha, "refs/heads/main"
	r := gate(t, env, "action")
	if r.code != 2 || !strings.Contains(r.stderr, "mode: baseline: raggate-results.json has no scored value") {
		t.Fatalf("exit %d, want 2 saying why\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	outputs := ghactiontest.ReadOutputs(t, env["GITHUB_OUTPUT"]).Values
	if outputs["verdict"] == "stored" || outputs["passed"] == "true" {
		t.Errorf("outputs %v: an empty baseline must not be stored", outputs)
	}
	// The results file was written: a later step (an upload) finds it.
	if outputs["results-path"] != "raggate-results.json" {
		t.Errorf("results-path = %q, want the results file the run wrote", outputs["results-path"])
	}
	if paths := gh.Paths(faultRepo, "raggate-baselines"); len(paths) > 0 {
		t.Errorf("stored on the baseline branch: %v", paths)
	}
}

// TestContextIDTurnoverIsNotARegression (issue 22, item 4): a head whose
// retrieved context ids all changed (the corpus was re-chunked) is not
// failed on the id metrics, even when they are gated: the table and the
// comment say the context ids changed and those metrics are left out.
// The results record each sample's retrieved context ids.
func TestContextIDTurnoverIsNotARegression(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", base, "--quiet"); r.code != 0 {
		t.Fatalf("base run: exit %d\n%s", r.code, r.stderr)
	}
	if f := readResults(t, base); len(f.Samples[0].ContextIDs) == 0 {
		t.Fatalf("the results record no retrieved context ids: %+v", f.Samples[0])
	}
	rechunked := sndDemoRows(t, []string{"id", "user_input", "retrieved_contexts", "retrieved_context_ids", "response", "reference", "reference_contexts", "reference_context_ids"},
		func(row map[string]any) {
			ids := row["retrieved_context_ids"].([]any)
			for i := range ids {
				ids[i] = "chunk-v2-" + ids[i].(string)
			}
		})
	th := filepath.Join(dir, "thresholds.yaml")
	if err := os.WriteFile(th, []byte("version: 1\nmetrics:\n  id_context_precision: {}\n  id_context_recall: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "markdown"} {
		r := gate(t, nil, "check", "--dataset", rechunked, "--baseline", base, "--judge", "offline", "--thresholds", th,
			"--format", format, "--out", filepath.Join(dir, "head.json"), "--quiet")
		if r.code != 0 {
			t.Fatalf("%s: exit %d, want 0 (id turnover is not a regression)\n%s\n%s", format, r.code, r.stdout, r.stderr)
		}
		for _, want := range []string{"context ids changed: not comparable",
			"context ids changed: id metrics not comparable with this baseline (", "id_context_precision, id_context_recall left out of the decision"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%s report lacks %q:\n%s", format, want, r.stdout)
			}
		}
	}
}
