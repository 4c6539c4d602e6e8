package offline

import (
	"context"
	"fmt"
	"math/bits"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// maxListed bounds the words and numbers a reason lists.
const maxListed = 4

// verify is the verify step: one verdict per statement, in order.
func verify(ctx context.Context, lex *lexCache, in metrics.VerifyInput, threshold float64) (*metrics.VerifyOutput, error) {
	return verifyAgainst(ctx, lex, in.Statements, newEvidence(lex, in.Evidence), threshold)
}

// verifyAgainst verifies each statement against the evidence.
func verifyAgainst(ctx context.Context, lex *lexCache, statements []string, ev *evidence, threshold float64) (*metrics.VerifyOutput, error) {
	out := &metrics.VerifyOutput{Verdicts: make([]metrics.StatementVerdict, len(statements))}
	var m matches
	for i, s := range statements {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := metrics.StatementVerdict{Statement: s}
		v.Verdict, v.Reason = verifyOne(lex.bag(s), ev, threshold, &m)
		out.Verdicts[i] = v
	}
	return out, nil
}

// evidence is the evidence's sentences, indexed: for each content stem
// and number, the sentences that hold it and those where a negation
// reaches it (in ascending order).
type evidence struct {
	sentences int
	stemAt    map[string][]int
	numAt     map[string][]int // every number, weak ones included
	negStemAt map[string][]int
	negNumAt  map[string][]int
}

func newEvidence(lex *lexCache, text string) *evidence {
	ev := &evidence{stemAt: map[string][]int{}, numAt: map[string][]int{}, negStemAt: map[string][]int{}, negNumAt: map[string][]int{}}
	for e, s := range sentences(text) {
		b := lex.bag(s)
		for _, st := range b.stems {
			ev.stemAt[st] = append(ev.stemAt[st], e)
		}
		for _, n := range b.numSet.items {
			ev.numAt[n] = append(ev.numAt[n], e)
		}
		for _, st := range b.negStems.items {
			ev.negStemAt[st] = append(ev.negStemAt[st], e)
		}
		for _, n := range b.negNums.items {
			ev.negNumAt[n] = append(ev.negNumAt[n], e)
		}
		ev.sentences++
	}
	return ev
}

// matches says, for each evidence sentence, which items of a statement
// (its stems, then its required numbers) the sentence holds and which a
// negation there reaches: a bit set of words items a sentence.
type matches struct {
	words     int
	have, neg []uint64
}

// of fills m for statement st over the evidence.
func (m *matches) of(st *bag, ev *evidence) {
	m.words = (len(st.stems) + len(st.nums) + 63) / 64
	size := m.words * ev.sentences
	m.have = append(m.have[:0], make([]uint64, size)...)
	m.neg = append(m.neg[:0], make([]uint64, size)...)
	set := func(bits []uint64, at []int, item int) {
		for _, e := range at {
			bits[e*m.words+item/64] |= 1 << (item % 64)
		}
	}
	for k, s := range st.stems {
		set(m.have, ev.stemAt[s], k)
		set(m.neg, ev.negStemAt[s], k)
	}
	for k, n := range st.nums {
		set(m.have, ev.numAt[n], len(st.stems)+k)
		set(m.neg, ev.negNumAt[n], len(st.stems)+k)
	}
}

// count is the number of items found in the sentences [start, end).
func (m *matches) count(start, end int) int {
	c := 0
	for w := range m.words {
		var u uint64
		for e := start; e < end; e++ {
			u |= m.have[e*m.words+w]
		}
		c += bits.OnesCount64(u)
	}
	return c
}

// found reports whether item k is in one of the sentences [start, end).
func (m *matches) found(k, start, end int) bool {
	for e := start; e < end; e++ {
		if m.have[e*m.words+k/64]&(1<<(k%64)) != 0 {
			return true
		}
	}
	return false
}

// negates reports whether a negation in sentence e reaches an item.
func (m *matches) negates(e int) bool {
	for _, u := range m.neg[e*m.words : (e+1)*m.words] {
		if u != 0 {
			return true
		}
	}
	return false
}

// verifyOne checks one statement against the evidence sentences; m is
// scratch space.
func verifyOne(st *bag, ev *evidence, threshold float64, m *matches) (int, string) {
	if st.empty() {
		return 0, "no content words or numbers to check"
	}
	if ev.sentences == 0 {
		return 0, "evidence is empty"
	}
	m.of(st, ev)
	// The best window: most matched words + numbers; ties go to a window
	// whose negation agrees with the statement's (judged on the window's
	// best-matching sentence), then to fewer sentences, then to the earlier
	// window.
	wStart, wEnd := 0, 0
	bestScore, bestAgree := -1, false
	for size := 1; size <= DefaultWindow && size <= ev.sentences; size++ {
		for start := 0; start+size <= ev.sentences; start++ {
			score := m.count(start, start+size)
			if score < bestScore || (score == bestScore && bestAgree) {
				continue
			}
			agree := st.neg == m.negates(bestSentence(m, start, start+size, st.neg))
			if score > bestScore || agree {
				wStart, wEnd, bestScore, bestAgree = start, start+size, score, agree
			}
		}
	}
	var missingWords, missingNums []string
	for k := range st.stems {
		if !m.found(k, wStart, wEnd) {
			missingWords = append(missingWords, st.surface[k])
		}
	}
	for k, n := range st.nums {
		if !m.found(len(st.stems)+k, wStart, wEnd) {
			missingNums = append(missingNums, n)
		}
	}

	found := len(st.stems) - len(missingWords)
	coverageOK := len(st.stems) == 0 || covers(found, len(st.stems), threshold)
	negOK := bestAgree

	var reason strings.Builder
	if len(st.stems) > 0 {
		fmt.Fprintf(&reason, "%d/%d content words found", found, len(st.stems))
	} else {
		reason.WriteString("no content words")
	}
	if len(missingWords) > 0 && !coverageOK {
		fmt.Fprintf(&reason, " (missing: %s)", list(missingWords))
	}
	switch {
	case len(missingNums) == 1:
		fmt.Fprintf(&reason, "; number %s not in evidence", missingNums[0])
	case len(missingNums) > 1:
		fmt.Fprintf(&reason, "; numbers %s not in evidence", list(missingNums))
	case len(st.nums) > 0:
		reason.WriteString("; numbers match")
	}
	if !negOK {
		if st.neg {
			reason.WriteString("; statement negated, evidence not")
		} else {
			reason.WriteString("; evidence negated, statement not")
		}
	}
	if coverageOK && len(missingNums) == 0 && negOK {
		return 1, reason.String()
	}
	return 0, reason.String()
}

// bestSentence returns the sentence of the window [start, end) that
// matches most of the statement (ties: one whose negation agrees with the
// statement's, neg, then the earliest). Negation is judged on it: does a
// negation there reach one of the statement's words?
func bestSentence(m *matches, start, end int, neg bool) int {
	best := -1
	bestN, bestAgree := -1, false
	for e := start; e < end; e++ {
		n := m.count(e, e+1)
		agree := neg == m.negates(e)
		if n > bestN || (n == bestN && agree && !bestAgree) {
			best, bestN, bestAgree = e, n, agree
		}
	}
	return best
}

// covers reports whether found/total >= threshold, with a tolerance for the
// rounding of threshold*total (0.7 of 10 words is 7 words).
func covers(found, total int, threshold float64) bool {
	return float64(found) >= threshold*float64(total)-1e-9
}

// list joins at most maxListed items.
func list(items []string) string {
	if len(items) > maxListed {
		return strings.Join(items[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(items)-maxListed)
	}
	return strings.Join(items, ", ")
}

// useful is the useful step (see the package doc).
func useful(in metrics.UsefulInput, threshold float64) *metrics.UsefulOutput {
	ctx := newBag(in.Context)
	q := newBag(in.Question)
	a := newBag(in.Answer)
	what := "answer not in the question"
	var target []string // "w:stem" or "n:number"
	for _, s := range a.stems {
		if !q.stemSet.has(s) {
			target = append(target, "w:"+s)
		}
	}
	for _, n := range a.nums {
		if !q.numSet.has(n) {
			target = append(target, "n:"+n)
		}
	}
	if len(target) == 0 {
		what = "answer"
		target = items(a)
	}
	if len(target) == 0 {
		what = "question"
		target = items(q)
	}
	if len(target) == 0 {
		return &metrics.UsefulOutput{Reason: "no content words in answer or question", Verdict: 0}
	}
	found := 0
	for _, t := range target {
		if (t[0] == 'w' && ctx.stemSet.has(t[2:])) || (t[0] == 'n' && ctx.numSet.has(t[2:])) {
			found++
		}
	}
	ok := covers(found, len(target), threshold)
	reason := fmt.Sprintf("context has %d/%d content words of the %s", found, len(target), what)
	if ok {
		reason += " (useful)"
	}
	return &metrics.UsefulOutput{Reason: reason, Verdict: boolInt(ok)}
}

func items(b *bag) []string {
	var out []string
	for _, s := range b.stems {
		out = append(out, "w:"+s)
	}
	for _, n := range b.nums {
		out = append(out, "n:"+n)
	}
	return out
}
