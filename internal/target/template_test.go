package target

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/raggate/raggate/metrics"
)

func TestTemplateRender(t *testing.T) {
	s := &metrics.Sample{ID: "k2-001", UserInput: `How much "energy"?` + "\n<b>&", RetrievedContexts: []string{"c1", "c2"},
		Metadata: map[string]string{"topic": "battery"}}
	tpl, err := ParseTemplate(`{"query": "{{user_input}}", "ctx": "{{ retrieved_contexts }}", "note": "id={{id}} on {{topic}}: {{retrieved_contexts}}",
		"nested": [{"ids": "{{reference_context_ids}}"}], "k": 3, "{{topic}}": true}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"user_input", "retrieved_contexts", "id", "topic", "reference_context_ids"}; !sameSet(tpl.Names(), want) {
		t.Errorf("Names = %v, want %v", tpl.Names(), want)
	}
	b, err := tpl.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("rendered body is not JSON: %v\n%s", err, b)
	}
	want := map[string]any{
		"query":   s.UserInput,
		"ctx":     []any{"c1", "c2"},
		"note":    "id=k2-001 on battery: c1\nc2",
		"nested":  []any{map[string]any{"ids": nil}},
		"k":       3.0,
		"battery": true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rendered %s\n got %#v\nwant %#v", b, got, want)
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for _, body := range []string{`{"query": {{user_input}}}`, `{"a": 1} {"b": 2}`, ``} {
		if _, err := ParseTemplate(body); err == nil {
			t.Errorf("ParseTemplate(%q) = nil error", body)
		}
	}
}

func TestExpandTextURL(t *testing.T) {
	s := &metrics.Sample{ID: "a b", UserInput: "x&y=z?"}
	got := ExpandText("http://h/ask?q={{user_input}}&id={{id}}", s, URLEscape)
	if want := "http://h/ask?q=x%26y%3Dz%3F&id=a+b"; got != want {
		t.Errorf("ExpandText = %q, want %q", got, want)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}
