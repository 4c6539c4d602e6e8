package eval

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge/offline"
	"github.com/raggate/raggate/metrics"
)

// The window admits at most size samples not released, hands them over in
// the order they arrive, and ends with the producer's error.
func TestWindowBoundsAndOrder(t *testing.T) {
	ctx := context.Background()
	w := NewWindow(4, 2)
	for _, i := range []int{2, 0} {
		if err := w.Admit(ctx, i); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := w.Admit(short, 1); err == nil {
		t.Fatal("a third sample was admitted with two admitted and none released")
	}
	w.Fill(2)
	w.Fill(0)
	if i, _ := w.Arrived(0); i != 2 {
		t.Fatalf("first to arrive = %d, want 2", i)
	}
	if _, ok := w.Arrived(2); ok {
		t.Fatal("a third arrival before any third fill")
	}
	for _, want := range []int{2, 0} {
		if i, err := w.Next(ctx); err != nil || i != want {
			t.Fatalf("Next = %d, %v; want %d", i, err, want)
		}
	}
	w.Release(2)
	if err := w.Admit(ctx, 1); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	boom := errors.New("disk gone")
	w.Fill(1)
	w.Fail(boom)
	if i, err := w.Next(ctx); err != nil || i != 1 {
		t.Fatalf("Next = %d, %v; want the sample filled before the failure", i, err)
	}
	if _, err := w.Next(ctx); !errors.Is(err, boom) {
		t.Fatalf("Next after the failure: %v, want %v", err, boom)
	}
}

// Run judges the samples of a window as they arrive, whatever their order,
// and holds up nothing for a sample that has not arrived.
func TestRunJudgesInArrivalOrder(t *testing.T) {
	var full []metrics.Sample
	for _, id := range []string{"a", "b", "c"} {
		s := metrics.Sample{ID: id}
		s.Set(metrics.Response, "Paris is in France, said "+id+".")
		s.Set(metrics.Reference, "Paris is in France.")
		full = append(full, s)
	}
	in := make([]metrics.Sample, len(full))
	for i := range full {
		in[i].ID = full[i].ID
	}
	w := NewWindow(len(in), len(in))
	var order []string
	opts := Options{Metrics: mustResolve(t, "string_similarity"), Concurrency: 1, Feed: w,
		Release: func(i int) { order = append(order, in[i].ID); w.Release(i) }}
	go func() {
		for _, i := range []int{2, 0, 1} {
			_ = w.Admit(context.Background(), i)
			in[i] = full[i]
			w.Fill(i)
		}
	}()
	res, err := Run(context.Background(), offline.New(offline.Options{}), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 3 || res.Samples[0].ID != "a" {
		t.Fatalf("results %+v, want the 3 samples in dataset order", res.Samples)
	}
	if len(order) != 3 || order[0] != "c" {
		t.Fatalf("judged in order %v, want c first (it arrived first)", order)
	}
}
