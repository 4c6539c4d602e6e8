package openaicompat

import (
	"context"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
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

// timing is an http.RoundTripper that adds up the time chat requests are
// in flight, as the client sees it.
type timing struct {
	base  http.RoundTripper
	mu    sync.Mutex
	busy  time.Duration
	calls int
}

func (t *timing) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	if strings.HasSuffix(req.URL.Path, "/chat/completions") {
		t.mu.Lock()
		t.busy += time.Since(start)
		t.calls++
		t.mu.Unlock()
	}
	return resp, err
}

// BenchmarkJudgeSuite runs the default metric suite over 200 samples with 3
// retrieved contexts each against the fake server answering after 50 ms,
// with 16 judge calls in flight, then re-runs it from the cache. It reports:
//
//	calls/sample   chat calls per sample (budget: 2N + 10 = 16)
//	embed-calls    embeddings calls of the whole run (batched across samples)
//	wall-s         wall time of the run
//	ideal-s        the chat calls in waves of 16, round 1 (statements,
//	               claims, attribute, useful, question) then round 2
//	               (verify, verify_pair): the best any schedule can do
//	wall/ideal     target <= 1.15
//	cached-s       wall time of the re-run from the cache (target < 1 s)
//	cached-calls   API calls of the re-run (target 0)
//	call-ms        mean chat call latency seen by the client (50 ms plus
//	               the HTTP round trip and, on a loaded machine, waiting
//	               for a CPU)
//	busy           share of the 16 chat slots in use over the run: what
//	               the scheduling loses, whatever the machine's load
//	wall/ideal@obs the ideal recomputed with the observed call latency
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
		window      = time.Duration(benchInt("BENCH_BATCH_WINDOW_MS", 0)) * time.Millisecond
	)
	ctx := context.Background()
	samples := makeSamples(nSamples, nContexts)
	for b.Loop() {
		srv := openaitest.NewServer(b, openaitest.WithLatency(latency))
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = concurrency + 8
		tm := &timing{base: tr}
		cfg := Config{
			BaseURL: srv.URL, Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small",
			CacheDir: b.TempDir(), Concurrency: concurrency, HTTPClient: &http.Client{Transport: tm},
			BatchWindow: window,
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

		// The ideal: every chat call of round 1 (2 statements, 2 claims,
		// 1 attribute, N useful, 1 question per sample), then every call
		// of round 2 (4 verify, N verify_pair), in full waves of
		// `concurrency` calls.
		round1 := nSamples * (2 + 2 + 1 + nContexts + 1)
		round2 := nSamples * (4 + nContexts)
		waves := (round1+concurrency-1)/concurrency + (round2+concurrency-1)/concurrency
		ideal := time.Duration(waves) * latency
		tm.mu.Lock()
		callLatency := tm.busy / time.Duration(max(1, tm.calls))
		busy := tm.busy.Seconds() / (wall.Seconds() * float64(concurrency))
		tm.mu.Unlock()
		idealObserved := time.Duration(waves) * callLatency

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
		b.ReportMetric(float64(2*nContexts+10), "budget/sample")
		b.ReportMetric(float64(embedCalls), "embed-calls")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(ideal.Seconds(), "ideal-s")
		b.ReportMetric(wall.Seconds()/ideal.Seconds(), "wall/ideal")
		b.ReportMetric(float64(callLatency.Microseconds())/1000, "call-ms")
		b.ReportMetric(busy, "busy")
		b.ReportMetric(wall.Seconds()/idealObserved.Seconds(), "wall/ideal@obs")
		b.ReportMetric(cached.Seconds(), "cached-s")
		b.ReportMetric(float64(len(srv.Requests())), "cached-calls")
	}
}
