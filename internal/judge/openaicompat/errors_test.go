package openaicompat

import (
	"net/http"
	"testing"
	"time"
)

func TestRateLimitWaitParsing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		msg    string
		want   time.Duration
		ok     bool
	}{
		{map[string]string{"Retry-After": "1.5"}, "", 1500 * time.Millisecond, true},
		{map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, "", 7 * time.Second, true},
		{map[string]string{"x-ms-retry-after-ms": "250"}, "", 250 * time.Millisecond, true},
		{map[string]string{"x-ratelimit-reset-requests": "1m30.5s", "x-ratelimit-reset-tokens": "6m0s"}, "", 90500 * time.Millisecond, true},
		{map[string]string{"x-ratelimit-reset-tokens": "2"}, "", 2 * time.Second, true},
		{nil, "Rate limit is exceeded. Try again in 60 seconds.", time.Minute, true},
		{nil, "Please try again in 120ms.", 120 * time.Millisecond, true},
		{map[string]string{"Retry-After": "soon"}, "slow down", 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		got, ok := rateLimitWait(h, tt.msg, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("rateLimitWait(%v, %q) = %s, %v; want %s, %v", tt.header, tt.msg, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzRateLimitWait(f *testing.F) {
	f.Add("2", "1500", "6m0s", "20ms", "Please try again in 1.2s")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT", "", "", "1s", "")
	f.Fuzz(func(t *testing.T, retryAfter, retryAfterMS, resetReq, resetTok, msg string) {
		h := http.Header{}
		h.Set("retry-after", retryAfter)
		h.Set("retry-after-ms", retryAfterMS)
		h.Set("x-ratelimit-reset-requests", resetReq)
		h.Set("x-ratelimit-reset-tokens", resetTok)
		if d, ok := rateLimitWait(h, msg, time.Now()); ok && d < 0 {
			t.Errorf("negative wait %s", d)
		}
	})
}

func FuzzParsePrices(f *testing.F) {
	f.Add([]byte("gpt-4o-mini: {input_per_mtok: 0.15, output_per_mtok: 0.6}"))
	f.Add([]byte(`{"m": {"input_per_mtok": 1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePrices(b)
		if err != nil {
			return
		}
		for m, pr := range p {
			if pr.InputPerMTok < 0 || pr.OutputPerMTok < 0 {
				t.Errorf("%s: negative price accepted", m)
			}
		}
	})
}
