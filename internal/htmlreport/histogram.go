package htmlreport

import (
	"fmt"
	"math"

	"github.com/raggate/raggate/internal/report"
)

// Histogram geometry: 10 bins of negative deltas, one of exact zeros, 10
// of positive ones, drawn in a box of histW x histH pixels.
const (
	halfBins = 10
	histW    = 315
	histH    = 80
)

// histogram is one metric's distribution of per-sample oriented deltas
// over every paired sample (not only those the page lists).
type histogram struct {
	Metric               string
	Worse, Same, Better  int
	Lost                 int
	Bars                 []bar
	Width, Height, Label int
	Range                string // the delta at either end of the axis
}

// bar is one bin as an SVG rectangle; Title is its tooltip.
type bar struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

// histogramOf bins the oriented deltas of metric m between the paired
// samples of p. Heights follow the square root of the counts, so that a
// few changed samples stay visible next to many unchanged ones.
func histogramOf(m metricInfo, p *pairing) histogram {
	h := histogram{Metric: m.name, Width: histW, Height: histH + 16, Label: histH + 13, Range: edge(m.scale)}
	counts := make([]int, 2*halfBins+1)
	for i := range p.head.Len() {
		if p.pair[i] < 0 {
			continue
		}
		v, d := p.verdict(m, i)
		switch v {
		case vLost:
			h.Lost++
			continue
		case vWorse:
			h.Worse++
		case vBetter:
			h.Better++
		case vSame:
			h.Same++
		default:
			continue
		}
		counts[bin(d, m.scale)]++
	}
	h.Bars = bars(counts, m.scale)
	return h
}

// bin is the index of delta d on an axis from -scale to scale.
func bin(d, scale float64) int {
	if d == 0 {
		return halfBins
	}
	k := int(math.Ceil(math.Abs(d) / scale * halfBins)) // 1..halfBins
	k = min(max(k, 1), halfBins)
	if d < 0 {
		return halfBins - k
	}
	return halfBins + k
}

func bars(counts []int, scale float64) []bar {
	top := 0
	for _, c := range counts {
		top = max(top, c)
	}
	w := float64(histW) / float64(len(counts))
	out := make([]bar, 0, len(counts))
	for i, c := range counts {
		if c == 0 {
			continue
		}
		ht := math.Max(2, math.Sqrt(float64(c)/float64(top))*histH)
		out = append(out, bar{X: float64(i)*w + 1, Y: histH - ht, W: w - 2, H: ht, Class: binClass(i), Title: binTitle(i, c, scale)})
	}
	return out
}

func binClass(i int) string {
	switch {
	case i < halfBins:
		return "worse"
	case i > halfBins:
		return "better"
	}
	return "same"
}

// binTitle says which deltas bin i holds: bin halfBins-k holds deltas in
// [-k/10, -(k-1)/10) of the scale, bin halfBins+k those in ((k-1)/10, k/10].
func binTitle(i, count int, scale float64) string {
	k := i - halfBins
	at := func(j int) string { return edge(float64(j) / halfBins * scale) }
	switch {
	case k < 0:
		return fmt.Sprintf("%d samples with delta in [%s, %s)", count, at(k), at(k+1))
	case k > 0:
		return fmt.Sprintf("%d samples with delta in (%s, %s]", count, at(k-1), at(k))
	}
	return fmt.Sprintf("%d samples unchanged (delta 0)", count)
}

// edge formats a bin edge or the axis range as report words a bound
// ("0.10", "-0.20", "1.00"), rounded to three decimals first so that
// 3*0.1 shows as 0.30.
func edge(x float64) string {
	return report.FormatBound(math.Round(x*1000)/1000 + 0)
}
