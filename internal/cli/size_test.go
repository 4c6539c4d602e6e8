package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// Results file size targets (docs/results-file.md#bounds), with the default
// suite of the offline judge on real rows: amnesty_qa's long answers with 3
// contexts, repeated with ids as the documented 10,000-row measurement does.
const (
	maxBytesPerSampleWithoutTexts = 1500 // --record-texts=false
	maxTimesDatasetWithTexts      = 2    // texts recorded (the default)
)

// A results file is bounded per sample: reasons are sentences and the
// recorded evidence has a budget, so a file without texts stays within
// 1.5 KB a sample and one with texts within twice the dataset's size,
// header included.
func TestResultsFileSizeOnRealRows(t *testing.T) {
	rows, err := os.ReadFile(repo + "/testdata/datasets/amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const copies = 5
	var data bytes.Buffer
	n := 0
	for range copies {
		for _, line := range bytes.Split(bytes.TrimSpace(rows), []byte("\n")) {
			fmt.Fprintf(&data, `{"id":"r-%06d",%s`+"\n", n, line[1:])
			n++
		}
	}
	dir := t.TempDir()
	dataset := filepath.Join(dir, "amnesty.jsonl")
	if err := os.WriteFile(dataset, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := func(name string, args ...string) int {
		t.Helper()
		out := filepath.Join(dir, name)
		r := gate(t, nil, append([]string{"run", "--quiet", "--judge", "offline", "--dataset", dataset, "--out", out}, args...)...)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		f, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Samples) != n {
			t.Fatalf("%d samples, want %d", len(f.Samples), n)
		}
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		return int(fi.Size())
	}
	without := size("without.json", "--record-texts=false")
	with := size("with.json")
	t.Logf("%d samples, dataset %d bytes (%d a row); results without texts %d bytes (%d a sample), with texts %d bytes (%.2fx the dataset)",
		n, data.Len(), data.Len()/n, without, without/n, with, float64(with)/float64(data.Len()))
	if without > maxBytesPerSampleWithoutTexts*n {
		t.Errorf("results without texts: %d bytes a sample, want at most %d", without/n, maxBytesPerSampleWithoutTexts)
	}
	if with > maxTimesDatasetWithTexts*data.Len() {
		t.Errorf("results with texts: %d bytes, %.2fx the dataset's %d, want at most %dx", with, float64(with)/float64(data.Len()), data.Len(), maxTimesDatasetWithTexts)
	}
}
