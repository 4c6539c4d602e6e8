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

// classic is the textbook single-row dynamic programme, the reference of
// the bit-parallel Levenshtein.
func classic(a, b []rune) int {
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i, ra := range a {
		diag := row[0]
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

// TestLevenshteinLong checks the bit-parallel distance against the
// classic programme on strings longer than one 64-rune block: lengths at
// the block edges, small and large alphabets, non-ASCII runes, near-equal
// and unrelated pairs.
func TestLevenshteinLong(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	alphabets := [][]rune{[]rune("ab"), []rune("abcd "), []rune("abcdefghijklmnopqrstuvwxyz ,."), []rune("aé日本語\u00a0ß")}
	lengths := []int{1, 2, 63, 64, 65, 127, 128, 129, 200, 300}
	randString := func(alpha []rune, n int) []rune {
		r := make([]rune, n)
		for i := range r {
			r[i] = alpha[rng.Intn(len(alpha))]
		}
		return r
	}
	mutate := func(alpha, s []rune) []rune {
		out := append([]rune(nil), s...)
		for range 1 + rng.Intn(8) {
			i := rng.Intn(len(out) + 1)
			switch rng.Intn(3) {
			case 0:
				out = append(out[:i], append([]rune{alpha[rng.Intn(len(alpha))]}, out[i:]...)...)
			case 1:
				if i < len(out) {
					out = append(out[:i], out[i+1:]...)
				}
			default:
				if i < len(out) {
					out[i] = alpha[rng.Intn(len(alpha))]
				}
			}
		}
		return out
	}
	for _, alpha := range alphabets {
		for _, la := range lengths {
			for _, lb := range lengths {
				a, b := randString(alpha, la), randString(alpha, lb)
				for _, pair := range [][2][]rune{{a, b}, {a, mutate(alpha, a)}, {b, mutate(alpha, b)}} {
					x, y := pair[0], pair[1]
					want := classic(x, y)
					if got := Levenshtein(x, y); got != want {
						t.Fatalf("Levenshtein(%q, %q) = %d, want %d", string(x), string(y), got, want)
					}
					if got := Levenshtein(y, x); got != want {
						t.Fatalf("Levenshtein(%q, %q) = %d, want %d", string(y), string(x), got, want)
					}
				}
			}
		}
	}
}

// BenchmarkLevenshteinLong is the distance of two texts of the length of
// a long RAG answer (about 1,500 runes).
func BenchmarkLevenshteinLong(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	words := []string{"the", "ruling", "abortion", "access", "women", "states", "court", "global", "rights", "health", "of", "and", "in"}
	text := func() []rune {
		var s []rune
		for len(s) < 1500 {
			s = append(s, []rune(words[rng.Intn(len(words))]+" ")...)
		}
		return s
	}
	x, y := text(), text()
	for b.Loop() {
		Levenshtein(x, y)
	}
}
