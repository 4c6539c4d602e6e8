// Package retry is the one retry policy of raggate's network clients (the
// GitHub API, the LLM judge, the RAG target): how long to wait before each
// retry (exponential backoff with a cap and jitter), how to read a server's
// Retry-After (seconds or an HTTP date), what to do when a server asks for
// more than the cap, and the wait itself. Each client keeps its own loop
// (what is retried, what is replayed) and its own parameters.
//
// Pure apart from the timer of Sleep: it imports no network package.
package retry

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Policy is how a client spaces its retries. The zero value retries
// nothing.
type Policy struct {
	// Base is the backoff before the first retry; it doubles at each
	// retry.
	Base time.Duration
	// Cap bounds one wait, backoff or announced (0: no bound).
	Cap time.Duration
	// Jitter is the part of a backoff drawn at random, from 0 (none: the
	// backoff is exact) to 1: with 0.5 a backoff of d waits between d/2
	// and d, so that clients that failed together do not retry together.
	// The cap is applied before the jitter, so waits at the cap vary too.
	Jitter float64
	// Retries is how many times a failed attempt may be retried.
	Retries int
	// GiveUpBeyondCap ends the retries when a server announces a wait
	// longer than Cap (retrying earlier would fail again); otherwise the
	// announced wait is shortened to Cap.
	GiveUpBeyondCap bool
	// Rand returns a number in [0, 1) for the jitter; nil means
	// math/rand/v2. Tests pass a fixed source.
	Rand func() float64
}

// Allows reports whether retry number n (0 for the first retry) is within
// the policy's Retries.
func (p Policy) Allows(n int) bool { return n >= 0 && n < p.Retries }

// Backoff is the wait before retry number n (0 for the first retry) when
// the server announced none: Base x 2^n, at most Cap, less a random part
// of up to Jitter of it (the waits range over (1-Jitter)*d to d).
func (p Policy) Backoff(n int) time.Duration {
	d := max(p.Base, 0)
	for i := 0; i < n && d > 0 && (p.Cap <= 0 || d < p.Cap) && d <= math.MaxInt64/2; i++ {
		d *= 2
	}
	if p.Cap > 0 {
		d = min(d, p.Cap)
	}
	if j := min(max(p.Jitter, 0), 1); j > 0 && d > 0 {
		r := rand.Float64
		if p.Rand != nil {
			r = p.Rand
		}
		d = time.Duration(float64(d) * (1 - j + j*r()))
	}
	return d
}

// Announced is the wait before a retry when the server asked for d (see
// RetryAfter): d itself, not below 0 and at most Cap. ok is false when d
// is beyond Cap and the policy gives up then.
func (p Policy) Announced(d time.Duration) (wait time.Duration, ok bool) {
	d = max(d, 0)
	if p.Cap > 0 && d > p.Cap {
		if p.GiveUpBeyondCap {
			return 0, false
		}
		d = p.Cap
	}
	return d, true
}

// mostAnnounced bounds a wait read from a header, so that a huge number
// cannot overflow a time.Duration.
const mostAnnounced = 24 * time.Hour

// RetryAfter reads a Retry-After header value relative to now: a number of
// seconds (a decimal fraction is accepted, as some API gateways send one)
// or an HTTP date (a date in the past means no wait). ok is false for an
// empty value and for anything else (a negative number, garbage). Waits
// beyond a day read as a day.
func RetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if strings.Trim(v, "0123456789.") == "" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, false
		}
		if x*float64(time.Second) >= float64(mostAnnounced) {
			return mostAnnounced, true
		}
		return time.Duration(x * float64(time.Second)), true
	}
	for _, layout := range httpDates {
		if at, err := time.Parse(layout, v); err == nil {
			return min(max(at.Sub(now), 0), mostAnnounced), true
		}
	}
	return 0, false
}

// httpDates are the date formats of HTTP (RFC 9110 section 5.6.7): the
// IMF-fixdate, then the obsolete RFC 850 and asctime forms, as
// net/http.ParseTime reads them.
var httpDates = []string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC}

// Sleep waits for d or until ctx is done, whichever comes first; it
// returns ctx.Err() when ctx ended the wait (or was done already).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
