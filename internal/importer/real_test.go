package importer

import (
	"path/filepath"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// TestRealExports reads exports committed in public repositories
// (testdata/imports, each with its SOURCE.md): what a user's file looks
// like, not what the documentation says.
func TestRealExports(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "imports")
	for _, tc := range []struct {
		file    string
		format  Format
		samples int
		metric  string
		want    map[string]float64 // sample id -> score of metric
		model   string
		version string
	}{
		{file: "ragas/hypergraphrag-ragas_evaluation_results.csv", format: Ragas, samples: 5, metric: "context_recall",
			want: map[string]float64{deriveID("Were Scott Derrickson and Ed Wood of the same nationality?"): 0.5,
				deriveID(`The director of the romantic comedy "Big Stone Gap" is based in what New York city?`): 0.5}},
		{file: "promptfoo/sample-export.json", format: Promptfoo, samples: 4, metric: "score", model: "", version: "0.118.10"},
		{file: "deepeval/thesis-latest_test_run.json", format: DeepEval, samples: 1, metric: "faithfulness",
			want: map[string]float64{deriveID("<REDACTED>"): 1}, model: "qwen3:8b (Ollama)"},
		{file: "deepeval/artom-latest_test_run.json", format: DeepEval, samples: 1, metric: "answer_relevancy", model: "gpt-4o"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, format, err := Read(filepath.Join(root, tc.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if format != tc.format {
				t.Errorf("format %q, want %q", format, tc.format)
			}
			if len(f.Samples) != tc.samples {
				t.Errorf("%d samples, want %d", len(f.Samples), tc.samples)
			}
			for id, v := range tc.want {
				if got := scoreOf(t, f, id, tc.metric); got != v {
					t.Errorf("%s of %s = %v, want %v", tc.metric, id, got, v)
				}
			}
			if f.Judge.Model != tc.model {
				t.Errorf("judge model %q, want %q", f.Judge.Model, tc.model)
			}
			checkValid(t, f)
		})
	}
}

func scoreOf(t *testing.T, f *results.File, id, metric string) float64 {
	t.Helper()
	for _, s := range f.Samples {
		if s.ID == id {
			v, ok := s.Scores[metric]
			if !ok {
				t.Fatalf("sample %s has no %s; it has %v", id, metric, s.Scores)
			}
			return v.Value()
		}
	}
	t.Fatalf("no sample %q", id)
	return 0
}

// checkValid writes f and reads it back as gate compare reads a results
// file.
func checkValid(t *testing.T, f *results.File) {
	t.Helper()
	b, err := results.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.Parse(b); err != nil {
		t.Fatalf("the results file does not read back: %v", err)
	}
}
