package metrics

import (
	"math"
	"strings"

	"github.com/raggate/raggate/internal/textdist"
)

// This file holds the non-LLM metrics: string similarity (the rapidfuzz
// distances Ragas uses), the non-LLM context precision and recall built on
// it, exact match and string presence. Strings are compared as sequences
// of Unicode code points (Go runes), as Python compares str values; a
// byte that is not valid UTF-8 reads as U+FFFD.

// DistanceMeasure names a string distance for StringSimilarity and the
// non-LLM context metrics.
type DistanceMeasure string

// The distance measures. The empty DistanceMeasure means Levenshtein.
const (
	// Levenshtein is the edit distance (insertions, deletions and
	// substitutions, each costing 1) divided by the longer length.
	Levenshtein DistanceMeasure = "levenshtein"
	// Hamming counts differing positions, the shorter string padded so that
	// each missing position is a mismatch, divided by the longer length.
	Hamming DistanceMeasure = "hamming"
	// Jaro is 1 - the Jaro similarity.
	Jaro DistanceMeasure = "jaro"
	// JaroWinkler is 1 - the Jaro-Winkler similarity (prefix weight 0.1
	// over at most 4 characters, applied only when Jaro > 0.7).
	JaroWinkler DistanceMeasure = "jaro_winkler"
)

// jaroWinklerPrefixWeight and jaroWinklerMaxPrefix are Winkler's standard
// parameters; jaroWinklerBoostThreshold is the Jaro score above which the
// prefix bonus applies.
const (
	jaroWinklerPrefixWeight   = 0.1
	jaroWinklerMaxPrefix      = 4
	jaroWinklerBoostThreshold = 0.7
)

// StringSimilarity is 1 - the normalized distance between a and b under
// measure, in [0, 1]: 1 for equal strings (two empty strings included), 0
// when exactly one string is empty. Lengths are counted in runes.
//
//   - Levenshtein: 1 - edit distance / max(len(a), len(b)).
//   - Hamming: 1 - mismatches / max(len(a), len(b)); positions past the
//     shorter string's end are mismatches.
//   - Jaro: matches are equal runes at most max(len)/2 - 1 positions apart,
//     each rune matched at most once, greedily in order of a; t is half the
//     number of matched runes out of order, rounded down (as in rapidfuzz
//     and Winkler's reference code); jaro = (m/len(a) + m/len(b) +
//     (m-t)/m) / 3, and 0 when m = 0.
//   - JaroWinkler: jaro + p x 0.1 x (1 - jaro) when jaro > 0.7, where p is
//     the length of the common prefix, at most 4; otherwise jaro.
//
// The empty measure means Levenshtein; an unknown measure gives NaN.
func StringSimilarity(a, b string, measure DistanceMeasure) float64 {
	ra, rb := []rune(a), []rune(b)
	switch measure {
	case Levenshtein, "":
		return 1 - normalize(textdist.Levenshtein(ra, rb), max(len(ra), len(rb)))
	case Hamming:
		return 1 - normalize(hammingDistance(ra, rb), max(len(ra), len(rb)))
	case Jaro:
		// Ragas reports 1 - rapidfuzz's normalized distance, which is
		// itself 1 - similarity; keep both steps so the float is identical.
		return 1 - (1 - jaroSimilarity(ra, rb))
	case JaroWinkler:
		return 1 - (1 - jaroWinklerSimilarity(ra, rb))
	}
	return math.NaN()
}

// normalize divides a distance by the longer length, 0 for two empty
// strings (rapidfuzz's normalized distance).
func normalize(dist, maxLen int) float64 {
	if maxLen == 0 {
		return 0
	}
	return float64(dist) / float64(maxLen)
}

// hammingDistance counts differing positions; every position past the end
// of the shorter string is a difference (rapidfuzz's pad=True).
func hammingDistance(a, b []rune) int {
	n := min(len(a), len(b))
	dist := max(len(a), len(b)) - n
	for i := range n {
		if a[i] != b[i] {
			dist++
		}
	}
	return dist
}

// jaroSimilarity is the Jaro similarity of a and b; see StringSimilarity.
func jaroSimilarity(a, b []rune) float64 {
	la, lb := len(a), len(b)
	switch {
	case la == 0 && lb == 0:
		return 1
	case la == 0 || lb == 0:
		return 0
	case la == 1 && lb == 1:
		// The window formula would give -1 here; single runes simply match
		// or not.
		if a[0] == b[0] {
			return 1
		}
		return 0
	}
	window := max(la, lb)/2 - 1 // >= 0 since the longer string has >= 2 runes

	matchedA := make([]bool, la)
	matchedB := make([]bool, lb)
	m := 0
	for i, r := range a {
		for j := max(0, i-window); j <= min(lb-1, i+window); j++ {
			if !matchedB[j] && b[j] == r {
				matchedA[i], matchedB[j] = true, true
				m++
				break
			}
		}
	}
	if m == 0 {
		return 0
	}

	// Walk the matched runes of both strings in order; each position where
	// they differ is half a transposition.
	outOfOrder, j := 0, 0
	for i, r := range a {
		if !matchedA[i] {
			continue
		}
		for !matchedB[j] {
			j++
		}
		if r != b[j] {
			outOfOrder++
		}
		j++
	}
	t := outOfOrder / 2 // integer division, as rapidfuzz

	fm := float64(m)
	sim := fm / float64(la)
	sim += fm / float64(lb)
	sim += (fm - float64(t)) / fm
	return sim / 3
}

// jaroWinklerSimilarity boosts the Jaro similarity of strings sharing a
// prefix; see StringSimilarity.
func jaroWinklerSimilarity(a, b []rune) float64 {
	prefix := 0
	for prefix < min(len(a), len(b), jaroWinklerMaxPrefix) && a[prefix] == b[prefix] {
		prefix++
	}
	sim := jaroSimilarity(a, b)
	if sim > jaroWinklerBoostThreshold {
		sim += float64(prefix) * jaroWinklerPrefixWeight * (1 - sim)
		sim = min(sim, 1)
	}
	return sim
}

// NonLLMContextPrecision is context precision without a judge: retrieved
// context i is relevant when its highest StringSimilarity to any reference
// context is >= threshold (DefaultNonLLMThreshold is 0.5), and the
// verdicts are scored with AveragePrecision.
//
// No retrieved context gives 0 (AveragePrecision of no verdicts). Retrieved
// contexts but no reference context gives NaN (Ragas fails on such a
// sample: there is nothing to compare with). An unknown measure gives NaN.
func NonLLMContextPrecision(retrieved, reference []string, threshold float64, measure DistanceMeasure) float64 {
	if !knownMeasure(measure) {
		return math.NaN()
	}
	if len(retrieved) == 0 {
		return 0
	}
	if len(reference) == 0 {
		return math.NaN()
	}
	verdicts := make([]bool, len(retrieved))
	for i, rc := range retrieved {
		best := math.Inf(-1)
		for _, ref := range reference {
			best = max(best, StringSimilarity(rc, ref, measure))
		}
		verdicts[i] = best >= threshold
	}
	return AveragePrecision(verdicts)
}

// NonLLMContextRecall is context recall without a judge: the share of
// reference contexts whose highest StringSimilarity to any retrieved
// context is strictly greater than threshold (DefaultNonLLMThreshold is
// 0.5). Note the asymmetry with NonLLMContextPrecision's >=, which is
// Ragas's.
//
// No reference context gives NaN. No retrieved context (with some
// reference contexts) gives 0: nothing was recalled. An unknown measure
// gives NaN.
func NonLLMContextRecall(retrieved, reference []string, threshold float64, measure DistanceMeasure) float64 {
	if !knownMeasure(measure) || len(reference) == 0 {
		return math.NaN()
	}
	recalled := 0
	for _, ref := range reference {
		best := math.Inf(-1)
		for _, rc := range retrieved {
			// Same argument order as Ragas: (retrieved, reference).
			best = max(best, StringSimilarity(rc, ref, measure))
		}
		if best > threshold {
			recalled++
		}
	}
	return float64(recalled) / float64(len(reference))
}

func knownMeasure(m DistanceMeasure) bool {
	switch m {
	case Levenshtein, Hamming, Jaro, JaroWinkler, "":
		return true
	}
	return false
}

// ExactMatch is 1 when response equals reference byte for byte, else 0.
func ExactMatch(reference, response string) float64 {
	if reference == response {
		return 1
	}
	return 0
}

// StringPresence is 1 when reference occurs in response as a substring,
// else 0. An empty reference is present in every response (Python's
// "" in s is true).
func StringPresence(reference, response string) float64 {
	if strings.Contains(response, reference) {
		return 1
	}
	return 0
}
