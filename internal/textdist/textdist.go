// Package textdist holds the one edit distance of raggate: the
// string_similarity metric (metrics) and the "did you mean" of every error
// message (internal/suggest) both use it. It imports the standard library
// only.
package textdist

import "math/bits"

// Distance is the Levenshtein distance of a and b, counted in runes: the
// fewest insertions, deletions and substitutions that turn one into the
// other.
func Distance(a, b string) int { return Levenshtein([]rune(a), []rune(b)) }

// Levenshtein is the unit-cost edit distance of two rune sequences. The
// common prefix and suffix never cost anything and are skipped; the rest
// is computed with the bit-parallel algorithm of Myers (1999) in Hyyrö's
// form for the edit distance: the columns of the classic dynamic
// programme over the shorter string are held as vertical deltas in 64-bit
// words, so a pair of texts of n and m runes costs about n x m/64 word
// operations instead of n x m cells (the distance is the same integer).
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
	return myers(b, a)
}

// myers is the edit distance of the pattern p (not empty) and the text t,
// by blocks of 64 pattern runes (Myers 1999, "A fast bit-vector algorithm
// for approximate string matching based on dynamic programming", the
// block-based advance with the top row D[0][j] = j of the global
// distance).
func myers(p, t []rune) int {
	m := len(p)
	nb := (m + 63) / 64
	// The pattern's alphabet: ASCII runes index a table, others a map.
	// Symbol 0 is any rune not in the pattern (its match vector is zero).
	var ascii [128]int32
	var other map[rune]int32
	symbols := int32(1)
	symbolOf := func(r rune, add bool) int32 {
		if r >= 0 && r < 128 {
			if ascii[r] == 0 && add {
				ascii[r] = symbols
				symbols++
			}
			return ascii[r]
		}
		s, ok := other[r]
		if !ok && add {
			if other == nil {
				other = map[rune]int32{}
			}
			s = symbols
			other[r] = s
			symbols++
		}
		return s
	}
	syms := make([]int32, m)
	for i, r := range p {
		syms[i] = symbolOf(r, true)
	}
	// peq[s*nb+k] has bit i set when pattern rune 64k+i is symbol s.
	peq := make([]uint64, int(symbols)*nb)
	for i, s := range syms {
		peq[int(s)*nb+i/64] |= 1 << (i % 64)
	}
	// vp and vn are the vertical +1 and -1 deltas of the current column.
	vp := make([]uint64, nb)
	vn := make([]uint64, nb)
	for k := range vp {
		vp[k] = ^uint64(0)
	}
	last := uint64(1) << ((m - 1) % 64)
	score := m
	for _, r := range t {
		eqs := peq[int(symbolOf(r, false))*nb:][:nb]
		// hin is the horizontal delta entering the block from above:
		// +1 on the top row of the global distance.
		hin := 1
		for k := range nb {
			pv, mv, eq := vp[k], vn[k], eqs[k]
			xv := eq | mv
			if hin < 0 {
				eq |= 1
			}
			sum, _ := bits.Add64(eq&pv, pv, 0)
			xh := (sum ^ pv) | eq
			ph := mv | ^(xh | pv)
			mh := pv & xh
			high := uint64(1) << 63
			if k == nb-1 {
				high = last
			}
			hout := 0
			if ph&high != 0 {
				hout = 1
			} else if mh&high != 0 {
				hout = -1
			}
			ph <<= 1
			mh <<= 1
			if hin < 0 {
				mh |= 1
			} else if hin > 0 {
				ph |= 1
			}
			vp[k] = mh | ^(xv | ph)
			vn[k] = ph & xv
			hin = hout
		}
		score += hin
	}
	return score
}
