package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// A run that cannot score anything is a bad input, not a pass: checked
// before any call from the fields the dataset has (checkScorable), and
// after the run from what was scored (nothingScored), for columns that
// are there but empty on every sample.

// hasField reports whether some sample of ds has field f, or the run's
// target fills it.
func (o *runState) hasField(ds *dataset.Dataset) func(metrics.Field) bool {
	return func(f metrics.Field) bool { return ds.Fields[f] || o.targetProvides(f) }
}

// checkScorable fails (exit 2) when no metric of ms can be scored on any
// sample: each needs a field that no sample has, or is one the offline
// judge declines. It names the fields the data lacks and what needs them.
func checkScorable(ms []metrics.Metric, has func(metrics.Field) bool, declines func(string) string) error {
	if len(ms) == 0 {
		return nil
	}
	var needs []string
	lacking := map[metrics.Field]bool{}
	for _, m := range ms {
		var missing []string
		for _, f := range m.Needs {
			if !has(f) {
				missing = append(missing, string(f))
				lacking[f] = true
			}
		}
		switch {
		case len(missing) > 0:
			needs = append(needs, m.Name+" needs "+strings.Join(missing, ", "))
		case declines(m.Name) != "":
			needs = append(needs, m.Name+" needs an LLM judge")
		default:
			return nil // m can be scored
		}
	}
	var have, lack []string
	for _, f := range metrics.Fields {
		switch {
		case has(f):
			have = append(have, string(f))
		case lacking[f]:
			lack = append(lack, string(f))
		}
	}
	what := "the dataset has no field a metric reads"
	if len(have) > 0 {
		what = "the dataset has only " + strings.Join(have, ", ")
	}
	if len(lack) > 0 {
		what += " (no sample has " + strings.Join(lack, ", ") + ")"
	}
	return usageErr("no metric can be scored: %s; %s; add those fields to the dataset (or map its columns with --field name=column), or name metrics the data allows with --metrics", what, strings.Join(needs, "; "))
}

// nothingScored is the error (exit 2) of a finished run that scored no
// metric on any sample because of its data alone: every undefined score
// is of kind data (a field missing or empty on every sample). "" when
// something was scored, or some score is undefined for another reason
// (the judge, the target or the metric: checked elsewhere).
func nothingScored(f *results.File) string {
	if f.Len() == 0 || f.Incomplete != "" {
		return ""
	}
	dataOnly, reasons := f.DataOnly() // metric -> reason -> samples
	if !dataOnly {
		return ""
	}
	names := make([]string, 0, len(reasons))
	for m := range reasons {
		names = append(names, m)
	}
	metrics.SortByOrder(names)
	items := make([]string, 0, len(names))
	for _, m := range names {
		items = append(items, m+": "+topReason(reasons[m]))
	}
	return fmt.Sprintf("no metric could be scored on any sample of the dataset: %s; fill those fields in the dataset (or map its columns with --field name=column), or name metrics the data allows with --metrics",
		strings.Join(items, "; "))
}

// topReason is the most frequent reason (the first in byte order on a
// tie).
func topReason(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for r := range counts {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	top, n := "", 0
	for _, r := range keys {
		if counts[r] > n {
			top, n = r, counts[r]
		}
	}
	return top
}
