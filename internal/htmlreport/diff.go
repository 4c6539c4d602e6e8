package htmlreport

import "strings"

// OpKind is the kind of one piece of a diff.
type OpKind int

// The kinds of diff pieces.
const (
	Equal  OpKind = iota // in both texts
	Delete               // only in the old (base) text
	Insert               // only in the new (head) text
)

// Op is a run of words of one kind, with their spacing: Text as in the
// new text (the old for Delete), Old as in the old text (Equal only).
type Op struct {
	Kind OpKind
	Text string
	Old  string
}

// maxDiffCells bounds the longest-common-subsequence table (words of the
// old text times words of the new, after the common prefix and suffix are
// set aside): past it the differing middle is shown as deleted and
// inserted whole.
const maxDiffCells = 1 << 20

// DiffWords compares two texts word by word (a word is a run of
// non-space characters, with the spaces before it) and returns the pieces
// of a shortest edit, in order.
func DiffWords(a, b string) []Op {
	x, y := words(a), words(b)
	pre := 0
	for pre < len(x) && pre < len(y) && key(x[pre]) == key(y[pre]) {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && key(x[len(x)-1-suf]) == key(y[len(y)-1-suf]) {
		suf++
	}
	var out ops
	out.equal(x[:pre], y[:pre])
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	if len(mx)*len(my) > maxDiffCells {
		out.add(Delete, mx)
		out.add(Insert, my)
	} else {
		lcs(&out, mx, my)
	}
	out.equal(x[len(x)-suf:], y[len(y)-suf:])
	return out
}

// lcs appends the edit of x into y by a longest common subsequence of
// their words (dynamic programming over the suffixes).
func lcs(out *ops, x, y []string) {
	n, m := len(x), len(y)
	t := make([][]int32, n+1)
	for i := range t {
		t[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if key(x[i]) == key(y[j]) {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case key(x[i]) == key(y[j]):
			out.equal(x[i:i+1], y[j:j+1])
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			out.add(Delete, x[i:i+1])
			i++
		default:
			out.add(Insert, y[j:j+1])
			j++
		}
	}
	out.add(Delete, x[i:])
	out.add(Insert, y[j:])
}

// words splits s into words, each with the spaces before it (trailing
// spaces make a last, empty word).
func words(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// key is what two words are compared by: the word without its spacing.
func key(w string) string { return strings.TrimSpace(w) }

type ops []Op

// add appends words as a piece of kind k (Delete or Insert), merged with
// the last piece when it is of the same kind.
func (o *ops) add(k OpKind, ws []string) {
	if len(ws) == 0 {
		return
	}
	text := strings.Join(ws, "")
	if n := len(*o); n > 0 && (*o)[n-1].Kind == k {
		(*o)[n-1].Text += text
		return
	}
	*o = append(*o, Op{Kind: k, Text: text})
}

// equal appends the equal words, old as in the old text and new as in the
// new one.
func (o *ops) equal(old, new []string) {
	if len(new) == 0 {
		return
	}
	text, otext := strings.Join(new, ""), strings.Join(old, "")
	if n := len(*o); n > 0 && (*o)[n-1].Kind == Equal {
		(*o)[n-1].Text += text
		(*o)[n-1].Old += otext
		return
	}
	*o = append(*o, Op{Kind: Equal, Text: text, Old: otext})
}
