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
	if limit >= 1 || len(f.Samples) == 0 {
		return ""
	}
	var bad []string
	for _, m := range f.Config.Metrics {
		n, top := f.judgeUndefined(m)
		if float64(n) > limit*float64(len(f.Samples)) {
			msg := fmt.Sprintf("%s undefined for %d of %d samples", m, n, len(f.Samples))
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

// judgeUndefined counts the samples whose score of metric m the judge
// left undefined and returns the most frequent reason (the first in
// byte order on a tie).
func (f *File) judgeUndefined(m string) (n int, top string) {
	reasons := map[string]int{}
	for i := range f.Samples {
		s := &f.Samples[i]
		if s.KindOf(m) != KindJudge {
			continue
		}
		n++
		reasons[s.Undefined[m]]++
	}
	topN := 0
	for r, c := range reasons {
		if c > topN || (c == topN && r < top) {
			top, topN = r, c
		}
	}
	return n, top
}

// Scored counts the defined scores of f (every metric of every sample)
// and returns the most frequent reason of its undefined ones (the first
// in byte order on a tie; "" when none is recorded).
func (f *File) Scored() (n int, topReason string) {
	reasons := map[string]int{}
	for i := range f.Samples {
		s := &f.Samples[i]
		for m, v := range s.Scores {
			if !v.IsNaN() {
				n++
			} else if r, ok := s.Undefined[m]; ok {
				reasons[r]++
			}
		}
	}
	topN := 0
	for r, c := range reasons {
		if c > topN || (c == topN && r < topReason) {
			topReason, topN = r, c
		}
	}
	return n, topReason
}
