package agree

import (
	"encoding/json"
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

// The JSON report prints every figure, zeros included: a pair whose
// preferred candidate scored 0 keeps its other_score, and a pairwise
// report says it left out 0 tied pairs and 0 unpaired rows.
func TestJSONPrintsZeros(t *testing.T) {
	// Two pairs; in each the judge scores the worse candidate (label 0)
	// at least as high as the better one, which scores 0.
	rows := []Row{
		{ID: "p1-good", Scores: map[string]float64{"m": 0}, Metadata: map[string]string{"l": "1", "pair": "p1"}},
		{ID: "p1-bad", Scores: map[string]float64{"m": 0.5}, Metadata: map[string]string{"l": "0", "pair": "p1"}},
		{ID: "p2-good", Scores: map[string]float64{"m": 0}, Metadata: map[string]string{"l": "1", "pair": "p2"}},
		{ID: "p2-bad", Scores: map[string]float64{"m": 0}, Metadata: map[string]string{"l": "0", "pair": "p2"}},
	}
	rep, err := Measure(rows, []Metric{{Name: "m"}}, Spec{Label: "l", PairBy: "pair", Show: 5})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.JSON(&b, Header{Judge: "j", Source: "s"}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		TiedPairs *int `json:"tied_pairs"`
		Unpaired  *int `json:"unpaired"`
		Metrics   []struct {
			Disagreements []map[string]any `json:"disagreements"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatal(err)
	}
	if got.TiedPairs == nil || *got.TiedPairs != 0 || got.Unpaired == nil || *got.Unpaired != 0 {
		t.Errorf("pairwise report without tied_pairs 0 and unpaired 0:\n%s", b.String())
	}
	ds := got.Metrics[0].Disagreements
	if len(ds) != 2 {
		t.Fatalf("disagreements %v, want both pairs", ds)
	}
	for _, d := range ds {
		for _, k := range []string{"id", "score", "label", "other_id", "other_score", "gap"} {
			if _, ok := d[k]; !ok {
				t.Errorf("pair disagreement %v has no %s", d, k)
			}
		}
		if d["other_score"] != 0.0 {
			t.Errorf("other_score %v, want 0", d["other_score"])
		}
	}

	// A binary report has no pairs: neither the pair fields nor the
	// pairwise counts.
	rep, err = Measure(rowsOf([]string{"1", "0"}, []float64{0, 0.5}, "m"), []Metric{{Name: "m"}}, Spec{Label: "l", Threshold: 0.5, Show: 5})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := rep.JSON(&b, Header{}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"other_score"`, `"other_id"`, `"tied_pairs"`, `"unpaired"`} {
		if strings.Contains(b.String(), k) {
			t.Errorf("binary report holds %s:\n%s", k, b.String())
		}
	}
	if !strings.Contains(b.String(), `"score": 0,`) {
		t.Errorf("binary report lacks the row scored 0:\n%s", b.String())
	}
}
