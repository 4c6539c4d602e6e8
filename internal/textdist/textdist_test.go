package textdist

import (
	"math/rand"
	"testing"
)

func TestLevenshteinDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"saturday", "sunday", 3},
		{"intention", "execution", 5},
		{"abc", "abc", 0},
		{"abc", "cba", 2},
		{"prefixXsuffix", "prefixYYsuffix", 2},
		{"日本語", "日本", 1},
	}
	for _, tt := range tests {
		if got := Levenshtein([]rune(tt.a), []rune(tt.b)); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Levenshtein([]rune(tt.b), []rune(tt.a)); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"kitten", "sitting", 3}, {"", "abc", 3}, {"flaw", "lawn", 2}, {"héllo", "hello", 1}, {"same", "same", 0}} {
		if got := Distance(tt.a, tt.b); got != tt.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
}

// TestLevenshteinAgainstReference checks the trimmed single-row programme
// against the textbook full-matrix definition on random strings.
func TestLevenshteinAgainstReference(t *testing.T) {
	full := func(a, b []rune) int {
		d := make([][]int, len(a)+1)
		for i := range d {
			d[i] = make([]int, len(b)+1)
			d[i][0] = i
		}
		for j := range d[0] {
			d[0][j] = j
		}
		for i := 1; i <= len(a); i++ {
			for j := 1; j <= len(b); j++ {
				sub := d[i-1][j-1]
				if a[i-1] != b[j-1] {
					sub++
				}
				d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
			}
		}
		return d[len(a)][len(b)]
	}
	rng := rand.New(rand.NewSource(1))
	randString := func() []rune {
		r := make([]rune, rng.Intn(12))
		for i := range r {
			r[i] = rune('a' + rng.Intn(3))
		}
		return r
	}
	for range 5000 {
		a, b := randString(), randString()
		if got, want := Levenshtein(a, b), full(a, b); got != want {
			t.Fatalf("levenshtein(%q, %q) = %d, want %d", string(a), string(b), got, want)
		}
	}
}
