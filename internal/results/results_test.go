package results

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func sampleFile() *File {
	return &File{
		Tool:      Tool{Name: "raggate", Version: "v0.1.0"},
		CreatedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Dataset:   Dataset{Path: "eval/golden.jsonl", SHA256: "abc", Samples: 2},
		Judge:     Judge{Provider: "offline", Prompts: "p", Fingerprint: "f"},
		Config:    Config{Metrics: []string{"faithfulness", "context_recall"}, Repeats: 1},
		Summary:   map[string]Sum{"faithfulness": {Mean: 0.8, N: 1, Undefined: 1, Std: NaN(), P10: 0.8, P50: 0.8, P90: 0.8}},
		Samples: []Sample{
			{ID: "q-001", Scores: map[string]Score{"faithfulness": 0.8, "context_recall": NaN()},
				Undefined: map[string]string{"context_recall": "no statements in reference"},
				Runs:      map[string][]Score{"faithfulness": {0.8, 0.75}}},
			{ID: "q-002", Scores: map[string]Score{"faithfulness": NaN()}, Undefined: map[string]string{"faithfulness": "judge refused"}},
		},
	}
}

func TestRoundTripKeepsNaNAsNull(t *testing.T) {
	b, err := Marshal(sampleFile())
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"schema": "raggate.results/v1"`, `"context_recall": null`, `"std": null`, `"faithfulness": [`} {
		if !strings.Contains(s, want) {
			t.Errorf("encoded file lacks %s:\n%s", want, s)
		}
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Samples[0].Scores["context_recall"]; !got.IsNaN() {
		t.Errorf("null read back as %v, want NaN", got)
	}
	if got := f.Samples[0].Scores["faithfulness"]; got != 0.8 {
		t.Errorf("faithfulness = %v", got)
	}
	if f.Samples[0].Undefined["context_recall"] != "no statements in reference" {
		t.Error("reason lost")
	}
	if len(f.Samples[0].Runs["faithfulness"]) != 2 {
		t.Error("runs lost")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
		schema           bool
	}{
		{"other version", `{"schema":"raggate.results/v2","samples":[]}`, `unsupported results schema "raggate.results/v2"`, true},
		{"no schema", `{"samples":[]}`, `no "schema" field`, true},
		{"not json", "{\n  \"schema\": oops}", "line 2:13", false},
		{"bad score", `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"x":"high"}}]}`, "score", false},
		{"missing id", `{"schema":"raggate.results/v1","samples":[{"scores":{}}]}`, "samples[0] has no id", false},
		{"duplicate id", `{"schema":"raggate.results/v1","samples":[{"id":"a"},{"id":"a"}]}`, `duplicate sample id "a"`, false},
		{"negative score", `{"schema":"raggate.results/v1","samples":[{"id":"q-7","scores":{"faithfulness":-1.0}}]}`,
			`sample "q-7": faithfulness score -1 is outside [0, 1]`, false},
		{"score above 1", `{"schema":"raggate.results/v1","samples":[{"id":"a"},{"id":"b","scores":{"faithfulness":5}}]}`,
			`sample "b": faithfulness score 5 is outside [0, 1]`, false},
		{"run out of range", `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"context_recall":0.5},"runs":{"context_recall":[0.5,1.5]}}]}`,
			`sample "a": context_recall score 1.5 (run 2) is outside [0, 1]`, false},
		{"unknown metric out of range", `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"my_metric":2}}]}`,
			`my_metric score 2 is outside [0, 1]`, false},
		{"cosine below its range", `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"answer_relevancy":-1.5}}]}`,
			`answer_relevancy score -1.5 is outside [-1, 1]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if got := errors.Is(err, ErrSchema); got != tt.schema {
				t.Errorf("errors.Is(err, ErrSchema) = %v, want %v", got, tt.schema)
			}
		})
	}
}

// TestParseAcceptsScoresInRange: null, the ends of [0, 1], and a negative
// cosine (answer_relevancy's range is [-1, 1]) are valid.
func TestParseAcceptsScoresInRange(t *testing.T) {
	data := `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"faithfulness":0,"context_recall":1,"answer_relevancy":-0.2,"semantic_similarity":null},
		"runs":{"faithfulness":[0,null]}}]}`
	f, err := Parse([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Samples[0].Scores["answer_relevancy"]; got != -0.2 {
		t.Errorf("answer_relevancy = %v, want -0.2", got)
	}
	if err := func() error { _, err := Read(filepath.Join(t.TempDir(), "none.json")); return err }(); err == nil {
		t.Error("reading a missing file succeeded")
	}
}

func TestReadNamesTheFileOfAnOutOfRangeScore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "base.json")
	os.WriteFile(path, []byte(`{"schema":"raggate.results/v1","samples":[{"id":"q-1","scores":{"faithfulness":5}}]}`), 0o644)
	_, err := Read(path)
	if err == nil || !strings.Contains(err.Error(), path+": ") || !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want it to name %s and wrap ErrInvalid", err, path)
	}
}

func TestKindOf(t *testing.T) {
	s := Sample{ID: "a",
		Scores: map[string]Score{"a": NaN(), "b": NaN(), "c": NaN(), "d": NaN(), "e": NaN(), "f": 0.5, "g": NaN()},
		Undefined: map[string]string{"a": "missing field reference", "b": "no statements in response",
			"c": "judge returned invalid JSON", "d": "no statements in response", "e": "empty field user_input"},
		UndefinedKind: map[string]UndefinedKind{"d": KindJudge},
	}
	for m, want := range map[string]UndefinedKind{"a": KindData, "b": KindMetric, "c": KindJudge, "d": KindJudge, "e": KindData, "f": "", "g": KindJudge, "zz": ""} {
		if got := s.KindOf(m); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", m, got, want)
		}
	}
}

func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "results.json")
	if err := Write(path, sampleFile()); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Samples) != 2 {
		t.Fatalf("read %d samples", len(f.Samples))
	}
	// A failed write leaves the old file intact and no temporary behind.
	if err := os.Chmod(filepath.Join(dir, "sub"), 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(dir, "sub"), 0o755)
	if os.Geteuid() != 0 { // root ignores directory permissions
		if err := Write(path, &File{}); err == nil {
			t.Fatal("write into a read-only directory succeeded")
		}
		if _, err := Read(path); err != nil {
			t.Fatalf("old file damaged by failed write: %v", err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestReadNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(path, []byte(`{"schema":"raggate.results/v0"}`), 0o644)
	_, err := Read(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Fatalf("err = %v, want it to start with the path", err)
	}
}

func TestScoreInfIsNull(t *testing.T) {
	b, err := Score(math.Inf(1)).MarshalJSON()
	if err != nil || string(b) != "null" {
		t.Fatalf("Inf encoded as %s, %v", b, err)
	}
}

func FuzzParse(f *testing.F) {
	b, _ := Marshal(sampleFile())
	f.Add(b)
	f.Add([]byte(`{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"x":null}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		// Whatever parses must encode and parse again to the same samples.
		out, err := Marshal(r)
		if err != nil {
			t.Fatalf("parsed file does not encode: %v", err)
		}
		r2, err := Parse(out)
		if err != nil {
			t.Fatalf("re-encoded file does not parse: %v", err)
		}
		if len(r2.Samples) != len(r.Samples) {
			t.Fatalf("samples %d -> %d", len(r.Samples), len(r2.Samples))
		}
	})
}

// A failed target call is its own kind: not a judge failure for
// --max-undefined, counted by TargetFailures.
func TestTargetKind(t *testing.T) {
	f := &File{Config: Config{Metrics: []string{"faithfulness"}}, Samples: []Sample{
		{ID: "a", Scores: map[string]Score{"faithfulness": NaN()}, Undefined: map[string]string{"faithfulness": "target call failed: HTTP 502"},
			UndefinedKind: map[string]UndefinedKind{"faithfulness": KindTarget}, Target: &TargetCall{Status: TargetFailed, Error: "HTTP 502"}},
		{ID: "b", Scores: map[string]Score{"faithfulness": 1}, Target: &TargetCall{Status: TargetOK}},
	}}
	if k := f.Samples[0].KindOf("faithfulness"); k != KindTarget {
		t.Errorf("KindOf = %q, want target", k)
	}
	if msg := f.TooManyUndefined(0); msg != "" {
		t.Errorf("TooManyUndefined counted a target failure: %s", msg)
	}
	if n, id, reason := f.TargetFailures(); n != 1 || id != "a" || reason != "HTTP 502" {
		t.Errorf("TargetFailures = %d, %s, %q", n, id, reason)
	}
	data, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if g.Samples[0].Target == nil || g.Samples[0].Target.Error != "HTTP 502" || g.Samples[0].KindOf("faithfulness") != KindTarget {
		t.Errorf("round trip lost the target record: %+v", g.Samples[0])
	}
	f.Samples[0].Target = nil // a re-judged responses file: the kind alone tells
	if n, id, reason := f.TargetFailures(); n != 1 || id != "a" || reason != "target call failed: HTTP 502" {
		t.Errorf("TargetFailures without the record = %d, %s, %q", n, id, reason)
	}
}
