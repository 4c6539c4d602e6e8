package metrics

import (
	"math"
	"strings"
	"testing"
)

func TestStringSimilarity(t *testing.T) {
	all := []DistanceMeasure{Levenshtein, Hamming, Jaro, JaroWinkler}
	type want struct{ lev, ham, jaro, jw float64 }
	tests := []struct {
		name string
		a, b string
		want want
	}{
		{"two empty strings", "", "", want{1, 1, 1, 1}},
		{"one empty", "abc", "", want{0, 0, 0, 0}},
		{"other empty", "", "abc", want{0, 0, 0, 0}},
		{"equal", "raggate", "raggate", want{1, 1, 1, 1}},
		{"single rune equal", "a", "a", want{1, 1, 1, 1}},
		{"single rune different", "a", "b", want{0, 0, 0, 0}},
		// kitten -> sitting: 3 edits over 7; Hamming: k/s, e/i, pad g = 3
		// mismatches over 7. Jaro: window 2, matches i t t n (m=4), in
		// order, t=0: (4/6 + 4/7 + 1)/3; prefix 0.
		{"kitten/sitting", "kitten", "sitting",
			want{1 - 3.0/7, 1 - 3.0/7, (4.0/6 + 4.0/7 + 1) / 3, (4.0/6 + 4.0/7 + 1) / 3}},
		// MARTHA/MARHTA: 6 matches, T/H crossed -> 2 out of order -> t=1;
		// jaro (1 + 1 + 5/6)/3 = 17/18; prefix MAR = 3:
		// 17/18 + 3*0.1*(1/18). Levenshtein 2 (substitute T and H), Hamming 2.
		{"MARTHA/MARHTA", "MARTHA", "MARHTA", want{1 - 2.0/6, 1 - 2.0/6, 0.9444444444444445, 0.9611111111111111}},
		// DIXON/DICKSONX: window 3; D I O N match (X is 5 away), m=4, t=0:
		// (4/5 + 4/8 + 1)/3 = 23/30; prefix DI = 2: 23/30 + 0.2*(7/30).
		// Levenshtein: DIXON -> DICKSONX is 4 edits (X->C, +K, +S, +X);
		// Hamming: only D, I equal -> 6 of 8.
		{"DIXON/DICKSONX", "DIXON", "DICKSONX", want{1 - 4.0/8, 1 - 6.0/8, 0.7666666666666666, 0.8133333333333332}},
		// DWAYNE/DUANE: window 2; D A N E match, t=0: (4/6 + 4/5 + 1)/3;
		// prefix D = 1.
		{"DWAYNE/DUANE", "DWAYNE", "DUANE", want{1 - 2.0/6, 1 - 4.0/6, 0.8222222222222223, 0.8400000000000001}},
		// Three matched runes all out of order: 3 half-transpositions,
		// t = 3/2 rounded down = 1 (rapidfuzz; the textbook 1.5 would give
		// exactly 0.5). Window 2: a->b[2], b->b[0], c->b[1].
		{"odd transpositions round down", "abcxyz", "bcaXYW",
			want{1 - 5.0/6, 0, (0.5 + 0.5 + 2.0/3) / 3, (0.5 + 0.5 + 2.0/3) / 3}},
		// Jaro 2/3 <= 0.7: no Winkler bonus despite the common prefix "ab".
		{"no bonus at or below 0.7", "abcd", "abxy", want{0.5, 0.5, 2.0 / 3, 2.0 / 3}},
		// Prefix bonus counts at most 4 runes though 7 are shared:
		// jaro (7/8+7/8+1)/3 = 11/12; 11/12 + 4*0.1*(1/12) = 0.95.
		{"prefix capped at 4", "abcdefgh", "abcdefgX", want{7.0 / 8, 7.0 / 8, 11.0 / 12, 0.95}},
		// Window 0 for lengths 1 and 2: a matches a; (1 + 1/2 + 1)/3; prefix 1.
		{"one rune against two", "a", "ab", want{0.5, 0.5, 0.8333333333333334, 0.85}},
		// Hamming pads the shorter string: ab|c vs ab|cde -> 2 of 5.
		{"hamming pads", "abc", "abcde", want{0.6, 0.6, (3.0/3 + 3.0/5 + 1) / 3, (3.0/3+3.0/5+1)/3 + 3*0.1*(1-(3.0/3+3.0/5+1)/3)}},
		// A shift makes every Hamming position differ while Levenshtein
		// needs one insertion.
		{"hamming shift", "abc", "xabc", want{0.75, 0, (3.0/3 + 3.0/4 + 1) / 3, (3.0/3 + 3.0/4 + 1) / 3}},
		{"case-sensitive", "Paris", "paris", want{0.8, 0.8, (4.0/5 + 4.0/5 + 1) / 3, (4.0/5 + 4.0/5 + 1) / 3}},

		// Unicode: lengths are runes, not bytes.
		// café/cafe: 1 substitution of 4 runes (bytes would say 2 of 5).
		{"accented rune", "café", "cafe", want{0.75, 0.75, (3.0/4 + 3.0/4 + 1) / 3, (3.0/4+3.0/4+1)/3 + 3*0.1*(1-(3.0/4+3.0/4+1)/3)}},
		// 日本語/日本: 1 deletion of 3 runes.
		{"CJK", "日本語", "日本", want{1 - 1.0/3, 1 - 1.0/3, (2.0/3 + 1 + 1) / 3, (2.0/3+1+1)/3 + 2*0.1*(1-(2.0/3+1+1)/3)}},
		// ñandú/nandu: window 1; a n d match (ñ, ú differ): (3/5+3/5+1)/3.
		{"combining-free accents", "ñandú", "nandu", want{0.6, 0.6, 0.7333333333333334, 0.7333333333333334}},
		// Emoji are one rune each (4 bytes in UTF-8). Jaro: window 0, the
		// emoji matches, a/b do not: (1/2 + 1/2 + 1)/3 = 2/3, no bonus.
		{"emoji", "😀a", "😀b", want{0.5, 0.5, 2.0 / 3, 2.0 / 3}},
		{"emoji equal", "👍🏽", "👍🏽", want{1, 1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wants := []float64{tt.want.lev, tt.want.ham, tt.want.jaro, tt.want.jw}
			for i, ms := range all {
				t.Run(string(ms), func(t *testing.T) {
					checkScore(t, StringSimilarity(tt.a, tt.b, ms), wants[i])
					// Every measure is symmetric.
					checkScore(t, StringSimilarity(tt.b, tt.a, ms), wants[i])
				})
			}
		})
	}

	t.Run("empty measure is levenshtein", func(t *testing.T) {
		checkScore(t, StringSimilarity("kitten", "sitting", ""), 1-3.0/7)
	})
	t.Run("unknown measure", func(t *testing.T) {
		checkScore(t, StringSimilarity("a", "a", "cosine"), undef)
		checkScore(t, StringSimilarity("a", "a", "Levenshtein"), undef)
	})
}

func TestJaroWindowEdges(t *testing.T) {
	// Lengths 4 and 4: window 4/2-1 = 1. "abcd" vs "bxxa": b is one away
	// (match), a is three away (no match): m=1: (1/4 + 1/4 + 1)/3 = 0.5.
	checkScore(t, StringSimilarity("abcd", "bxxa", Jaro), 0.5)
	// Lengths 3 and 3: window 0, so a one-position shift never matches.
	checkScore(t, StringSimilarity("abc", "cab", Jaro), 0)
	// Lengths 6 and 6: window 2; "ab" shifted by two still matches.
	// a->b[2], b->b[3]: m=2, in order: (2/6 + 2/6 + 1)/3 = 5/9.
	checkScore(t, StringSimilarity("abxxxx", "yyabzz", Jaro), 5.0/9)
	// Each rune is matched at most once: "aa" vs "a" gives m=1:
	// (1/2 + 1/1 + 1)/3.
	checkScore(t, StringSimilarity("aa", "a", Jaro), (0.5+1+1)/3)
}

func TestNonLLMContextPrecision(t *testing.T) {
	// Levenshtein similarities: kitten~sitting 4/7 >= 0.5, xyz~sitting 0,
	// ab~ax exactly 0.5.
	tests := []struct {
		name      string
		retrieved []string
		reference []string
		threshold float64
		measure   DistanceMeasure
		want      float64
	}{
		{"relevant, irrelevant, relevant", []string{"kitten", "xyz", "sitting"}, []string{"sitting"}, 0.5, Levenshtein,
			(1 + 2.0/3) / (2 + 1e-10)},
		{"relevant only second", []string{"xyz", "kitten"}, []string{"sitting"}, 0.5, Levenshtein, 0.49999999995},
		{"threshold is inclusive", []string{"ab"}, []string{"ax"}, 0.5, Levenshtein, 0.9999999999},
		{"raised threshold", []string{"kitten", "sitting"}, []string{"sitting"}, 0.6, Levenshtein, 0.49999999995},
		{"best reference counts", []string{"kitten"}, []string{"zzz", "sitting"}, 0.5, Levenshtein, 0.9999999999},
		{"nothing relevant", []string{"xyz"}, []string{"sitting"}, 0.5, Levenshtein, 0},
		{"no retrieved contexts", nil, []string{"sitting"}, 0.5, Levenshtein, 0},
		{"no reference contexts", []string{"kitten"}, nil, 0.5, Levenshtein, undef},
		{"neither", nil, nil, 0.5, Levenshtein, 0},
		// Jaro kitten~sitting = (4/6+4/7+1)/3 = 0.746 >= 0.7.
		{"jaro", []string{"kitten"}, []string{"sitting"}, 0.7, Jaro, 0.9999999999},
		{"hamming", []string{"abcz"}, []string{"abcd"}, 0.75, Hamming, 0.9999999999},
		{"empty measure is levenshtein", []string{"ab"}, []string{"ax"}, 0.5, "", 0.9999999999},
		{"unknown measure", []string{"ab"}, []string{"ab"}, 0.5, "bleu", undef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, NonLLMContextPrecision(tt.retrieved, tt.reference, tt.threshold, tt.measure), tt.want)
		})
	}
}

func TestNonLLMContextRecall(t *testing.T) {
	tests := []struct {
		name      string
		retrieved []string
		reference []string
		threshold float64
		measure   DistanceMeasure
		want      float64
	}{
		{"one of two recalled", []string{"kitten"}, []string{"sitting", "abc"}, 0.5, Levenshtein, 0.5},
		{"threshold is strict", []string{"ab"}, []string{"ax"}, 0.5, Levenshtein, 0},
		{"just above threshold", []string{"ab"}, []string{"ax"}, 0.49, Levenshtein, 1},
		{"best retrieved counts", []string{"zzz", "kitten"}, []string{"sitting"}, 0.5, Levenshtein, 1},
		{"all recalled", []string{"sitting", "abc"}, []string{"abc", "sitting"}, 0.5, Levenshtein, 1},
		{"no reference contexts", []string{"kitten"}, nil, 0.5, Levenshtein, undef},
		{"no retrieved contexts", nil, []string{"sitting"}, 0.5, Levenshtein, 0},
		{"neither", []string{}, []string{}, 0.5, Levenshtein, undef},
		{"jaro winkler", []string{"MARHTA"}, []string{"MARTHA"}, 0.95, JaroWinkler, 1},
		{"unknown measure", []string{"ab"}, []string{"ab"}, 0.5, "bleu", undef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, NonLLMContextRecall(tt.retrieved, tt.reference, tt.threshold, tt.measure), tt.want)
		})
	}
}

func TestExactMatch(t *testing.T) {
	tests := []struct {
		reference, response string
		want                float64
	}{
		{"Paris", "Paris", 1},
		{"Paris", "paris", 0},
		{"Paris", "Paris ", 0},
		{"", "", 1},
		{"", "x", 0},
		{"café", "cafe\u0301", 0}, // different code points, same rendering
	}
	for _, tt := range tests {
		checkScore(t, ExactMatch(tt.reference, tt.response), tt.want)
	}
}

func TestStringPresence(t *testing.T) {
	tests := []struct {
		reference, response string
		want                float64
	}{
		{"Paris", "The capital is Paris.", 1},
		{"Paris", "the capital is paris", 0},
		{"Paris", "Paris", 1},
		{"The capital is Paris.", "Paris", 0},
		{"", "anything", 1},
		{"", "", 1},
		{"x", "", 0},
		{"日本", "私は日本語", 1},
	}
	for _, tt := range tests {
		checkScore(t, StringPresence(tt.reference, tt.response), tt.want)
	}
}

func TestStringSimilarityLongInput(t *testing.T) {
	// Long contexts must be handled (no quadratic memory, no panic).
	a := strings.Repeat("retrieval augmented generation ", 200)
	bb := strings.Replace(a, "augmented", "augmentd", 5)
	got := StringSimilarity(a, bb, Levenshtein)
	want := 1 - 5.0/float64(len([]rune(a)))
	checkScore(t, got, want)
	for _, ms := range []DistanceMeasure{Hamming, Jaro, JaroWinkler} {
		if v := StringSimilarity(a, bb, ms); math.IsNaN(v) || v < 0 || v > 1 {
			t.Errorf("%s: %v out of range", ms, v)
		}
	}
}
