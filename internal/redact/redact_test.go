package redact

import (
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"
)

func TestString(t *testing.T) {
	const key = "sk-canary-0123456789"
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"as is", []string{key}, "401: Incorrect API key provided: " + key + ".", "401: Incorrect API key provided: [REDACTED]."},
		{"every occurrence", []string{key}, key + " and " + key, "[REDACTED] and [REDACTED]"},
		{"URL-escaped", []string{"a/b+c=d e"}, "GET /x?k=a%2Fb%2Bc%3Dd+e", "GET /x?k=[REDACTED]"},
		{"path-escaped", []string{"a/b c"}, "/v1/a%2Fb%20c/x", "/v1/[REDACTED]/x"},
		{"JSON-escaped", []string{`ab"cd`}, `{"key":"ab\"cd"}`, `{"key":"[REDACTED]"}`},
		{"workflow-command-escaped", []string{"a%2Fb"}, "::error::key a%252Fb", "::error::key [REDACTED]"},
		{"longest first", []string{"secret", "secret-longer"}, "secret-longer secret", "[REDACTED] [REDACTED]"},
		{"short values are not secrets", []string{"", "a", "abc"}, "a cab abc", "a cab abc"},
		{"minimum length", []string{"abcd"}, "xabcdx", "x[REDACTED]x"},
		{"no secrets", nil, "text", "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := New(tt.secrets...).String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNilAndZeroRedactNothing(t *testing.T) {
	var r *Redactor
	r.Add("secret")
	if got := r.String("secret"); got != "secret" {
		t.Errorf("nil redactor changed the text: %q", got)
	}
	var z Redactor
	if got := z.String("secret"); got != "secret" {
		t.Errorf("zero redactor changed the text: %q", got)
	}
	z.Add("secret")
	if got := z.String("a secret"); got != "a [REDACTED]" {
		t.Errorf("after Add: %q", got)
	}
}

func TestErrorKeepsTheChain(t *testing.T) {
	r := New("hunter22")
	base := &fs.PathError{Op: "open", Path: "/tmp/hunter22", Err: fs.ErrNotExist}
	err := r.Error(base)
	if strings.Contains(err.Error(), "hunter22") || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Errorf("message %q", err)
	}
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Error("the redacted error lost its chain")
	}
	if r.Error(nil) != nil {
		t.Error("Error(nil) != nil")
	}
	plain := errors.New("nothing secret")
	if r.Error(plain) != plain {
		t.Error("an error without secrets was wrapped")
	}
}

func TestWriter(t *testing.T) {
	var b strings.Builder
	w := New("tok-123456").Writer(&b)
	n, err := w.Write([]byte("token tok-123456\n"))
	if err != nil || n != len("token tok-123456\n") {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if b.String() != "token [REDACTED]\n" {
		t.Errorf("wrote %q", b.String())
	}
}

func TestURLSecrets(t *testing.T) {
	tests := []struct {
		url  string
		want []string
	}{
		{"https://proxy.example/v1?api-key=SECRET-1&tenant=acme-co", []string{"SECRET-1", "acme-co"}},
		{"https://user:p%40ssword@proxy.example/v1", []string{"user", "p@ssword", "dXNlcjpwQHNzd29yZA=="}},
		{"https://api.openai.com/v1", nil},
		{"https://proxy.example/v1?k=a", nil},
		// Does not parse (bad host): found by hand.
		{"http://us er:pass-word@[::1/v1?key=abcdef#frag", []string{"us er", "pass-word", "dXMgZXI6cGFzcy13b3Jk", "abcdef"}},
	}
	for _, tt := range tests {
		got := URLSecrets(tt.url)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("URLSecrets(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestConcurrentAddAndString(t *testing.T) {
	r := New()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() { defer wg.Done(); r.Add(strings.Repeat("x", 4+i)) }()
		go func() { defer wg.Done(); _ = r.String("xxxxxxxxxxxx") }()
	}
	wg.Wait()
	if got := r.String("xxxxxxxxxxx"); strings.Contains(got, "x") {
		t.Errorf("got %q", got)
	}
}
