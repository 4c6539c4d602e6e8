package htmlreport

import (
	"path/filepath"
	"testing"

	"github.com/raggate/raggate/internal/goldenfile"
	"github.com/raggate/raggate/internal/results"
)

// The page of a small comparison, as a golden file: a change to the page
// shows as a diff to review (go test ./internal/htmlreport -update).
func TestGoldenPage(t *testing.T) {
	base, head := files(4, true)
	head.Samples[3].Response = "The K2 stores 13.5 kWh & powers <b>a</b> house."
	// The results file left statements out (its evidence bounds).
	head.Samples[3].Evidence = map[string][]results.Evidence{
		"faithfulness":      {{Text: "The K2 stores 13.5 kWh.", Verdict: 0, Reason: "number 13.5 not in evidence"}, {More: 4}},
		"context_precision": head.Samples[3].Evidence["context_precision"],
	}
	got := render(t, base, head, Options{Gate: "demo", BaselineSource: "file base.json"})
	goldenfile.Check(t, filepath.Join("testdata", "small.html"), []byte(got))
}
