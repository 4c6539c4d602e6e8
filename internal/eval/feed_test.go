package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// held is a Holder: a Window and the samples between their arrival and
// their release.
type held struct {
	*Window
	n    int
	mu   sync.Mutex
	at   map[int]*metrics.Sample
	most int // the most samples held at once
}

func (h *held) Len() int { return h.n }
func (h *held) Sample(i int) *metrics.Sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.at[i]
}
func (h *held) put(i int, s metrics.Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.at[i] = &s
	h.most = max(h.most, len(h.at))
}
func (h *held) release(i int) {
	h.mu.Lock()
	delete(h.at, i)
	h.mu.Unlock()
	h.Window.Release(i)
}

// Given a Holder and no samples, Run judges the Holder's samples, reading
// each only between its arrival and its release: the caller holds no
// more than the window's.
func TestRunReadsAHoldersSamples(t *testing.T) {
	const n, size = 40, 3
	h := &held{Window: NewWindow(n, size), n: n, at: map[int]*metrics.Sample{}}
	opts := Options{Metrics: mustResolve(t, "string_similarity", "faithfulness"), Concurrency: 2, Feed: h, Release: h.release}
	go func() {
		for i := range n {
			if err := h.Admit(context.Background(), i); err != nil {
				return
			}
			s := metrics.Sample{ID: fmt.Sprintf("s%02d", i)}
			s.Set(metrics.UserInput, "Where is Paris?")
			s.Set(metrics.Response, fmt.Sprintf("Paris is in France, said %d.", i))
			s.Set(metrics.Reference, "Paris is in France.")
			s.SetList(metrics.RetrievedContexts, []string{"Paris is the capital of France."})
			h.put(i, s)
			h.Fill(i)
		}
	}()
	res, err := Run(context.Background(), offline.New(offline.Options{}), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != n || res.Samples[n-1].ID != fmt.Sprintf("s%02d", n-1) || res.Skipped != 0 {
		t.Fatalf("%d results (last %q), %d skipped; want %d in order", len(res.Samples), res.Samples[len(res.Samples)-1].ID, res.Skipped, n)
	}
	for _, s := range res.Samples {
		if v := s.Scores["string_similarity"]; !(v > 0) {
			t.Fatalf("sample %s: string_similarity %v, want a score", s.ID, v)
		}
	}
	if h.most > size || len(h.at) != 0 {
		t.Fatalf("held %d samples at most (window %d), %d left", h.most, size, len(h.at))
	}
}
