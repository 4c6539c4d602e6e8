package eval

import (
	"context"
	"errors"
	"sync"

	"github.com/raggate/raggate/metrics"
)

// Feed gives Run its samples as they become available: read back from
// disk, or answered by the pipeline under test while others are judged.
// Run judges them in the order they arrive: Next returns the index of the
// next sample to judge (waiting for one), and Arrived the index of the
// pos-th sample to arrive, if it has (what Run embeds ahead). Run reads
// samples[i] only once Next or Arrived has returned i. A Next error other
// than the run's cancellation stops the run as a fatal judge error does.
type Feed interface {
	Next(ctx context.Context) (int, error)
	Arrived(pos int) (int, bool)
}

// Holder is a Feed that holds the samples itself, so that memory holds
// only those between their arrival and their release, not a slice of
// every sample: Run, given one as Options.Feed and nil samples, judges
// Len() samples and reads sample i through Sample(i), once Next or
// Arrived has returned i and until Options.Release(i).
type Holder interface {
	Feed
	Len() int
	Sample(i int) *metrics.Sample
}

// source returns the number of samples Run judges and how it reads
// sample i: from the Feed when it is a Holder and samples is nil, else
// from samples.
func source(samples []metrics.Sample, feed Feed) (int, func(i int) *metrics.Sample) {
	if h, ok := feed.(Holder); ok && samples == nil {
		return h.Len(), h.Sample
	}
	return len(samples), func(i int) *metrics.Sample { return &samples[i] }
}

// Window is a Feed of n samples that a producer fills while Run judges
// them, with at most size samples admitted and not yet released: memory
// holds about size samples' texts, whatever n, and a slow sample holds up
// nothing but itself. The producer calls Admit before it writes samples[i]
// (or starts the call that answers it), then Fill once it is written, or
// Fail; Run's Options.Release must call Window.Release.
type Window struct {
	size int

	mu       sync.Mutex
	changed  chan struct{}
	admitted []bool
	pending  int     // admitted, not released
	arrivals []int32 // filled, in order
	taken    int     // arrivals returned by Next
	err      error
	ended    bool // End was called
}

// NewWindow returns a window over n samples, at most size admitted and
// not released at once.
func NewWindow(n, size int) *Window {
	return &Window{size: max(1, size), changed: make(chan struct{}), admitted: make([]bool, n), arrivals: make([]int32, 0, n)}
}

// wait blocks until ok (called with w.mu held) holds or ctx ends; ok runs
// with w.mu held, and w.mu is held when wait returns nil.
func (w *Window) wait(ctx context.Context, ok func() bool) error {
	for {
		w.mu.Lock()
		if ok() {
			return nil
		}
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// signal wakes the waiters; w.mu must be held.
func (w *Window) signal() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// Admit waits until fewer than size samples are admitted and not
// released, then admits sample i.
func (w *Window) Admit(ctx context.Context, i int) error {
	if err := w.wait(ctx, func() bool { return w.pending < w.size }); err != nil {
		return err
	}
	defer w.mu.Unlock()
	w.admitted[i] = true
	w.pending++
	return nil
}

// Fill marks sample i written: Next returns it in its turn.
func (w *Window) Fill(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.arrivals = append(w.arrivals, int32(i))
	w.signal()
}

// Fail ends the feed with err: Next returns it once the samples filled
// before are taken.
func (w *Window) Fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
	w.signal()
}

// Release marks sample i done with, making room for another.
func (w *Window) Release(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.admitted[i] {
		w.admitted[i] = false
		w.pending--
	}
	w.signal()
}

// End ends the feed cleanly: from now on Next returns ErrEnough, even
// for samples filled and not yet taken (a sequential check has decided:
// judging them would spend calls for nothing).
func (w *Window) End() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	w.signal()
}

// errEnded is Next's error once every sample was taken.
var errEnded = errors.New("every sample of the window was taken")

// Next waits for the next sample to arrive and returns its index.
func (w *Window) Next(ctx context.Context) (int, error) {
	if err := w.wait(ctx, func() bool {
		return w.ended || w.taken < len(w.arrivals) || w.err != nil || w.taken == len(w.admitted)
	}); err != nil {
		return 0, err
	}
	defer w.mu.Unlock()
	if w.ended {
		return 0, ErrEnough
	}
	if w.taken < len(w.arrivals) {
		w.taken++
		return int(w.arrivals[w.taken-1]), nil
	}
	if w.err != nil {
		return 0, w.err
	}
	return 0, errEnded
}

// Arrived returns the index of the pos-th sample to arrive, if it has.
func (w *Window) Arrived(pos int) (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if pos < len(w.arrivals) {
		return int(w.arrivals[pos]), true
	}
	return 0, false
}

// inOrder is the feed of samples that are all there from the start.
type inOrder struct {
	n    int
	next int
}

func (o *inOrder) Next(context.Context) (int, error) {
	if o.next >= o.n {
		return 0, errEnded
	}
	o.next++
	return o.next - 1, nil
}

func (o *inOrder) Arrived(pos int) (int, bool) { return pos, pos < o.n }
