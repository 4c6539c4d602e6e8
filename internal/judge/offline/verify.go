package offline

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// maxListed bounds the words and numbers a reason lists.
const maxListed = 4

// verify is the verify step: one verdict per statement, in order.
func verify(ctx context.Context, lex *lexCache, in metrics.VerifyInput, threshold float64) (*metrics.VerifyOutput, error) {
	return verifyAgainst(ctx, lex, in.Statements, newEvidence(lex, in.Evidence), threshold)
}

// verifyAgainst verifies each statement against the evidence. Statements
// of which none has a content word to look for (see checkable) are not
// judged: the error says there is nothing to check.
func verifyAgainst(ctx context.Context, lex *lexCache, statements []string, ev *evidence, threshold float64) (*metrics.VerifyOutput, error) {
	out := &metrics.VerifyOutput{Verdicts: make([]metrics.StatementVerdict, len(statements))}
	if len(statements) > 0 && !slices.ContainsFunc(statements, func(s string) bool { return checkable(lex.bag(s)) }) {
		return nil, nothingToCheck(statements)
	}
	var m matches
	for i, s := range statements {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := metrics.StatementVerdict{Statement: s}
		var support float64
		v.Verdict, support, v.Reason = verifyOne(lex.bag(s), ev, threshold, &m)
		v.Support = &support
		out.Verdicts[i] = v
	}
	return out, nil
}

// labelWords are the words of answers that are labels rather than claims:
// yes and no (stop word and negation already), true or false, and the
// classes of fact-checking and inference datasets (SUPPORTS, REFUTES, NOT
// ENOUGH INFO, entailment, contradiction, neutral).
var labelWords = func() distinct {
	var d distinct
	for _, w := range strings.Fields("true false correct incorrect right wrong support supports supported refute refutes refuted enough info nei entailment entail contradiction contradict neutral unknown") {
		d.add(stem(w))
	}
	return d
}()

// checkable reports whether a statement has a content word that is not a
// label word, or a number with a unit: one the evidence can hold or lack.
// A number alone is not enough ("42", "$15", "71%": what it counts is not
// said); "15 kWh" is.
func checkable(b *bag) bool {
	return slices.ContainsFunc(b.stems, func(s string) bool { return !labelWords.has(s) }) ||
		slices.ContainsFunc(b.nums, func(n string) bool { _, u, _ := strings.Cut(n, " "); return u != "" && u != "%" })
}

// nothingToCheck is the error of statements none of which is checkable.
func nothingToCheck(statements []string) error {
	text := strings.Join(strings.Fields(strings.Join(statements, " ")), " ")
	if r := []rune(text); len(r) > 40 {
		text = string(r[:40]) + "…"
	}
	return &judge.Undefined{
		Reason: fmt.Sprintf("nothing to check offline: %q has no content words (a yes or no, a label, a number alone); use an LLM judge", text),
		Err:    judge.ErrNothingToCheck,
	}
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
		for _, key := range numLookups(n) {
			set(m.have, ev.numAt[key], len(st.stems)+k)
			set(m.neg, ev.negNumAt[key], len(st.stems)+k)
		}
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

// Weights of the graded support (see the package doc).
const (
	// numberWeight is what a number counts for against a content word.
	numberWeight = 2
	// spreadFactor multiplies the support per evidence sentence of the
	// window beyond the first: facts found together support a statement
	// more than the same words scattered.
	spreadFactor = 0.95
	// missingNumberFactor multiplies the support when a number of the
	// statement is not in its window.
	missingNumberFactor = 0.5
	// negationFactor multiplies the support when the negations of the
	// statement and of its window disagree.
	negationFactor = 0.45
	// missingNameFactor multiplies the support when a name of the
	// statement is nowhere in the evidence.
	missingNameFactor = 0.8
)

// verifyOne checks one statement against the evidence sentences and
// returns its verdict (0 or 1), its graded support in [0, 1] and the
// reason; m is scratch space.
func verifyOne(st *bag, ev *evidence, threshold float64, m *matches) (int, float64, string) {
	if st.empty() {
		return 0, 0, "no content words or numbers to check"
	}
	if ev.sentences == 0 {
		return 0, 0, "evidence is empty"
	}
	m.of(st, ev)
	// The verdict's window: most matched words + numbers; ties go to a
	// window whose negation agrees with the statement's (judged on the
	// window's best-matching sentence), then to fewer sentences, then to
	// the earlier window. The support's window: the highest weighted
	// share found, each sentence beyond the first costing spreadFactor;
	// ties the same way.
	wStart, wEnd := 0, 0
	bestScore, bestAgree := -1, false
	sStart, sEnd := 0, 0
	bestWeight, sAgree := -1.0, false
	nums := len(st.nums)
	for size := 1; size <= DefaultWindow && size <= ev.sentences; size++ {
		spread := math.Pow(spreadFactor, float64(size-1))
		for start := 0; start+size <= ev.sentences; start++ {
			score := m.count(start, start+size)
			numsFound := 0
			for k := range nums {
				if m.found(len(st.stems)+k, start, start+size) {
					numsFound++
				}
			}
			weight := float64(score-numsFound+numberWeight*numsFound) * spread
			needVerdict := score > bestScore || (score == bestScore && !bestAgree)
			needSupport := weight > bestWeight+1e-12 || (math.Abs(weight-bestWeight) <= 1e-12 && !sAgree)
			if !needVerdict && !needSupport {
				continue
			}
			agree := st.neg == m.negates(bestSentence(m, start, start+size, st.neg))
			if needVerdict && (score > bestScore || agree) {
				wStart, wEnd, bestScore, bestAgree = start, start+size, score, agree
			}
			if needSupport && (weight > bestWeight+1e-12 || agree) {
				sStart, sEnd, bestWeight, sAgree = start, start+size, weight, agree
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
			missingNums = append(missingNums, strings.Replace(n, " %", "%", 1))
		}
	}

	found := len(st.stems) - len(missingWords)
	coverageOK := len(st.stems) == 0 || covers(found, len(st.stems), threshold)
	negOK := bestAgree

	support := bestWeight / float64(len(st.stems)+numberWeight*nums)
	for k := range nums {
		if !m.found(len(st.stems)+k, sStart, sEnd) {
			support *= missingNumberFactor
			break
		}
	}
	if !sAgree {
		support *= negationFactor
	}
	var missingNames []string
	for k, s := range st.stems {
		if st.names.has(s) && !m.found(k, 0, ev.sentences) {
			missingNames = append(missingNames, st.surface[k])
		}
	}
	if len(missingNames) > 0 {
		support *= missingNameFactor
	}

	var reason strings.Builder
	fmt.Fprintf(&reason, "support %.2f: ", support)
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
	if len(missingNames) > 0 {
		fmt.Fprintf(&reason, "; name not in evidence: %s", list(missingNames))
	}
	if coverageOK && len(missingNums) == 0 && negOK {
		return 1, support, reason.String()
	}
	return 0, support, reason.String()
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
		if !hasNum(&q.numSet, n) {
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
		if (t[0] == 'w' && ctx.stemSet.has(t[2:])) || (t[0] == 'n' && hasNum(&ctx.numSet, t[2:])) {
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
