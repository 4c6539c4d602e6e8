package retry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func fixed(x float64) func() float64 { return func() float64 { return x } }

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	p := Policy{Base: time.Second, Cap: 5 * time.Second, Rand: fixed(0)}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for n, w := range want {
		if got := p.Backoff(n); got != w {
			t.Errorf("Backoff(%d) = %s, want %s", n, got, w)
		}
	}
	// A far retry neither overflows nor exceeds the cap, with or without one.
	if got := p.Backoff(1000); got != 5*time.Second {
		t.Errorf("Backoff(1000) = %s, want the cap", got)
	}
	if got := (Policy{Base: time.Second}).Backoff(1000); got <= 0 {
		t.Errorf("uncapped Backoff(1000) = %s, want a positive wait", got)
	}
}

func TestBackoffJitterBounds(t *testing.T) {
	const d = 2 * time.Second // Base 500ms, third retry
	for _, tt := range []struct {
		jitter, rand float64
		want         time.Duration
	}{
		{0.5, 0, d / 2},       // the shortest wait
		{0.5, 0.5, d * 3 / 4}, // the middle
		{0.5, 0.75, d * 7 / 8},
		{0, 0.3, d},      // no jitter: exact
		{1, 0.25, d / 4}, // full jitter
		{7, 0.25, d / 4}, // beyond 1 reads as 1
		{-1, 0.25, d},    // below 0 reads as 0
	} {
		p := Policy{Base: 500 * time.Millisecond, Cap: time.Minute, Jitter: tt.jitter, Rand: fixed(tt.rand)}
		if got := p.Backoff(2); got != tt.want {
			t.Errorf("jitter %v, rand %v: Backoff(2) = %s, want %s", tt.jitter, tt.rand, got, tt.want)
		}
	}
	// Never the full backoff's double, never above it.
	top := Policy{Base: 500 * time.Millisecond, Cap: time.Minute, Jitter: 0.5, Rand: fixed(0.999999)}
	if got := top.Backoff(2); got >= d || got < d*99/100 {
		t.Errorf("rand just below 1: Backoff(2) = %s, want just below %s", got, d)
	}
	// Jitter applies after the cap: waits at the cap still spread out.
	p := Policy{Base: time.Second, Cap: 10 * time.Second, Jitter: 0.5, Rand: fixed(0)}
	if got := p.Backoff(8); got != 5*time.Second {
		t.Errorf("jittered wait at the cap = %s, want 5s", got)
	}
}

func TestBackoffWithTheRealSource(t *testing.T) {
	p := Policy{Base: time.Second, Cap: time.Minute, Jitter: 0.5}
	for range 1000 {
		if d := p.Backoff(1); d < time.Second || d > 2*time.Second {
			t.Fatalf("Backoff(1) = %s, want 1s to 2s", d)
		}
	}
}

func TestAllows(t *testing.T) {
	p := Policy{Retries: 2}
	for n, want := range []bool{true, true, false, false} {
		if got := p.Allows(n); got != want {
			t.Errorf("Allows(%d) = %v, want %v", n, got, want)
		}
	}
	if (Policy{}).Allows(0) {
		t.Error("the zero Policy allows a retry")
	}
}

func TestAnnounced(t *testing.T) {
	clamp := Policy{Cap: 30 * time.Second}
	strict := Policy{Cap: 30 * time.Second, GiveUpBeyondCap: true}
	for _, tt := range []struct {
		p      Policy
		in     time.Duration
		want   time.Duration
		wantOK bool
	}{
		{clamp, 7 * time.Second, 7 * time.Second, true},
		{clamp, 2 * time.Minute, 30 * time.Second, true},
		{clamp, -time.Second, 0, true},
		{strict, 30 * time.Second, 30 * time.Second, true},
		{strict, 31 * time.Second, 0, false},
		{Policy{}, time.Hour, time.Hour, true}, // no cap
	} {
		got, ok := tt.p.Announced(tt.in)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("%+v.Announced(%s) = %s, %v; want %s, %v", tt.p, tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"120", 2 * time.Minute, true},
		{" 3 ", 3 * time.Second, true},
		{"0", 0, true},
		{"1.5", 1500 * time.Millisecond, true},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{now.Add(90 * time.Second).Format(time.RFC850), 90 * time.Second, true},
		{now.Add(time.Minute).Format(time.ANSIC), time.Minute, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true}, // a past date: no wait
		{"99999999999999999999", 24 * time.Hour, true},         // bounded
		{"", 0, false},
		{"soon", 0, false},
		{"-5", 0, false},
		{"1e3", 0, false},
		{"1.2.3", 0, false},
		{"Wed, 32 Oct 2026 07:28:00 GMT", 0, false},
		{"2026-01-01T12:00:07Z", 0, false}, // not an HTTP date
	} {
		got, ok := RetryAfter(tt.in, now)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("RetryAfter(%q) = %s, %v; want %s, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}

// RetryAfter reads every date net/http's own parser reads.
func FuzzRetryAfter(f *testing.F) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add("Thu, 01 Jan 2026 12:01:00 GMT")
	f.Add("12")
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := RetryAfter(v, now)
		if ok && (d < 0 || d > 24*time.Hour) {
			t.Errorf("RetryAfter(%q) = %s", v, d)
		}
		if at, err := http.ParseTime(v); err == nil && !ok {
			t.Errorf("RetryAfter(%q) rejects the date %s", v, at)
		}
	})
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v, want context.Canceled", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a cancelled context = %v, want context.Canceled", err)
	}
}
