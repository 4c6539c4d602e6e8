package results

import (
	"fmt"
	"strings"
)

// TooManyUndefined names the metrics the judge failed to score on more
// than limit (a share, 0 to 1) of the samples, with the most frequent
// reason of each; "" when there are none or limit is 1 or more. Only
// judge-kind undefined scores count (see KindOf): a missing or empty
// field, or a response with nothing to decompose, is not a judge failure.
func (f *File) TooManyUndefined(limit float64) string {
	if limit >= 1 || f.Len() == 0 {
		return ""
	}
	var bad []string
	counts := f.judgeUndefined(f.Config.Metrics)
	for i, m := range f.Config.Metrics {
		n, top := counts[i].n, counts[i].top()
		if float64(n) > limit*float64(f.Len()) {
			msg := fmt.Sprintf("%s undefined for %d of %d samples", m, n, f.Len())
			if top != "" {
				msg += " (most often: " + top + ")"
			}
			bad = append(bad, msg)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "too many samples unscored: " + strings.Join(bad, "; ")
}

// undefinedCount is how many samples a metric is undefined on, and why.
type undefinedCount struct {
	n       int
	reasons map[string]int
}

// top returns the most frequent reason (the first in byte order on a
// tie).
func (c undefinedCount) top() (top string) {
	topN := 0
	for r, k := range c.reasons {
		if k > topN || (k == topN && r < top) {
			top, topN = r, k
		}
	}
	return top
}

// judgeUndefined counts, for each metric of ms, the samples whose score
// the judge left undefined and their reasons.
func (f *File) judgeUndefined(ms []string) []undefinedCount {
	t := f.counts()
	out := make([]undefinedCount, len(ms))
	for i, m := range ms {
		if c := t.judge[m]; c != nil {
			out[i] = *c
		}
	}
	return out
}

// Scored counts the defined scores of f (every metric of every sample)
// and returns the most frequent reason of its undefined ones (the first
// in byte order on a tie; "" when none is recorded).
func (f *File) Scored() (n int, topReason string) {
	t := f.counts()
	n = t.scored
	topN := 0
	for r, c := range t.undefined {
		if c > topN || (c == topN && r < topReason) {
			topReason, topN = r, c
		}
	}
	return n, topReason
}
