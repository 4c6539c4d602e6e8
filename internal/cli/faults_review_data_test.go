package cli

import (
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
