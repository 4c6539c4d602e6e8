package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/raggate/raggate/internal/compare"
)

// Console writes the comparison for a terminal: the overall verdict, the
// diff table (the columns of the markdown table, through tablewriter), the
// failure, warning and note sentences, and the sample counts. Cells are
// ASCII apart from the table borders; untrusted text is stripped of control
// characters (no escape sequences reach the terminal).
func Console(w io.Writer, r *compare.Report) error {
	return ConsoleWith(w, r, Options{})
}

// ConsoleWith is Console with options: with opts.Trend the table gets a
// trend column (a sparkline of the stored baselines' means and the head's).
func ConsoleWith(w io.Writer, r *compare.Report, opts Options) error {
	if r == nil {
		r = &compare.Report{Passed: true, Verdict: compare.VerdictPass}
	}
	var buf bytes.Buffer
	h := headline(r)
	word := "PASS"
	if !r.Passed {
		word = "FAIL"
	}
	text := strings.TrimPrefix(strings.TrimPrefix(h.text, "passed, but "), "passed ")
	fmt.Fprintf(&buf, "%s: %s: %s\n\n", DefaultGate, word, text)

	if len(r.Metrics) == 0 {
		buf.WriteString("No metrics were scored.\n")
	} else if err := consoleTable(&buf, r, opts); err != nil {
		return err
	}
	lower := false
	for _, m := range r.Metrics {
		lower = lower || lowerIsBetter(m)
	}
	if r.HasBaseline {
		if lower {
			buf.WriteString("* lower is better. ")
		}
		buf.WriteString("base, head: means over the samples scored on both sides; delta = head - base; p: one-sided, in the direction of delta")
		if r.Settings.Defaults.Correction != compare.CorrectionNone {
			buf.WriteString(", Holm-adjusted")
		}
		buf.WriteString(".\n")
		for _, e := range legendExtras(r) {
			buf.WriteString(e + ".\n")
		}
	} else {
		if lower {
			buf.WriteString("* lower is better. ")
		}
		buf.WriteString("No baseline yet: only floors were checked.\n")
	}
	list := func(title string, ss []string) {
		if len(ss) == 0 {
			return
		}
		fmt.Fprintf(&buf, "\n%s:\n", title)
		for _, s := range ss {
			fmt.Fprintf(&buf, "  - %s\n", plain(s, 1000))
		}
	}
	var segs strings.Builder
	consoleSegments(&segs, r)
	buf.WriteString(segs.String())
	list("Failures", sentences(r, compare.LevelFail, nil))
	list("Warnings", sentences(r, compare.LevelWarn, nil))
	list("Notes", sentences(r, compare.LevelNote, nil))
	c := r.Counts
	if r.HasBaseline {
		fmt.Fprintf(&buf, "\nSamples: %s paired, %s new, %s removed.\n", FormatInt(c.Paired), FormatInt(c.New), FormatInt(c.Removed))
	} else {
		fmt.Fprintf(&buf, "\nSamples: %s on head.\n", FormatInt(c.Head))
	}
	if line := SequentialLine(r); line != "" {
		fmt.Fprintf(&buf, "%s\n", line)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func consoleTable(w io.Writer, r *compare.Report, opts Options) error {
	label := func(m compare.MetricResult) string {
		s := plain(m.Metric, 60)
		if lowerIsBetter(m) {
			s += " *"
		}
		return s
	}
	if !r.HasBaseline {
		t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignLeft}}))
		t.Header("metric", "head", "n", "verdict")
		for _, m := range r.Metrics {
			if err := t.Append(label(m), FormatScore(m.HeadMean), fmt.Sprint(m.HeadN), verdictCell(m).console()); err != nil {
				return err
			}
		}
		return t.Render()
	}
	trend := trendCell(r, opts, r.Metrics[0]) != ""
	align := []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignCenter, tw.AlignRight, tw.AlignLeft}
	header := []any{"metric", "base", "head", "delta", "95% CI", "p", "verdict"}
	if trend {
		align, header = append(align, tw.AlignLeft), append(header, "trend")
	}
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}))
	t.Header(header...)
	for _, m := range r.Metrics {
		row := []any{label(m), tableBase(m), tableHead(m), FormatDelta(m.RawDelta),
			FormatCI(m.RawDeltaCI.Low, m.RawDeltaCI.High), FormatP(PValue(m.Paired)), verdictCell(m).console()}
		if trend {
			row = append(row, trendCell(r, opts, m))
		}
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	return t.Render()
}

// JSON returns the report as indented JSON with a trailing newline. HTML
// characters are not escaped, so "p<0.001" stays readable; undefined
// numbers are null. It fills r's sentence lists and reasons first (Fill).
func JSON(r *compare.Report) ([]byte, error) {
	Fill(r)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	return buf.Bytes(), nil
}
