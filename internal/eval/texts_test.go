package eval

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// The texts callback gets the response and contexts judged and the
// judge's evidence: statements with verdicts, per-context usefulness,
// attributed sentences, claims of both sides.
func TestRunRecordsTextsAndEvidence(t *testing.T) {
	all, err := Resolve(metrics.Names())
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		got = map[string]results.Texts{}
	)
	opts := Options{Metrics: all, Texts: func(id string, tx results.Texts) {
		mu.Lock()
		defer mu.Unlock()
		got[id] = tx
	}}
	if _, err := Run(context.Background(), judge.Memo(fakeFor(t)), []metrics.Sample{sample()}, opts); err != nil {
		t.Fatal(err)
	}
	tx, ok := got["s1"]
	if !ok {
		t.Fatal("no texts recorded for s1")
	}
	if tx.Response != resp || !reflect.DeepEqual(tx.Contexts, []string{c1, c2}) {
		t.Errorf("texts = %q %q, want the judged response and contexts", tx.Response, tx.Contexts)
	}
	want := map[string][]results.Evidence{
		metrics.FaithfulnessName:     {{Text: respSt[0], Verdict: 1}, {Text: respSt[1], Verdict: 0}},
		metrics.ContextPrecisionName: {{Context: 1, Verdict: 1}, {Context: 2, Verdict: 0}},
		metrics.ContextRecallName:    {{Text: ref, Verdict: 1}},
		// strictness 3: three questions generated (the fake's are equal)
		metrics.AnswerRelevancyName: {{Text: "When did the bridge open?", Verdict: 1}, {Text: "When did the bridge open?", Verdict: 1}, {Text: "When did the bridge open?", Verdict: 1}},
		metrics.FactualCorrectnessName: {
			{Text: respCl[0], From: "response", Verdict: 1}, {Text: respCl[1], From: "response", Verdict: 0},
			{Text: refCl[0], From: "reference", Verdict: 1},
		},
	}
	for m, w := range want {
		g := tx.Evidence[m]
		for i := range g {
			g[i].Reason = "" // the fake's reasons are not under test
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("evidence of %s = %+v, want %+v", m, g, w)
		}
	}
}

func TestRunWithoutTextsCollectsNoEvidence(t *testing.T) {
	se := &sampleEval{s: &metrics.Sample{}}
	se.note("faithfulness", []results.Evidence{{Text: "x"}})
	if se.evidence != nil {
		t.Error("evidence collected without Options.Texts")
	}
}

func TestBoundEvidence(t *testing.T) {
	long := strings.Repeat("é", results.MaxEvidenceText+10)
	items := make([]results.Evidence, results.MaxEvidence+5)
	items[0] = results.Evidence{Text: long, Reason: long}
	got := results.BoundEvidence(items)
	if len(got) != results.MaxEvidence+1 || got[results.MaxEvidence].More != 5 {
		t.Errorf("kept %d items, want %d and the marker of 5 more", len(got), results.MaxEvidence)
	}
	if n := len([]rune(got[0].Text)); n != results.MaxEvidenceText || !strings.HasSuffix(got[0].Text, "…") {
		t.Errorf("text cut to %d characters (%q...), want %d ending in …", n, got[0].Text[:10], results.MaxEvidenceText)
	}
	if n := len([]rune(got[0].Reason)); n != results.MaxEvidenceReason {
		t.Errorf("reason cut to %d characters, want %d", n, results.MaxEvidenceReason)
	}
}
