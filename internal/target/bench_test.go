package target

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkHTTPTarget calls an HTTP target that answers in 100 ms for
// 1,000 samples, 32 at a time. The ideal wall time is ceil(1000/32) rounds
// of 100 ms = 3.2 s; the benchmark reports the ratio to it (x_ideal).
//
//	go test ./internal/target -run '^$' -bench HTTPTarget -benchtime 3x
func BenchmarkHTTPTarget(b *testing.B) {
	const (
		n     = 1000
		conc  = 32
		delay = 100 * time.Millisecond
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"response": "13.5 kWh", "usage": {"prompt_tokens": 900, "completion_tokens": 40}}`)
	}))
	defer srv.Close()
	built, err := Build(Config{URL: srv.URL, Body: `{"query": "{{user_input}}"}`, Concurrency: conc}, func(string) string { return "" }, "")
	if err != nil {
		b.Fatal(err)
	}
	samples := samplesN(n)
	ideal := time.Duration(math.Ceil(float64(n)/conc)) * delay
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		outs := Run(context.Background(), built.Target, samples, built.Options)
		total += time.Since(start)
		for i := range outs {
			if outs[i].Err != nil {
				b.Fatal(outs[i].Err)
			}
		}
	}
	b.ReportMetric(total.Seconds()/float64(b.N)/ideal.Seconds(), "x_ideal")
}
