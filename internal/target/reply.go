package target

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Reply is what the pipeline answered for one sample. Contexts and
// ContextIDs are nil when the reply does not mention them (the dataset's
// are kept), and empty when it says null or []; Usage is nil when the
// reply reports no token usage. ID is the request id the reply names, if
// any.
type Reply struct {
	Response   string
	Contexts   []string
	ContextIDs []string
	Usage      *Usage
	ID         *string
}

// Usage is the token usage a pipeline reports for one answer.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	TotalTokens      int `json:"total_tokens"`
}

// Paths say where a reply holds each output. Response is required; an
// optional path that is absent from a reply leaves that output unset,
// unless it was given explicitly (Strict), which makes the reply
// malformed.
type Paths struct {
	Response   Path
	Contexts   Path
	ContextIDs Path
	Usage      Path
	// ID is where a reply names the request it answers.
	ID Path
	// Strict lists the optional outputs whose path was given explicitly:
	// "contexts", "context_ids", "usage", "id".
	Strict map[string]bool
}

// DefaultPaths are the paths used when none is given: the field names of
// a responses file, and OpenAI's usage object.
func DefaultPaths() Paths {
	return Paths{
		Response:   MustPath("response"),
		Contexts:   MustPath("retrieved_contexts"),
		ContextIDs: MustPath("retrieved_context_ids"),
		Usage:      MustPath("usage"),
		ID:         MustPath("id"),
	}
}

// Extract reads a reply (one JSON value) with the paths. Its errors say
// which path did not match and why; they are never transient.
func (ps Paths) Extract(data []byte) (Reply, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Reply{}, fmt.Errorf("reply is not JSON (%v): %s", err, snippet(data))
	}
	if _, err := dec.Token(); err != io.EOF {
		// Two replies run together, or a log line after the reply.
		return Reply{}, fmt.Errorf("reply has more after the reply's JSON value, want one JSON value: %s", snippet(data))
	}
	var r Reply
	resp, found, err := ps.Response.Get(v)
	switch {
	case err != nil:
		return Reply{}, fmt.Errorf("response path %q: %v", ps.Response, err)
	case !found:
		return Reply{}, fmt.Errorf("response path %q matches nothing in the reply %s", ps.Response, snippet(data))
	}
	if r.Response, err = text(resp); err != nil {
		return Reply{}, fmt.Errorf("response path %q: %v", ps.Response, err)
	}
	if r.Contexts, err = ps.list(v, ps.Contexts, "contexts", data); err != nil {
		return Reply{}, err
	}
	if r.ContextIDs, err = ps.list(v, ps.ContextIDs, "context_ids", data); err != nil {
		return Reply{}, err
	}
	if r.Usage, err = ps.usage(v, data); err != nil {
		return Reply{}, err
	}
	if r.ID, err = ps.id(v, data); err != nil {
		return Reply{}, err
	}
	return r, nil
}

// id reads the id a reply names: a text or number, or nil when absent.
func (ps Paths) id(v any, data []byte) (*string, error) {
	if ps.ID.String() == "" {
		return nil, nil
	}
	x, found, err := ps.ID.Get(v)
	if err == nil && (!found || x == nil) && ps.Strict["id"] {
		err = fmt.Errorf("matches nothing in the reply %s", snippet(data))
	}
	if err != nil {
		return nil, fmt.Errorf("id path %q: %v", ps.ID, err)
	}
	if !found || x == nil {
		return nil, nil
	}
	s, err := text(x)
	if err != nil {
		return nil, fmt.Errorf("id path %q: %v", ps.ID, err)
	}
	return &s, nil
}

// CheckID fails when the reply names a request other than the sample's:
// an answer shifted onto the wrong sample. always is false for replies
// matched to their request by the transport (HTTP): their "id" may be
// anything unless its path was given.
func (ps Paths) CheckID(r Reply, id string, always bool) error {
	if r.ID == nil || *r.ID == id || !(always || ps.Strict["id"]) {
		return nil
	}
	return fmt.Errorf("the reply's id %q is not the request's %q: each reply must answer its own request, in order (a stray line on stdout shifts every later answer; log to stderr): %w", *r.ID, id, errWrongID)
}

// errWrongID marks a reply that names another request.
var errWrongID = errors.New("reply out of step")

// list reads a list of texts; a single text is a one-item list.
func (ps Paths) list(v any, p Path, name string, data []byte) ([]string, error) {
	if p.String() == "" {
		return nil, nil
	}
	x, found, err := p.Get(v)
	if err == nil && !found && ps.Strict[name] {
		err = fmt.Errorf("matches nothing in the reply %s", snippet(data))
	}
	if err == nil && found && x == nil && ps.Strict[name] {
		err = fmt.Errorf("null in the reply, want a list of texts ([] for none): %s", snippet(data))
	}
	if err != nil {
		return nil, fmt.Errorf("%s path %q: %v", name, p, err)
	}
	if !found {
		return nil, nil
	}
	if x == nil {
		return []string{}, nil // the reply has none: not the dataset's
	}
	items, ok := x.([]any)
	if !ok {
		items = []any{x}
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, err := text(it)
		if err != nil {
			return nil, fmt.Errorf("%s path %q: item %d: %v", name, p, i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// usage reads token usage: an object with prompt_tokens, completion_tokens
// and total_tokens (or input_tokens and output_tokens), or one number
// (the total).
func (ps Paths) usage(v any, data []byte) (*Usage, error) {
	if ps.Usage.String() == "" {
		return nil, nil
	}
	x, found, err := ps.Usage.Get(v)
	if err == nil && !found && ps.Strict["usage"] {
		err = fmt.Errorf("matches nothing in the reply %s", snippet(data))
	}
	if err != nil {
		return nil, fmt.Errorf("usage path %q: %v", ps.Usage, err)
	}
	if !found || x == nil {
		return nil, nil
	}
	if n, ok := x.(json.Number); ok {
		t, err := count(n)
		if err != nil {
			return nil, fmt.Errorf("usage path %q: %v", ps.Usage, err)
		}
		return &Usage{TotalTokens: t}, nil
	}
	obj, ok := x.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("usage path %q: %s, want a number of tokens or an object such as {\"prompt_tokens\": 120, \"completion_tokens\": 40}", ps.Usage, kindOf(x))
	}
	var u Usage
	known := map[*int]bool{}
	for _, f := range []struct {
		keys []string
		dst  *int
	}{{[]string{"prompt_tokens", "input_tokens"}, &u.PromptTokens}, {[]string{"completion_tokens", "output_tokens"}, &u.CompletionTokens}, {[]string{"total_tokens"}, &u.TotalTokens}} {
		for _, k := range f.keys {
			switch n := obj[k].(type) {
			case nil:
				continue // absent or null: not reported
			case json.Number:
				if *f.dst, err = count(n); err != nil {
					return nil, fmt.Errorf("usage path %q: %s: %v", ps.Usage, k, err)
				}
				known[f.dst] = true
			default:
				// "12" read as 0 would skew target_tokens without a word.
				return nil, fmt.Errorf("usage path %q: %s is %s, want a number of tokens", ps.Usage, k, kindOf(n))
			}
			break
		}
	}
	if len(known) == 0 {
		// {}, {"foo": 1} or only nulls: the pipeline reported no count,
		// which is not a count of 0.
		return nil, nil
	}
	if !known[&u.TotalTokens] {
		if u.TotalTokens = u.PromptTokens + u.CompletionTokens; u.TotalTokens > maxTokens {
			return nil, fmt.Errorf("usage path %q: prompt and completion tokens add up to %d, more than a count of tokens can be (at most %d)", ps.Usage, u.TotalTokens, maxTokens)
		}
	}
	return &u, nil
}

// maxTokens bounds a reported token count (2^53, exact as a float): far
// beyond any call, and the sum of two stays an int.
const maxTokens = 1 << 53

func count(n json.Number) (int, error) {
	i, err := strconv.Atoi(n.String())
	if err != nil || i < 0 || i > maxTokens {
		return 0, fmt.Errorf("%s is not a count of tokens (at most %d)", n, maxTokens)
	}
	return i, nil
}

// text returns a string value; numbers and booleans as written.
func text(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("%s, want a string", kindOf(v))
}

// snippet quotes the start of a reply for messages.
func snippet(data []byte) string {
	const n = 200
	s := string(bytes.TrimSpace(data))
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strconv.Quote(s)
}
