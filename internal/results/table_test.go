package results

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// badFiles are the invalid results files of this package's tests (parse
// errors, schema, ids, ranges, evidence, temperatures, created_at).
func badFiles() map[string]string {
	v1 := `"schema": "` + Schema + `"`
	ev := func(evidence string) string {
		return `{"schema": "raggate.results/v1", "judge": {"provider": "offline", "fingerprint": "f"}, "config": {"metrics": ["faithfulness"]},
"samples": [{"id": "a", "scores": {"faithfulness": 0.5}, "response": "r", "evidence": {"faithfulness": ` + evidence + `}}]}`
	}
	return map[string]string{
		"syntax error in a sample": "{" + v1 + `,
  "samples": [
    {"id": "a", "scores": {}},
    {"id": "b" "scores": {}}
  ]}`,
		"samples not an array":             "{" + v1 + `, "samples": "x"}`,
		"other schema, other sample shape": `{"schema": "raggate.results/v2", "samples": {"a": 1}}`,
		"other schema":                     `{"schema": "raggate.results/v2", "samples": []}`,
		"empty schema":                     `{"schema": "", "samples": []}`,
		"null schema":                      `{"schema": null}`,
		"no schema":                        `{"samples": []}`,
		"not an object":                    `[1, 2]`,
		"data after the object":            "{" + v1 + "}\n{}",
		"truncated":                        "{" + v1 + `, "samples": [{"id": "a"`,
		"no id":                            "{" + v1 + `, "samples": [{"scores": {}}]}`,
		"duplicate id":                     "{" + v1 + `, "samples": [{"id": "a"}, {"id": "a"}]}`,
		"score out of range":               "{" + v1 + `, "samples": [{"id": "a", "scores": {"faithfulness": 1.5}}]}`,
		"wrong type in a sample": "{" + v1 + `,
  "samples": [{"id": 7}]}`,
		"score of the wrong type":        "{" + v1 + `, "samples": [{"id": "a"}, {"id": "b", "scores": {"faithfulness": 1, "recall": "high"}}]}`,
		"run of the wrong type":          "{" + v1 + `, "samples": [{"id": "a", "runs": {"faithfulness": [1, true]}}]}`,
		"sample not an object":           "{" + v1 + `, "samples": [{"id": "a"}, 7]}`,
		"target field":                   "{" + v1 + `, "samples": [{"id": "a", "target": {"status": "ok", "attempts": 1.5}}]}`,
		"not json":                       "{\n  \"schema\": oops}",
		"negative score":                 `{"schema":"raggate.results/v1","samples":[{"id":"q-7","scores":{"faithfulness":-1.0}}]}`,
		"score above 1":                  `{"schema":"raggate.results/v1","samples":[{"id":"a"},{"id":"b","scores":{"faithfulness":5}}]}`,
		"run out of range":               `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"context_recall":0.5},"runs":{"context_recall":[0.5,1.5]}}]}`,
		"unknown metric out of range":    `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"my_metric":2}}]}`,
		"cosine below its range":         `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"answer_relevancy":-1.5}}]}`,
		"evidence more":                  ev(`[{"text": "x", "verdict": 1}, {"more": -5}]`),
		"evidence marker":                ev(`[{"text": "x", "verdict": 1, "more": 3}]`),
		"evidence order":                 ev(`[{"more": 2}, {"text": "x", "verdict": 1}]`),
		"evidence verdict":               ev(`[{"text": "x", "verdict": 7}]`),
		"sample temperature":             `{"schema": "raggate.results/v1", "judge": {"provider": "openai", "fingerprint": "f", "temperature": 0, "sample_temperature": -5}, "samples": [{"id": "a", "scores": {"faithfulness": 0.5}}]}`,
		"temperature":                    `{"schema": "raggate.results/v1", "judge": {"provider": "openai", "fingerprint": "f", "temperature": 1e300}, "samples": [{"id": "a", "scores": {"faithfulness": 0.5}}]}`,
		"created_at":                     "{\n\"schema\": \"raggate.results/v1\",\n\"created_at\": \"yesterday\"}\n",
		"syntax error at the first byte": "x{}",
		// Several faults: the first in file order names the file, as
		// the whole-file checks do.
		"duplicate before a bad score":             `{"schema":"raggate.results/v1","samples":[{"id":"a"},{"id":"a"},{"id":"b","scores":{"faithfulness":5}}]}`,
		"bad score before a duplicate":             `{"schema":"raggate.results/v1","samples":[{"id":"a"},{"id":"b","scores":{"faithfulness":5}},{"id":"a"}]}`,
		"no id after a duplicate":                  `{"schema":"raggate.results/v1","samples":[{"id":"a"},{"id":"a"},{"scores":{}}]}`,
		"bad evidence and bad score on one sample": `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"faithfulness":5},"evidence":{"faithfulness":[{"text":"x","verdict":7}]}}]}`,
		"bad evidence before a bad score":          `{"schema":"raggate.results/v1","samples":[{"id":"a","evidence":{"faithfulness":[{"text":"x","verdict":7}]}},{"id":"b","scores":{"faithfulness":5}}]}`,
		"duplicate of a sample with bad evidence":  `{"schema":"raggate.results/v1","samples":[{"id":"b"},{"id":"b","evidence":{"faithfulness":[{"text":"x","verdict":7}]}}]}`,
		// A numeric user metric's scores (any finite number) are in
		// range: the bad score is the later one.
		"numeric user metric before a bad score": `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"latency":5}},{"id":"b","scores":{"latency":-1,"faithfulness":2}}],
			"user_metrics":[{"name":"latency","kind":"numeric","direction":"lower","reads":["latency_ms"]}]}`,
	}
}

// ReadTable refuses every file Read refuses, with the same error.
func TestReadTableErrorsAreRead(t *testing.T) {
	for name, data := range badFiles() {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.json")
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, want := Read(path)
			_, err := ReadTable(path, ScoresOnly)
			if want == nil {
				t.Fatalf("Read accepts the file (ReadTable: %v)", err)
			}
			if err == nil || err.Error() != want.Error() {
				t.Fatalf("ReadTable: %v\nRead: %v", err, want)
			}
			if _, err := ParseTable([]byte(data)); err == nil || path+": "+err.Error() != want.Error() {
				t.Errorf("ParseTable: %v\nRead: %v", err, want)
			}
			reread := func() ([]byte, error) { return []byte(data), nil }
			if _, err := ReadTableFrom(strings.NewReader(data), reread); err == nil || path+": "+err.Error() != want.Error() {
				t.Errorf("ReadTableFrom: %v\nRead: %v", err, want)
			}
		})
	}
}

// tableFiles are valid results files of every shape a table holds.
func tableFiles(t *testing.T) map[string][]byte {
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := Marshal(fullFile())
	if err != nil {
		t.Fatal(err)
	}
	odd := sampleFile()
	odd.Samples = append(odd.Samples,
		Sample{ID: "q-003", InputHash: "0123456789abcdef", Seq: 3, Metadata: map[string]string{"topic": "a", "lang": "en"},
			ContextIDs: []string{"c1", "c2", "c1"}, Scores: map[string]Score{"faithfulness": 1, "new_metric": 0.25},
			UndefinedKind: map[string]UndefinedKind{"context_recall": KindData}, Reasons: map[string]string{"faithfulness": "fine"}},
		Sample{ID: "q-000", InputHash: "ABCDEF0123456789", Scores: map[string]Score{"faithfulness": 0},
			Runs: map[string][]Score{"faithfulness": {0, NaN(), 0.5}, "other": {}}, ContextIDs: []string{"c3"}},
		Sample{ID: "q-004", InputHash: "0000000000000000", Undefined: map[string]string{"faithfulness": "missing field response"}, Question: "why?"},
	)
	oddData, err := Marshal(odd)
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"demo":        demo,
		"every field": full,
		"odd":         append([]byte("\ufeff"), oddData...),
		"samples first": []byte(`{"samples": [{"id": "b", "scores": {"faithfulness": null}}, {"id": "a"}], "unknown": {"x": [1, 2]},
		"Tool": {"name": "raggate"}, "schema": "` + Schema + `"}`),
		"samples null":  []byte(`{"schema": "` + Schema + `", "samples": null}`),
		"samples twice": []byte(`{"schema": "` + Schema + `", "samples": [{"id": "x"}], "samples": [{"id": "y"}, {"id": "z"}]}`),
		"no samples":    []byte(`{"schema": "` + Schema + `"}`),
	}
}

// A table read from a file holds what a table of the file read whole
// holds, and reads each sample back as Read gives it without texts.
func TestReadTableIsTableOfRead(t *testing.T) {
	for name, data := range tableFiles(t) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.json")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := ReadWith(path, ScoresOnly)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadTable(path, ScoresOnly)
			if err != nil {
				t.Fatal(err)
			}
			want := TableOf(f)
			sameTables(t, got, want, f)
			detached := TableOf(f)
			detached.Detach()
			parsed, err := ParseTable(data)
			if err != nil {
				t.Fatal(err)
			}
			parsed.Detach()
			streamed, err := ReadTableFrom(bytes.NewReader(data), func() ([]byte, error) { return data, nil })
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []*Table{detached, parsed, streamed} {
				sameTables(t, d, want, f)
				for i := range f.Samples {
					if s := d.Sample(i); s.Question != f.Samples[i].Question || s.ID != f.Samples[i].ID {
						t.Errorf("detached Sample(%d) = %+v", i, s)
					}
				}
			}
			if parsed.data != nil || parsed.Err() != nil {
				t.Errorf("a detached table holds its bytes (%v)", parsed.Err())
			}
			for i := range f.Samples {
				if g, w := mustJSON(t, got.Sample(i)), mustJSON(t, f.Samples[i]); g != w {
					t.Errorf("Sample(%d) = %s, want %s", i, g, w)
				}
			}
			idx := make([]int, len(f.Samples))
			for i := range idx {
				idx[len(idx)-1-i] = i // in any order
			}
			for k, q := range got.Questions(idx) {
				if q != f.Samples[idx[k]].Question {
					t.Errorf("Questions: sample %d: %q, want %q", idx[k], q, f.Samples[idx[k]].Question)
				}
			}
			if got.Err() != nil {
				t.Error(got.Err())
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameTables checks every accessor of got against the file f (and
// want, TableOf(f)).
func sameTables(t *testing.T, got, want *Table, f *File) {
	t.Helper()
	if g, w := mustJSON(t, got.File), mustJSON(t, header(f)); g != w {
		t.Errorf("header = %s, want %s", g, w)
	}
	if got.Len() != len(f.Samples) || want.Len() != len(f.Samples) {
		t.Fatalf("Len = %d, %d, want %d", got.Len(), want.Len(), len(f.Samples))
	}
	for _, tb := range []*Table{got, want} {
		for i := range f.Samples {
			s := &f.Samples[i]
			if tb.ID(i) != s.ID || tb.InputHash(i) != s.InputHash || tb.Seq(i) != s.Seq {
				t.Errorf("sample %d: id %q hash %q seq %d, want %q %q %d", i, tb.ID(i), tb.InputHash(i), tb.Seq(i), s.ID, s.InputHash, s.Seq)
			}
			if j, ok := tb.Index(s.ID); !ok || f.Samples[j].ID != s.ID || j > i {
				t.Errorf("Index(%q) = %d, %v", s.ID, j, ok)
			}
			if md := tb.Metadata(i); !reflect.DeepEqual(md, s.Metadata) && (len(md) != 0 || len(s.Metadata) != 0) {
				t.Errorf("sample %d: metadata %v, want %v", i, md, s.Metadata)
			}
			for k, v := range s.Metadata {
				if g, ok := tb.Meta(i, k); !ok || g != v {
					t.Errorf("sample %d: Meta(%s) = %q, %v", i, k, g, ok)
				}
			}
			if ids := tb.ContextIDs(i); !reflect.DeepEqual(ids, s.ContextIDs) {
				t.Errorf("sample %d: context ids %v, want %v", i, ids, s.ContextIDs)
			}
			for _, k := range tb.Keys() {
				v, inScores := s.Scores[k.Name]
				x := k.Scores.At(i)
				if inScores && !v.IsNaN() {
					if x != v.Value() {
						t.Errorf("sample %d: %s = %v, want %v", i, k.Name, x, v)
					}
				} else if !math.IsNaN(x) {
					t.Errorf("sample %d: %s = %v, want NaN", i, k.Name, x)
				}
				e, _ := tb.Undefined(k, i)
				reason, inUndef := s.Undefined[k.Name]
				if e.Kind != s.KindOf(k.Name) || e.Reason != reason || e.InUndefined != inUndef {
					t.Errorf("sample %d: %s undefined %+v, want %q %q %v", i, k.Name, e, s.KindOf(k.Name), reason, inUndef)
				}
				if e != (UndefinedEntry{}) && e.InScores != inScores {
					t.Errorf("sample %d: %s in scores %v, want %v", i, k.Name, e.InScores, inScores)
				}
				runs := s.Runs[k.Name]
				gr := tb.Runs(k, i)
				if len(gr) != len(runs) {
					t.Errorf("sample %d: %s runs %v, want %v", i, k.Name, gr, runs)
				}
				for j := range min(len(gr), len(runs)) {
					if gr[j] != runs[j].Value() && !(math.IsNaN(gr[j]) && runs[j].IsNaN()) {
						t.Errorf("sample %d: %s runs %v, want %v", i, k.Name, gr, runs)
					}
				}
			}
		}
		for _, s := range f.Samples {
			for name := range s.Scores {
				if k := tb.Key(name); k == nil || !k.InScores {
					t.Errorf("key %s not in scores", name)
				}
			}
			for name := range s.Undefined {
				if k := tb.Key(name); k == nil || !k.InUndefined {
					t.Errorf("key %s not in undefined", name)
				}
			}
			for name := range s.Runs {
				if k := tb.Key(name); k == nil || !k.InRuns {
					t.Errorf("key %s not in runs", name)
				}
			}
		}
	}
	if !strings.HasPrefix(got.File.Schema, "raggate") && len(f.Samples) > 0 {
		t.Errorf("schema %q", got.File.Schema)
	}
}

// A sample read back from a file that changed since is an error, not
// another sample.
func TestTableSampleOfAChangedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	if err := Write(path, sampleFile()); err != nil {
		t.Fatal(err)
	}
	tb, err := ReadTable(path, ScoresOnly)
	if err != nil {
		t.Fatal(err)
	}
	f := sampleFile()
	f.Samples[0].ID, f.Samples[1].ID = "q-002", "q-001"
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	if s := tb.Sample(1); s.ID != "q-002" || tb.Err() == nil || !strings.Contains(tb.Err().Error(), "changed") {
		t.Errorf("Sample(1) = %+v, Err %v", s, tb.Err())
	}
	tb, err = ReadTable(path, ScoresOnly)
	if err != nil {
		t.Fatal(err)
	}
	f.Samples[0].ID = "q-001"
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	if qs := tb.Questions([]int{0, 1}); len(qs) != 2 || tb.Err() == nil || !strings.Contains(tb.Err().Error(), `sample "q-002"`) {
		t.Errorf("Questions = %q, Err %v", qs, tb.Err())
	}
}

// Offsets past 4 GiB (beyond a results file's limit, but ParseTable has
// none) switch the table to 64-bit offsets.
func TestTableOffsetsBeyond32Bits(t *testing.T) {
	tb := &Table{}
	for _, o := range []int64{3, 1 << 20, 1 << 33, 1<<33 + 5} {
		tb.addOffset(o)
	}
	for i, want := range []int64{3, 1 << 20, 1 << 33, 1<<33 + 5} {
		if got := tb.offset(i); got != want {
			t.Errorf("offset(%d) = %d, want %d", i, got, want)
		}
	}
}

// A column codes its values while they are few (0 and -0 two of them),
// and holds them plainly past maxCodes distinct ones, in order.
func TestColumnCodes(t *testing.T) {
	var want []float64
	c := newColumn(0)
	for i := range 600 {
		x := float64(i % 300)
		switch {
		case i%7 == 0:
			x = math.NaN()
		case i == 3:
			x = math.Copysign(0, -1)
		}
		c.add(x)
		want = append(want, x)
		if i == 100 && c.f != nil {
			t.Error("plain at 100 values")
		}
	}
	c.prepend(2)
	want = append([]float64{math.NaN(), math.NaN()}, want...)
	if c.f == nil || c.Len() != len(want) {
		t.Fatalf("len %d, plain %v", c.Len(), c.f != nil)
	}
	for i, w := range want {
		if g := c.At(i); math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
			t.Errorf("At(%d) = %v, want %v", i, g, w)
		}
	}
	d := newColumn(0)
	d.add(math.Copysign(0, -1))
	d.add(0)
	d.prepend(1)
	if d.f != nil || !math.IsNaN(d.At(0)) || !math.Signbit(d.At(1)) || math.Signbit(d.At(2)) || len(d.Defined()) != 2 {
		t.Errorf("coded column: %v %v %v", d.At(0), d.At(1), d.At(2))
	}
}
