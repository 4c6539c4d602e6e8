package judge_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
)

// stepClock moves forward by every Sleep.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *stepClock) total() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var t time.Duration
	for _, d := range c.sleeps {
		t += d
	}
	return t
}

func newLimiter(clock *stepClock, o judge.LimitOptions) *judge.Limiter {
	o.Now, o.Sleep = clock.Now, clock.Sleep
	return judge.NewLimiter(o)
}

func TestLimiterConcurrency(t *testing.T) {
	l := judge.NewLimiter(judge.LimitOptions{Concurrency: 2})
	ctx := context.Background()
	r1, _ := l.Acquire(ctx, 0)
	r2, _ := l.Acquire(ctx, 0)
	short, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := l.Acquire(short, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("third acquire: %v, want to block until cancelled", err)
	}
	r1()
	r1() // releasing twice is harmless
	r3, err := l.Acquire(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	r2()
	r3()
}

func TestLimiterRates(t *testing.T) {
	tests := []struct {
		name   string
		opts   judge.LimitOptions
		calls  int
		tokens int
		want   time.Duration
	}{
		{"no limits", judge.LimitOptions{}, 100, 1000, 0},
		// 60 RPM: 10 at once, then 1 per second.
		{"RPM burst", judge.LimitOptions{RPM: 60}, 10, 0, 0},
		{"RPM steady", judge.LimitOptions{RPM: 60}, 15, 0, 5 * time.Second},
		// 600 TPM = 10 tokens/s, bucket 100: 3 calls of 100 tokens wait
		// 10s each after the first.
		{"TPM", judge.LimitOptions{TPM: 600}, 3, 100, 20 * time.Second},
		// A call larger than the bucket goes when it is full, then the
		// debt is paid: 1000 tokens at 10/s = 100s before the next.
		{"TPM debt", judge.LimitOptions{TPM: 600}, 2, 1000, 100 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &stepClock{now: time.Unix(0, 0)}
			l := newLimiter(clock, tt.opts)
			for range tt.calls {
				release, err := l.Acquire(context.Background(), tt.tokens)
				if err != nil {
					t.Fatal(err)
				}
				release()
			}
			if got := clock.total(); got < tt.want-time.Millisecond || got > tt.want+10*time.Millisecond {
				t.Errorf("waited %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLimiterPause(t *testing.T) {
	clock := &stepClock{now: time.Unix(0, 0)}
	l := newLimiter(clock, judge.LimitOptions{})
	l.Pause(3 * time.Second)
	l.Pause(time.Second) // a shorter pause does not shorten the gate
	if want := time.Unix(3, 0); !l.PausedUntil().Equal(want) {
		t.Fatalf("paused until %v, want %v", l.PausedUntil(), want)
	}
	release, err := l.Acquire(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if clock.total() != 3*time.Second {
		t.Errorf("waited %s, want 3s", clock.total())
	}
}

func TestSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := judge.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
	if err := judge.Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
}
