package htmlreport

import (
	"strings"
	"testing"
)

// Each text embedded in the page is cut to MaxTextChars characters, ending
// with how many more there were, so a few huge responses or contexts cannot
// make a page of hundreds of MB: the question, the responses (head and
// base), the contexts (head and base) and the evidence.
func TestRenderCapsEachText(t *testing.T) {
	huge := func(c string) string { return strings.Repeat(c, 2<<20) } // 2 MiB
	base, head := files(3, true)
	h, b := &head.Samples[0], &base.Samples[0]
	h.Question = huge("q")
	h.Response, b.Response = huge("r"), huge("s")
	h.Contexts = []string{huge("c"), "short context"}
	b.Contexts = []string{huge("d")}
	h.Evidence["faithfulness"][0].Text = huge("e")
	h.Evidence["faithfulness"][0].Reason = huge("w")
	page := render(t, base, head, Options{})
	if len(page) > 1<<20 {
		t.Errorf("the page has %d bytes for 8 texts of 2 MiB: texts are not capped", len(page))
	}
	more := strings.Count(page, "more characters")
	if more < 8 {
		t.Errorf("%d texts end with \"more characters\", want the 8 cut ones", more)
	}
	if want := "2,077,152 more characters"; !strings.Contains(page, want) { // 2 MiB - 20,000
		t.Errorf("the page does not say %q", want)
	}
	if !strings.Contains(page, "short context") {
		t.Error("a short text is missing")
	}
}
