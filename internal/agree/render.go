package agree

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/raggate/raggate/internal/report"
)

// Header says whose scores were measured, for the report's first line.
type Header struct {
	// Judge describes the judge, e.g. "offline offline-lexical-v1".
	Judge string `json:"judge"`
	// Source is the dataset or results file the rows came from.
	Source string `json:"source"`
}

// table is a rendered table: a header row and rows of cells.
type table struct {
	title string
	head  []string
	rows  [][]string
	// text marks the columns of untrusted text (metric names, ids,
	// labels), escaped in markdown; the others hold our own figures.
	text map[int]bool
}

// tables lays the report out as tables: the figures, then the rows
// where judge and label disagree most.
func (r *Report) tables() []table {
	figs := table{title: "Agreement per metric (95% bootstrap intervals)", text: map[int]bool{0: true}}
	var cuts []string
	switch r.Kind {
	case KindBinary:
		t := fmtNum(*r.Threshold)
		figs.head = []string{"metric", "n", "ROC AUC", "bal. acc. @" + t, "kappa @" + t, "TP FN FP TN @" + t, "best threshold", "bal. acc. there", "kappa there"}
	case KindGraded:
		figs.head = []string{"metric", "n", "Spearman", "Kendall tau-b"}
	default:
		figs.head = []string{"metric", "pairs", "pairwise accuracy", "judge agrees", "ties", "judge disagrees"}
	}
	for _, m := range r.Metrics {
		figs.rows = append(figs.rows, m.cells())
		if m.Undefined > 0 {
			// What MetricReport.Undefined (JSON "undefined") counts: pairs
			// of a pairwise report, rows of the others.
			if r.Kind == KindPairwise {
				cuts = append(cuts, fmt.Sprintf("%s: %d %s left out, a score missing", m.Metric, m.Undefined, plural(m.Undefined, "pair")))
			} else {
				cuts = append(cuts, fmt.Sprintf("%s: %d %s left out, no score", m.Metric, m.Undefined, plural(m.Undefined, "row")))
			}
		}
	}
	if len(cuts) > 0 {
		figs.title += "; " + strings.Join(cuts, "; ")
	}
	out := []table{figs}
	for _, m := range r.Metrics {
		if len(m.Disagreements) == 0 {
			continue
		}
		d := table{title: "Where " + m.Metric + " and the labels disagree most", text: map[int]bool{0: true, 2: true}}
		if r.Kind == KindPairwise {
			d.head = []string{"preferred by label", "score", "other", "score"}
			for _, x := range m.Disagreements {
				other := math.NaN()
				if x.OtherScore != nil {
					other = *x.OtherScore
				}
				d.rows = append(d.rows, []string{x.OtherID, fmtNum(other), x.ID, fmtNum(x.Score)})
			}
		} else {
			d.head = []string{"id", "score", "label"}
			for _, x := range m.Disagreements {
				d.rows = append(d.rows, []string{x.ID, fmtNum(x.Score), x.Label})
			}
		}
		out = append(out, d)
	}
	return out
}

// plural is noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// cells is the metric's row of the figures table.
func (m MetricReport) cells() []string {
	switch {
	case m.Binary != nil:
		b := m.Binary
		c := b.At.Confusion
		best := fmtNum(b.Best.Threshold)
		if b.N == 0 {
			best = fmtNum(math.NaN()) // no score to choose a threshold from
		}
		return []string{m.Metric, strconv.Itoa(b.N), fmtEst(b.AUC), fmtEst(b.At.BalancedAccuracy), fmtEst(b.At.Kappa),
			fmt.Sprintf("%d %d %d %d", c.TP, c.FN, c.FP, c.TN), best, fmtEst(b.Best.BalancedAccuracy), fmtEst(b.Best.Kappa)}
	case m.Graded != nil:
		return []string{m.Metric, strconv.Itoa(m.Graded.N), fmtEst(m.Graded.Spearman), fmtEst(m.Graded.KendallTauB)}
	default:
		p := m.Pairwise
		return []string{m.Metric, strconv.Itoa(p.N), fmtEst(p.Accuracy), strconv.Itoa(p.Wins), strconv.Itoa(p.Ties), strconv.Itoa(p.Losses)}
	}
}

// intro is the report's opening lines.
func (r *Report) intro(h Header) []string {
	labels := fmt.Sprintf("%s labels in column %q", r.Kind, r.Label)
	if len(r.Positive) > 0 {
		labels += fmt.Sprintf(" (good: %s)", strings.Join(r.Positive, ", "))
	}
	if r.PairBy != "" {
		labels += fmt.Sprintf(", pairs grouped by %q", r.PairBy)
	}
	lines := []string{fmt.Sprintf("Agreement of judge %s with %s", h.Judge, labels),
		fmt.Sprintf("%s: %d rows, %d unlabelled", h.Source, r.Rows, r.Unlabelled)}
	if r.TiedPairs > 0 {
		lines[1] += fmt.Sprintf(", %d pairs with equal labels left out", r.TiedPairs)
	}
	if r.Unpaired > 0 {
		lines[1] += fmt.Sprintf(", %d rows without a partner left out", r.Unpaired)
	}
	for _, w := range r.Warnings {
		lines = append(lines, "warning: "+w)
	}
	return lines
}

// Text writes the report as aligned plain text.
func (r *Report) Text(w io.Writer, h Header) error {
	var b strings.Builder
	for _, l := range r.intro(h) {
		b.WriteString(l + "\n")
	}
	for _, t := range r.tables() {
		b.WriteString("\n" + t.title + ":\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, row := range append([][]string{t.head}, t.rows...) {
			fmt.Fprintln(tw, "  "+strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Markdown writes the report as markdown (for a job summary or comment).
// Every text that comes from the data (metric names, ids, labels, column
// names, the source's name, warnings) goes through report.Escape, the
// pull request comment's escaping: no HTML, no broken tables, no mentions,
// issue references or links.
func (r *Report) Markdown(w io.Writer, h Header) error {
	var b strings.Builder
	in := r.intro(h)
	fmt.Fprintf(&b, "### %s\n\n%s\n", report.Escape(in[0]), report.Escape(in[1]))
	for _, l := range in[2:] {
		fmt.Fprintf(&b, "\n%s\n", report.Escape(l))
	}
	for _, t := range r.tables() {
		fmt.Fprintf(&b, "\n**%s**\n\n", report.Escape(t.title))
		b.WriteString("| " + strings.Join(t.head, " | ") + " |\n|" + strings.Repeat(" --- |", len(t.head)) + "\n")
		for _, row := range t.rows {
			cells := make([]string, len(row))
			for i, c := range row {
				cells[i] = c
				if t.text[i] {
					cells[i] = report.Escape(c)
				}
			}
			b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON writes the report with its header as indented JSON. Every figure
// is written, zeros included; the counts of left-out pairs and rows only
// in a pairwise report.
func (r *Report) JSON(w io.Writer, h Header) error {
	var tied, unpaired *int
	if r.Kind == KindPairwise {
		tied, unpaired = &r.TiedPairs, &r.Unpaired
	}
	b, err := json.MarshalIndent(struct {
		Header
		*Report
		TiedPairs *int `json:"tied_pairs,omitempty"`
		Unpaired  *int `json:"unpaired,omitempty"`
	}{h, r, tied, unpaired}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func fmtEst(e Estimate) string {
	if !e.Defined() {
		return report.Undefined
	}
	if math.IsNaN(e.Low) {
		return fmtNum(e.Value) + " [interval undefined]"
	}
	return fmt.Sprintf("%s [%s, %s]", fmtNum(e.Value), fmtNum(e.Low), fmtNum(e.High))
}

func fmtNum(x float64) string {
	if math.IsNaN(x) {
		return report.Undefined
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}
