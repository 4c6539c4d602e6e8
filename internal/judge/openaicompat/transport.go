package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/raggate/raggate/internal/judge"
)

// call carries one HTTP attempt's settings through the request context to
// the doer, and what came back in the response headers (go-openai keeps the
// headers of failed responses to itself).
type call struct {
	// lim, when set, bounds the attempt: the doer holds one of its slots
	// from just before the request is sent until the response headers
	// arrive, so that encoding the request and decoding the answer do not
	// keep a slot busy. tokens is the attempt's estimate for TPM limits.
	lim    *judge.Limiter
	tokens int
	// timeout bounds the attempt once it has its slot (waiting for the
	// slot or a rate-limit reset does not count).
	timeout time.Duration
	// patch adds top-level JSON members to the request body. go-openai
	// cannot send some values: a zero float32 temperature is dropped by
	// omitempty, and its client-side validator refuses n > 1 for some
	// model names, so these go here.
	patch map[string]any
	// sent records what the attempt asked for, to interpret a 400.
	sent sent

	status   int
	header   http.Header
	timedOut bool
}

// sent is the set of optional request parameters an attempt used.
type sent struct {
	format        formatMode
	n             int
	seed          bool
	temperature   bool
	maxCompletion bool
}

type callKey struct{}

func withCall(ctx context.Context, c *call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// doer is the HTTP client handed to go-openai: it applies the attempt's body
// patch, the extra headers and the base URL's query, and records the
// response status and headers.
type doer struct {
	client  *http.Client
	headers map[string]string
	// query is the base URL's raw query, added to every request.
	query string
}

// Do implements openai.HTTPDoer.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	c, _ := req.Context().Value(callKey{}).(*call)
	if err := d.prepare(req, c); err != nil {
		return nil, err
	}
	if c == nil || c.lim == nil {
		return d.send(req, c)
	}
	release, err := c.lim.Acquire(req.Context(), c.tokens)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(req.Context(), c.timeout)
	resp, err := d.send(req.WithContext(ctx), c)
	release()
	if err != nil {
		c.timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		return nil, err
	}
	resp.Body = &timedBody{ReadCloser: resp.Body, ctx: ctx, cancel: cancel, c: c}
	return resp, nil
}

// timedBody ends the attempt's timeout when the body is closed, and notes
// whether reading it ran out of time.
type timedBody struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelFunc
	c      *call
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && errors.Is(b.ctx.Err(), context.DeadlineExceeded) {
		b.c.timedOut = true
	}
	return n, err
}

func (b *timedBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

func (d *doer) send(req *http.Request, c *call) (*http.Response, error) {
	resp, err := d.client.Do(req)
	if c != nil && resp != nil {
		c.status = resp.StatusCode
		c.header = resp.Header.Clone()
	}
	if err == nil && resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		_ = resp.Body.Close()
		return nil, &redirectError{status: resp.StatusCode, location: resp.Header.Get("Location")}
	}
	return resp, err
}

// redirectError is a 3xx answer of the judge's endpoint, not followed.
type redirectError struct {
	status   int
	location string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("the judge endpoint answered HTTP %d %s, a redirect to %q, not followed (it would carry the key elsewhere): give the final URL as --base-url",
		e.status, http.StatusText(e.status), e.location)
}

// prepare applies the body patch and the extra headers.
func (d *doer) prepare(req *http.Request, c *call) error {
	if c != nil && len(c.patch) > 0 && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return err
		}
		if body, err = patchJSON(body, c.patch); err != nil {
			return err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	for k, v := range d.headers {
		req.Header.Set(k, v)
	}
	if d.query != "" {
		if req.URL.RawQuery == "" {
			req.URL.RawQuery = d.query
		} else {
			req.URL.RawQuery = d.query + "&" + req.URL.RawQuery
		}
	}
	return nil
}

// patchJSON adds top-level members to a JSON object by writing them right
// after its opening brace, without decoding the (large) rest of the body.
// The members must be absent from body: the request structs leave them
// at their zero value, which go-openai omits. Members are written in
// sorted order.
func patchJSON(body []byte, patch map[string]any) ([]byte, error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) < 2 || trimmed[0] != '{' {
		return nil, fmt.Errorf("request body is not a JSON object")
	}
	keys := make([]string, 0, len(patch))
	for k := range patch {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]byte, 0, len(trimmed)+32*len(keys))
	out = append(out, '{')
	for _, k := range keys {
		v, err := json.Marshal(patch[k])
		if err != nil {
			return nil, fmt.Errorf("request body %s: %w", k, err)
		}
		kb, _ := json.Marshal(k)
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, v...)
		out = append(out, ',')
	}
	rest := bytes.TrimLeft(trimmed[1:], " \t\r\n")
	if len(rest) > 0 && rest[0] == '}' {
		out = out[:len(out)-1] // empty object: no trailing comma
	}
	return append(out, rest...), nil
}
