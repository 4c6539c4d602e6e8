package eval

import (
	"testing"

	"github.com/raggate/raggate/metrics"
)

// The estimate of the default suite is the budget a run asks: 2N + 10 chat
// calls per sample with N retrieved contexts, whatever the contexts.
func TestEstimateCallsDefaultSuite(t *testing.T) {
	var samples []metrics.Sample
	budget := 0
	for _, n := range []int{1, 2, 3, 4} {
		samples = append(samples, declSample(n))
		budget += 2*n + 10
	}
	est := EstimateCalls(samples, nil, 0)
	if est.ChatCalls != budget || est.Samples != len(samples) {
		t.Errorf("%d chat calls for %d samples, want 2N+10 per sample = %d", est.ChatCalls, est.Samples, budget)
	}
	if est.PromptTokens == 0 || est.CompletionTokens == 0 || est.EmbeddingTokens == 0 || est.EmbeddingCalls != 1 {
		t.Errorf("estimate %+v: tokens and one embedding call expected", est)
	}
	if u := est.Usage(); u.ChatCalls != est.ChatCalls || u.PromptTokens != est.PromptTokens || u.EmbeddingCalls != est.EmbeddingCalls {
		t.Errorf("usage %+v does not match %+v", u, est)
	}
}

func TestEstimateCallsSkipsMissingFields(t *testing.T) {
	noRef := declSample(3)
	noRef.Present = map[metrics.Field]bool{metrics.UserInput: true, metrics.Response: true, metrics.RetrievedContexts: true}
	est := EstimateCalls([]metrics.Sample{noRef}, nil, 0)
	// Without a reference: statements(response), verify(response, contexts)
	// and the question; context precision, recall, factual correctness,
	// noise sensitivity are skipped.
	if est.ChatCalls != 3 {
		t.Errorf("%d calls, want 3", est.ChatCalls)
	}
}

// A step shared by two samples is counted for each (a run asks it twice
// unless the samples are judged together or the cache has it), and the
// estimate does not depend on the order of the metrics.
func TestEstimateCallsPerSample(t *testing.T) {
	s := declSample(2)
	one := EstimateCalls([]metrics.Sample{s}, nil, 0)
	two := EstimateCalls([]metrics.Sample{s, s}, nil, 0)
	if two.ChatCalls != 2*one.ChatCalls || two.EmbeddingTexts != one.EmbeddingTexts {
		t.Errorf("one sample %+v, the same twice %+v", one, two)
	}
	ms := metrics.Catalogue()
	rev := make([]metrics.Metric, len(ms))
	for i, m := range ms {
		rev[len(ms)-1-i] = m
	}
	if a, b := EstimateCalls([]metrics.Sample{s}, ms, 0), EstimateCalls([]metrics.Sample{s}, rev, 0); a != b {
		t.Errorf("estimate depends on metric order: %+v vs %+v", a, b)
	}
}
