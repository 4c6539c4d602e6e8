package report

import (
	"fmt"
	"strings"

	"github.com/raggate/raggate/internal/compare"
)

// kind is how a verdict is shown: ✅ / ~ / ❌ / ⚠️ in markdown, words in a
// terminal.
type kind int

const (
	kindNone kind = iota // no symbol ("no floor set", "new metric")
	kindSame             // ~ no significant change
	kindGood             // ✅ improvement, floor met
	kindBad              // ❌ fails the gate
	kindWarn             // ⚠️ warning, or not tested
)

// emoji returns the markdown symbol of k.
func (k kind) emoji() string {
	switch k {
	case kindSame:
		return "~"
	case kindGood:
		return "✅"
	case kindBad:
		return "❌"
	case kindWarn:
		return "⚠️"
	}
	return ""
}

// word returns the terminal prefix of k.
func (k kind) word() string {
	switch k {
	case kindSame:
		return "~"
	case kindBad:
		return "FAIL"
	case kindWarn:
		return "WARN"
	}
	return ""
}

// cell is a verdict: a kind and a short text ("regression, below floor
// 0.85"). Text is trusted: it is built from numbers and fixed words.
type cell struct {
	kind kind
	text string
}

// VerdictText is the verdict of metric m as the console table words it
// ("~", "FAIL regression, below floor 0.85", "WARN too few pairs (n=6)"),
// and its class: "fail", "warn", "better", "same" or "" (a note). It is
// the one wording of a metric's verdict, which other renderers (the HTML
// report) show as they are.
func VerdictText(m compare.MetricResult) (text, class string) {
	c := verdictCell(m)
	switch c.kind {
	case kindBad:
		class = "fail"
	case kindWarn:
		class = "warn"
	case kindGood:
		class = "better"
	case kindSame:
		class = "same"
	}
	return c.console(), class
}

func (c cell) markdown() string { return join(c.kind.emoji(), c.text) }
func (c cell) console() string  { return join(c.kind.word(), c.text) }

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

func breached(m compare.MetricResult) bool {
	return m.Floor == compare.FloorBelowMin || m.Floor == compare.FloorAboveMax
}

// verdictCell describes one metric's verdict for the diff table.
func verdictCell(m compare.MetricResult) cell {
	var parts []string
	k := kindNone
	switch m.Change {
	case compare.VerdictRegression:
		parts = append(parts, "regression")
		k = kindBad
	case compare.VerdictImprovement:
		parts = append(parts, "improvement")
		k = kindGood
	case compare.VerdictNoChange:
		k = kindSame
	case compare.VerdictInsufficientData:
		if m.N == 0 {
			parts = append(parts, "not tested: no pairs") // zero is not "too few"
		} else {
			parts = append(parts, fmt.Sprintf("too few pairs (n=%d)", m.N))
			k = kindWarn
		}
	case compare.VerdictNewMetric:
		parts = append(parts, "new metric")
	case compare.VerdictNotInHead:
		parts = append(parts, "not scored on head")
		k = kindWarn
	case compare.VerdictNotComparable:
		parts = append(parts, notComparableCell(m.NotComparable))
		k = kindWarn
	}
	switch m.Floor {
	case compare.FloorBelowMin:
		parts = append(parts, "below floor "+FormatBound(*m.Rule.Min)+allSamples(m))
		k = kindBad
	case compare.FloorAboveMax:
		parts = append(parts, "above ceiling "+FormatBound(*m.Rule.Max)+allSamples(m))
		k = kindBad
	case compare.FloorOK:
		if m.Change == compare.VerdictNoBaseline || m.Change == compare.VerdictNewMetric {
			if m.Rule.Min != nil {
				parts = append(parts, "meets floor "+FormatBound(*m.Rule.Min))
			} else if m.Rule.Max != nil {
				parts = append(parts, "within ceiling "+FormatBound(*m.Rule.Max))
			}
			k = kindGood
		}
	case compare.FloorNone:
		if m.Change == compare.VerdictNoBaseline {
			parts = append(parts, "no floor set")
		}
	}
	if m.LostScores {
		if m.Sequential != nil {
			parts = append(parts, fmt.Sprintf("lost %d scores (sequential test)", m.Lost))
		} else {
			parts = append(parts, fmt.Sprintf("lost %d scores (p %s)", m.Lost, FormatP(m.PLostAdj)))
		}
	}
	switch m.Status {
	case compare.StatusFail:
		k = kindBad
	case compare.StatusWarn:
		k = kindWarn
		if m.Rule.Level == compare.LevelWarn {
			parts = append(parts, "(warn level)") // only where the thresholds set it
		}
	}
	if m.ReportOnly {
		if k == kindBad {
			k = kindNone // a report-only metric never fails the gate
		}
		parts = append(parts, "report-only")
	}
	text := strings.Join(parts, ", ")
	text = strings.ReplaceAll(text, ", (warn level)", " (warn level)")
	return cell{k, text}
}

// notComparableCell is the table's words for why a metric was not
// compared.
func notComparableCell(why string) string {
	switch why {
	case compare.NotComparableBase:
		return "not comparable: no base scores"
	case compare.NotComparableHead:
		return "not comparable: no head scores"
	case compare.NotComparableBoth:
		return "not comparable: no scores"
	case compare.NotComparableDisjoint:
		return "not comparable: no common samples"
	case compare.NotComparableContextIDs:
		return "context ids changed: not comparable"
	}
	return "not comparable"
}

// allSamples quotes the all-sample head mean that a floor was checked
// against when the table shows a different (paired) head mean.
func allSamples(m compare.MetricResult) string {
	if sq := m.Sequential; sq != nil && sq.Floor != "" && !sq.FloorMean.IsNaN() && sq.Floor != compare.SeqUndecided && m.Floor != compare.FloorOK {
		if est := FormatScore(sq.FloorMean); est != FormatScore(m.HeadMean) {
			// A sequential check decided the floor on its estimate of the
			// head mean over every sample.
			return " (estimated mean: " + est + ")"
		}
	}
	shown := tableHead(m)
	if all := FormatScore(m.HeadMean); all != shown {
		return " (all samples: " + all + ")"
	}
	return ""
}

// tableBase and tableHead are the means a diff table shows: the paired
// means when there are pairs (so that Head - Base = Δ), else each side's
// all-sample mean.
func tableBase(m compare.MetricResult) string {
	if m.N > 0 {
		return FormatScore(m.PairedBaseMean)
	}
	return FormatScore(m.BaseMean)
}

func tableHead(m compare.MetricResult) string {
	if m.N > 0 {
		return FormatScore(m.PairedHeadMean)
	}
	return FormatScore(m.HeadMean)
}

func lowerIsBetter(m compare.MetricResult) bool { return m.Direction == "lower" }

// headline is the overall verdict: its kind and a short text.
func headline(r *compare.Report) cell {
	c := tally(r)
	switch {
	case !r.Passed:
		return failedHeadline(r, c)
	case r.Verdict == compare.VerdictPassWithWarnings:
		text := "passed with " + plural(len(sentences(r, compare.LevelWarn, nil)), "warning", "warnings")
		if c.fewWarn > 0 {
			text += ": " + fewPairs(r, c)
		}
		if !r.HasBaseline {
			text += " (no baseline yet: floors only)"
		}
		return cell{kindWarn, text}
	case !r.HasBaseline:
		return floorsOnlyHeadline(r)
	}
	return passedHeadline(r, c)
}

// counts tallies the metrics for the headline: few counts the metrics
// with too few pairs to test (at least one: zero pairs is not "too few"),
// fewWarn those of them that warn (gated), fewMax the most pairs among the
// warning ones (else among all of them); newGated the gated metrics the
// baseline does not have; incomparable the metrics that fail as not
// comparable.
type counts struct {
	regressed, floors, lost, improved, few, fewWarn, fewMax, tested, incomparable, newGated int
}

func tally(r *compare.Report) counts {
	var c counts
	for _, m := range r.Metrics {
		switch m.Change {
		case compare.VerdictImprovement:
			c.improved++
		case compare.VerdictInsufficientData:
			if m.N == 0 {
				break
			}
			c.few++
			if !m.ReportOnly {
				c.fewWarn++
			}
		case compare.VerdictNewMetric:
			if !m.ReportOnly {
				c.newGated++
			}
		}
		if !m.ReportOnly && (m.Change == compare.VerdictRegression || m.Change == compare.VerdictImprovement || m.Change == compare.VerdictNoChange) {
			// Only a gated metric's test can make the gate pass: a
			// report-only metric compared beside gated ones that are all
			// new is a note, not "no significant regression".
			c.tested++
		}
		if m.Status != compare.StatusFail {
			continue
		}
		switch {
		case m.Change == compare.VerdictRegression:
			c.regressed++
		case m.Change == compare.VerdictNotComparable:
			c.incomparable++
		case m.LostScores:
			c.lost++
		case breached(m):
			c.floors++
		}
	}
	for _, m := range r.Metrics {
		if m.Change == compare.VerdictInsufficientData && m.N > 0 && (c.fewWarn == 0 || !m.ReportOnly) {
			c.fewMax = max(c.fewMax, m.N)
		}
	}
	return c
}

// failedHeadline names what failed the gate.
func failedHeadline(r *compare.Report, c counts) cell {
	var parts []string
	if c.regressed > 0 {
		parts = append(parts, plural(c.regressed, "metric", "metrics")+" regressed")
	}
	if n := failingSegments(r); n > 0 {
		parts = append(parts, plural(n, "segment regression", "segment regressions"))
	}
	if c.lost > 0 {
		parts = append(parts, plural(c.lost, "metric", "metrics")+" lost scores")
	}
	if c.floors > 0 {
		parts = append(parts, plural(c.floors, "floor", "floors")+" breached")
	}
	if c.incomparable > 0 {
		parts = append(parts, plural(c.incomparable, "metric", "metrics")+" not comparable")
	}
	if r.Head.Incomplete != "" {
		parts = append(parts, "head run incomplete")
	}
	if hasFinding(r, compare.KindHeadEmpty, compare.LevelFail) {
		parts = append(parts, "head has no samples")
	}
	if hasFinding(r, compare.KindHeadTooSmall, compare.LevelFail) {
		parts = append(parts, "head too small to stand for the base")
	}
	if hasFinding(r, compare.KindJudgeChanged, compare.LevelFail) {
		parts = append(parts, "judge changed")
	}
	if hasFinding(r, compare.KindMissingBaseline, compare.LevelFail) {
		parts = append(parts, "no baseline")
	}
	if len(parts) == 0 {
		parts = append(parts, "failed")
	}
	text := strings.Join(parts, ", ")
	if !r.HasBaseline && !hasFinding(r, compare.KindMissingBaseline, compare.LevelFail) {
		text += " (no baseline yet: floors only)"
	}
	return cell{kindBad, text}
}

// hasFinding reports whether r has a finding of kind at level.
func hasFinding(r *compare.Report, kind compare.Kind, level compare.Level) bool {
	for _, f := range r.Findings {
		if f.Kind == kind && f.Level == level {
			return true
		}
	}
	return false
}

// floorsOnlyHeadline is the passing verdict without a baseline.
func floorsOnlyHeadline(r *compare.Report) cell {
	checked := 0
	for _, m := range r.Metrics {
		if m.Floor != compare.FloorNone {
			checked++
		}
	}
	if checked == 0 {
		return cell{kindGood, "no baseline yet: floors only (no floors set)"}
	}
	met := plural(checked, "floor", "floors") + " met"
	if checked > 1 {
		met = "all " + met
	}
	return cell{kindGood, "no baseline yet: floors only; " + met}
}

// passedHeadline is the passing verdict of a comparison with a baseline.
func passedHeadline(r *compare.Report, c counts) cell {
	if c.tested == 0 && c.fewWarn > 0 {
		return cell{kindWarn, "passed, but " + fewPairs(r, c)}
	}
	if c.tested == 0 && c.fewWarn == 0 {
		// Report-only metrics are notes, not the headline.
		text := "no gated metric compared"
		if c.newGated > 0 {
			text += fmt.Sprintf(" (%s not in the baseline: store a baseline that scores them)", plural(c.newGated, "new metric", "new metrics"))
		}
		if ro := comparedReportOnly(r); len(ro) > 0 {
			// Say what could have been gated: an imported file's catalogue
			// metrics outside the core five are report-only unless the
			// thresholds' gate list names them.
			text += fmt.Sprintf("; compared but report-only: %s (the thresholds' gate list or report_only decides what gates)", strings.Join(ro, ", "))
		}
		return cell{kindWarn, text}
	}
	text := "no significant regression"
	var extra []string
	if c.improved > 0 {
		extra = append(extra, plural(c.improved, "metric", "metrics")+" improved")
	}
	if c.few > 0 {
		extra = append(extra, plural(c.few, "metric", "metrics")+" not tested: too few pairs")
	}
	if len(extra) > 0 {
		text += "; " + strings.Join(extra, "; ")
	}
	return cell{kindGood, text}
}

// comparedReportOnly names the report-only metrics the comparison tested.
func comparedReportOnly(r *compare.Report) []string {
	var names []string
	for _, m := range r.Metrics {
		if m.ReportOnly && m.N > 0 && (m.Change == compare.VerdictRegression || m.Change == compare.VerdictImprovement || m.Change == compare.VerdictNoChange) {
			names = append(names, m.Metric)
		}
	}
	return names
}

// fewPairs says that metrics went untested for want of pairs, with the
// most pairs any of them had (not the paired samples: a metric pairs only
// where both sides scored it).
func fewPairs(r *compare.Report, c counts) string {
	need := r.Settings.Defaults.MinSamples
	if c.tested == 0 {
		return fmt.Sprintf("too few paired samples to test (%d; the thresholds need %d)", c.fewMax, need)
	}
	n := c.fewWarn
	if n == 0 {
		n = c.few
	}
	return fmt.Sprintf("%s not tested: too few pairs (%d; the thresholds need %d)", plural(n, "metric", "metrics"), c.fewMax, need)
}

// failingSegments counts the segment metrics that fail the gate.
func failingSegments(r *compare.Report) int {
	n := 0
	for _, k := range r.Segments {
		for _, s := range k.Segments {
			for _, m := range s.Metrics {
				if m.Status == compare.StatusFail {
					n++
				}
			}
		}
	}
	return n
}

// legendExtras are the legend sentences the table needs beyond the fixed
// ones: report-only metrics and lost scores, when the report has them.
func legendExtras(r *compare.Report) []string {
	var reportOnly, lost bool
	for _, m := range r.Metrics {
		reportOnly = reportOnly || m.ReportOnly
		lost = lost || m.LostScores
	}
	var out []string
	if r.Sequential != nil {
		out = append(out, "sequential check: for the gated metrics, delta and its interval are the estimate over every sample (unchanged ones judged first, the rest a random draw) and its anytime-valid confidence sequence, decided without a p-value; base and head are the judged pairs' means, so delta need not be head - base")
	}
	if lost {
		out = append(out, "lost N scores: N paired samples scored on base are undefined on head, significantly more than the reverse (exact sign test, in the same correction)")
	}
	if reportOnly && r.HasBaseline {
		out = append(out, "report-only: not in the gated family (thresholds gate / report_only), never fails the gate; its p is corrected among the report-only metrics")
	}
	return out
}
