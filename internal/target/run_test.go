package target

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/raggate/raggate/metrics"
)

// Run never has more calls in flight than its concurrency, and fills it.
func TestRunConcurrencyExact(t *testing.T) {
	var inFlight, peak atomic.Int32
	full := make(chan struct{})
	var once sync.Once
	f := Func(func(ctx context.Context, s *metrics.Sample) (Reply, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n == 6 {
			once.Do(func() { close(full) })
		}
		select { // the first calls wait for the others: 6 at once, whatever the load
		case <-full:
		case <-time.After(5 * time.Second):
		}
		time.Sleep(time.Millisecond)
		return Reply{Response: s.ID}, nil
	})
	outs := Run(context.Background(), f, samplesN(60), Options{Concurrency: 6})
	for i, o := range outs {
		if o.Reply.Response != samplesN(60)[i].ID {
			t.Fatalf("sample %d got %q: outcomes out of order", i, o.Reply.Response)
		}
	}
	if p := peak.Load(); p != 6 {
		t.Errorf("peak in flight %d, want 6", p)
	}
}

// A transient failure is retried up to Retries times; a permanent one is
// not; the attempts are counted.
func TestRunRetries(t *testing.T) {
	var calls atomic.Int32
	f := Func(func(ctx context.Context, s *metrics.Sample) (Reply, error) {
		calls.Add(1)
		if s.ID == "q-000" {
			return Reply{}, transient(503, "overloaded")
		}
		return Reply{}, permanent(400, "bad request")
	})
	outs := Run(context.Background(), f, samplesN(2), Options{Retries: 3, Backoff: time.Millisecond})
	if outs[0].Attempts != 4 || outs[1].Attempts != 1 || calls.Load() != 5 {
		t.Errorf("attempts %d and %d, %d calls; want 4 (1 + 3 retries) and 1", outs[0].Attempts, outs[1].Attempts, calls.Load())
	}
	if outs[0].Code() != 503 || outs[1].Code() != 400 {
		t.Errorf("codes %d, %d", outs[0].Code(), outs[1].Code())
	}
}

// Cancelling stops the calls in flight (their outcomes are not kept) and
// starts no more; a wait for a retry is cut short too.
func TestRunCancelStopsAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := Func(func(ctx context.Context, s *metrics.Sample) (Reply, error) {
		if s.ID == "q-003" {
			cancel()
		}
		if s.ID >= "q-003" {
			<-ctx.Done()
			return Reply{}, ctx.Err()
		}
		return Reply{Response: "ok"}, nil
	})
	start := time.Now()
	outs := Run(ctx, f, samplesN(50), Options{Concurrency: 1, Retries: 5, Backoff: time.Hour})
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("Run took %s after the cancellation", el)
	}
	for i, o := range outs {
		if want := i < 3; o.Done != want {
			t.Errorf("sample %d: done %v, want %v", i, o.Done, want)
		}
	}
}

func TestWaitHonoursRetryAfter(t *testing.T) {
	err := &CallError{Transient: true, RetryAfter: 7 * time.Second}
	if d := wait(Options{Backoff: time.Millisecond}.retryPolicy(), 0, err); d != 7*time.Second {
		t.Errorf("wait = %s, want the server's 7s", d)
	}
	if d := wait(Options{Backoff: time.Second}.retryPolicy(), 20, errors.New("x")); d > 30*time.Second || d < 15*time.Second {
		t.Errorf("wait after many attempts = %s, want capped at 30s", d)
	}
}

// A 503 whose Retry-After is an HTTP date is retried at that date, not
// after the backoff. The test runs on synctest's fake clock: the wait is
// exact and costs no real time.
func TestRetryAfterHTTPDate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		resp := &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{}}
		resp.Header.Set("Retry-After", time.Now().Add(7*time.Second).UTC().Format(http.TimeFormat))
		busy := statusError(resp, []byte("busy"))
		if ce := busy.(*CallError); !ce.Transient || ce.RetryAfter != 7*time.Second {
			t.Fatalf("503 with Retry-After in 7s: %+v", ce)
		}
		calls := 0
		f := Func(func(ctx context.Context, s *metrics.Sample) (Reply, error) {
			if calls++; calls == 1 {
				return Reply{}, busy
			}
			return Reply{Response: "ok"}, nil
		})
		start := time.Now()
		outs := Run(context.Background(), f, samplesN(1), Options{Retries: 2, Backoff: time.Millisecond})
		if o := outs[0]; o.Err != nil || o.Attempts != 2 {
			t.Fatalf("outcome %+v, want an answer at the second attempt", o)
		}
		if waited := time.Since(start); waited != 7*time.Second {
			t.Errorf("retried after %s, want the server's 7s", waited)
		}
	})
}
