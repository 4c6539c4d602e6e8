package results

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/raggate/raggate/metrics"
)

// Evidence is bounded: at most MaxEvidence items, texts and reasons cut at
// their character limits with a visible mark, whole characters only.
func TestBoundEvidence(t *testing.T) {
	long := strings.Repeat("é", MaxEvidenceText+5)
	items := make([]Evidence, MaxEvidence+3)
	for i := range items {
		items[i] = Evidence{Text: "statement", Reason: "because", Verdict: i % 2}
	}
	items[0] = Evidence{Text: long, Reason: strings.Repeat("r", MaxEvidenceReason+1), Verdict: 1}
	items[1] = Evidence{Text: strings.Repeat("x", MaxEvidenceText), Reason: strings.Repeat("y", MaxEvidenceReason)}
	got := BoundEvidence(items)
	if len(got) != MaxEvidence {
		t.Fatalf("%d items kept, want %d", len(got), MaxEvidence)
	}
	if n := utf8.RuneCountInString(got[0].Text); n != MaxEvidenceText || !strings.HasSuffix(got[0].Text, "…") || !utf8.ValidString(got[0].Text) {
		t.Errorf("long text cut to %d characters (%q...), want %d ending in …", n, got[0].Text[:10], MaxEvidenceText)
	}
	if n := utf8.RuneCountInString(got[0].Reason); n != MaxEvidenceReason || !strings.HasSuffix(got[0].Reason, "…") {
		t.Errorf("long reason cut to %d characters, want %d ending in …", n, MaxEvidenceReason)
	}
	if got[1].Text != items[1].Text || got[1].Reason != items[1].Reason {
		t.Error("a text or reason exactly at its limit was cut")
	}
	if got[0].Verdict != 1 || got[3].Verdict != 1 || got[2].Verdict != 0 {
		t.Error("verdicts changed")
	}
	if items[0].Text != long {
		t.Error("BoundEvidence changed its input")
	}
}

// Scores just inside the rounding slack at the ends of a range are
// accepted; a user-defined numeric metric takes any finite number.
func TestScoreRangeEdges(t *testing.T) {
	f := &File{UserMetrics: []metrics.Definition{{Name: "latency_ms", Kind: metrics.KindNumeric, Reads: []string{"latency_ms"}, Direction: metrics.LowerIsBetter}}}
	for _, v := range []float64{0 - rangeSlack, 1 + rangeSlack, 0, 1} {
		if err := checkScore(f, "q", metrics.FaithfulnessName, Score(v), ""); err != nil {
			t.Errorf("faithfulness %v: %v", v, err)
		}
	}
	for _, v := range []float64{-2 * rangeSlack, 1 + 2*rangeSlack, 250} {
		if err := checkScore(f, "q", metrics.FaithfulnessName, Score(v), ""); err == nil {
			t.Errorf("faithfulness %v accepted", v)
		}
	}
	if err := checkScore(f, "q", "latency_ms", 250, ""); err != nil {
		t.Errorf("numeric user metric 250: %v", err)
	}
	if err := checkScore(f, "q", "unknown_metric", 250, ""); err == nil {
		t.Error("a metric the file does not define took 250")
	}
}

// Close removes the spill file and reports a removal that failed.
func TestSpillCloseReportsRemoval(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSpill(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.file.Name()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close after the file vanished: %v, want the removal's error", err)
	}
	s, err = NewSpill(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Close left %d files behind", len(left))
	}
}
