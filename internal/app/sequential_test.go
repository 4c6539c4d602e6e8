package app

import (
	"testing"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/results"
)

// A sequential check's results that left samples unjudged are no point of
// a trend: the samples judged first are the unchanged ones, so their mean
// is not the head's.
func TestHistoryLeavesOutPartialSequentialChecks(t *testing.T) {
	full := &results.File{Schema: results.Schema}
	complete := &results.File{Schema: results.Schema, Config: results.Config{Sequential: &results.Sequential{Judged: 10, Total: 10}}}
	partial := &results.File{Schema: results.Schema, Config: results.Config{Sequential: &results.Sequential{Judged: 3, Total: 10}}}
	h := HistoryOf("main", []baseline.Entry{{SHA: "a", File: full}, {SHA: "b", File: partial}, {SHA: "c", File: complete}})
	if h == nil || len(h.Points) != 2 {
		t.Fatalf("history %+v: want the full run and the complete sequential one, not the partial", h)
	}
	for _, f := range h.Points {
		if f.SHA == "b" {
			t.Errorf("the partial sequential check is in the history")
		}
	}
}
