package redact

import (
	"slices"
	"testing"
)

// Review of issue 22, finding 6: a secret echoed fully percent-encoded
// (%20 for a space, as encodeURIComponent and path escapers do) is
// redacted, in upper- and lower-case hex.
func TestReviewPercentEncodedForms(t *testing.T) {
	r := New("ab cd+ef/gh=Zq9")
	for _, in := range []string{"ab%20cd%2Bef%2Fgh%3DZq9", "ab%20cd%2bef%2fgh%3dZq9", "ab+cd%2Bef%2Fgh%3DZq9", "ab%20cd+ef%2Fgh=Zq9"} {
		if got := r.String("x " + in + " y"); got != "x [REDACTED] y" {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
}

// Finding 15: ";" separates query parameters too (?api_key=K;x=1).
func TestReviewSemicolonQuerySeparator(t *testing.T) {
	got := URLCredentials("http://h/ask?api_key=QSECRET1;x=1")
	if !slices.Contains(got, "QSECRET1") {
		t.Errorf("URLCredentials = %q, want QSECRET1 among them", got)
	}
	if slices.Contains(got, "1") || slices.Contains(got, "x=1") {
		t.Errorf("URLCredentials = %q: x is not a secret", got)
	}
}

// Finding 1: the parts of a header value that are credentials.
func TestReviewHeaderSecrets(t *testing.T) {
	for _, c := range []struct {
		value string
		want  []string
	}{
		{"Bearer sk-live-TOKEN12345", []string{"Bearer sk-live-TOKEN12345", "sk-live-TOKEN12345"}},
		{"token ghp_0123456789", []string{"token ghp_0123456789", "ghp_0123456789"}},
		{"Basic dXNlcjpodW50ZXIyMg==", []string{"Basic dXNlcjpodW50ZXIyMg==", "dXNlcjpodW50ZXIyMg==", "hunter22"}},
		{"session=sess-0123456789; theme=dark", []string{"session=sess-0123456789; theme=dark", "sess-0123456789", "dark"}},
		{"plain-value-123", []string{"plain-value-123"}},
	} {
		got := HeaderSecrets(c.value)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("HeaderSecrets(%q) = %q, want %q among them", c.value, got, w)
			}
		}
	}
}
