package target

import (
	"strings"
	"testing"
)

// Review of issue 22, finding 14: target config errors are worded in the
// user's terms, with file:line, never Go's ("!!int", "time.Duration",
// "EOF").
func TestReviewConfigErrorsInUserTerms(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"timeout number", "target:\n  url: http://x\n  timeout: 10\n", "t.yaml:3: timeout: want a duration such as 30s or 2m"},
		{"timeout word", "target:\n  url: http://x\n  timeout: soon\n", "t.yaml:3: timeout: want a duration such as 30s or 2m"},
		{"concurrency text", "target:\n  url: http://x\n  concurrency: \"8\"\n", "t.yaml:3: concurrency: want a whole number 1 to 1000"},
		{"concurrency fraction", "target:\n  url: http://x\n  concurrency: 2.5\n", "t.yaml:3: concurrency: want a whole number 1 to 1000"},
		{"retries negative", "target:\n  url: http://x\n  retries: -1\n", "t.yaml:3: retries: want a whole number 0 to 20"},
		{"headers list", "target:\n  url: http://x\n  headers:\n    - Authorization: x\n", "t.yaml:4: headers: want a mapping of NAME: value"},
		{"per_sample text", "target:\n  command: x\n  per_sample: often\n", "t.yaml:3: per_sample: want true or false"},
		{"env text", "target:\n  command: x\n  env: {A: 1}\n", "t.yaml:3: env: want a list of variable names"},
		{"empty", "", "t.yaml: is empty: want a target: section"},
		{"comments only", "# nothing\n", "t.yaml: is empty: want a target: section"},
		{"top-level anchor unused", "x: &h {A: b}\ntarget:\n  url: http://x\n", `t.yaml:1: unknown key "x" at the top level`},
		{"not a mapping", "- url: http://x\n", "t.yaml:1: want a mapping with one key, target:"},
		{"target not a mapping", "target: http://x\n", "t.yaml:1: target: want a mapping"},
	} {
		_, err := ParseConfig("t.yaml", []byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseConfig = %v, want %q", tc.name, err, tc.want)
			continue
		}
		for _, internal := range []string{"!!", "unmarshal", "time.Duration", "EOF", "yaml: line"} {
			if strings.Contains(err.Error(), internal) {
				t.Errorf("%s: Go internals (%s) in %v", tc.name, internal, err)
			}
		}
	}
}

// Finding 14: a %YAML directive and a UTF-8 BOM are read, not errors; an
// anchor inside target: is fine.
func TestReviewConfigDirectiveBOMAnchor(t *testing.T) {
	for name, text := range map[string]string{
		"%YAML 1.2": "%YAML 1.2\n---\ntarget:\n  url: http://x\n  timeout: 30s\n",
		"%YAML 1.1": "%YAML 1.1\n---\ntarget:\n  url: http://x\n  timeout: 30s\n",
		"BOM":       "\ufefftarget:\n  url: http://x\n  timeout: 30s\n",
		"anchor":    "target:\n  url: http://x\n  timeout: &t 30s\n  headers: &h {X-A: b}\n",
	} {
		c, err := ParseConfig("t.yaml", []byte(text))
		if err != nil || c.URL != "http://x" || c.Timeout.String() != "30s" {
			t.Errorf("%s: ParseConfig = %+v, %v", name, c, err)
		}
	}
}

// Finding 15: a Host header is refused: the host comes from the URL.
func TestReviewBuildRefusesHostHeader(t *testing.T) {
	_, err := Build(Config{URL: "http://x/ask", Headers: map[string]string{"host": "evil.com"}}, func(string) string { return "" }, "")
	if err == nil || !strings.Contains(err.Error(), "Host") || !strings.Contains(err.Error(), "URL") {
		t.Errorf("Build = %v, want a refusal saying the Host comes from the URL", err)
	}
}

// Finding 1: every ${VAR} value and the credential of a header value are
// secrets of their own.
func TestReviewBuildSecretsAreTheParts(t *testing.T) {
	env := map[string]string{"TOK": "sk-live-TOKEN12345", "SESS": "sess-0123456789", "A": "part-aaaa", "B": "part-bbbb"}
	b, err := Build(Config{URL: "http://x/ask", Headers: map[string]string{"Authorization": "Bearer ${TOK}", "Cookie": "session=${SESS}; theme=dark",
		"X-Pair": "${A}:${B}"}}, func(k string) string { return env[k] }, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sk-live-TOKEN12345", "sess-0123456789", "part-aaaa", "part-bbbb", "Bearer sk-live-TOKEN12345"} {
		found := false
		for _, s := range b.Secrets {
			found = found || s == want
		}
		if !found {
			t.Errorf("Secrets = %q, want %q among them", b.Secrets, want)
		}
	}
}

// Finding 8: a usage object with no known count is no usage; a sum past
// 2^53 is refused like one count past it.
func TestReviewUsageWithoutCounts(t *testing.T) {
	ps := DefaultPaths()
	for _, reply := range []string{`{"response": "a", "usage": {}}`, `{"response": "a", "usage": {"foo": 1}}`, `{"response": "a", "usage": {"prompt_tokens": null}}`,
		`{"response": "a", "usage": {"prompt_tokens": null, "completion_tokens": null, "total_tokens": null}}`} {
		r, err := ps.Extract([]byte(reply))
		if err != nil || r.Usage != nil {
			t.Errorf("%s: usage %+v, %v; want none", reply, r.Usage, err)
		}
	}
	r, err := ps.Extract([]byte(`{"response": "a", "usage": {"prompt_tokens": 0, "completion_tokens": 0}}`))
	if err != nil || r.Usage == nil || r.Usage.TotalTokens != 0 {
		t.Errorf("zero counts: usage %+v, %v; want a usage of 0", r.Usage, err)
	}
	if _, err := ps.Extract([]byte(`{"response": "a", "usage": {"prompt_tokens": 9007199254740992, "completion_tokens": 9007199254740992}}`)); err == nil {
		t.Error("prompt + completion = 2^54 accepted")
	}
	// A count given as text is not read as 0 (it would skew target_tokens).
	if _, err := ps.Extract([]byte(`{"response": "a", "usage": {"prompt_tokens": "12", "completion_tokens": 3}}`)); err == nil || !strings.Contains(err.Error(), "prompt_tokens is a string") {
		t.Errorf("a text count: %v, want it refused", err)
	}
	// input_tokens stands in for a null prompt_tokens.
	r, err = ps.Extract([]byte(`{"response": "a", "usage": {"prompt_tokens": null, "input_tokens": 5, "output_tokens": 2}}`))
	if err != nil || r.Usage == nil || r.Usage.PromptTokens != 5 || r.Usage.TotalTokens != 7 {
		t.Errorf("input/output tokens: usage %+v, %v", r.Usage, err)
	}
}

// Finding 3: a program's stderr quoted in an error has no line break or
// other control character left: it cannot start a line of the log.
func TestReviewStderrQuotedOnOneLine(t *testing.T) {
	var tl tail
	_, _ = tl.Write([]byte("Traceback\n::set-output name=verdict::pass\r\n\t::error file=x::injected\x1b[31m\n"))
	got := tl.say()
	if strings.ContainsAny(got, "\n\r\x1b") || !strings.Contains(got, "injected") {
		t.Errorf("say() = %q", got)
	}
}
