package agree

import (
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/report"
)

// The markdown report escapes every text from the data as the pull
// request comment does (report.Escape): a sample id, a label, a metric
// name, the label column and the source cannot ping anyone, link, or
// break the table.
func TestMarkdownEscapesTheData(t *testing.T) {
	const (
		id     = "@octocat <b>x</b> | [y](https://e.example)"
		label  = "No #12 @team"
		metric = "faith|fulness@org"
		column = "human @reviewer"
		source = "evil/#7 https://e.example/x.jsonl"
	)
	var rows []Row
	for i, l := range []string{"Yes", label, "Yes", label, "Yes", label} {
		rowID := "r" + string(rune('a'+i))
		if i == 1 {
			rowID = id
		}
		rows = append(rows, Row{ID: rowID, Scores: map[string]float64{metric: []float64{0.9, 0.95, 0.8, 0.2, 0.7, 0.1}[i]}, Metadata: map[string]string{column: l}})
	}
	rep, err := Measure(rows, []Metric{{Name: metric}}, Spec{Label: column, Positive: []string{"Yes"}, Threshold: 0.5, Show: 3, Source: source})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.Markdown(&b, Header{Judge: "offline @judge", Source: source}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, s := range []string{id, label, metric, column, source, "offline @judge"} {
		if !strings.Contains(md, report.Escape(s)) {
			t.Errorf("the markdown does not show %q escaped as the comment would (%q):\n%s", s, report.Escape(s), md)
		}
	}
	for _, raw := range []string{"@octocat", "<b>", "[y](https", "#12", "@team", "@org", "@reviewer", "https://e", "/#7", "@judge"} {
		if strings.Contains(md, raw) {
			t.Errorf("the markdown holds %q unescaped:\n%s", raw, md)
		}
	}
	for _, table := range strings.Split(md, "\n\n") {
		want := -1
		for l := range strings.Lines(table) {
			if !strings.HasPrefix(l, "|") {
				continue
			}
			cells := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|")
			if want < 0 {
				want = cells
			} else if cells != want {
				t.Errorf("table row %q has %d cell borders, the header %d", l, cells, want)
			}
		}
	}
}
