package offline

import (
	"context"
	"fmt"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// maxListed bounds the words and numbers a reason lists.
const maxListed = 4

// verify is the verify step: one verdict per statement, in order.
func verify(ctx context.Context, in metrics.VerifyInput, threshold float64) (*metrics.VerifyOutput, error) {
	out := &metrics.VerifyOutput{Verdicts: make([]metrics.StatementVerdict, len(in.Statements))}
	var ev []*bag
	for _, s := range sentences(in.Evidence) {
		ev = append(ev, newBag(s))
	}
	for i, s := range in.Statements {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := metrics.StatementVerdict{Statement: s}
		v.Verdict, v.Reason = verifyOne(newBag(s), ev, threshold)
		out.Verdicts[i] = v
	}
	return out, nil
}

// verifyOne checks one statement against the evidence sentences.
func verifyOne(st *bag, ev []*bag, threshold float64) (int, string) {
	if st.empty() {
		return 0, "no content words or numbers to check"
	}
	if len(ev) == 0 {
		return 0, "evidence is empty"
	}
	// The best window: most matched words + numbers; ties go to a window
	// whose negation agrees with the statement's (judged on the window's
	// best-matching sentence), then to fewer sentences, then to the earlier
	// window.
	var w []*bag
	bestScore, bestAgree := -1, false
	for size := 1; size <= DefaultWindow && size <= len(ev); size++ {
		for start := 0; start+size <= len(ev); start++ {
			cand := ev[start : start+size]
			score := countFound(st.stems, cand, stemIn) + countFound(st.nums, cand, numIn)
			if score < bestScore || (score == bestScore && bestAgree) {
				continue
			}
			agree := st.neg == bestSentence(st, cand).negates(st)
			if score > bestScore || agree {
				w, bestScore, bestAgree = cand, score, agree
			}
		}
	}
	var missingWords, missingNums []string
	for k, s := range st.stems {
		if !anyBag(w, s, stemIn) {
			missingWords = append(missingWords, st.surface[k])
		}
	}
	for _, n := range st.nums {
		if !anyBag(w, n, numIn) {
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

// bestSentence returns the sentence of a window that matches most of st
// (ties: one whose negation agrees with st, then the earliest). Negation is
// judged on it: does a negation there reach one of the statement's words?
func bestSentence(st *bag, w []*bag) *bag {
	var best *bag
	bestN, bestAgree := -1, false
	for _, b := range w {
		n := countFound(st.stems, []*bag{b}, stemIn) + countFound(st.nums, []*bag{b}, numIn)
		agree := st.neg == b.negates(st)
		if n > bestN || (n == bestN && agree && !bestAgree) {
			best, bestN, bestAgree = b, n, agree
		}
	}
	return best
}

// covers reports whether found/total >= threshold, with a tolerance for the
// rounding of threshold*total (0.7 of 10 words is 7 words).
func covers(found, total int, threshold float64) bool {
	return float64(found) >= threshold*float64(total)-1e-9
}

func stemIn(b *bag, s string) bool { return b.stemSet[s] }
func numIn(b *bag, n string) bool  { return b.numSet[n] }

func anyBag(w []*bag, s string, in func(*bag, string) bool) bool {
	for _, b := range w {
		if in(b, s) {
			return true
		}
	}
	return false
}

func countFound(items []string, w []*bag, in func(*bag, string) bool) int {
	n := 0
	for _, s := range items {
		if anyBag(w, s, in) {
			n++
		}
	}
	return n
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
		if !q.stemSet[s] {
			target = append(target, "w:"+s)
		}
	}
	for _, n := range a.nums {
		if !q.numSet[n] {
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
		if (t[0] == 'w' && ctx.stemSet[t[2:]]) || (t[0] == 'n' && ctx.numSet[t[2:]]) {
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
