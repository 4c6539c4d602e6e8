package target

import (
	"reflect"
	"strings"
	"testing"
)

func TestExtractDefaults(t *testing.T) {
	r, err := DefaultPaths().Extract([]byte(`{"response": "yes", "retrieved_contexts": ["a", "b"], "retrieved_context_ids": [1, 2], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Reply{Response: "yes", Contexts: []string{"a", "b"}, ContextIDs: []string{"1", "2"}, Usage: &Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Extract = %+v, want %+v", r, want)
	}
	// Optional outputs absent: the dataset's are kept (nil), no error.
	r, err = DefaultPaths().Extract([]byte(`{"response": ""}`))
	if err != nil || r.Contexts != nil || r.Usage != nil || r.Response != "" {
		t.Errorf("Extract of a bare reply = %+v, %v", r, err)
	}
}

func TestExtractConfigured(t *testing.T) {
	c := Config{URL: "http://x", Response: "data.answer", Contexts: "data.sources[*].text", ContextIDs: "data.sources[*].id", Usage: "meta.tokens"}
	ps, err := c.paths()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ps.Extract([]byte(`{"data": {"answer": "ok", "sources": [{"text": "t1", "id": "d1"}]}, "meta": {"tokens": 42}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Response != "ok" || !reflect.DeepEqual(r.Contexts, []string{"t1"}) || !reflect.DeepEqual(r.ContextIDs, []string{"d1"}) || r.Usage.TotalTokens != 42 {
		t.Errorf("Extract = %+v", r)
	}
	// An explicit path that matches nothing makes the reply malformed.
	_, err = ps.Extract([]byte(`{"data": {"answer": "ok"}, "meta": {"tokens": 1}}`))
	if err == nil || !strings.Contains(err.Error(), `contexts path "data.sources[*].text": matches nothing`) {
		t.Errorf("err = %v", err)
	}
}

func TestExtractMalformed(t *testing.T) {
	ps := DefaultPaths()
	for _, tc := range []struct{ reply, want string }{
		{`not json`, "reply is not JSON"},
		{`{"answer": "x"}`, `response path "response" matches nothing in the reply "{\"answer\": \"x\"}"`},
		{`{"response": {"text": "x"}}`, `response path "response": an object, want a string`},
		{`{"response": "x", "retrieved_contexts": [{"t": 1}]}`, `contexts path "retrieved_contexts": item 0: an object, want a string`},
		{`{"response": "x", "usage": "many"}`, `usage path "usage": a string, want a number of tokens`},
		{`{"response": "x", "usage": -3}`, `-3 is not a count of tokens`},
		{`[1, 2]`, `the reply is a list, not an object with key "response"`},
	} {
		_, err := ps.Extract([]byte(tc.reply))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Extract(%s) err = %v, want %q", tc.reply, err, tc.want)
		}
	}
}
