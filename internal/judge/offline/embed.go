package offline

import (
	"math"
	"unicode/utf8"
)

// FNV-1a, 64 bits (as hash/fnv.New64a), inlined to hash without allocating.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

// featureHash is the FNV-1a hash of kind followed by the bytes of parts.
func featureHash(kind string, parts ...string) uint64 {
	h := uint64(fnvOffset64)
	for i := 0; i < len(kind); i++ {
		h ^= uint64(kind[i])
		h *= fnvPrime64
	}
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			h ^= uint64(p[i])
			h *= fnvPrime64
		}
	}
	return h
}

// embed returns the hashed-feature vector of text (see the package doc):
// character trigrams of words with boundary markers ("c:<co", "c:com",
// ...), stemmed words ("w:compani") and numbers ("n:1998"), each adding +1
// or -1 (the hash's top bit) to bucket hash mod dim, then L2-normalised.
// Counts are integers, so the result is exact and the same on every
// platform; a text without words is the zero vector.
func embed(text string, dim int) []float64 {
	counts := make([]int64, dim)
	add := func(h uint64) {
		if h>>63 == 1 {
			counts[h%uint64(dim)]--
		} else {
			counts[h%uint64(dim)]++
		}
	}
	toks := tokenize(text)
	content := false
	for _, t := range toks {
		if isContent(t) {
			content = true
			break
		}
	}
	for _, t := range toks {
		w := t.word
		switch {
		case content && t.num != "":
			add(featureHash("n:", t.num))
			continue
		case content && !isContent(t):
			continue
		case w == "":
			w = t.num
		}
		// Trigrams of "<" + w + ">", by rune.
		padded := "<" + w + ">"
		if utf8.RuneCountInString(padded) <= 3 {
			add(featureHash("c:", padded))
		} else {
			a := 0                                   // start of the trigram
			_, s1 := utf8.DecodeRuneInString(padded) // size of its first rune
			_, s2 := utf8.DecodeRuneInString(padded[s1:])
			b := s1 + s2 // start of its third rune
			for b < len(padded) {
				_, s3 := utf8.DecodeRuneInString(padded[b:])
				add(featureHash("c:", padded[a:b+s3]))
				a += s1
				s1, s2 = s2, s3
				b += s3
			}
		}
		if content {
			add(featureHash("w:", stem(w)))
		} else {
			add(featureHash("w:", w))
		}
	}
	vec := make([]float64, dim)
	var sq int64
	for _, c := range counts {
		sq += c * c
	}
	if sq == 0 {
		return vec
	}
	norm := math.Sqrt(float64(sq))
	for i, c := range counts {
		vec[i] = float64(c) / norm
	}
	return vec
}
