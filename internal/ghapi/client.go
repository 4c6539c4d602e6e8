package ghapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/retry"
)

// DefaultAPIURL is the REST API of github.com.
const DefaultAPIURL = "https://api.github.com/"

// Retry defaults of NewClient.
const (
	DefaultMaxRetries = 3
	DefaultMaxWait    = 60 * time.Second
)

// Option configures NewClient.
type Option func(*retryTransport)

// WithMaxRetries sets how many times one request is retried after a rate
// limit or a transient server error (default 3; 0 disables retries).
func WithMaxRetries(n int) Option { return func(t *retryTransport) { t.policy.Retries = max(n, 0) } }

// WithMaxWait caps a single wait (default 60s). A rate limit that asks for
// a longer wait (Retry-After or x-ratelimit-reset beyond the cap) is not
// retried: the error is returned at once instead of sleeping for nothing.
// A d of 0 or less means no cap.
func WithMaxWait(d time.Duration) Option { return func(t *retryTransport) { t.policy.Cap = d } }

// WithSleep replaces the function that waits between retries (tests pass
// one that records the waits and returns at once). It must return
// ctx.Err() when ctx is done.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(t *retryTransport) { t.sleep = sleep }
}

// WithUserAgent sets the User-Agent header (default "raggate").
func WithUserAgent(ua string) Option { return func(t *retryTransport) { t.userAgent = ua } }

// NewClient returns a go-github client for apiURL (GITHUB_API_URL; empty
// means https://api.github.com) authenticated with token (none when
// empty). Any other apiURL is treated as GitHub Enterprise Server through
// WithEnterpriseURLs, which appends /api/v3/ unless the URL already ends
// with it or its host starts with "api." (GHE.com).
//
// The client's transport retries rate-limited requests (403 or 429 with
// Retry-After, x-ratelimit-remaining: 0 with x-ratelimit-reset, or a
// "secondary rate limit" message) and, for GET and HEAD, 502/503/504, at
// most DefaultMaxRetries times with waits capped at DefaultMaxWait. The
// retry happens below go-github, so go-github only sees the final answer
// and does not block later requests on a limit that has been waited out.
// hc may be nil; it is not modified.
func NewClient(token, apiURL string, hc *http.Client, opts ...Option) (*github.Client, error) {
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	rt := &retryTransport{
		base:      hc.Transport,
		policy:    retry.Policy{Base: time.Second, Cap: DefaultMaxWait, Retries: DefaultMaxRetries, GiveUpBeyondCap: true},
		sleep:     retry.Sleep,
		now:       time.Now,
		userAgent: "raggate",
	}
	if rt.base == nil {
		rt.base = http.DefaultTransport
	}
	for _, o := range opts {
		o(rt)
	}
	c := *hc
	c.Transport = rt
	gh := github.NewClient(&c)
	gh.UserAgent = rt.userAgent
	if token != "" {
		gh = gh.WithAuthToken(token)
	}
	apiURL = strings.TrimSpace(apiURL)
	if apiURL == "" || strings.TrimSuffix(apiURL, "/")+"/" == DefaultAPIURL {
		return gh, nil
	}
	u, err := url.Parse(apiURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid GitHub API URL %q (GITHUB_API_URL): want an absolute http(s) URL such as https://github.example.com/api/v3", apiURL)
	}
	upload := *u
	if p := strings.TrimSuffix(u.Path, "/"); strings.HasSuffix(p, "/api/v3") {
		upload.Path = strings.TrimSuffix(p, "/api/v3") + "/api/uploads/"
	}
	gh, err = gh.WithEnterpriseURLs(u.String(), upload.String())
	if err != nil {
		return nil, fmt.Errorf("GitHub API URL %q: %w", apiURL, err)
	}
	return gh, nil
}

// retryTransport retries rate-limited and transiently failed requests.
type retryTransport struct {
	base http.RoundTripper
	// policy: a backoff from 1s without jitter, and a server's wait
	// beyond the cap is not waited for.
	policy    retry.Policy
	sleep     func(context.Context, time.Duration) error
	now       func() time.Time
	userAgent string
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	for attempt := 0; ; attempt++ {
		r := req
		if attempt > 0 {
			r = req.Clone(req.Context())
			if req.Body != nil && req.Body != http.NoBody {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				r.Body = body
			}
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		if !t.policy.Allows(attempt) || !replayable {
			return resp, nil
		}
		wait, ok := t.retryAfter(resp, req.Method, attempt)
		if !ok {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err := t.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// retryAfter decides whether resp is worth retrying and after how long.
func (t *retryTransport) retryAfter(resp *http.Response, method string, attempt int) (time.Duration, bool) {
	// A rate limit that announces no wait: GitHub's docs say to wait at
	// least a minute.
	limited := t.policy
	limited.Base = time.Minute
	switch resp.StatusCode {
	case http.StatusForbidden, http.StatusTooManyRequests:
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if method == http.MethodGet || method == http.MethodHead {
			return t.policy.Backoff(attempt), true
		}
		return 0, false
	default:
		return 0, false
	}
	h := resp.Header
	// A wait the server announces is honoured, or given up on when it is
	// longer than we may wait (retrying earlier would fail again).
	if d, ok := retry.RetryAfter(h.Get("Retry-After"), t.now()); ok {
		return t.policy.Announced(d)
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			// One second of slack for clock skew.
			return t.policy.Announced(time.Unix(reset, 0).Sub(t.now()) + time.Second)
		}
		return limited.Backoff(attempt), true
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		return limited.Backoff(attempt), true
	}
	// A 403 without rate-limit headers is a secondary rate limit only if
	// the body says so; otherwise it is a permission error.
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return 0, false
	}
	lower := strings.ToLower(string(body))
	if strings.Contains(lower, "secondary rate limit") || strings.Contains(lower, "secondary-rate-limits") ||
		strings.Contains(lower, "abuse-rate-limits") || strings.Contains(lower, "abuse detection") {
		return limited.Backoff(attempt), true
	}
	return 0, false
}
