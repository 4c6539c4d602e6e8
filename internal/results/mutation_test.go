package results

// Package tests of shard parsing and merging (until now only exercised
// through the CLI), written from the mutants bench/mutation.sh found alive.

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		i, n int // 0, 0: an error
	}{
		{"1/1", 1, 1},
		{"3/3", 3, 3},
		{"2/8", 2, 8},
		{" 2 / 8 ", 2, 8},
		{"0/1", 0, 0},
		{"2/1", 0, 0},
		{"1/0", 0, 0},
		{"-1/2", 0, 0},
		{"1", 0, 0},
		{"a/2", 0, 0},
		{"1/b", 0, 0},
		{"", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			i, n, err := ParseShard(tt.in)
			if tt.n == 0 {
				if err == nil || !strings.Contains(err.Error(), "want i/n with 1 <= i <= n, e.g. 2/8") {
					t.Errorf("got %d/%d, %v; want an error", i, n, err)
				}
				return
			}
			if err != nil || i != tt.i || n != tt.n {
				t.Errorf("got %d/%d, %v; want %d/%d", i, n, err, tt.i, tt.n)
			}
		})
	}
}

// shard returns shard i of n holding the samples ids, judged by "f" on
// dataset "abc", created at hour i.
func shard(i, n int, ids ...string) *File {
	f := &File{
		Schema:    Schema,
		CreatedAt: time.Date(2026, 11, 30, i, 0, 0, 0, time.UTC),
		Dataset:   Dataset{Path: "golden.jsonl", SHA256: "abc", Samples: 4},
		Judge:     Judge{Provider: "offline", Fingerprint: "f"},
		Config:    Config{Metrics: []string{"faithfulness"}, Repeats: 1},
		Usage: Usage{ChatCalls: i, CachedCalls: 1, PromptTokens: 10 * i, CompletionTokens: 100 * i,
			EmbeddingTokens: 1000 * i, EmbeddingCalls: 2, EstimatedCostUSD: 0.5,
			PerMetric: map[string]Usage{"faithfulness": {ChatCalls: i}}},
		Shard: fmt.Sprintf("%d/%d", i, n),
	}
	for k, id := range ids {
		f.Samples = append(f.Samples, Sample{ID: id, Scores: map[string]Score{"faithfulness": Score(0.25 * float64(i+k))}})
	}
	return f
}

func TestMergeCombinesShards(t *testing.T) {
	s1, s2, s3 := shard(1, 3, "a", "b"), shard(2, 3, "c"), shard(3, 3, "d")
	s1.Warnings, s3.Warnings = []string{"w1"}, []string{"w3"}
	s2.Usage.PerMetric = map[string]Usage{"context_recall": {ChatCalls: 7}}
	// Argument order does not matter: shard order does.
	m, err := Merge([]*File{s3, s1, s2})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range m.Samples {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, ",") != "a,b,c,d" {
		t.Errorf("samples %v, want shard order a,b,c,d", ids)
	}
	if m.Shard != "" || m.Incomplete != "" || strings.Join(m.Warnings, ",") != "w1,w3" {
		t.Errorf("shard %q incomplete %q warnings %v", m.Shard, m.Incomplete, m.Warnings)
	}
	if !m.CreatedAt.Equal(s3.CreatedAt) {
		t.Errorf("created at %v, want the latest shard's %v", m.CreatedAt, s3.CreatedAt)
	}
	u := m.Usage
	if u.ChatCalls != 6 || u.CachedCalls != 3 || u.PromptTokens != 60 || u.CompletionTokens != 600 ||
		u.EmbeddingTokens != 6000 || u.EmbeddingCalls != 6 || !(math.Abs(u.EstimatedCostUSD-1.5) <= 1e-12) {
		t.Errorf("usage %+v, want the sums", u)
	}
	if u.PerMetric["faithfulness"].ChatCalls != 4 || u.PerMetric["context_recall"].ChatCalls != 7 || len(u.PerMetric) != 2 {
		t.Errorf("per-metric usage %+v", u.PerMetric)
	}
	// Scores 0.25, 0.5 (shard 1), 0.5 (shard 2), 0.75 (shard 3): mean 0.5.
	if s := m.Summary["faithfulness"]; s.N != 4 || !(math.Abs(s.Mean.Value()-0.5) <= 1e-12) {
		t.Errorf("summary %+v, want recomputed over the 4 samples", s)
	}
	// The shards themselves are left alone.
	if s1.Shard != "1/3" || len(s1.Samples) != 2 {
		t.Error("merge modified a shard")
	}
}

// Merging the shards' files read as tables gives the file that merging
// them read whole gives, byte for byte: the summary counts a null score
// as undefined and a sample without the metric not at all.
func TestMergeTablesFromDisk(t *testing.T) {
	s1, s2 := shard(1, 2, "a", "b"), shard(2, 2, "c", "d")
	s1.Samples[1].Scores["faithfulness"] = NaN()
	s1.Samples[1].Undefined = map[string]string{"faithfulness": "no statements"}
	s1.Samples[1].Response = "an answer"
	s2.Samples[0].Scores = map[string]Score{} // c has no faithfulness at all
	dir := t.TempDir()
	var tables []*Table
	for k, f := range []*File{s2, s1} {
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", k))
		if err := Write(p, f); err != nil {
			t.Fatal(err)
		}
		tb, err := ReadTable(p, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tb)
	}
	fromDisk, err := MergeTables(tables)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Merge([]*File{s1, s2})
	if err != nil {
		t.Fatal(err)
	}
	if s := whole.Summary["faithfulness"]; s.N != 2 || s.Undefined != 1 {
		t.Errorf("summary %+v: want 2 defined scores (a, d), 1 undefined (b), c not counted", s)
	}
	var a, b bytes.Buffer
	if err := Encode(&a, whole); err != nil {
		t.Fatal(err)
	}
	if err := Encode(&b, fromDisk); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || !strings.Contains(b.String(), "an answer") {
		t.Errorf("merged from disk:\n%s\nmerged whole:\n%s", b.String(), a.String())
	}
}

func TestMergeWithoutPerMetricUsage(t *testing.T) {
	s1, s2 := shard(1, 2, "a"), shard(2, 2, "b")
	s1.Usage.PerMetric, s2.Usage.PerMetric = nil, nil
	m, err := Merge([]*File{s1, s2})
	if err != nil {
		t.Fatal(err)
	}
	if m.Usage.PerMetric != nil {
		t.Errorf("per-metric usage %v, want none", m.Usage.PerMetric)
	}
}

func TestMergeKeepsIncompleteShards(t *testing.T) {
	s1, s2, s3 := shard(1, 3, "a"), shard(2, 3, "b"), shard(3, 3, "c")
	s1.Incomplete, s3.Incomplete = "cancelled", "time budget reached"
	m, err := Merge([]*File{s1, s2, s3})
	if err != nil {
		t.Fatal(err)
	}
	if m.Incomplete != "shard 1/3: cancelled; shard 3/3: time budget reached" {
		t.Errorf("incomplete %q", m.Incomplete)
	}
}

func TestMergeErrors(t *testing.T) {
	tests := []struct {
		name  string
		files func() []*File
		want  string
	}{
		{"no files", func() []*File { return nil }, "merge: no results files given"},
		{"not a shard", func() []*File {
			f := shard(1, 1, "a")
			f.Shard = ""
			return []*File{f}
		}, `file 1 is not a shard ("")`},
		{"a later file not a shard", func() []*File {
			f := shard(2, 2, "b")
			f.Shard = "x"
			return []*File{shard(1, 2, "a"), f}
		}, "merge: file 1 is not a shard"}, // sorted first: shard "x" parses as 0
		{"other shard count", func() []*File { return []*File{shard(1, 2, "a"), shard(2, 3, "b")} },
			"merge: file 2 is shard 2/3 but file 1 is of 2 shards"},
		{"shard twice", func() []*File { return []*File{shard(1, 2, "a"), shard(1, 2, "b")} },
			"merge: shard 1/2 given twice"},
		{"other judge", func() []*File {
			f := shard(2, 2, "b")
			f.Judge.Fingerprint = "g"
			return []*File{shard(1, 2, "a"), f}
		}, "merge: shard 2/2 was judged by another judge (fingerprint g, shard 1/2 has f)"},
		{"other dataset", func() []*File {
			f := shard(2, 2, "b")
			f.Dataset.SHA256 = "def"
			return []*File{shard(1, 2, "a"), f}
		}, "merge: shard 2/2 is of another dataset (sha256 def, shard 1/2 has abc)"},
		{"other metrics", func() []*File {
			f := shard(2, 2, "b")
			f.Config.Metrics = []string{"faithfulness", "context_recall"}
			return []*File{shard(1, 2, "a"), f}
		}, "merge: shard 2/2 computed other metrics"},
		{"sample in two shards", func() []*File { return []*File{shard(1, 2, "a"), shard(2, 2, "b", "a")} },
			`merge: sample "a" is in shard 2/2 and in file 1`},
		{"missing shards", func() []*File { return []*File{shard(2, 4, "a"), shard(4, 4, "b")} },
			"merge: shards 1/4, 3/4 are missing; give every shard's results file"},
		{"missing last shard", func() []*File { return []*File{shard(1, 2, "a")} },
			"merge: shards 2/2 are missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Merge(tt.files())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, %v; want an error containing %q", m, err, tt.want)
			}
		})
	}
}

// TestScoresKeepFullPrecision: a score read back is the score written.
func TestScoresKeepFullPrecision(t *testing.T) {
	f := shard(1, 1, "a")
	f.Samples[0].Scores["faithfulness"] = Score(1.0 / 3)
	f.Samples[0].Scores["context_recall"] = 0.123456789012345
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range f.Samples[0].Scores {
		if got := g.Samples[0].Scores[m]; got != want {
			t.Errorf("%s read back as %v, want %v", m, got, want)
		}
	}
}

// TestFailedAtomicWriteLeavesNoTemporary: when the final rename fails (here
// the target is a non-empty directory, which even root cannot replace), the
// error says so and the temporary file is removed.
func TestFailedAtomicWriteLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "results.json")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("{}"), 0o644); err == nil || !strings.Contains(err.Error(), "write "+target) {
		t.Fatalf("error %v, want a write error naming %s", err, target)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestSyntaxErrorAtTheFirstByte: an error in the very first byte is at
// line 1:1.
func TestSyntaxErrorAtTheFirstByte(t *testing.T) {
	_, err := Parse([]byte("x{}"))
	if err == nil || !strings.Contains(err.Error(), "line 1:1: invalid character 'x'") {
		t.Errorf("error %v, want it at line 1:1", err)
	}
}

// TestErrorWithoutPosition: an error JSON cannot place (a bad timestamp)
// is reported at the line of its key, in the user's terms.
func TestErrorWithoutPosition(t *testing.T) {
	_, err := Parse([]byte("{\n\"schema\": \"raggate.results/v1\",\n\"created_at\": \"yesterday\"}\n"))
	if err == nil || !strings.Contains(err.Error(), `line 3: created_at: "yesterday" is not a time in RFC 3339 format`) {
		t.Errorf("error %v, want the created_at error at line 3", err)
	}
}
