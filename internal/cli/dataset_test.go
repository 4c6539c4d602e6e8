package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

const datasetTestdata = repo + "/internal/dataset/testdata/"

// Extra columns reach the results file as each sample's metadata, from
// JSON Lines, CSV and Parquet alike (with --strict-fields they are refused:
// transcript run-strict-fields).
func TestRunKeepsMetadata(t *testing.T) {
	tests := []struct {
		file  string
		args  []string
		first map[string]string
	}{
		{"ragflow_export.jsonl", nil, map[string]string{"status": "success", "timestamp": "2025-03-04T09:12:44Z"}},
		{"halueval.csv", []string{"--field", "id=sample_id", "--field", "user_input=Question", "--field", "retrieved_contexts=Context", "--field", "response=Answer"},
			map[string]string{"Retreival Setting": "top-3", "Label": "PASS"}},
		{"golden.parquet", nil, map[string]string{"topic": "billing", "score": "0.5", "tags": `["faq","money"]`, "reviewed": "true"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results.json")
			args := append([]string{"run", "--quiet", "--judge", "offline", "--dataset", datasetTestdata + tt.file, "--out", out}, tt.args...)
			r := gate(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Samples[0].Metadata; !reflect.DeepEqual(got, tt.first) {
				t.Errorf("metadata of the first sample %q; want %q", got, tt.first)
			}
		})
	}
}

func TestRunCorruptParquetExits2(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "golden.parquet")
	good, err := os.ReadFile(datasetTestdata + "golden.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, good[:len(good)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	r := gate(t, nil, "run", "--judge", "offline", "--dataset", bad, "--out", filepath.Join(dir, "r.json"))
	if r.code != 2 || !strings.Contains(r.stderr, "golden.parquet: not a readable Parquet file") {
		t.Errorf("exit %d, want 2 naming the file\n%s", r.code, r.stderr)
	}
}
