package ghapi_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/raggate/raggate/internal/ghapi"
)

// replies is a transport that answers with canned statuses and headers,
// in order, then 200.
type replies struct {
	statuses []int
	headers  []http.Header
	calls    int
}

func (r *replies) RoundTrip(req *http.Request) (*http.Response, error) {
	i := r.calls
	r.calls++
	resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{}`)), Request: req}
	if i < len(r.statuses) {
		resp.StatusCode = r.statuses[i]
		if i < len(r.headers) && r.headers[i] != nil {
			resp.Header = r.headers[i]
		}
	}
	return resp, nil
}

// waits runs one GET through a client over rt and returns the waits
// between its attempts.
func waits(t *testing.T, rt http.RoundTripper, opts ...ghapi.Option) []time.Duration {
	t.Helper()
	var got []time.Duration
	opts = append(opts, ghapi.WithSleep(func(ctx context.Context, d time.Duration) error {
		got = append(got, d)
		return nil
	}))
	c, err := ghapi.NewClient("", "", &http.Client{Transport: rt}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _ = c.Repositories.Get(context.Background(), "octo", "rag")
	return got
}

// A server error on a GET backs off from 1s, doubling, without jitter,
// DefaultMaxRetries times.
func TestServerErrorBackoff(t *testing.T) {
	rt := &replies{statuses: []int{502, 503, 504, 502, 502}}
	got := waits(t, rt)
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("waits %v, want %v", got, want)
	}
	if rt.calls != 4 {
		t.Errorf("%d calls, want 4 (3 retries)", rt.calls)
	}
}

// Retry-After is read in both forms; an HTTP date is waited for until
// that date (synctest's clock makes it exact), and a wait beyond the cap
// is not waited for at all.
func TestRetryAfterForms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		date := http.Header{"Retry-After": {time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)}}
		secs := http.Header{"Retry-After": {"12"}}
		past := http.Header{"Retry-After": {time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)}}
		got := waits(t, &replies{statuses: []int{429, 429, 429}, headers: []http.Header{date, secs, past}})
		if len(got) != 3 || got[0] != 30*time.Second || got[1] != 12*time.Second || got[2] != 0 {
			t.Errorf("waits %v, want [30s 12s 0s]", got)
		}
		far := http.Header{"Retry-After": {time.Now().Add(2 * time.Hour).UTC().Format(http.TimeFormat)}}
		rt := &replies{statuses: []int{429}, headers: []http.Header{far}}
		if got := waits(t, rt); len(got) != 0 || rt.calls != 1 {
			t.Errorf("a wait of 2h beyond the 60s cap: waits %v after %d calls, want none", got, rt.calls)
		}
	})
}
