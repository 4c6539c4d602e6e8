package cli

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge/openaitest"
)

// BenchmarkPipelinedTargetRun measures a whole `gate run --target` of
// 1,000 samples against a target answering in 100 ms (32 calls in flight)
// and an LLM judge answering in 25 ms (8 calls in flight), judging
// faithfulness (two chat calls a sample). The calls and the judging
// overlap: the run takes about the longer of the two phases' ideal times
// (x_longer, target at most 1.15), not their sum (x_sum near 1 would mean
// no overlap). bench/target.sh runs it.
func BenchmarkPipelinedTargetRun(b *testing.B) {
	const (
		n           = 1000
		targetConc  = 32
		targetDelay = 100 * time.Millisecond
		judgeConc   = 8
		judgeDelay  = 25 * time.Millisecond
	)
	dir := b.TempDir()
	var rows strings.Builder
	for i := range n {
		fmt.Fprintf(&rows, "{\"id\": \"s%04d\", \"user_input\": \"How much energy does unit %d store?\", \"reference\": \"Unit %d stores 13.5 kWh.\"}\n", i, i, i)
	}
	data := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(data, []byte(rows.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	var answered atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(targetDelay)
		k := answered.Add(1)
		w.Header().Set("Content-Type", "application/json")
		// Every answer differs, so the judge's memo shares no step.
		fmt.Fprintf(w, `{"response": "The unit stores 13.5 kWh. It charges in %d minutes.", "retrieved_contexts": ["The unit stores 13.5 kWh of energy (batch %d)."]}`, k, k)
	}))
	defer target.Close()
	judgeSrv := openaitest.NewServer(b, openaitest.WithLatency(judgeDelay))
	targetIdeal := time.Duration(math.Ceil(float64(n)/targetConc)) * targetDelay
	var total, judgeIdeal time.Duration
	for b.Loop() {
		before := len(judgeSrv.Requests())
		var stderr bytes.Buffer
		start := time.Now()
		code := Main(context.Background(), []string{"run", "--dataset", data, "--metrics", "faithfulness", "--base-url", judgeSrv.URL,
			"--model", "m", "--no-cache", "--concurrency", fmt.Sprint(judgeConc), "--out", filepath.Join(dir, "r.json"),
			"--target", target.URL, "--target-concurrency", fmt.Sprint(targetConc)},
			Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(k string) string {
				if k == "OPENAI_API_KEY" {
					return "sk-test"
				}
				return ""
			}})
		total += time.Since(start)
		if os.Getenv("BENCH_VERBOSE") != "" {
			b.Log(stderr.String())
		}
		if code != 0 {
			b.Fatalf("exit %d\n%s", code, stderr.String())
		}
		calls := len(judgeSrv.Requests()) - before
		judgeIdeal = time.Duration(math.Ceil(float64(calls)/judgeConc)) * judgeDelay
	}
	wall := total.Seconds() / float64(b.N)
	longer := max(targetIdeal, judgeIdeal).Seconds()
	b.ReportMetric(wall, "s/run")
	b.ReportMetric(targetIdeal.Seconds(), "s_target_ideal")
	b.ReportMetric(judgeIdeal.Seconds(), "s_judge_ideal")
	b.ReportMetric(wall/longer, "x_longer")
	b.ReportMetric(wall/(targetIdeal+judgeIdeal).Seconds(), "x_sum")
}
