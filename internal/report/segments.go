package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/raggate/raggate/internal/compare"
)

// segmentRow is one significant change of a metric on one segment.
type segmentRow struct {
	seg compare.Segment
	m   compare.SegmentMetric
	dir string // the metric's direction, for the ↓ mark
}

// significant is a segment metric the reports show: a regression, an
// improvement or a significant loss of scores.
func significant(m compare.SegmentMetric) bool {
	return m.Change == compare.VerdictRegression || m.Change == compare.VerdictImprovement || m.LostScores
}

// segmentRows returns every significant segment change, worst first: what
// fails the gate, then warnings, then report-only changes, then
// improvements; within each, the largest drop first.
func segmentRows(r *compare.Report) []segmentRow {
	dirs := map[string]string{}
	for _, m := range r.Metrics {
		dirs[m.Metric] = m.Direction
	}
	var out []segmentRow
	for _, k := range r.Segments {
		for _, s := range k.Segments {
			for _, m := range s.Metrics {
				if significant(m) {
					out = append(out, segmentRow{s, m, dirs[m.Metric]})
				}
			}
		}
	}
	rank := func(m compare.SegmentMetric) int {
		switch {
		case m.Change == compare.VerdictImprovement && !m.LostScores:
			return 4
		case m.Status == compare.StatusFail:
			return 0
		case m.Status == compare.StatusWarn:
			return 1
		}
		return 2
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].m, out[j].m
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra < rb
		}
		return a.Delta.Value() < b.Delta.Value()
	})
	return out
}

// segmentCell is the verdict of a segment metric.
func segmentCell(m compare.SegmentMetric) cell {
	var parts []string
	k := kindNone
	switch m.Change {
	case compare.VerdictRegression:
		parts, k = append(parts, "regression"), kindBad
	case compare.VerdictImprovement:
		parts, k = append(parts, "improvement"), kindGood
	}
	if m.LostScores {
		parts, k = append(parts, fmt.Sprintf("lost %d scores (p %s)", m.Lost, FormatP(m.PLostAdj))), kindBad
	}
	switch {
	case m.ReportOnly:
		if k == kindBad {
			k = kindNone
		}
		parts = append(parts, "report-only")
	case m.Status == compare.StatusWarn && len(parts) > 0:
		k = kindWarn
		parts[len(parts)-1] += " (warn level)"
	}
	return cell{k, strings.Join(parts, ", ")}
}

// segmentCounts says what was compared per key: "topic (3 of 4 values
// tested)".
func segmentCounts(r *compare.Report) string {
	var parts []string
	for _, k := range r.Segments {
		tested := 0
		for _, s := range k.Segments {
			if s.Tested {
				tested++
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%d of %s tested)", k.Key, tested, plural(k.Values, "value", "values")))
	}
	return strings.Join(parts, ", ")
}

// segmentLegend says how the segment tests are corrected.
func segmentLegend(r *compare.Report) string {
	d := r.Settings.Defaults
	corr := "in the same Holm correction as the table above (gated metrics with gated metrics, report-only with report-only), so the chance that an unchanged pipeline fails on any metric or segment stays at most alpha"
	if d.Correction == compare.CorrectionNone {
		corr = "with raw p-values (correction: none), so false alarms grow with every segment"
	}
	return fmt.Sprintf("each value of a key with at least %d pairs is tested like the whole set, %s; at most %d values per key",
		d.MinSamples, corr, compare.MaxSegmentValues)
}

// writeSegments writes the significant segment changes, worst first, at
// most p.segRows of them (0: all).
func writeSegments(b *strings.Builder, r *compare.Report, p profile) {
	if len(r.Segments) == 0 {
		return
	}
	rows := segmentRows(r)
	if len(rows) == 0 {
		fmt.Fprintf(b, "**Segments:** %s; no significant change in any segment.\n\n<sub>Segments: %s.</sub>\n\n", escapeSnippet(segmentCounts(r), 400), segmentLegend(r))
		return
	}
	shown := rows
	if p.segRows > 0 && len(shown) > p.segRows {
		shown = shown[:p.segRows]
	}
	details(b, true, fmt.Sprintf("Segments: %s", plural(len(rows), "significant change", "significant changes")))
	fmt.Fprintf(b, "Compared per segment: %s. Significant changes, worst first:\n\n", escapeSnippet(segmentCounts(r), 400))
	b.WriteString("| Segment | Metric | Pairs | Base | Head | Δ | 95% CI | p | Verdict |\n|:---|:---|---:|---:|---:|---:|:---:|---:|:---|\n")
	for _, row := range shown {
		m := row.m
		name := escapeSnippet(m.Metric, 60)
		if row.dir == "lower" {
			name += " ↓"
		}
		seg := escapeSnippet(row.seg.Key, 40) + "=" + escapeSnippet(row.seg.Value, 60)
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", seg, name, m.N,
			FormatScore(m.PairedBaseMean), FormatScore(m.PairedHeadMean), FormatDelta(m.RawDelta), FormatCI(m.RawDeltaCI.Low, m.RawDeltaCI.High),
			FormatP(PValue(m.Paired)), segmentCell(m).markdown())
	}
	if len(shown) < len(rows) {
		fmt.Fprintf(b, "| … %d more not shown (`gate compare --format json` lists every segment) | | | | | | | | |\n", len(rows)-len(shown))
	}
	fmt.Fprintf(b, "\n<sub>Segments: %s.</sub>\n\n", segmentLegend(r))
	endDetails(b)
}

// consoleSegments writes a short list of the significant segment changes.
func consoleSegments(b *strings.Builder, r *compare.Report) {
	if len(r.Segments) == 0 {
		return
	}
	rows := segmentRows(r)
	if len(rows) == 0 {
		fmt.Fprintf(b, "\nSegments: %s; no significant change.\n", plain(segmentCounts(r), 400))
		return
	}
	fmt.Fprintf(b, "\nSegments: %s; significant changes, worst first:\n", plain(segmentCounts(r), 400))
	const maxRows = 10
	for i, row := range rows {
		if i == maxRows {
			fmt.Fprintf(b, "  ... and %d more (--format json lists every segment)\n", len(rows)-maxRows)
			break
		}
		m := row.m
		fmt.Fprintf(b, "  - %s=%s: %s %s %s %s, %s (n=%d)\n", plain(row.seg.Key, 40), plain(row.seg.Value, 60), plain(m.Metric, 60),
			FormatDelta(m.RawDelta), FormatCI(m.RawDeltaCI.Low, m.RawDeltaCI.High), FormatP(PValue(m.Paired)), segmentCell(m).console(), m.N)
	}
	fmt.Fprintf(b, "  (%s.)\n", segmentLegend(r))
}

// sampleSegments formats a sample's segment values in the order of the
// report's keys: "topic=billing, language=de".
func sampleSegments(r *compare.Report, values map[string]string) string {
	var parts []string
	for _, k := range r.Segments {
		if v, ok := values[k.Key]; ok {
			parts = append(parts, k.Key+"="+v)
		}
	}
	return strings.Join(parts, ", ")
}
