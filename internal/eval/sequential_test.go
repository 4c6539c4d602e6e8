package eval

import (
	"context"
	"fmt"
	"testing"

	"github.com/raggate/raggate/internal/judge/offline"
	"github.com/raggate/raggate/metrics"
)

// A sequential check ends a run once it has decided: End stops the feed
// cleanly, the samples judged so far are the run's, the rest are skipped,
// and Run returns no error; Judged saw every judged sample with its scores.
func TestWindowEndStopsTheRunCleanly(t *testing.T) {
	const n = 40
	full := make([]metrics.Sample, n)
	in := make([]metrics.Sample, n)
	for i := range full {
		full[i].ID = fmt.Sprintf("s%02d", i)
		full[i].Set(metrics.Response, "Paris is in France.")
		full[i].Set(metrics.Reference, "Paris is in France.")
		in[i].ID = full[i].ID
	}
	w := NewWindow(n, n) // everything may arrive: End must still stop
	judged := map[int]bool{}
	opts := Options{Metrics: mustResolve(t, "string_similarity"), Concurrency: 1, Feed: w, Release: w.Release,
		Judged: func(i int, r *SampleResult) {
			if r.ID != in[i].ID || r.Scores["string_similarity"] != 1 {
				t.Errorf("Judged(%d, %+v): wrong sample or scores", i, r)
			}
			judged[i] = true
			if len(judged) == 5 {
				w.End()
			}
		}}
	for i := range full {
		_ = w.Admit(context.Background(), i)
		in[i] = full[i]
		w.Fill(i)
	}
	res, err := Run(context.Background(), offline.New(offline.Options{}), in, opts)
	if err != nil {
		t.Fatalf("Run after End: %v, want no error", err)
	}
	if len(res.Samples) != len(judged) || res.Skipped != n-len(judged) {
		t.Fatalf("%d judged, %d skipped; Judged saw %d: want the samples judged before End and the rest skipped", len(res.Samples), res.Skipped, len(judged))
	}
	// One sample may be in flight when End is called (Concurrency 1).
	if len(judged) < 5 || len(judged) > 6 {
		t.Fatalf("judged %d samples, want 5 (or 6 with one in flight)", len(judged))
	}
}
