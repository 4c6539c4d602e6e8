package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// Number formats, the only ones in raggate's reports (package compare
// records numbers, it never formats them; package htmlreport and the
// action's summary-json use these). Two rules:
//
//   - Tables (markdown, summary, console, HTML) show scores, deltas and
//     p-values with three decimals, deltas signed ("0.870", "+0.012",
//     "0.003", "<0.001"): FormatScore, FormatDelta, FormatCI, FormatP; the
//     p-value a table shows is the one PValue picks.
//   - Sentences (failures, warnings, notes, reasons) show a difference with
//     two decimals, three when two would show zero ("regressed by 0.12",
//     "by 0.004"), a p-value as "p=0.003" or "p<0.001", a mean compared with
//     a bound with the decimals it takes to differ from it ("0.799 below
//     floor 0.80"): sayDelta, sayP, sayVs.
//
// Bounds (floors, ceilings, tolerances, alphas) are shown as written, with
// at least two decimals, in both (FormatBound). Negative numbers use the ASCII
// hyphen-minus everywhere, so that numbers can be copied, grepped and
// measured by terminal table code without East Asian ambiguous-width
// surprises.

// Undefined is how every renderer shows an undefined value.
const Undefined = "n/a"

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// FormatScore formats a score with three decimals ("0.870"), "n/a" when
// undefined.
func FormatScore(s results.Score) string {
	x := s.Value()
	if !finite(x) {
		return Undefined
	}
	out := strconv.FormatFloat(x, 'f', 3, 64)
	if out == "-0.000" {
		return "0.000"
	}
	return out
}

// FormatDelta formats a difference with a sign and three decimals ("+0.012",
// "-0.034"); a difference that rounds to zero is "0.000".
func FormatDelta(s results.Score) string {
	x := s.Value()
	if !finite(x) {
		return Undefined
	}
	out := strconv.FormatFloat(math.Abs(x), 'f', 3, 64)
	switch {
	case out == "0.000":
		return out
	case x < 0:
		return "-" + out
	default:
		return "+" + out
	}
}

// FormatCI formats an interval as "[-0.050, +0.010]", "n/a" when either end is
// undefined.
func FormatCI(lo, hi results.Score) string {
	if !finite(lo.Value()) || !finite(hi.Value()) {
		return Undefined
	}
	return "[" + FormatDelta(lo) + ", " + FormatDelta(hi) + "]"
}

// FormatP formats a p-value as "0.003", "<0.001" or "1.000"; "n/a" when
// undefined.
func FormatP(s results.Score) string {
	p := s.Value()
	if !finite(p) {
		return Undefined
	}
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(math.Min(p, 1), 'f', 3, 64)
}

// FormatSampleChange formats one sample's base and head values and their
// difference ("0.624", "0.413", "-0.211"). Scores take three decimals;
// a metric of larger numbers (a latency in ms, a count of tokens) takes
// fewer, as many as three significant decimals of the larger side need,
// trailing zeros dropped: "954 → 1186 (+232)", not "954.000 → 1186.000
// (+232.000)".
func FormatSampleChange(base, head, delta results.Score) (string, string, string) {
	big := 0.0
	for _, v := range []float64{base.Value(), head.Value()} {
		if finite(v) {
			big = math.Max(big, math.Abs(v))
		}
	}
	if big < 10 {
		return FormatScore(base), FormatScore(head), FormatDelta(delta)
	}
	decimals := 2
	switch {
	case big >= 1000:
		decimals = 0
	case big >= 100:
		decimals = 1
	}
	f := func(s results.Score, signed bool) string {
		x := s.Value()
		if !finite(x) {
			return Undefined
		}
		out := strconv.FormatFloat(math.Abs(x), 'f', decimals, 64)
		if strings.Contains(out, ".") {
			out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
		}
		switch {
		case strings.Trim(out, "0.") == "":
			return "0"
		case x < 0:
			return "-" + out
		case signed:
			return "+" + out
		}
		return out
	}
	return f(base, false), f(head, false), f(delta, true)
}

// PValue is the one rule for which p-value a report shows for a paired
// comparison (a metric's, or a metric's on one segment): the adjusted
// one-sided p-value in the direction of the observed change. PWorseAdj when
// the oriented mean difference is negative (the metric got worse), else
// PBetterAdj (no difference, or an undefined one, shows the test of an
// improvement). Every renderer shows this one: the markdown and summary
// tables, the console, the segment tables, the HTML page and the action's
// summary-json.
func PValue(p compare.Paired) results.Score {
	if p.Delta.Value() < 0 {
		return p.PWorseAdj
	}
	return p.PBetterAdj
}

// FormatBound formats a floor, ceiling, tolerance or alpha as written, with at
// least two decimals ("0.80", "0.85", "0.025").
func FormatBound(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s
}

// FormatInt formats an integer with thousands separators ("12,345").
func FormatInt(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// FormatCost formats an estimated cost in US dollars: four decimals below one
// dollar ("$0.0123"), two above ("$12.35").
func FormatCost(usd float64) string {
	if !finite(usd) {
		return Undefined
	}
	if math.Abs(usd) < 1 {
		return "$" + strconv.FormatFloat(usd, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
}

// plural returns "1 metric" or "2 metrics".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// sayDelta formats a difference in a sentence with two decimals, or three
// when two would show 0.00.
func sayDelta(x float64) string {
	if s := strconv.FormatFloat(x, 'f', 2, 64); s != "0.00" && s != "-0.00" {
		return s
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// sayP formats a p-value in a sentence as "p=0.003", or "p<0.001" below
// that.
func sayP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return "p=" + strconv.FormatFloat(p, 'f', 3, 64)
}

// sayVs formats x in a sentence with enough decimals to differ from the
// bound it is compared with ("0.799" rather than "0.80" against a floor of
// 0.80).
func sayVs(x, bound float64) string {
	for prec := 2; prec < 6; prec++ {
		if s := strconv.FormatFloat(x, 'f', prec, 64); s != strconv.FormatFloat(bound, 'f', prec, 64) {
			return s
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// short shortens a hash to its first 12 characters.
func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
