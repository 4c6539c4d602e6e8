package htmlreport

import (
	"math/rand"
	"strings"
	"testing"
)

// side rebuilds one side of a diff: the old text from Equal and Delete
// pieces, the new one from Equal and Insert.
func side(ops []Op, skip OpKind) string {
	var b strings.Builder
	for _, o := range ops {
		switch {
		case o.Kind == skip:
		case o.Kind == Equal && skip == Insert:
			b.WriteString(o.Old)
		default:
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

func TestDiffWords(t *testing.T) {
	tests := []struct {
		name, a, b string
		want       []Op
	}{
		{"same", "the bridge opened", "the bridge opened", []Op{{Equal, "the bridge opened", ""}}},
		{"changed word", "opened in 1932 to traffic", "opened in 1933 to traffic",
			[]Op{{Equal, "opened in", ""}, {Delete, " 1932", ""}, {Insert, " 1933", ""}, {Equal, " to traffic", ""}}},
		{"inserted", "a c", "a b c", []Op{{Equal, "a", ""}, {Insert, " b", ""}, {Equal, " c", ""}}},
		{"deleted", "a b c", "a c", []Op{{Equal, "a", ""}, {Delete, " b", ""}, {Equal, " c", ""}}},
		{"from empty", "", "new text", []Op{{Insert, "new text", ""}}},
		{"to empty", "old text", "", []Op{{Delete, "old text", ""}}},
		{"spacing only", "a  b", "a b", []Op{{Equal, "a b", ""}}},
		{"moved", "x a b c", "a b c x", []Op{{Delete, "x", ""}, {Equal, "a b c", ""}, {Insert, " x", ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DiffWords(tt.a, tt.b)
			if len(got) != len(tt.want) {
				t.Fatalf("DiffWords(%q, %q) = %+v, want %+v", tt.a, tt.b, got, tt.want)
			}
			for i := range got {
				if got[i].Kind != tt.want[i].Kind || got[i].Text != tt.want[i].Text {
					t.Fatalf("DiffWords(%q, %q) = %+v, want %+v", tt.a, tt.b, got, tt.want)
				}
			}
		})
	}
}

// Random texts over a small vocabulary: both sides rebuild from the
// pieces, and the number of equal words is a longest common subsequence
// (checked against a plain LCS length).
func TestDiffWordsRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vocab := []string{"a", "b", "c", "d"}
	text := func() string {
		n := rng.Intn(12)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[rng.Intn(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	for range 500 {
		a, b := text(), text()
		got := DiffWords(a, b)
		if side(got, Insert) != a || side(got, Delete) != b {
			t.Fatalf("DiffWords(%q, %q) = %+v does not rebuild both sides", a, b, got)
		}
		equal := 0
		for _, o := range got {
			if o.Kind == Equal {
				equal += len(strings.Fields(o.Text))
			}
		}
		if want := lcsLen(strings.Fields(a), strings.Fields(b)); equal != want {
			t.Fatalf("DiffWords(%q, %q) keeps %d words, the LCS has %d", a, b, equal, want)
		}
	}
}

func lcsLen(x, y []string) int {
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	if x[0] == y[0] {
		return 1 + lcsLen(x[1:], y[1:])
	}
	return max(lcsLen(x[1:], y), lcsLen(x, y[1:]))
}

// Long texts that differ throughout fall back to one deletion and one
// insertion instead of a table of a million cells.
func TestDiffWordsLongFallsBack(t *testing.T) {
	a := strings.Repeat("alpha ", 1500)
	b := strings.Repeat("beta ", 1500)
	got := DiffWords("same "+a+"end", "same "+b+"end")
	if len(got) != 4 || got[1].Kind != Delete || got[2].Kind != Insert {
		t.Fatalf("got %d pieces, want equal, delete, insert, equal", len(got))
	}
}
