package judge

import (
	"context"
	"sync"
	"time"

	"github.com/raggate/raggate/internal/retry"
)

// SleepFunc waits for d or until ctx is done, whichever comes first; it
// returns ctx.Err() when ctx ended the wait. Tests inject a fake so that no
// test waits for real.
type SleepFunc func(ctx context.Context, d time.Duration) error

// Sleep is the real SleepFunc (the one wait of internal/retry).
func Sleep(ctx context.Context, d time.Duration) error { return retry.Sleep(ctx, d) }

// LimitOptions configures a Limiter.
type LimitOptions struct {
	// Concurrency bounds the calls in flight (default 8).
	Concurrency int
	// RPM limits requests per minute; 0 means no limit.
	RPM int
	// TPM limits (estimated) tokens per minute; 0 means no limit.
	TPM int
	// Now and Sleep replace the clock (tests); nil means real time.
	Now   func() time.Time
	Sleep SleepFunc
}

// DefaultConcurrency is the default number of judge calls in flight.
const DefaultConcurrency = 8

// Limiter bounds the calls made to a remote judge: at most Concurrency in
// flight, optional requests-per-minute and tokens-per-minute token buckets,
// and one backoff gate shared by every caller: when one call is told to back
// off (HTTP 429), Pause holds every later call until the reset.
//
// The buckets hold ten seconds' worth of their rate (at least one request)
// and may go into debt: a call larger than the bucket is admitted when the
// bucket is full and later calls wait until the debt is paid, so the long-run
// rate is exact whatever the size of single calls.
type Limiter struct {
	sem   chan struct{}
	now   func() time.Time
	sleep SleepFunc

	mu         sync.Mutex
	pauseUntil time.Time
	req, tok   *bucket
}

// NewLimiter returns a Limiter.
func NewLimiter(o LimitOptions) *Limiter {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = Sleep
	}
	l := &Limiter{sem: make(chan struct{}, o.Concurrency), now: o.Now, sleep: o.Sleep}
	start := o.Now()
	if o.RPM > 0 {
		l.req = newBucket(float64(o.RPM), start)
	}
	if o.TPM > 0 {
		l.tok = newBucket(float64(o.TPM), start)
	}
	return l
}

// Acquire waits for a slot, for the shared backoff gate and for the rate
// limits, then takes one request and tokens (an estimate) from the buckets.
// The caller must call release when the call is done. Acquire returns
// ctx.Err() when ctx ends first.
func (l *Limiter) Acquire(ctx context.Context, tokens int) (release func(), err error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	release = func() { once.Do(func() { <-l.sem }) }
	for {
		wait := l.take(tokens)
		if wait <= 0 {
			return release, nil
		}
		if err := l.sleep(ctx, wait); err != nil {
			release()
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			release()
			return nil, err
		}
	}
}

// take returns 0 after taking a request and tokens, or how long to wait
// before trying again.
func (l *Limiter) take(tokens int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Before(l.pauseUntil) {
		return l.pauseUntil.Sub(now)
	}
	var wait time.Duration
	if l.req != nil {
		wait = max(wait, l.req.wait(1, now))
	}
	if l.tok != nil && tokens > 0 {
		wait = max(wait, l.tok.wait(float64(tokens), now))
	}
	if wait > 0 {
		return wait
	}
	if l.req != nil {
		l.req.level--
	}
	if l.tok != nil && tokens > 0 {
		l.tok.level -= float64(tokens)
	}
	return 0
}

// Pause holds every call that has not yet been admitted until d from now
// (or later, if an earlier pause lasts longer).
func (l *Limiter) Pause(d time.Duration) {
	if d <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := l.now().Add(d); until.After(l.pauseUntil) {
		l.pauseUntil = until
	}
}

// PausedUntil returns the end of the current shared backoff (zero when none
// was ever set).
func (l *Limiter) PausedUntil() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pauseUntil
}

// bucket is a token bucket refilled at perMinute/60 per second, holding at
// most ten seconds' worth (at least 1).
type bucket struct {
	rate  float64 // per second
	cap   float64
	level float64
	last  time.Time
}

func newBucket(perMinute float64, now time.Time) *bucket {
	b := &bucket{rate: perMinute / 60, cap: max(1, perMinute/6), last: now}
	b.level = b.cap
	return b
}

// wait refills the bucket to now and returns how long until n can be taken
// (0 if now). A request larger than the bucket needs a full bucket.
func (b *bucket) wait(n float64, now time.Time) time.Duration {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.level = min(b.cap, b.level+dt*b.rate)
		b.last = now
	}
	need := min(n, b.cap)
	if b.level >= need {
		return 0
	}
	d := time.Duration((need - b.level) / b.rate * float64(time.Second))
	return max(d, time.Millisecond)
}
