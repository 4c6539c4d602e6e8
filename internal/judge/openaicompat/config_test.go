package openaicompat

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
)

// A base URL with a query (a proxy reading its key from ?api-key=...) keeps
// the query on every request, after the path.
func TestBaseURLQueryKept(t *testing.T) {
	for _, suffix := range []string{"?api-key=QUERY-KEY-1&tenant=t1", "/?api-key=QUERY-KEY-1&tenant=t1"} {
		t.Run(suffix, func(t *testing.T) {
			e := newEnv(t, nil)
			j := e.judge(t, func(c *Config) { c.BaseURL = e.srv.URL + suffix })
			ctx := context.Background()
			if _, err := j.Ask(ctx, usefulReq()); err != nil {
				t.Fatal(err)
			}
			if _, err := j.Embed(ctx, []string{"a", "b"}); err != nil {
				t.Fatal(err)
			}
			paths := map[string]bool{}
			for _, r := range e.srv.Requests() {
				paths[r.Path] = true
				if r.Query.Get("api-key") != "QUERY-KEY-1" || r.Query.Get("tenant") != "t1" {
					t.Errorf("%s: query %q, want api-key and tenant", r.Path, r.Query.Encode())
				}
			}
			if !paths["/v1/chat/completions"] || !paths["/v1/embeddings"] || len(paths) != 2 {
				t.Errorf("paths %v, want /v1/chat/completions and /v1/embeddings", paths)
			}
		})
	}
}

// The same for an Azure endpoint with a query: it goes with api-version.
func TestAzureEndpointQueryKept(t *testing.T) {
	srv := openaitest.NewServer(t)
	j, err := New(Config{APIKey: "k", NoCache: true,
		Azure: AzureConfig{Endpoint: srv.Endpoint + "/?sig=QUERY-KEY-2", ChatDeployment: "chat", EmbeddingDeployment: "emb"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Ask(context.Background(), usefulReq()); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if r.Query.Get("sig") != "QUERY-KEY-2" || r.Query.Get("api-version") != DefaultAzureAPIVersion || r.Kind == "" {
			t.Errorf("%s?%s: want the endpoint's query and api-version", r.Path, r.Query.Encode())
		}
	}
}

// Configuration errors are found before any request, and name what is
// wrong without showing the secret.
func TestNewRejectsBadCredentials(t *testing.T) {
	const secret = "sk-SECRET-value"
	tests := []struct {
		name string
		mod  func(*Config)
		want []string
	}{
		{"key with a trailing newline", func(c *Config) { c.APIKey = secret + "\n" }, []string{"OPENAI_API_KEY", "contains a newline", "trim"}},
		{"key with a CRLF", func(c *Config) { c.APIKey = secret + "\r\n"; c.APIKeyEnv = "JUDGE_KEY" }, []string{"JUDGE_KEY", "contains a newline"}},
		{"key with a control character", func(c *Config) { c.APIKey = secret + "\x00" }, []string{"control character"}},
		{"Azure key with a newline", func(c *Config) {
			c.APIKey = secret + "\n"
			c.Azure = AzureConfig{Endpoint: "https://x.openai.azure.com", ChatDeployment: "d"}
		}, []string{"contains a newline"}},
		{"header value with a newline", func(c *Config) { c.ExtraHeaders = map[string]string{"X-Api-Key": secret + "\n"} }, []string{"X-Api-Key", "contains a newline"}},
		{"header value with a control character", func(c *Config) { c.ExtraHeaders = map[string]string{"X-Api-Key": "a\x7f" + secret} }, []string{"X-Api-Key", "control character"}},
		{"invalid header name", func(c *Config) { c.ExtraHeaders = map[string]string{"X Api Key": secret} }, []string{`"X Api Key"`, "not a valid header name"}},
		{"empty header name", func(c *Config) { c.ExtraHeaders = map[string]string{"": secret} }, []string{"empty header name"}},
		{"bad base URL with a key", func(c *Config) { c.BaseURL = "proxy.example/v1?api-key=" + secret }, []string{"not an http(s) URL"}},
		{"no model, key in the URL", func(c *Config) { c.BaseURL = "https://user:" + secret + "@proxy.example/v1?k=" + secret; c.Model = "" }, []string{"no chat model", "https://proxy.example/v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t)
			cfg := Config{BaseURL: srv.URL, Model: "m", NoCache: true}
			tt.mod(&cfg)
			_, err := New(cfg)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error shows the secret: %q", err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests before the configuration was checked", n)
			}
		})
	}
}

// A long error page is cut to a few hundred characters that say the
// status and what to check, in every way the judge fails.
func TestLongErrorBodiesCapped(t *testing.T) {
	tests := []struct {
		name  string
		fault openaitest.Fault
		want  []string
	}{
		{"HTML 502", openaitest.LargeHTMLError(http.StatusBadGateway, 20<<10), []string{"judge unreachable", "HTTP 502", "HTML page", "--base-url", "/v1"}},
		{"HTML 404", openaitest.LargeHTMLError(http.StatusNotFound, 20<<10), []string{"HTTP 404", "HTML page", "--base-url", "/v1"}},
		{"HTML 400", openaitest.LargeHTMLError(http.StatusBadRequest, 20<<10), []string{"HTTP 400", "HTML page"}},
		{"long JSON message", openaitest.APIError(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "", strings.Repeat("no such key. ", 2000)), []string{"HTTP 401", "no such key", "OPENAI_API_KEY"}},
		{"long text body", openaitest.Fault{Status: http.StatusServiceUnavailable, ContentType: "text/plain", Body: strings.Repeat("upstream connect error ", 1000)}, []string{"HTTP 503", "upstream connect error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil, func(c *Config) { c.MaxRetries = 1 })
			e.srv.Inject(tt.fault.Times(-1))
			_, err := e.j.Ask(context.Background(), verifyReq())
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if len(msg) > 800 {
				t.Errorf("error is %d characters long, want at most 800:\n%.2000s", len(msg), msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		})
	}
}
