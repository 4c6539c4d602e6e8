package results

import "unicode/utf8"

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
}

// Evidence bounds: the items kept per metric and the characters kept of
// an item's text and reason (longer ones end with "…").
const (
	MaxEvidence       = 30
	MaxEvidenceText   = 300
	MaxEvidenceReason = 200
)

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

// BoundEvidence returns items within the evidence bounds: at most
// MaxEvidence of them, texts and reasons cut to MaxEvidenceText and
// MaxEvidenceReason characters.
func BoundEvidence(items []Evidence) []Evidence {
	if len(items) > MaxEvidence {
		items = items[:MaxEvidence]
	}
	out := make([]Evidence, len(items))
	for i, e := range items {
		e.Text = Clip(e.Text, MaxEvidenceText)
		e.Reason = Clip(e.Reason, MaxEvidenceReason)
		out[i] = e
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
