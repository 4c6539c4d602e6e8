package results

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Evidence is one item the judge decided for a metric of a sample: a
// statement of the response (faithfulness, noise sensitivity), a claim of
// the response or of the reference (factual and answer correctness), a
// sentence of the reference (context recall) with its verdict (1:
// supported, attributed; 0: not) and reason; or, for the metrics that
// judge each retrieved context (context precision and utilization,
// precision@k), the context's 1-based number in Context and whether it
// was useful.
type Evidence struct {
	Text    string `json:"text,omitempty"`
	Context int    `json:"context,omitempty"`
	// From says whose claim Text is, where a metric judges both sides:
	// "response" or "reference".
	From    string `json:"from,omitempty"`
	Verdict int    `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	// More is set only on the marker, the last item of a metric's list
	// when the bounds left items out: how many. The marker has no text and
	// no verdict, and is written as {"more": N}.
	More int `json:"more,omitempty"`
}

// MarshalJSON writes the marker as {"more": N} alone, so that no reader
// counts it as a verdict.
func (e Evidence) MarshalJSON() ([]byte, error) {
	if e.More > 0 {
		return fmt.Appendf(nil, `{"more":%d}`, e.More), nil
	}
	type plain Evidence
	return json.Marshal(plain(e))
}

// Evidence bounds (docs/results-file.md#bounds): the items kept per metric
// (failing ones first), the characters kept of an item's text and reason
// (longer ones end with "…"), and the characters of texts and reasons
// kept per sample across its metrics (BoundSampleEvidence).
const (
	MaxEvidence       = 10
	MaxEvidenceText   = 200
	MaxEvidenceReason = 100
	MaxSampleEvidence = 1500
)

// MaxReason bounds a reason (why a score is low, or undefined) in
// characters: a reason is a sentence, the verdict, a count and an example
// or two; the judge's every verdict is the evidence.
const MaxReason = 240

// ClipReason returns reason as one line (each run of white space, tabs
// and line breaks included, one space) cut to MaxReason characters, a cut
// marked with "…".
func ClipReason(reason string) string { return Clip(OneLine(reason), MaxReason) }

// OneLine returns s with each run of white space (tabs and line breaks
// included) as one space, trimmed.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\t\n\r\v\f") && !strings.Contains(s, "  ") && strings.TrimSpace(s) == s {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// Texts are a sample's texts as a results file records them: the response
// and retrieved contexts it was judged on and the judge's evidence.
type Texts struct {
	Response string
	Contexts []string
	Evidence map[string][]Evidence
}

// Empty reports whether there is nothing to record.
func (t *Texts) Empty() bool {
	return t.Response == "" && len(t.Contexts) == 0 && len(t.Evidence) == 0
}

// TextsOf returns the texts of s.
func (s *Sample) TextsOf() Texts {
	return Texts{Response: s.Response, Contexts: s.Contexts, Evidence: s.Evidence}
}

// SetTexts records t in s.
func (s *Sample) SetTexts(t Texts) {
	s.Response, s.Contexts, s.Evidence = t.Response, t.Contexts, t.Evidence
}

// HasTexts reports whether s records any texts.
func (s *Sample) HasTexts() bool {
	t := s.TextsOf()
	return !t.Empty()
}

// dropTexts lets go of the texts of s.
func (s *Sample) dropTexts() { s.SetTexts(Texts{}) }

// BoundEvidence returns one metric's items within the evidence bounds:
// texts and reasons cut to MaxEvidenceText and MaxEvidenceReason
// characters and, of a longer list, MaxEvidence items, the failing ones
// (verdict other than 1) first and then the others, each in the judge's
// order; the items kept stay in the judge's order and the marker
// (Evidence.More) ends the list with how many were left out. items is not
// changed.
func BoundEvidence(items []Evidence) []Evidence {
	items, more := unmarked(items)
	keep := priority(items)
	if len(keep) > MaxEvidence {
		more += len(keep) - MaxEvidence
		keep = keep[:MaxEvidence]
	}
	slices.Sort(keep)
	out := make([]Evidence, 0, len(keep)+1)
	for _, i := range keep {
		e := items[i]
		e.Text = Clip(e.Text, MaxEvidenceText)
		e.Reason = Clip(e.Reason, MaxEvidenceReason)
		out = append(out, e)
	}
	return marked(out, more)
}

// BoundSampleEvidence returns a sample's evidence (each metric's list
// already within BoundEvidence) within MaxSampleEvidence characters of
// texts and reasons: the metrics, in name order, take turns, each its
// next item, failing ones first, until the next item does not fit; the
// items kept stay in the judge's order and a list that lost items ends
// with the marker of how many (added to its marker's count, if it had
// one). Evidence within the budget is returned as it is; ev is not
// changed.
func BoundSampleEvidence(ev map[string][]Evidence) map[string][]Evidence {
	type list struct {
		items []Evidence
		more  int
		order []int // items' indexes, failing first
		kept  int   // of order
	}
	names := make([]string, 0, len(ev))
	lists := make(map[string]*list, len(ev))
	total := 0
	for m, items := range ev {
		names = append(names, m)
		l := &list{}
		l.items, l.more = unmarked(items)
		l.order = priority(l.items)
		lists[m] = l
		for _, e := range l.items {
			total += cost(e)
		}
	}
	if total <= MaxSampleEvidence {
		return ev
	}
	slices.Sort(names)
	budget := MaxSampleEvidence
turns:
	for turn := 0; ; turn++ {
		more := false
		for _, m := range names {
			l := lists[m]
			if turn >= len(l.order) {
				continue
			}
			more = true
			c := cost(l.items[l.order[turn]])
			if c > budget {
				break turns
			}
			budget -= c
			l.kept++
		}
		if !more {
			break
		}
	}
	out := make(map[string][]Evidence, len(ev))
	for _, m := range names {
		l := lists[m]
		if l.kept == len(l.items) {
			out[m] = ev[m]
			continue
		}
		keep := slices.Clone(l.order[:l.kept])
		slices.Sort(keep)
		items := make([]Evidence, 0, len(keep)+1)
		for _, i := range keep {
			items = append(items, l.items[i])
		}
		out[m] = marked(items, l.more+len(l.items)-l.kept)
	}
	return out
}

// BoundTexts returns t with its evidence within BoundSampleEvidence.
func BoundTexts(t Texts) Texts {
	if len(t.Evidence) > 0 {
		t.Evidence = BoundSampleEvidence(t.Evidence)
	}
	return t
}

// cost is what an item takes of a sample's budget: the characters of its
// text and reason.
func cost(e Evidence) int {
	return utf8.RuneCountInString(e.Text) + utf8.RuneCountInString(e.Reason)
}

// unmarked returns items without their marker and the marker's count.
func unmarked(items []Evidence) ([]Evidence, int) {
	if n := len(items); n > 0 && items[n-1].More > 0 {
		return items[:n-1], items[n-1].More
	}
	return items, 0
}

// marked ends items with the marker of more, if any.
func marked(items []Evidence, more int) []Evidence {
	if more > 0 {
		items = append(items, Evidence{More: more})
	}
	return items
}

// priority returns the indexes of items, the failing ones (verdict other
// than 1) first, each group in order.
func priority(items []Evidence) []int {
	out := make([]int, 0, len(items))
	for i, e := range items {
		if e.Verdict != 1 {
			out = append(out, i)
		}
	}
	for i, e := range items {
		if e.Verdict == 1 {
			out = append(out, i)
		}
	}
	return out
}

// Clip cuts s to at most n characters, marking a cut with "…".
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
