package results

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"testing"
)

func sourceSamples() []Sample {
	return []Sample{
		{ID: "a", Question: "q a", Scores: map[string]Score{"faithfulness": 0.5, "context_recall": NaN()},
			Undefined: map[string]string{"context_recall": "judge failed: timeout"}, UndefinedKind: map[string]UndefinedKind{"context_recall": KindJudge},
			Reasons: map[string]string{"faithfulness": "1 of 2 statements not supported"}, InputHash: "0011223344556677",
			Metadata: map[string]string{"topic": "billing"}, ContextIDs: []string{"d1", "d2"}},
		{ID: "b", Scores: map[string]Score{"faithfulness": 1, "context_recall": 0.25}, Runs: map[string][]Score{"faithfulness": {1, 1, NaN()}},
			Target: &TargetCall{Status: TargetFailed, Error: "HTTP 502"}, Seq: 3},
	}
}

// A file whose samples wait on disk is written byte for byte as the same
// file held in memory, and reads back the same samples.
func TestSampleSourceEncodesAsInMemory(t *testing.T) {
	samples := sourceSamples()
	mem := &File{Schema: Schema, Config: Config{Metrics: []string{"faithfulness", "context_recall"}}, Samples: samples}
	recs := NewRecords(t.TempDir())
	defer recs.Close()
	for i := range samples {
		if err := recs.Add(&samples[i]); err != nil {
			t.Fatal(err)
		}
	}
	disk := &File{Schema: Schema, Config: mem.Config}
	disk.SetSampleSource(recs)
	if !disk.OnDisk() || disk.Len() != 2 {
		t.Fatalf("OnDisk %v, Len %d", disk.OnDisk(), disk.Len())
	}
	want, err := Marshal(mem)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(disk)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("on disk:\n%s\nin memory:\n%s", got, want)
	}
	if n, top := disk.Scored(); n != 3 || top != "judge failed: timeout" {
		t.Errorf("Scored on disk = %d, %q", n, top)
	}
	if got, want := disk.TooManyUndefined(0.1), mem.TooManyUndefined(0.1); got != want || got == "" {
		t.Errorf("TooManyUndefined on disk %q, in memory %q", got, want)
	}
	if n, id, _ := disk.TargetFailures(); n != 1 || id != "b" {
		t.Errorf("TargetFailures on disk = %d %s", n, id)
	}
	if err := disk.Load(); err != nil {
		t.Fatal(err)
	}
	if disk.OnDisk() || len(disk.Samples) != 2 {
		t.Fatalf("after Load: OnDisk %v, %d samples", disk.OnDisk(), len(disk.Samples))
	}
	if !math.IsNaN(float64(disk.Samples[0].Scores["context_recall"])) {
		t.Errorf("an undefined score read back as %v", disk.Samples[0].Scores["context_recall"])
	}
	disk.Samples[0].Scores["context_recall"] = 0
	samples[0].Scores["context_recall"] = 0
	disk.Samples[1].Runs["faithfulness"][2], samples[1].Runs["faithfulness"][2] = 0, 0
	if !reflect.DeepEqual(disk.Samples, samples) {
		t.Errorf("read back:\n%+v\nwant\n%+v", disk.Samples, samples)
	}
}

// Records whose temporary file cannot be written keep them in memory: a
// full disk costs no sample.
func TestRecordsSurviveAFailedWrite(t *testing.T) {
	recs := NewRecords(t.TempDir())
	defer recs.Close()
	samples := sourceSamples()
	if err := recs.Add(&samples[0]); err != nil {
		t.Fatal(err)
	}
	// Closing the file makes every later write fail, as a full disk does.
	recs.file.Close()
	if err := recs.Add(&samples[1]); err != nil {
		t.Fatal(err)
	}
	if s, err := recs.Sample(1); err != nil || s.ID != "b" {
		t.Fatalf("record written after the failure: %v %v", s.ID, err)
	}
	if _, err := recs.Sample(0); err == nil {
		t.Fatal("a record in a closed file read back without an error")
	}
	if _, err := recs.Sample(2); err == nil {
		t.Fatal("record 2 of 2 read back")
	}

	noDir := NewRecords("/nonexistent-dir-for-raggate-test")
	defer noDir.Close()
	if err := noDir.Add(&samples[0]); err != nil {
		t.Fatal(err)
	}
	if s, err := noDir.Sample(0); err != nil || s.ID != "a" {
		t.Fatalf("records without a temporary directory: %v %v", s.ID, err)
	}
}

func TestRecordsCloseRemovesTheFile(t *testing.T) {
	dir := t.TempDir()
	recs := NewRecords(dir)
	s := sourceSamples()[0]
	if err := recs.Add(&s); err != nil {
		t.Fatal(err)
	}
	if err := recs.Close(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left %v", ents)
	}
}
