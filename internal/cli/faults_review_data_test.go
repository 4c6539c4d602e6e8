package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Data faults of the black-box review of issue 22 (/work/notes/review22.md):
// baselines with nothing to compare, context id turnover, empty golden
// fields, unbounded texts, Parquet row counts, segment keys, sibling
// columns, FIFO datasets and invalid rubric values.

// TestReviewSegmentCapCountsDistinctKeys (review 12): the segment key cap
// counts distinct keys after trimming spaces; a repeated key counts once.
func TestReviewSegmentCapCountsDistinctKeys(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "d.jsonl")
	writeTopicDataset(t, ds, false)
	base := filepath.Join(dir, "base.json")
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds, "--out", base); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	for name, keys := range map[string]string{
		"repeated":       strings.Repeat("topic,", 10) + "topic",
		"spaced repeats": "topic, topic ,topic,  topic, topic,topic ,topic,topic,topic,topic, topic",
	} {
		t.Run(name, func(t *testing.T) {
			r := gate(t, nil, "check", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds,
				"--baseline", base, "--out", filepath.Join(t.TempDir(), "h.json"), "--segment-by", keys)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
			}
		})
	}
	t.Run("eleven distinct keys", func(t *testing.T) {
		r := gate(t, nil, "check", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds,
			"--baseline", base, "--out", filepath.Join(t.TempDir(), "h.json"), "--segment-by", "k0, k1,k2,k3,k4,k5,k6,k7,k8,k9,k10, k0")
		if r.code != 2 || !strings.Contains(r.stderr, "11 keys") {
			t.Fatalf("exit %d, want 2 with \"11 keys\"\n%s", r.code, r.stderr)
		}
	})
}

// writeRows writes rows as a JSON Lines file in a temporary directory.
func writeRows(t *testing.T, rows []map[string]any) string {
	t.Helper()
	var b strings.Builder
	for _, row := range rows {
		line, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "d.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReviewSiblingColumnsAreNotTypos (review 13): columns that differ in
// one short token (a/b, gpt4o/gpt4) are siblings, kept as metadata; a real
// typo's "did you mean" says how to keep a column that is not a typo.
func TestReviewSiblingColumnsAreNotTypos(t *testing.T) {
	for _, pair := range [][2]string{{"answer_a", "answer_b"}, {"model_a_answer", "model_b_answer"}, {"answer_gpt4o", "answer_gpt4"}} {
		t.Run(pair[0]+"/"+pair[1], func(t *testing.T) {
			var rows []map[string]any
			for i := range 3 {
				rows = append(rows, map[string]any{"id": fmt.Sprint(i), "user_input": "What colour is the sky?",
					"retrieved_contexts": []string{"The sky is blue."}, pair[0]: "The sky is blue.", pair[1]: "Blue."})
			}
			ds := writeRows(t, rows)
			r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds,
				"--field", "response="+pair[0], "--out", filepath.Join(t.TempDir(), "r.json"))
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
			}
		})
	}
	t.Run("a typo says how to keep the column", func(t *testing.T) {
		ds := writeRows(t, []map[string]any{{"id": "1", "user_input": "q", "retrieved_contexts": []string{"c"}, "response": "c", "respnse": "x"}})
		r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds,
			"--out", filepath.Join(t.TempDir(), "r.json"))
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
		}
		for _, want := range []string{`did you mean "response"?`, "if it is a column of its own, rename it in the file; no option keeps it"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	})
}
