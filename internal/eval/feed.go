package eval

import (
	"context"
	"sync"
)

// Feed gives Run its samples as they become available: read back from
// disk, or answered by the pipeline under test while earlier samples are
// judged. Run calls Wait for sample i, in index order, before it first
// reads samples[i], and embeds ahead only the texts of samples Ready says
// are there. A Wait error other than the run's cancellation stops the run
// as a fatal judge error does.
type Feed interface {
	Wait(ctx context.Context, i int) error
	Ready(i int) bool
}

// Window is a Feed of n samples that a producer fills at most size
// samples ahead of the first sample Run has not released yet: memory
// holds about size samples' texts, whatever n. The producer calls Admit
// before it writes samples[i], then Fill (or Fail) once it is written;
// Run's Options.Release must call Window.Release.
type Window struct {
	size int

	mu       sync.Mutex
	changed  chan struct{}
	filled   []bool
	released []bool
	base     int // first sample not released
	err      error
	errAt    int
}

// NewWindow returns a window over n samples, size at most ahead.
func NewWindow(n, size int) *Window {
	return &Window{size: max(1, size), changed: make(chan struct{}), filled: make([]bool, n), released: make([]bool, n), errAt: n}
}

// wait blocks until ok (called with w.mu held) holds or ctx ends.
func (w *Window) wait(ctx context.Context, ok func() bool) error {
	for {
		w.mu.Lock()
		if ok() {
			w.mu.Unlock()
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

// Admit waits until sample i may be written: fewer than size samples
// between the first one not released and i.
func (w *Window) Admit(ctx context.Context, i int) error {
	return w.wait(ctx, func() bool { return i < w.base+w.size })
}

// Fill marks sample i written.
func (w *Window) Fill(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.filled[i] = true
	w.signal()
}

// Fail ends the feed at sample i with err: Run stops when it reaches i.
func (w *Window) Fail(i int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if i < w.errAt {
		w.err, w.errAt = err, i
	}
	w.signal()
}

// Release marks sample i done with: the window moves on past it once
// every sample before it is done with too.
func (w *Window) Release(i int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.released[i] = true
	for w.base < len(w.released) && w.released[w.base] {
		w.base++
	}
	w.signal()
}

// Wait waits until sample i is written.
func (w *Window) Wait(ctx context.Context, i int) error {
	var failed error
	err := w.wait(ctx, func() bool {
		if i >= w.errAt {
			failed = w.err
			return true
		}
		return w.filled[i]
	})
	if err != nil {
		return err
	}
	return failed
}

// Ready reports whether sample i is written.
func (w *Window) Ready(i int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return i < len(w.filled) && w.filled[i] && i < w.errAt
}
