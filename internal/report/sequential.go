package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// SequentialNote is the sentence a sequential check logs once judged:
// how many samples it judged and what that saved.
func SequentialNote(q *results.Sequential) string {
	if q.DecidedAfter > 0 && q.DecidedAfter < q.Total {
		return fmt.Sprintf("sequential check: decided after %s of %s samples (%s of judge calls saved)",
			FormatInt(q.DecidedAfter), FormatInt(q.Total), savedShare(q.Judged, q.Total))
	}
	return fmt.Sprintf("sequential check: not decided early; judged all %s samples", FormatInt(q.Total))
}

// savedShare is the share of a full run's judge calls a sequential check
// did not make: the samples it left unjudged.
func savedShare(judged, total int) string {
	if total <= 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(total-judged)/float64(total))
}

// SequentialLine is the report's sentence about a sequential check, ""
// for a check that is not one: when it decided, what it saved, and, when
// the gated metrics were decided at different points, when each was.
func SequentialLine(r *compare.Report) string {
	q := r.Sequential
	if q == nil {
		return ""
	}
	var b strings.Builder
	if q.DecidedAfter > 0 && q.DecidedAfter < q.Total {
		fmt.Fprintf(&b, "Sequential check: decided after %s of %s samples (%s of judge calls saved).",
			FormatInt(q.DecidedAfter), FormatInt(q.Total), savedShare(q.Judged, q.Total))
	} else {
		fmt.Fprintf(&b, "Sequential check: not decided early; all %s samples judged, decided at the end.", FormatInt(q.Total))
	}
	type at struct {
		metric string
		n      int
	}
	var ats []at
	var open []string
	differ := false
	for _, m := range r.Metrics {
		if m.Sequential == nil {
			continue
		}
		if m.Sequential.Decision == compare.SeqUndecided || m.Sequential.DecidedAfter == 0 {
			open = append(open, m.Metric)
			continue
		}
		ats = append(ats, at{m.Metric, m.Sequential.DecidedAfter})
		if len(ats) > 1 && ats[0].n != m.Sequential.DecidedAfter {
			differ = true
		}
	}
	if differ {
		sort.SliceStable(ats, func(i, j int) bool { return ats[i].n < ats[j].n })
		parts := make([]string, len(ats))
		for i, a := range ats {
			parts[i] = fmt.Sprintf("%s after %s", a.metric, FormatInt(a.n))
		}
		b.WriteString(" Decided: " + strings.Join(parts, ", ") + ".")
	}
	if len(open) > 0 {
		b.WriteString(" Not decided when the check stopped on a failure: " + strings.Join(open, ", ") + ".")
	}
	if len(q.FixedOnly) > 0 {
		b.WriteString(" Decided at the end with the fixed design (no bounded range): " + strings.Join(q.FixedOnly, ", ") + ".")
	}
	return b.String()
}
