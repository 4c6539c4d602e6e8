package target

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// Template is a JSON request body with placeholders {{field}} inside its
// strings. A string that is a placeholder alone ("{{retrieved_contexts}}")
// becomes the field's JSON value (a list stays a list); a placeholder
// inside a longer string becomes the field's text (list items joined with
// newlines). Values are encoded as JSON, so no sample can break the body.
// Fields are the sample's (id, user_input, reference, retrieved_contexts,
// reference_contexts, retrieved_context_ids, reference_context_ids) and
// its metadata columns.
type Template struct {
	tree  any
	names []string
}

// DefaultBody is the body sent when none is configured.
const DefaultBody = `{"id": "{{id}}", "user_input": "{{user_input}}"}`

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_ .-]+?)\s*\}\}`)

// ParseTemplate parses a JSON body template.
func ParseTemplate(body string) (*Template, error) {
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("request body %q is not JSON (%v); write it as JSON with placeholders in strings, e.g. %s", body, err, `{"query": "{{user_input}}"}`)
	}
	if dec.More() {
		return nil, fmt.Errorf("request body %q holds more than one JSON value", body)
	}
	t := &Template{tree: tree}
	walkStrings(tree, func(s string) {
		for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(t.names, m[1]) {
				t.names = append(t.names, m[1])
			}
		}
	})
	return t, nil
}

// Names returns the fields the template reads, in order of appearance.
func (t *Template) Names() []string { return t.names }

// Render returns the body for a sample.
func (t *Template) Render(s *metrics.Sample) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(render(t.tree, s)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func render(v any, s *metrics.Sample) any {
	switch x := v.(type) {
	case string:
		if m := placeholder.FindStringSubmatch(x); m != nil && m[0] == x {
			return FieldValue(s, m[1])
		}
		return ExpandText(x, s, nil)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[ExpandText(k, s, nil)] = render(e, s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = render(e, s)
		}
		return out
	}
	return v
}

// ExpandText replaces the placeholders of text with the sample's fields as
// text; escape, when set, encodes each value (url.QueryEscape for URLs).
func ExpandText(text string, s *metrics.Sample, escape func(string) string) string {
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		var v string
		switch x := FieldValue(s, name).(type) {
		case string:
			v = x
		case []string:
			v = strings.Join(x, "\n")
		}
		if escape != nil {
			v = escape(v)
		}
		return v
	})
}

// URLEscape is the escape of placeholders in a URL.
var URLEscape = url.QueryEscape

// FieldValue is the value of a field or metadata column of s: a string, a
// []string, or nil when the sample has none.
func FieldValue(s *metrics.Sample, name string) any {
	switch name {
	case "id":
		return s.ID
	case string(metrics.UserInput):
		return s.UserInput
	case string(metrics.Reference):
		return s.Reference
	case string(metrics.RetrievedContexts):
		return s.RetrievedContexts
	case string(metrics.ReferenceContexts):
		return s.ReferenceContexts
	case string(metrics.RetrievedContextIDs):
		return s.RetrievedContextIDs
	case string(metrics.ReferenceContextIDs):
		return s.ReferenceContextIDs
	}
	if v, ok := s.Metadata[name]; ok {
		return v
	}
	return nil
}

// SampleFields are the field names a template may use besides metadata
// columns.
var SampleFields = []string{"id", string(metrics.UserInput), string(metrics.Reference), string(metrics.RetrievedContexts),
	string(metrics.ReferenceContexts), string(metrics.RetrievedContextIDs), string(metrics.ReferenceContextIDs)}

// Placeholders returns the field names used in text (a URL or a header).
func Placeholders(text string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case map[string]any:
		for k, e := range x {
			f(k)
			walkStrings(e, f)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	}
}
