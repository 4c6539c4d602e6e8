package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
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
		items[i] = Evidence{Text: "statement", Reason: "because", Verdict: 1}
	}
	items[0] = Evidence{Text: long, Reason: strings.Repeat("r", MaxEvidenceReason+1), Verdict: 1}
	items[1] = Evidence{Text: strings.Repeat("x", MaxEvidenceText), Reason: strings.Repeat("y", MaxEvidenceReason)}
	got := BoundEvidence(items)
	if len(got) != MaxEvidence+1 {
		t.Fatalf("%d items kept, want %d and the marker", len(got), MaxEvidence)
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
	if got[0].Verdict != 1 || got[1].Verdict != 0 || got[2].Verdict != 1 {
		t.Error("verdicts changed")
	}
	if m := got[MaxEvidence]; m != (Evidence{More: 3}) {
		t.Errorf("last item = %+v, want the marker of 3 more", m)
	}
	if items[0].Text != long {
		t.Error("BoundEvidence changed its input")
	}
	few := items[2:5]
	if got := BoundEvidence(few); !reflect.DeepEqual(got, few) {
		t.Errorf("a short list within the bounds changed: %+v", got)
	}
}

// The items kept are the failing ones first, then the others, each in its
// order; the list keeps the judge's order, and the marker counts what was
// left out.
func TestBoundEvidenceKeepsFailingFirst(t *testing.T) {
	items := make([]Evidence, MaxEvidence+4)
	for i := range items {
		items[i] = Evidence{Text: fmt.Sprint("s", i), Verdict: 1}
	}
	failing := []int{3, MaxEvidence + 1, MaxEvidence + 3}
	for _, i := range failing {
		items[i].Verdict = 0
	}
	got := BoundEvidence(items)
	var texts []string
	for _, e := range got[:len(got)-1] {
		texts = append(texts, e.Text)
	}
	// The passing ones kept are the first MaxEvidence-3: s0 to s(K-3)
	// without s3, which is failing.
	var want []string
	for i, e := range items {
		if e.Verdict == 0 || i < MaxEvidence-len(failing)+1 {
			want = append(want, e.Text)
		}
	}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("kept %q, want %q", texts, want)
	}
	if m := got[len(got)-1]; m.More != 4 {
		t.Errorf("marker %+v, want 4 more", m)
	}
}

// A sample's evidence shares one budget of characters across metrics:
// the metrics take turns, failing items first, until the next item does
// not fit; each list that lost items ends with the marker of how many, a
// list already marked adds to its count, and bounding twice changes
// nothing.
func TestBoundSampleEvidence(t *testing.T) {
	stmt := func(v int) Evidence {
		return Evidence{Text: strings.Repeat("t", MaxEvidenceText), Reason: strings.Repeat("r", MaxEvidenceReason), Verdict: v}
	}
	per := MaxEvidenceText + MaxEvidenceReason
	a := []Evidence{stmt(1), stmt(0), stmt(1), stmt(0), stmt(1)}
	b := append([]Evidence{stmt(0), stmt(1)}, Evidence{More: 2})
	ev := map[string][]Evidence{"a": a, "b": b, "c": {{Context: 1, Verdict: 1}}}
	got := BoundSampleEvidence(ev)
	n := 0
	for _, items := range got {
		for _, e := range items {
			n += utf8.RuneCountInString(e.Text) + utf8.RuneCountInString(e.Reason)
		}
	}
	if n > MaxSampleEvidence {
		t.Errorf("%d characters kept, budget %d", n, MaxSampleEvidence)
	}
	turns := MaxSampleEvidence / per // whole items that fit
	if turns < 3 {
		t.Fatalf("budget %d holds fewer than 3 items of %d characters: the test needs another shape", MaxSampleEvidence, per)
	}
	// Turns: a's first failing item, b's failing one, c's context (free),
	// a's second failing item, b's passing one, then a's passing ones.
	keptA, keptB := 0, 0
	for _, e := range got["a"] {
		if e.More == 0 {
			keptA++
		}
	}
	for _, e := range got["b"] {
		if e.More == 0 {
			keptB++
		}
	}
	if keptA+keptB != turns || keptA < keptB || keptA-keptB > 1 {
		t.Errorf("kept %d of a and %d of b, want %d in turns", keptA, keptB, turns)
	}
	if keptA < 5 && got["a"][len(got["a"])-1].More != 5-keptA {
		t.Errorf("a ends %+v, want the marker of %d more", got["a"][len(got["a"])-1], 5-keptA)
	}
	if want := 2 + 2 - keptB; got["b"][len(got["b"])-1].More != want {
		t.Errorf("b ends %+v, want the marker of %d more", got["b"][len(got["b"])-1], want)
	}
	if keptA == 2 && (got["a"][0].Verdict != 0 || got["a"][1].Verdict != 0) {
		t.Errorf("a kept %+v, want its failing items first", got["a"])
	}
	if !reflect.DeepEqual(got["c"], ev["c"]) {
		t.Errorf("c = %+v, want it whole", got["c"])
	}
	if again := BoundSampleEvidence(got); !reflect.DeepEqual(again, got) {
		t.Error("bounding bounded evidence changed it")
	}
	if len(ev["a"]) != 5 || len(ev["b"]) != 3 {
		t.Error("BoundSampleEvidence changed its input")
	}
	small := map[string][]Evidence{"a": {stmt(0)}}
	if got := BoundSampleEvidence(small); !reflect.DeepEqual(got, small) {
		t.Errorf("evidence within the budget changed: %+v", got)
	}
}

// The marker is written as {"more": N} alone, with no verdict a reader
// could count, and reads back.
func TestEvidenceMarkerJSON(t *testing.T) {
	b, err := json.Marshal([]Evidence{{Text: "s", Verdict: 0}, {More: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"text":"s","verdict":0},{"more":4}]`; string(b) != want {
		t.Errorf("encoded %s, want %s", b, want)
	}
	var back []Evidence
	if err := json.Unmarshal(b, &back); err != nil || back[1] != (Evidence{More: 4}) {
		t.Errorf("read back %+v (%v)", back, err)
	}
}

// A reason is at most MaxReason characters.
func TestClipReason(t *testing.T) {
	if got := ClipReason(strings.Repeat("é", MaxReason+1)); utf8.RuneCountInString(got) != MaxReason || !strings.HasSuffix(got, "…") {
		t.Errorf("cut to %d characters", utf8.RuneCountInString(got))
	}
	if s := strings.Repeat("x", MaxReason); ClipReason(s) != s {
		t.Error("a reason at the limit was cut")
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

// The texts a run records are held within the per-sample budget.
func TestSpillBoundsEvidence(t *testing.T) {
	s, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	long := Evidence{Text: strings.Repeat("t", MaxEvidenceText), Verdict: 0}
	ev := map[string][]Evidence{"a": slices.Repeat([]Evidence{long}, MaxEvidence), "b": slices.Repeat([]Evidence{long}, MaxEvidence)}
	s.Put("q1", Texts{Response: "r", Evidence: ev})
	got, ok, err := s.Get("q1")
	if err != nil || !ok {
		t.Fatalf("Get: %v %v", ok, err)
	}
	if want := BoundSampleEvidence(ev); !reflect.DeepEqual(got.Evidence, want) {
		t.Errorf("spilled evidence = %d+%d items, want %d+%d", len(got.Evidence["a"]), len(got.Evidence["b"]), len(want["a"]), len(want["b"]))
	}
}
