package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// A trend puts the head's means after the base branch's stored baselines
// (Options.Trend). Only baselines judged like the head count: values
// across a judge change are not comparable, so the trend starts after the
// last baseline judged otherwise.

// trendPoints returns the points of h judged with the head's judge, and
// how many were left out.
func trendPoints(r *compare.Report, h *History) (pts []HistoryPoint, other int) {
	if h == nil {
		return nil, 0
	}
	fp := r.Head.Judge.Fingerprint
	for _, p := range h.Points {
		if p.Judge != fp {
			pts, other = nil, other+len(pts)+1
			continue
		}
		pts = append(pts, p)
	}
	return pts, other
}

// trendSeries returns the stored means of metric followed by the head's.
func trendSeries(pts []HistoryPoint, m compare.MetricResult) []float64 {
	xs := make([]float64, 0, len(pts)+1)
	for _, p := range pts {
		v, ok := p.Means[m.Metric]
		if !ok {
			v = results.NaN()
		}
		xs = append(xs, v.Value())
	}
	return append(xs, m.HeadMean.Value())
}

// trendCell is the sparkline of a metric's trend for the table, or "".
func trendCell(r *compare.Report, opts Options, m compare.MetricResult) string {
	pts, _ := trendPoints(r, opts.Trend)
	if len(pts) == 0 {
		return ""
	}
	return Sparkline(trendSeries(pts, m))
}

var mermaidSafe = strings.NewReplacer(`"`, "", "\n", " ", "\r", " ", "`", "", "\\", "", "<", "", ">", "", "&", "", "#", "", ";", "")

// writeTrend writes the Mermaid xychart-beta charts of the gated metrics
// (one per metric: xychart-beta lines carry no legend) over the stored
// baselines judged like the head, with the head's mean last.
func writeTrend(b *strings.Builder, r *compare.Report, opts Options, open bool) {
	pts, other := trendPoints(r, opts.Trend)
	if len(pts) == 0 {
		return
	}
	details(b, open, fmt.Sprintf("Trend: %s on %s, then this head", plural(len(pts), "stored baseline", "stored baselines"), escapeSnippet(opts.Trend.Branch, 100)))
	if other > 0 {
		fmt.Fprintf(b, "%s judged by another judge left out (not comparable).\n\n", plural(other, "baseline", "baselines"))
	}
	for _, m := range r.Metrics {
		if m.ReportOnly {
			continue
		}
		writeChart(b, pts, m)
	}
	endDetails(b)
}

// writeChart writes one metric's chart; x positions where the metric has
// no mean are left out (a Mermaid line cannot skip a value).
func writeChart(b *strings.Builder, pts []HistoryPoint, m compare.MetricResult) {
	xs := trendSeries(pts, m)
	var labels, values []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, x := range xs {
		if !finite(x) {
			continue
		}
		label := "head"
		if i < len(pts) {
			label = pts[i].Date.UTC().Format("01-02")
			if sha := headSHA(pts[i].SHA); sha != "" {
				label = sha[:7]
			}
		}
		labels = append(labels, strconv.Quote(label))
		values = append(values, strconv.FormatFloat(x, 'f', 3, 64))
		lo, hi = min(lo, x), max(hi, x)
	}
	if len(values) < 2 {
		return
	}
	name := mermaidSafe.Replace(snippet(m.Metric, 60))
	if lowerIsBetter(m) {
		name += " (lower is better)"
	}
	y0, y1 := axisRange(lo, hi)
	fmt.Fprintf(b, "```mermaid\nxychart-beta\n  title \"%s\"\n  x-axis [%s]\n  y-axis \"mean\" %s --> %s\n  line [%s]\n```\n\n",
		name, strings.Join(labels, ", "), y0, y1, strings.Join(values, ", "))
}

// axisRange rounds the y-axis out to tenths around [lo, hi], at least a
// tenth wide.
func axisRange(lo, hi float64) (string, string) {
	a, z := math.Floor(lo*10+1e-9)/10, math.Ceil(hi*10-1e-9)/10
	if z-a < 0.1-1e-9 {
		a = z - 0.1
	}
	f := func(x float64) string { return strconv.FormatFloat(x+0, 'f', 1, 64) }
	return f(a), f(z)
}
