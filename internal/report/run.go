package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// RunTable writes the console table of a results file: mean, n, undefined
// and spread per metric, in catalogue order.
func RunTable(w io.Writer, f *results.File) error {
	names := make([]string, 0, len(f.Summary))
	for n := range f.Summary {
		names = append(names, n)
	}
	sort.Strings(names) // user-defined metrics, after the catalogue, by name
	sort.SliceStable(names, func(a, b int) bool { return metrics.Order(names[a]) < metrics.Order(names[b]) })

	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft}}))
	t.Header("metric", "mean", "n", "undefined", "p10", "median", "p90", "better")
	for _, n := range names {
		s := f.Summary[n]
		dir := "higher"
		if m, ok := f.Metric(n); ok {
			dir = m.Direction.String()
		}
		if err := t.Append(n, FormatScore(s.Mean), fmt.Sprint(s.N), fmt.Sprint(s.Undefined), FormatScore(s.P10), FormatScore(s.P50), FormatScore(s.P90), dir); err != nil {
			return err
		}
	}
	return t.Render()
}
