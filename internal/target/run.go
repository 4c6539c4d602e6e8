package target

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/raggate/raggate/internal/retry"
	"github.com/raggate/raggate/metrics"
)

// Options configures Run.
type Options struct {
	// Concurrency bounds the calls in flight (default 8).
	Concurrency int
	// Timeout bounds one attempt (default 60 s).
	Timeout time.Duration
	// Retries is how many times a transient failure is retried (0: none).
	Retries int
	// Backoff is the wait before the first retry, doubled at each retry
	// with jitter and capped at 30 s (default 500 ms).
	Backoff time.Duration
	// Progress, when set, is called after each finished call (never
	// concurrently).
	Progress func(done, total int)
	// Admit, when set, is called before sample i is handed to a call, in
	// sample order, from one goroutine: it may wait (a bounded pipeline)
	// and put the sample in place. An error stops the calls as a
	// cancellation does.
	Admit func(ctx context.Context, i int) error
	// Done, when set, is called with each finished call's outcome as it
	// finishes (never concurrently), before Progress: Run then forgets
	// the reply, and the outcome it returns has none, so that memory does
	// not hold every answer.
	Done func(i int, o Outcome)
}

// Outcome is the result of calling the target for one sample.
type Outcome struct {
	// Done is false for a sample not called, or whose call was cut short
	// by the cancellation of the run.
	Done  bool
	Reply Reply
	// Err is the failure of the last attempt, nil on success.
	Err      error
	Attempts int
	// Latency is the wall time of the last attempt.
	Latency time.Duration
}

// Code is the HTTP status or exit code of a failed call, 0 if none.
func (o *Outcome) Code() int {
	var ce *CallError
	if errors.As(o.Err, &ce) {
		return ce.Code
	}
	return 0
}

// Run calls t for every sample, at most opts.Concurrency at once, and
// returns the outcomes in sample order. When ctx is cancelled it stops
// starting calls, and the calls in flight end with Done false: what
// finished is kept. When the first calls all fail (giveUpAfter of them,
// at least), the target is taken for down: the samples not called yet
// fail at once with the first failure's reason instead of each retrying.
func Run(ctx context.Context, t Target, samples []metrics.Sample, opts Options) []Outcome {
	out := make([]Outcome, len(samples))
	done := opts.Done
	opts.Done = func(i int, o Outcome) {
		if done != nil {
			done(i, o)
			o.Reply = Reply{}
		}
		out[i] = o
	}
	Each(ctx, t, len(samples), func(i int) *metrics.Sample { return &samples[i] }, opts)
	return out
}

// Each is Run over n samples that sample gives (sample i once
// opts.Admit(i) has returned, when set), keeping nothing of every sample:
// each finished call's outcome goes to opts.Done only.
func Each(ctx context.Context, t Target, n int, sample func(i int) *metrics.Sample, opts Options) {
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 8
	}
	next := make(chan int)
	down := make(chan struct{})
	var (
		mu               sync.Mutex
		done, ok, failed int
		firstErr         error
		wg               sync.WaitGroup
		giveUp           = max(giveUpAfter, conc)
	)
	finish := func(i int, o Outcome) {
		mu.Lock()
		defer mu.Unlock()
		if opts.Done != nil {
			opts.Done(i, o)
		}
		done++
		if o.Err == nil {
			ok++
		} else if failed++; firstErr == nil {
			firstErr = o.Err
		}
		if ok == 0 && failed == giveUp {
			close(down)
		}
		if opts.Progress != nil {
			opts.Progress(done, n)
		}
	}
	for range min(conc, max(1, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if o := call(ctx, t, sample(i), opts); o.Done {
					finish(i, o)
				}
			}
		}()
	}
	i := 0
	var admitErr error
feed:
	for ; i < n; i++ {
		// A ready worker and a closed down (or done) are both ready cases
		// of the select below, which picks one at random: look first, so
		// that at most one more sample is handed over once the target is
		// taken for down.
		select {
		case <-ctx.Done():
			break feed
		case <-down:
			break feed
		default:
		}
		if opts.Admit != nil {
			if admitErr = opts.Admit(ctx, i); admitErr != nil {
				break feed
			}
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		case <-down:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if ctx.Err() == nil && admitErr == nil && i < n {
		err := permanent(0, "not called: the first %d calls to the target all failed (the first: %v)", giveUp, firstErr)
		for ; i < n; i++ {
			finish(i, Outcome{Done: true, Err: err})
		}
	}
}

// giveUpAfter is the fewest failed calls, and no success, after which Run
// takes the target for down.
const giveUpAfter = 10

// call calls t for one sample with its retries.
func call(ctx context.Context, t Target, s *metrics.Sample, opts Options) Outcome {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	policy := opts.retryPolicy()
	var o Outcome
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			return Outcome{}
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		start := time.Now()
		r, err := t.Call(actx, s)
		o.Latency = time.Since(start)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		o.Attempts = attempt + 1
		if ctx.Err() != nil {
			return Outcome{}
		}
		if timedOut && err != nil {
			err = &CallError{Reason: "no reply within " + timeout.String() + " (raise the target timeout if the pipeline is this slow)", Transient: true}
		}
		if err == nil {
			o.Done, o.Reply, o.Err = true, r, nil
			return o
		}
		o.Done, o.Err = true, err
		if !IsTransient(err) || !policy.Allows(attempt) {
			return o
		}
		if retry.Sleep(ctx, wait(policy, attempt, err)) != nil {
			return Outcome{}
		}
	}
}

// retryPolicy is the retry policy of opts: Retries retries, a backoff
// from Backoff (default 500 ms) doubled at each retry, with jitter, and
// every wait, the server's included, at most 30 s.
func (opts Options) retryPolicy() retry.Policy {
	base := opts.Backoff
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	return retry.Policy{Base: base, Cap: 30 * time.Second, Jitter: 0.5, Retries: opts.Retries}
}

// wait is the wait before retry attempt+1: what the server asked for,
// else the policy's backoff.
func wait(p retry.Policy, attempt int, err error) time.Duration {
	var ce *CallError
	if errors.As(err, &ce) && ce.RetryAfter > 0 {
		d, _ := p.Announced(ce.RetryAfter)
		return d
	}
	return p.Backoff(attempt)
}
