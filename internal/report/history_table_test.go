package report

import (
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/results"
)

// Every row of the history table has as many cells as its header: the
// judge-change mark in a trend is an escaped pipe, and a commit without a
// SHA is a dash, not an empty code span.
func TestHistoryMarkdownTableIsWellFormed(t *testing.T) {
	day := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	h := &History{Branch: "main", Metrics: []string{"faithfulness"}, Points: []HistoryPoint{
		{SHA: "", Date: day, Judge: "a", Means: map[string]results.Score{"faithfulness": 0.5}},
		{SHA: "bbbb", Date: day.Add(time.Hour), Judge: "b", JudgeChanged: true, Means: map[string]results.Score{"faithfulness": 0.7}},
	}}
	var b strings.Builder
	if err := HistoryMarkdown(&b, h); err != nil {
		t.Fatal(err)
	}
	cells := func(row string) int { return strings.Count(strings.ReplaceAll(row, `\|`, ""), "|") }
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "|") {
			rows = append(rows, l)
		}
	}
	if len(rows) < 4 {
		t.Fatalf("table of %d rows:\n%s", len(rows), b.String())
	}
	for _, r := range rows[1:] {
		if cells(r) != cells(rows[0]) {
			t.Errorf("row %q has %d pipes, the header %d:\n%s", r, cells(r), cells(rows[0]), b.String())
		}
	}
	if strings.Contains(b.String(), "``") {
		t.Errorf("an empty code span for a commit without a SHA:\n%s", b.String())
	}
}
