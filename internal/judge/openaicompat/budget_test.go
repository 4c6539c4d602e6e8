package openaicompat

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/metrics"
)

// makeSamples builds n samples with contexts[i % len(contexts)] retrieved
// contexts each: every text has several sentences, so every step is asked.
func makeSamples(n int, contexts ...int) []metrics.Sample {
	out := make([]metrics.Sample, n)
	for i := range out {
		s := &out[i]
		s.ID = fmt.Sprintf("s%03d", i)
		s.Set(metrics.UserInput, fmt.Sprintf("What do we know about city %d?", i))
		s.Set(metrics.Response, fmt.Sprintf("City %d is on a river. City %d has a cathedral. City %d hosts a fair in May.", i, i, i))
		s.Set(metrics.Reference, fmt.Sprintf("City %d is on a river. City %d has a university.", i, i))
		k := contexts[i%len(contexts)]
		ctxs := make([]string, k)
		for c := range ctxs {
			switch c % 3 {
			case 0:
				ctxs[c] = fmt.Sprintf("City %d is on a river and has a cathedral (source %d).", i, c)
			case 1:
				ctxs[c] = fmt.Sprintf("City %d has a university founded long ago (source %d).", i, c)
			default:
				ctxs[c] = fmt.Sprintf("Chunk %d of an unrelated manual about printers.", c)
			}
		}
		s.SetList(metrics.RetrievedContexts, ctxs)
	}
	return out
}

// TestCallBudget counts chat calls at the fake server: the default suite
// asks 2N + 10 per sample, exactly what eval.EstimateCalls predicts, and
// embeddings go out in batches across samples.
func TestCallBudget(t *testing.T) {
	srv := openaitest.NewServer(t)
	j, err := New(Config{BaseURL: srv.URL, Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small", NoCache: true, Concurrency: 16})
	if err != nil {
		t.Fatal(err)
	}
	samples := makeSamples(12, 1, 2, 3, 4)
	m := judge.Memo(j)
	res, err := eval.Run(context.Background(), m, samples, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	budget := 0
	for _, s := range samples {
		budget += 2*len(s.RetrievedContexts) + 10
	}
	if got := srv.ChatCalls(); got != budget {
		t.Errorf("%d chat calls, want 2N+10 per sample = %d", got, budget)
	}
	est := eval.EstimateCalls(samples, nil, 0)
	if est.ChatCalls != srv.ChatCalls() {
		t.Errorf("EstimateCalls = %d chat calls, the run made %d", est.ChatCalls, srv.ChatCalls())
	}
	if e := srv.EmbeddingCalls(); e >= len(samples) {
		t.Errorf("%d embeddings calls for %d samples: not batched across samples", e, len(samples))
	}
	// The estimate counts the generated questions as distinct texts; the
	// fake generates the same question three times.
	if est.EmbeddingTexts < srv.EmbeddedTexts() {
		t.Errorf("EstimateCalls = %d embedded texts, the run embedded %d", est.EmbeddingTexts, srv.EmbeddedTexts())
	}
	total, _ := m.Usage()
	if total.ChatCalls != srv.ChatCalls() || total.EmbeddingCalls != srv.EmbeddingCalls() || total.PromptTokens == 0 || total.EmbeddingTokens == 0 {
		t.Errorf("usage %+v does not match the server (%d chat, %d embeddings calls)", total, srv.ChatCalls(), srv.EmbeddingCalls())
	}
	// Sanity: every LLM metric is defined (the fake answers well).
	for _, s := range res.Samples {
		for name, v := range s.Scores {
			if math.IsNaN(v) && !strings.HasPrefix(s.Undefined[name], "missing") {
				t.Errorf("%s %s undefined: %s", s.ID, name, s.Undefined[name])
			}
		}
	}
	if est.PromptTokens < total.PromptTokens/2 || est.PromptTokens > total.PromptTokens*2 {
		t.Errorf("estimated prompt tokens %d, actual %d", est.PromptTokens, total.PromptTokens)
	}
}

func TestEstimateCost(t *testing.T) {
	u := judge.Usage{PromptTokens: 2_000_000, CompletionTokens: 1_000_000, EmbeddingTokens: 10_000_000}
	p := DefaultPrices()
	// gpt-4o-mini: 2 x 0.15 + 1 x 0.60; text-embedding-3-small: 10 x 0.02.
	if got := EstimateCost("gpt-4o-mini-2024-07-18", "text-embedding-3-small", u, p); math.Abs(got-1.1) > 1e-9 {
		t.Errorf("cost = %v, want 1.1", got)
	}
	if got := EstimateCost("llama3.1:8b", "nomic-embed-text", u, p); got != 0 {
		t.Errorf("unknown models cost %v", got)
	}
	if pr, _ := p.Lookup("gpt-4.1-mini-2025-04-14"); pr.InputPerMTok != 0.40 {
		t.Errorf("dated snapshot resolved to %+v", pr)
	}
	over, err := ParsePrices([]byte("gpt-4o-mini: {input_per_mtok: 1, output_per_mtok: 2}\nllama3.1:8b: {input_per_mtok: 0.01}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if over["gpt-4o-mini"].OutputPerMTok != 2 || over["llama3.1:8b"].InputPerMTok != 0.01 || over["gpt-4o"].InputPerMTok != 2.50 {
		t.Errorf("override = %+v", over)
	}
	if _, err := ParsePrices([]byte(`{"gpt-4o": {"input_per_mtok": -1}}`)); err == nil {
		t.Error("negative price accepted")
	}
	if _, err := ParsePrices([]byte(`[1, 2]`)); err == nil {
		t.Error("a list accepted as a price table")
	}
}
