// Package textdist holds the one edit distance of raggate: the
// string_similarity metric (metrics) and the "did you mean" of every error
// message (internal/suggest) both use it. It imports the standard library
// only.
package textdist

// Distance is the Levenshtein distance of a and b, counted in runes: the
// fewest insertions, deletions and substitutions that turn one into the
// other.
func Distance(a, b string) int { return Levenshtein([]rune(a), []rune(b)) }

// Levenshtein is the unit-cost edit distance of two rune sequences. The common prefix and
// suffix never cost anything and are skipped; the rest is the classic
// dynamic programme over one row of the shorter string.
func Levenshtein(a, b []rune) int {
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(b) == 0 {
		return len(a)
	}
	// row[j] is the distance between the current prefix of a and b[:j].
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i, ra := range a {
		diag := row[0] // distance of a[:i] and b[:0]
		row[0] = i + 1
		for j, rb := range b {
			cost := diag
			if ra != rb {
				cost++
			}
			diag = row[j+1]
			row[j+1] = min(cost, row[j]+1, row[j+1]+1)
		}
	}
	return row[len(b)]
}
