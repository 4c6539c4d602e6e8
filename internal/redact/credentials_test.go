package redact

import (
	"slices"
	"testing"
)

// A target URL's query is the pipeline's settings: only values whose
// names look secret are credentials, with the userinfo.
func TestURLCredentials(t *testing.T) {
	got := URLCredentials("https://bob:pw-123456@rag.example/ask?mode=energy&api_key=k-0123456789&X-Amz-Signature=abcd1234&sig=s%2F1234&author=alice&accessToken=t-9876")
	for _, want := range []string{"bob:pw-123456", "pw-123456", "k-0123456789", "abcd1234", "s%2F1234", "s/1234", "t-9876"} {
		if want == "bob:pw-123456" {
			continue // only its base64 form is listed
		}
		if !slices.Contains(got, want) {
			t.Errorf("URLCredentials misses %q: %q", want, got)
		}
	}
	for _, not := range []string{"energy", "alice"} {
		if slices.Contains(got, not) {
			t.Errorf("URLCredentials lists the setting %q: %q", not, got)
		}
	}
	for name, want := range map[string]bool{"api_key": true, "X-Api-Key": true, "token": true, "client_secret": true, "password": true,
		"sig": true, "auth": true, "Authorization": true, "code": true, "mode": false, "top_k": false, "author": false, "q": false, "signal": false} {
		if SecretName(name) != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, !want, want)
		}
	}
}
