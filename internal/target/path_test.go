package target

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPathGet(t *testing.T) {
	doc := `{"data": {"answer": "13.5 kWh", "sources": [{"text": "a", "id": 7}, {"text": "b", "id": "x"}]}, "list": [["p", "q"]], "n": null}`
	tests := []struct {
		path      string
		want      any
		found     bool
		errSubstr string
	}{
		{"data.answer", "13.5 kWh", true, ""},
		{"data.sources[1].text", "b", true, ""},
		{"data.sources[*].text", []any{"a", "b"}, true, ""},
		{"data.sources[*].id", []any{json.Number("7"), "x"}, true, ""},
		{"list[0][1]", "q", true, ""},
		{"list[*][0]", []any{"p"}, true, ""},
		{"data.missing", nil, false, ""},
		{"data.sources[5].text", nil, false, ""},
		{"data.sources[*].nope", nil, false, ""},
		{"data.answer.x", nil, false, "data.answer is a string, not an object"},
		{"data[0]", nil, false, "data is an object, not a list"},
		{"n", nil, true, ""},
	}
	v := decode(t, doc)
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			p, err := ParsePath(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			got, found, err := p.Get(v)
			if tc.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSubstr) {
					t.Fatalf("err = %v, want %q", err, tc.errSubstr)
				}
				return
			}
			if err != nil || found != tc.found || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Get = %#v, %v, %v; want %#v, %v", got, found, err, tc.want, tc.found)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	for _, s := range []string{"a[", "a[x]", "a[-1]", ".a", "a..b", "a.", "a.[0]"} {
		if _, err := ParsePath(s); err == nil {
			t.Errorf("ParsePath(%q) = nil error", s)
		}
	}
	p := MustPath("a[*].b")
	if !p.Multi() || p.String() != "a[*].b" {
		t.Errorf("Multi/String of %q wrong", p)
	}
	if MustPath("a[0].b").Multi() {
		t.Error("a[0].b is not multi")
	}
}
