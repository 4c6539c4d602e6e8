// Package suggest finds the likely intended name behind a typo, for the
// "did you mean" of error messages (commands, dataset fields, thresholds
// keys, metric names). Pure: no I/O.
package suggest

import "strings"

// Closest returns the candidate nearest to s by edit distance, ignoring
// case, or "" when none is close enough to be a likely typo: at most a third
// of the shorter name's length (at least 1; 2 for names of 3 characters or
// more, so a swapped pair of letters is caught).
func Closest(s string, candidates []string) string {
	ls := strings.ToLower(strings.TrimSpace(s))
	if ls == "" {
		return ""
	}
	best, bestD := "", -1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := Distance(ls, lc)
		n := min(len([]rune(ls)), len([]rune(lc)))
		limit := max(1, n/3)
		if n >= 3 {
			limit = max(2, limit)
		}
		if d <= limit && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
