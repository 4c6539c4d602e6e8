package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// SequentialNote is the sentence a sequential check logs once judged:
// how many samples it judged.
func SequentialNote(q *results.Sequential) string {
	switch {
	case q.DecidedAfter > 0 && q.Judged < q.Total:
		return fmt.Sprintf("sequential check: decided after %s of %s samples (%s left unjudged)",
			FormatInt(q.DecidedAfter), FormatInt(q.Total), FormatInt(q.Total-q.Judged))
	case q.Judged < q.Total:
		return fmt.Sprintf("sequential check: stopped before deciding, %s of %s samples judged", FormatInt(q.Judged), FormatInt(q.Total))
	}
	return fmt.Sprintf("sequential check: not decided early; %s judged", samplesPhrase(q.Total))
}

// samplesPhrase is "all 1,000 samples", or "its 1 sample".
func samplesPhrase(n int) string {
	if n == 1 {
		return "its 1 sample"
	}
	return "all " + FormatInt(n) + " samples"
}

// saved says what a sequential check saved: the share of a full check's
// chat calls it did not make, or, for a judge that makes none, the share
// of samples it left unjudged.
func saved(q *compare.SeqSummary) string {
	if q.CallsFull > 0 {
		share := 100 * (1 - float64(q.CallsMade)/float64(q.CallsFull))
		if share > 99 && q.CallsMade > 0 {
			return ">99% of judge calls saved"
		}
		return fmt.Sprintf("%.0f%% of judge calls saved", share)
	}
	if q.Total <= 0 {
		return "nothing saved"
	}
	return fmt.Sprintf("%.0f%% of the samples not judged", 100*float64(q.Total-q.Judged)/float64(q.Total))
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
	switch {
	case q.DecidedAfter > 0 && q.Judged < q.Total:
		fmt.Fprintf(&b, "Sequential check: decided after %s of %s samples (%s).",
			FormatInt(q.DecidedAfter), FormatInt(q.Total), saved(q))
	case q.Judged < q.Total:
		fmt.Fprintf(&b, "Sequential check: stopped before deciding, %s of %s samples judged.", FormatInt(q.Judged), FormatInt(q.Total))
	default:
		fmt.Fprintf(&b, "Sequential check: not decided early; %s judged, decided at the end.", samplesPhrase(q.Total))
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
	switch {
	case len(open) > 0 && q.DecidedAfter > 0:
		b.WriteString(" Not decided when the check stopped on a failure: " + strings.Join(open, ", ") + ".")
	case len(open) > 0 && q.Judged < q.Total:
		b.WriteString(" Not decided when the run stopped: " + strings.Join(open, ", ") + ".")
	}
	if len(q.FixedOnly) > 0 {
		b.WriteString(" Decided at the end with the fixed design (no bounded range): " + strings.Join(q.FixedOnly, ", ") + ".")
	}
	return b.String()
}
