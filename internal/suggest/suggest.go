// Package suggest finds the likely intended name behind a typo, for the
// "did you mean" of error messages (commands, dataset fields, thresholds
// keys, metric names). Pure: no I/O. Its edit distance is the one of
// the string_similarity metric (textdist.Distance).
package suggest

import (
	"slices"
	"strings"
	"unicode"

	"github.com/raggate/raggate/internal/textdist"
)

// Closest returns the candidate nearest to s by edit distance, ignoring
// case, or "" when none is close enough to be a likely typo: at most a third
// of the shorter name's length (at least 1; 2 for names of 3 characters or
// more, so a swapped pair of letters is caught).
func Closest(s string, candidates []string) string {
	return nearest(s, candidates, textdist.Distance, func(ls, lc string) int {
		n := min(len([]rune(ls)), len([]rune(lc)))
		if n >= 3 {
			return max(2, n/3)
		}
		return 1
	})
}

// nearest returns the candidate with the smallest distance to s (both
// lower-cased) among those within their limit, the first on a tie; "" when
// s is blank or no candidate is within its limit.
func nearest(s string, candidates []string, distance func(a, b string) int, limit func(ls, lc string) int) string {
	ls := strings.ToLower(strings.TrimSpace(s))
	if ls == "" {
		return ""
	}
	best, bestD := "", -1
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if d := distance(ls, lc); d <= limit(ls, lc) && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

// Misspelling returns the candidate that s most likely misspells, or "" when
// s is better read as a name of its own. It is much tighter than Closest,
// for callers that accept unknown names (such as extra dataset columns) and
// only want to stop on likely typos. Case is ignored; s misspells c when:
//
//   - it differs from c only in case, or
//   - c is longer than 4 characters and s is at most max(1, len(c)/5)
//     edits away from it (3 at most), a swap of two adjacent letters
//     counting as one edit, and
//   - s is not c with a prefix or suffix set off by a non-letter
//     (answer_score, gt_answer and contexts2 are names of their own), and
//   - s and c are not siblings: names that differ in one short token (a
//     number, or at most 2 letters: context_v1 and context_v2, answer_a
//     and answer_b, answer_gpt4o and answer_gpt4; see siblings) are
//     columns of their own.
func Misspelling(s string, candidates []string) string {
	others := make([]string, 0, len(candidates))
	for _, c := range candidates {
		if !siblings(s, c) {
			others = append(others, c)
		}
	}
	best := nearest(s, others, swapDistance, func(_, lc string) int {
		if n := len([]rune(lc)); n > 4 {
			return min(3, max(1, n/5))
		}
		return 0
	})
	if best != "" && extends(strings.ToLower(strings.TrimSpace(s)), strings.ToLower(best)) {
		return ""
	}
	return best
}

// siblings reports whether a and b (ignoring case and surrounding space)
// are the columns of one family rather than a typo of each other: split
// into tokens on _ - . and at digit/letter boundaries, they differ in one
// token, or one has a token more, and each differing token is short (at
// most 2 letters) or a number: context_v1 and context_v2, chunk_1 and
// chunk_10, answer_a and answer_b, model_a_answer and model_b_answer,
// answer_gpt4o and answer_gpt4.
func siblings(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if a == b {
		return false
	}
	ta, tb := tokens(a), tokens(b)
	if len(ta) < len(tb) {
		ta, tb = tb, ta
	}
	switch len(ta) - len(tb) {
	case 0:
		diff := -1
		for i := range ta {
			if ta[i] != tb[i] {
				if diff >= 0 {
					return false
				}
				diff = i
			}
		}
		return diff >= 0 && shortToken(ta[diff]) && shortToken(tb[diff])
	case 1:
		// ta is tb with one token inserted at i.
		i := 0
		for i < len(tb) && ta[i] == tb[i] {
			i++
		}
		return shortToken(ta[i]) && slices.Equal(ta[i+1:], tb[i:])
	}
	return false
}

// tokens splits a lower-cased name on _ - . and space, and where letters
// meet digits: "answer_gpt4o" is answer, gpt, 4, o.
func tokens(s string) []string {
	var out []string
	cur := []rune{}
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
		case len(cur) > 0 && unicode.IsDigit(r) != unicode.IsDigit(cur[len(cur)-1]):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// shortToken: a number, or a word of at most 2 letters (a, b, v, en).
func shortToken(t string) bool {
	if n := len([]rune(t)); n <= 2 {
		return true
	}
	for _, r := range t {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// extends reports whether s is c plus a prefix or suffix that starts (or
// ends) with a non-letter.
func extends(s, c string) bool {
	nonLetter := func(b byte) bool { return b < 'a' || b > 'z' }
	if len(s) > len(c) && strings.HasPrefix(s, c) && nonLetter(s[len(c)]) {
		return true
	}
	return len(s) > len(c) && strings.HasSuffix(s, c) && nonLetter(s[len(s)-len(c)-1])
}

// swapDistance is the edit distance of a and b in which swapping two
// adjacent characters counts as one edit (optimal string alignment).
func swapDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
