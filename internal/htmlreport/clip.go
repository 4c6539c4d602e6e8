package htmlreport

import (
	"fmt"
	"unicode/utf8"

	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// MaxTextChars bounds each text the page embeds (a question, a response, a
// context, an evidence statement or reason): a longer one is cut and ends
// with how many characters were left out, so that a few huge texts cannot
// make a page of hundreds of MB.
const MaxTextChars = 20000

// clip cuts s to MaxTextChars characters, saying how many more there were.
func clip(s string) string {
	if len(s) <= MaxTextChars {
		return s
	}
	n := utf8.RuneCountInString(s)
	if n <= MaxTextChars {
		return s
	}
	cut, i := 0, 0
	for cut = range s {
		if i == MaxTextChars {
			break
		}
		i++
	}
	return s[:cut] + fmt.Sprintf(" … (%s more characters)", report.FormatInt(n-MaxTextChars))
}

// clipAll returns ss with each text clipped (a copy when one is cut).
func clipAll(ss []string) []string {
	var out []string
	for i, s := range ss {
		if c := clip(s); c != s {
			if out == nil {
				out = append([]string(nil), ss...)
			}
			out[i] = c
		}
	}
	if out == nil {
		return ss
	}
	return out
}

// clipEvidence returns a copy of items with their texts and reasons
// clipped.
func clipEvidence(items []results.Evidence) []results.Evidence {
	out := make([]results.Evidence, len(items))
	for i, e := range items {
		e.Text, e.Reason = clip(e.Text), clip(e.Reason)
		out[i] = e
	}
	return out
}
