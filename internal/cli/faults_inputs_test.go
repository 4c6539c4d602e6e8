package cli

// Bounded inputs (issue 22, items 11, 13, 14, 16 and 17): every input
// file is size-limited and regular, decoded Parquet is bounded like JSON
// Lines, the texts a metric or the HTML report works on are capped, a full
// temporary directory does not lose the run, and sibling columns are not
// typos. Run only these with
//
//	go test ./internal/cli -run Inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wikiEvalShape is two rows shaped like WikiEval: the question, the answer,
// two versions of the contexts and alternative answers as columns of their
// own.
const wikiEvalShape = `{"answer": "The film was released in 2022.", "question": "When was the film released?", "context_v1": ["The film was released in 2022 by the studio."], "context_v2": ["The film premiered at a festival.", "The film was released in 2022 by the studio."], "ungrounded_answer": "It came out in 1999.", "source": "Film", "poor_answer": "Recently."}
{"answer": "Paris is the capital.", "question": "What is the capital of France?", "context_v1": ["Paris is the capital of France."], "context_v2": ["France is in Europe.", "Paris is the capital of France."], "ungrounded_answer": "Lyon.", "source": "France", "poor_answer": "A city."}
`

// Item 17: mapping one of two sibling columns (context_v1) leaves the
// other (context_v2) as metadata; it is not reported as a typo of it.
func TestInputsSiblingColumnsAreNotTypos(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "wikieval.jsonl")
	if err := os.WriteFile(ds, []byte(wikiEvalShape), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"context_v1", "context_v2"} {
		t.Run(v, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", ds, "--out", out,
				"--field", "user_input=question", "--field", "response=answer", "--field", "retrieved_contexts="+v)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "did you mean") {
				t.Errorf("a sibling column is called a typo:\n%s", r.stderr)
			}
		})
	}
	// A real typo of the mapped name is still caught.
	typo := filepath.Join(dir, "typo.jsonl")
	if err := os.WriteFile(typo, []byte(strings.ReplaceAll(wikiEvalShape, `"context_v2"`, `"contetx_v1"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", typo, "--out", filepath.Join(dir, "r.json"),
		"--field", "user_input=question", "--field", "response=answer", "--field", "retrieved_contexts=context_v1")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `did you mean "context_v1"`) {
		t.Errorf("exit %d, want 2 with a did-you-mean for the typo\n%s", r.code, r.stderr)
	}
}
