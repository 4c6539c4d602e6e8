package openaicompat

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
)

// benchInt reads an integer from the environment (bench/judge.sh sets
// them), else def.
func benchInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkJudgeSuite runs the default metric suite over 200 samples with 3
// retrieved contexts each against the fake server answering after 50 ms,
// with 16 judge calls in flight, then re-runs it from the cache. It reports:
//
//	calls/sample   chat calls per sample (budget: 2N + 7 = 13)
//	embed-calls    embeddings calls of the whole run (batched across samples)
//	wall-s         wall time of the run
//	ideal-s        the chat calls in waves of 16, round 1 (statements,
//	               useful, question) then round 2 (verify): the best any
//	               schedule can do
//	wall/ideal     target <= 1.15
//	cached-s       wall time of the re-run from the cache (target < 1 s)
//	cached-calls   API calls of the re-run (target 0)
//
// Run it with bench/judge.sh or
// go test -run '^$' -bench JudgeSuite -benchtime 1x ./internal/judge/openaicompat
func BenchmarkJudgeSuite(b *testing.B) {
	var (
		nSamples    = benchInt("BENCH_SAMPLES", 200)
		nContexts   = benchInt("BENCH_CONTEXTS", 3)
		concurrency = benchInt("BENCH_CONCURRENCY", 16)
		evalConc    = benchInt("BENCH_EVAL_CONCURRENCY", 0)
		latency     = time.Duration(benchInt("BENCH_LATENCY_MS", 50)) * time.Millisecond
	)
	ctx := context.Background()
	samples := makeSamples(nSamples, nContexts)
	for b.Loop() {
		srv := openaitest.NewServer(b, openaitest.WithLatency(latency))
		cfg := Config{
			BaseURL: srv.URL, Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small",
			CacheDir: b.TempDir(), Concurrency: concurrency,
		}
		j, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := eval.Run(ctx, judge.Memo(j), samples, eval.Options{Concurrency: evalConc}); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		calls := srv.ChatCalls()
		embedCalls := srv.EmbeddingCalls()

		// The ideal: every chat call of round 1 (2 statements, N useful,
		// 1 question per sample), then every call of round 2 (N + 4
		// verify), in full waves of `concurrency` calls.
		round1 := nSamples * (2 + nContexts + 1)
		round2 := nSamples * (nContexts + 4)
		waves := (round1+concurrency-1)/concurrency + (round2+concurrency-1)/concurrency
		ideal := time.Duration(waves) * latency

		// Re-run from the cache with a fresh judge and memo.
		srv.Reset()
		j2, err := New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		if _, err := eval.Run(ctx, judge.Memo(j2), samples, eval.Options{Concurrency: evalConc}); err != nil {
			b.Fatal(err)
		}
		cached := time.Since(start)

		b.ReportMetric(float64(calls)/float64(nSamples), "calls/sample")
		b.ReportMetric(float64(2*nContexts+7), "budget/sample")
		b.ReportMetric(float64(embedCalls), "embed-calls")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(ideal.Seconds(), "ideal-s")
		b.ReportMetric(wall.Seconds()/ideal.Seconds(), "wall/ideal")
		b.ReportMetric(cached.Seconds(), "cached-s")
		b.ReportMetric(float64(len(srv.Requests())), "cached-calls")
	}
}
