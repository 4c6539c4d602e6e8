package openaicompat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// call carries, through the request context, what one HTTP attempt must add
// to the JSON body and what came back in the response headers (go-openai
// keeps the headers of failed responses to itself).
type call struct {
	// patch sets top-level JSON members of the request body (a nil value
	// deletes the member). go-openai cannot send some values: a zero
	// float32 temperature is dropped by omitempty, and its client-side
	// validator refuses n > 1 for some model names, so these go here.
	patch map[string]any
	// sent records what the attempt asked for, to interpret a 400.
	sent sent

	status int
	header http.Header
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
// patch and extra headers, and records the response status and headers.
type doer struct {
	client  *http.Client
	headers map[string]string
}

// Do implements openai.HTTPDoer.
func (d *doer) Do(req *http.Request) (*http.Response, error) {
	c, _ := req.Context().Value(callKey{}).(*call)
	if c != nil && len(c.patch) > 0 && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		if body, err = patchJSON(body, c.patch); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	for k, v := range d.headers {
		req.Header.Set(k, v)
	}
	resp, err := d.client.Do(req)
	if c != nil && resp != nil {
		c.status = resp.StatusCode
		c.header = resp.Header.Clone()
	}
	return resp, err
}

// patchJSON sets (or, for nil values, deletes) top-level members of a JSON
// object. The result has its members in sorted order.
func patchJSON(body []byte, patch map[string]any) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	for k, v := range patch {
		if v == nil {
			delete(m, k)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("request body %s: %w", k, err)
		}
		m[k] = b
	}
	return json.Marshal(m)
}
