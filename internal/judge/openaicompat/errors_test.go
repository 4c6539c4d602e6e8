package openaicompat

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
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
		// Nothing exhausted and no message: the longest reset.
		{map[string]string{"x-ratelimit-reset-requests": "1m30.5s", "x-ratelimit-reset-tokens": "6m0s"}, "", 6 * time.Minute, true},
		// A tokens-per-minute 429: the request asked for more tokens than
		// were left, nothing reads 0, the requests window resets in 12 ms.
		// The wait is the message's (the tokens reset), not 12 ms.
		{map[string]string{"x-ratelimit-remaining-requests": "4999", "x-ratelimit-reset-requests": "12ms",
			"x-ratelimit-remaining-tokens": "500", "x-ratelimit-reset-tokens": "1.5s"},
			"Rate limit reached for gpt-4o-mini on tokens per min (TPM): Limit 200000, Used 199500, Requested 1200. Please try again in 1.5s.", 1500 * time.Millisecond, true},
		// Other servers' wording.
		{nil, "Quota exceeded for metric: generate_content_requests_per_minute. Please retry in 16.2s.", 16200 * time.Millisecond, true},
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

// A per-minute limit worded with "quota" by another server is a rate limit
// to wait out, not an exhausted account; only insufficient_quota stops the run.
func TestQuotaWordingIsNotFatal(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Inject(openaitest.APIError(429, "RESOURCE_EXHAUSTED", "", "", "Resource has been exhausted (e.g. check quota). Please retry in 2s."))
	if _, err := e.j.Ask(context.Background(), usefulReq()); err != nil {
		t.Fatalf("a per-minute limit stopped the step: %v", err)
	}
	e.srv.Inject(openaitest.QuotaExceeded())
	if _, err := e.j.Ask(context.Background(), verifyReq()); !judge.IsFatal(err) {
		t.Fatalf("insufficient_quota: err = %v, want fatal", err)
	}
}

// A 400 about a parameter's value (the doubled completion limit of a
// truncation retry exceeds the model's cap) makes that step undefined but
// does not drop the parameter for the rest of the run.
func TestValueErrorDoesNotDropParameter(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Inject(openaitest.APIError(400, "invalid_request_error", "integer_above_max_value", "max_completion_tokens",
		"Invalid 'max_completion_tokens': integer above maximum value. max_completion_tokens is too large: 8192. This model supports at most 4096 completion tokens."))
	_, err := e.j.Ask(context.Background(), usefulReq())
	wantUndefined(t, err, "rejected")
	if _, err := e.j.Ask(context.Background(), verifyReq()); err != nil {
		t.Fatal(err)
	}
	var last string
	for _, r := range e.srv.Requests() {
		if r.Kind == "chat" {
			last = string(r.Body)
		}
	}
	if !strings.Contains(last, `"max_completion_tokens"`) || strings.Contains(last, `"max_tokens"`) {
		t.Errorf("after a value error the next request sent %s, want max_completion_tokens kept", last)
	}
}

// A 404 names the model of the call that failed, chat or embeddings, and
// the flag that sets it (Azure: the deployment flags).
func TestNotFoundNamesTheModel(t *testing.T) {
	notFound := openaitest.APIError(404, "invalid_request_error", "model_not_found", "", "The model does not exist.")
	azure := func(c *Config) {
		c.BaseURL, c.Azure = "", AzureConfig{ChatDeployment: "judge-4o", EmbeddingDeployment: "emb-3s"}
	}
	tests := []struct {
		name       string
		azure      bool
		embeddings bool
		want       string
	}{
		{"chat", false, false, `model "gpt-4o-mini" (--model)`},
		{"embeddings", false, true, `embedding model "text-embedding-3-small" (--embedding-model)`},
		{"azure chat", true, false, `model "judge-4o" (--azure-deployment)`},
		{"azure embeddings", true, true, `embedding model "emb-3s" (--azure-embedding-deployment)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			j := e.j
			if tt.azure {
				j = e.judge(t, azure, func(c *Config) { c.Azure.Endpoint = e.srv.Endpoint })
			}
			var err error
			if tt.embeddings {
				e.srv.Inject(notFound.ForEmbeddings())
				_, err = j.Embed(context.Background(), []string{"a"})
			} else {
				e.srv.Inject(notFound)
				_, err = j.Ask(context.Background(), usefulReq())
			}
			wantFatal(t, err, "HTTP 404", tt.want)
		})
	}
}
