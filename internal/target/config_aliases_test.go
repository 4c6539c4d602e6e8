package target

import (
	"fmt"
	"strings"
	"testing"
)

// A few hundred bytes of aliases of aliases ("billion laughs") is refused
// at once, with its line, instead of expanding into gigabytes.
func TestConfigAliasBombRefused(t *testing.T) {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 9 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("target:\n  url: http://localhost:8000/ask\n  body: {q: *l9}\n")
	_, err := ParseConfig("t.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "expands to more than") || !strings.Contains(err.Error(), "t.yaml:") {
		t.Fatalf("err = %v, want the expansion refused with its line", err)
	}
	merges := "a: &a {x: 1}\nb: &b {<<: [*a, *a, *a, *a, *a, *a, *a, *a]}\nc: &c {<<: [*b, *b, *b, *b, *b, *b, *b, *b]}\nd: &d {<<: [*c, *c, *c, *c, *c, *c, *c, *c]}\ne: &e {<<: [*d, *d, *d, *d, *d, *d, *d, *d]}\nf: &f {<<: [*e, *e, *e, *e, *e, *e, *e, *e]}\ntarget: {<<: *f, url: http://localhost:8000/ask}\n"
	if _, err := ParseConfig("m.yaml", []byte(merges)); err == nil || !strings.Contains(err.Error(), "expands to more than") {
		t.Fatalf("merges of merges: err = %v, want the expansion refused", err)
	}
}

// An anchor used through another anchor is used: its top-level key is
// not an unknown key.
func TestConfigChainedMerge(t *testing.T) {
	c, err := ParseConfig("t.yaml", []byte("base: &base {timeout: 30s}\nmid: &mid {<<: *base, retries: 1}\ntarget: {<<: *mid, url: http://localhost:8000/ask}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeout.String() != "30s" || c.Retries == nil || *c.Retries != 1 {
		t.Fatalf("config %+v, want timeout 30s and retries 1 from the chained merges", c)
	}
}

// Two headers whose names differ only in case are one header: refused
// with both lines, not one value silently dropped.
func TestConfigHeaderNamesCaseInsensitive(t *testing.T) {
	_, err := ParseConfig("t.yaml", []byte("target:\n  url: http://localhost:8000/ask\n  headers:\n    x-team: a\n    X-Team: b\n"))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:5:") || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("err = %v, want the second header refused at line 5 naming line 4", err)
	}
}

// A GET sends no body: a body given with it is refused.
func TestGetWithBodyRefused(t *testing.T) {
	_, err := Build(Config{URL: "http://localhost:8000/ask?q={{user_input}}", Method: "GET", Body: `{"q": "{{user_input}}"}`}, func(string) string { return "" }, "")
	if err == nil || !strings.Contains(err.Error(), "GET sends no body") {
		t.Fatalf("err = %v, want a GET with a body refused", err)
	}
	if _, err := Build(Config{URL: "http://localhost:8000/ask?q={{user_input}}", Method: "GET"}, func(string) string { return "" }, ""); err != nil {
		t.Fatalf("a GET without a body: %v", err)
	}
}
