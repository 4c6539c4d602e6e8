package openaicompat

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The judge follows no redirect: a 307 to another host would carry the
// key and the extra headers there, and a 301/302 would turn the POST into
// a GET without its body. The call fails at once, naming the Location.
func TestJudgeDoesNotFollowRedirects(t *testing.T) {
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusFound} {
		e := newEnv(t, nil, func(c *Config) {})
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, e.srv.URL+r.URL.Path, code)
		}))
		j := e.judge(t, func(c *Config) {
			c.BaseURL = front.URL
			c.ExtraHeaders = map[string]string{"X-Api-Key": "hdr-secret-123"}
		})
		_, err := j.Ask(context.Background(), verifyReq())
		front.Close()
		wantFatal(t, err, "redirect", e.srv.URL)
		if n := len(e.srv.Requests()); n != 0 {
			t.Errorf("HTTP %d: the redirect was followed (%d requests reached the other host)", code, n)
		}
	}
}
