package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
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
		for _, want := range []string{"no metric can be scored", "retrieved_contexts", "reference",
			"faithfulness needs retrieved_contexts", "factual_correctness needs reference"} {
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
		r := gate(t, nil, "run", "--dataset", emptyCols, "--judge", "offline", "--metrics", "semantic_similarity",
			"--out", filepath.Join(t.TempDir(), "r.json"), "--quiet")
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
		}
		for _, want := range []string{"no metric could be scored on any sample", "semantic_similarity: empty field reference"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	})
}
