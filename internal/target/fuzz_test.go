package target

import (
	"encoding/json"
	"testing"

	"github.com/raggate/raggate/metrics"
)

// FuzzExtract feeds arbitrary replies and paths to the reply reader: it
// must return a reply or an error, never panic.
func FuzzExtract(f *testing.F) {
	f.Add(`{"data": {"answer": "x", "sources": [{"text": "a", "id": 1}]}, "usage": {"prompt_tokens": 3}}`, "data.answer", "data.sources[*].text", "usage")
	f.Add(`[1, [2, {"a": null}]]`, "[1][1].a", "[*]", "")
	f.Add(`{"response": 1e400}`, "response", "", "response")
	f.Fuzz(func(t *testing.T, reply, resp, ctx, usage string) {
		ps, err := Config{Response: resp, Contexts: ctx, Usage: usage}.paths()
		if err != nil {
			return
		}
		_, _ = ps.Extract([]byte(reply))
	})
}

// FuzzTemplate renders arbitrary templates over a sample with awkward
// text: a template that parses always renders valid JSON.
func FuzzTemplate(f *testing.F) {
	f.Add(`{"q": "{{user_input}}", "c": "{{retrieved_contexts}}", "t": "x {{topic}} y"}`, "a \"quoted\"\n<question>")
	f.Add(`["{{id}}", {"{{user_input}}": 1}]`, "\u2028\x00")
	f.Fuzz(func(t *testing.T, body, input string) {
		tpl, err := ParseTemplate(body)
		if err != nil {
			return
		}
		s := &metrics.Sample{ID: "q-1", UserInput: input, RetrievedContexts: []string{input, "b"}, Metadata: map[string]string{"topic": input}}
		out, err := tpl.Render(s)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("rendered invalid JSON: %s", out)
		}
	})
}
