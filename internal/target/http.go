package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/raggate/raggate/internal/neterr"
	"github.com/raggate/raggate/internal/retry"
	"github.com/raggate/raggate/metrics"
)

// maxReply is the largest reply read from a target.
const maxReply = 16 << 20

// HTTP is a pipeline behind an HTTP endpoint. The URL may hold
// placeholders (query-escaped); the body is the rendered Template (none
// for GET and HEAD).
type HTTP struct {
	URL    string
	Method string // default POST
	Header http.Header
	Body   *Template
	Paths  Paths
	Client *http.Client
}

// NewClient returns an HTTP client that keeps enough idle connections for
// conc calls in flight and follows no redirect (see NoRedirects).
func NewClient(conc int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = max(100, conc)
	tr.MaxIdleConnsPerHost = max(2, conc)
	return &http.Client{Transport: tr, CheckRedirect: NoRedirects}
}

// NoRedirects is an http.Client CheckRedirect that follows no redirect:
// the 3xx response is returned as it is. Following one would send the
// configured headers (secrets) to whatever host it names, and turn a POST
// into a GET without its body (a 301, 302 or 303).
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// noRedirectClient is the client of an HTTP target without one.
var noRedirectClient = &http.Client{CheckRedirect: NoRedirects}

// Call sends the sample's request and reads the reply.
func (h *HTTP) Call(ctx context.Context, s *metrics.Sample) (Reply, error) {
	method := h.Method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader
	if method != http.MethodGet && method != http.MethodHead && h.Body != nil {
		b, err := h.Body.Render(s)
		if err != nil {
			return Reply{}, permanent(0, "request body: %v", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, ExpandText(h.URL, s, URLEscape), body)
	if err != nil {
		return Reply{}, permanent(0, "request: %v", err)
	}
	for k, vs := range h.Header {
		req.Header[k] = vs
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	client := h.Client
	if client == nil {
		client = noRedirectClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return Reply{}, transient(0, "no reply: %v", ctx.Err())
		}
		return Reply{}, transient(0, "%v", unwrapURL(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReply+1))
	if err != nil {
		return Reply{}, transient(resp.StatusCode, "reading the reply: %v", err)
	}
	if resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		return Reply{}, permanent(resp.StatusCode, "HTTP %d %s: a redirect to %q, not followed (it would carry the headers elsewhere); give the final URL as the target",
			resp.StatusCode, http.StatusText(resp.StatusCode), resp.Header.Get("Location"))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Reply{}, statusError(resp, data)
	}
	if len(data) > maxReply {
		return Reply{}, permanent(resp.StatusCode, "reply larger than %d MiB", maxReply>>20)
	}
	r, err := h.Paths.Extract(data)
	if err == nil {
		err = h.Paths.CheckID(r, s.ID, false)
	}
	if err != nil {
		return Reply{}, permanent(resp.StatusCode, "%v", err)
	}
	return r, nil
}

// Close releases idle connections.
func (h *HTTP) Close() error {
	if h.Client != nil {
		h.Client.CloseIdleConnections()
	}
	return nil
}

// statusError classifies a non-2xx reply: 408, 429 and 5xx are transient.
func statusError(resp *http.Response, data []byte) error {
	code := resp.StatusCode
	e := &CallError{Code: code, Reason: fmt.Sprintf("HTTP %d %s: %s", code, http.StatusText(code), snippet(data))}
	switch {
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		e.Transient = true
		if d, ok := retry.RetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			e.RetryAfter = d
		}
	}
	return e
}

// unwrapURL drops the "Post \"url\": " prefix of a client error: the URL
// may carry a secret in its query, and the cause is what matters.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if neterr.Cause(ue) != "" {
			return neterr.WrapCause(ue)
		}
		return ue.Err
	}
	return err
}
