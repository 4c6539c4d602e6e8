package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fullFile sets every field of a results file and of a sample.
func fullFile() *File {
	f := sampleFile()
	f.Schema = Schema
	f.Git = &Git{SHA: "0123456789abcdef", Ref: "refs/pull/7/merge"}
	f.Dataset.Responses = "eval/responses.jsonl"
	f.Judge.Model, f.Judge.EmbeddingModel, f.Judge.Temperature = "gpt-4o-mini", "text-embedding-3-small", 0.2
	f.Usage = Usage{ChatCalls: 3, CachedCalls: 1, PromptTokens: 100, CompletionTokens: 20, EmbeddingTokens: 9,
		EmbeddingCalls: 2, EstimatedCostUSD: 0.0125, PerMetric: map[string]Usage{"faithfulness": {ChatCalls: 2}}}
	f.Warnings = []string{"a warning"}
	f.Incomplete = "cancelled: 2 of 3 samples judged"
	f.Shard = "1/2"
	s := &f.Samples[1]
	s.Question = "Why \"samples\"?\n  \"samples\": null"
	s.UndefinedKind = map[string]UndefinedKind{"faithfulness": KindJudge}
	s.Runs = map[string][]Score{"faithfulness": {NaN(), NaN()}}
	s.Reasons = map[string]string{"faithfulness": "judge refused"}
	s.InputHash = "feedface"
	s.Metadata = map[string]string{"topic": "energy"}
	s.Response = "It is \"samples\"."
	s.Contexts = []string{"one", "two"}
	s.Evidence = map[string][]Evidence{"faithfulness": {{Text: "It is.", Verdict: 0, Reason: "no"}}, "context_precision": {{Context: 2, Verdict: 1}}}
	return f
}

// wholeUnmarshal is what Parse returned before it streamed: one
// json.Unmarshal of the whole file.
func wholeUnmarshal(t *testing.T, data []byte) []byte {
	t.Helper()
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(&f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Parse and Read decode a file, one sample at a time, to what one
// json.Unmarshal of the whole file gives, whatever the order and case of
// the keys.
func TestStreamedReadIsUnmarshal(t *testing.T) {
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", "baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := Marshal(fullFile())
	if err != nil {
		t.Fatal(err)
	}
	samplesFirst := `{"samples": [{"id": "a", "scores": {"faithfulness": null}}], "unknown": {"x": [1, 2]},
		"Tool": {"name": "raggate"}, "schema": "` + Schema + `"}`
	for _, tt := range []struct{ name, data string }{
		{"demo baseline", string(demo)},
		{"every field", string(full)},
		{"samples first, unknown and capitalised keys", samplesFirst},
		{"samples null", `{"schema": "` + Schema + `", "samples": null}`},
		{"samples empty", `{"schema": "` + Schema + `", "samples": []}`},
		{"no samples", `{"schema": "` + Schema + `"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := wholeUnmarshal(t, []byte(tt.data))
			f, err := Parse([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := Marshal(f)
			if !bytes.Equal(got, want) {
				t.Errorf("Parse gave\n%s\njson.Unmarshal\n%s", got, want)
			}
			path := filepath.Join(t.TempDir(), "results.json")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if f, err = Read(path); err != nil {
				t.Fatal(err)
			}
			if got, _ = Marshal(f); !bytes.Equal(got, want) {
				t.Errorf("Read gave\n%s\njson.Unmarshal\n%s", got, want)
			}
		})
	}
}

// A file that is not a valid results file fails the streamed read with the
// same error as the whole-file parse: the schema first, then line:col;
// except that a value of the wrong type in a sample is worded with the
// sample's index, id and field, which only the streamed read knows.
func TestStreamedReadErrors(t *testing.T) {
	v1 := `"schema": "` + Schema + `"`
	for _, tt := range []struct{ name, data, want string }{
		{"syntax error in a sample", "{" + v1 + `,
  "samples": [
    {"id": "a", "scores": {}},
    {"id": "b" "scores": {}}
  ]}`, "line 4:16"},
		{"samples not an array", "{" + v1 + `, "samples": "x"}`, "line 1:48: samples is text, want a list"},
		{"other schema, other sample shape", `{"schema": "raggate.results/v2", "samples": {"a": 1}}`, `unsupported results schema "raggate.results/v2"`},
		{"other schema", `{"schema": "raggate.results/v2", "samples": []}`, `unsupported results schema "raggate.results/v2"`},
		{"empty schema", `{"schema": "", "samples": []}`, `unsupported results schema ""`},
		{"null schema", `{"schema": null}`, `no "schema" field`},
		{"no schema", `{"samples": []}`, `no "schema" field`},
		{"not an object", `[1, 2]`, "not a raggate results file"},
		{"data after the object", "{" + v1 + "}\n{}", "line 2:1"},
		{"truncated", "{" + v1 + `, "samples": [{"id": "a"`, "unexpected end of JSON input"},
		{"no id", "{" + v1 + `, "samples": [{"scores": {}}]}`, "samples[0] has no id"},
		{"duplicate id", "{" + v1 + `, "samples": [{"id": "a"}, {"id": "a"}]}`, `duplicate sample id "a"`},
		{"score out of range", "{" + v1 + `, "samples": [{"id": "a", "scores": {"faithfulness": 1.5}}]}`, "outside [0, 1]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, want := parseWhole([]byte(tt.data))
			_, err := Parse([]byte(tt.data))
			if err == nil || want == nil || err.Error() != want.Error() {
				t.Fatalf("Parse: %v\nwhole-file parse: %v", err, want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
			path := filepath.Join(t.TempDir(), "results.json")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(path); err == nil || err.Error() != path+": "+want.Error() {
				t.Errorf("Read: %v, want %s: %v", err, path, want)
			}
		})
	}
	for _, tt := range []struct{ name, data, want string }{
		{"wrong type in a sample", "{" + v1 + `,
  "samples": [{"id": 7}]}`, "line 2:23: samples[0]: id is a number, want text"},
		{"score of the wrong type", "{" + v1 + `, "samples": [{"id": "a"}, {"id": "b", "scores": {"faithfulness": 1, "recall": "high"}}]}`,
			`line 1:59: samples[1] (id "b"): scores.recall is text, want a number or null`},
		{"run of the wrong type", "{" + v1 + `, "samples": [{"id": "a", "runs": {"faithfulness": [1, true]}}]}`,
			`line 1:46: samples[0] (id "a"): runs.faithfulness is true or false, want a number or null`},
		{"sample not an object", "{" + v1 + `, "samples": [{"id": "a"}, 7]}`, "line 1:60: samples[1] is a number, want an object"},
		{"target field", "{" + v1 + `, "samples": [{"id": "a", "target": {"status": "ok", "attempts": 1.5}}]}`,
			`samples[0] (id "a"): target.attempts is the number 1.5, want an integer`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data))
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "Go ") {
				t.Errorf("Parse: %v, want %q", err, tt.want)
			}
		})
	}
}
