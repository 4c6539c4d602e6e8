package target

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raggate/raggate/metrics"
)

func samplesN(n int) []metrics.Sample {
	out := make([]metrics.Sample, n)
	for i := range out {
		out[i] = metrics.Sample{ID: fmt.Sprintf("q-%03d", i), UserInput: fmt.Sprintf("question %d", i), RetrievedContexts: []string{"golden ctx"}}
	}
	return out
}

// ragServer answers {"query": ...} like a small RAG service: the answer,
// its sources and the token usage, under data.
func ragServer(t *testing.T, before func(w http.ResponseWriter, r *http.Request, q string) bool) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query string `json:"query"`
			ID    string `json:"id"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if before != nil && !before(w, r, req.Query) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data": {"answer": "answer to %s", "sources": [{"text": "doc for %s", "id": "d-%s"}]}, "usage": {"prompt_tokens": 100, "completion_tokens": 20}}`, req.Query, req.Query, req.ID)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func buildHTTP(t *testing.T, c Config) *Built {
	t.Helper()
	if c.Body == nil {
		c.Body = `{"query": "{{user_input}}", "id": "{{id}}"}`
	}
	c.Response, c.Contexts, c.ContextIDs = "data.answer", "data.sources[*].text", "data.sources[*].id"
	b, err := Build(c, func(k string) string { return map[string]string{"RAG_TOKEN": "s3cret"}[k] }, "")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHTTPTemplatingHeadersAndPaths(t *testing.T) {
	var auth atomic.Value
	srv := ragServer(t, func(w http.ResponseWriter, r *http.Request, q string) bool {
		auth.Store(r.Header.Get("Authorization"))
		return true
	})
	b := buildHTTP(t, Config{URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${RAG_TOKEN}"}})
	if !slices.Equal(b.Secrets, []string{"s3cret", "Bearer s3cret"}) {
		t.Errorf("Secrets = %q", b.Secrets)
	}
	outs := Run(context.Background(), b.Target, samplesN(3), b.Options)
	for i, o := range outs {
		if !o.Done || o.Err != nil || o.Attempts != 1 {
			t.Fatalf("sample %d: %+v", i, o)
		}
		q := fmt.Sprintf("question %d", i)
		want := Reply{Response: "answer to " + q, Contexts: []string{"doc for " + q}, ContextIDs: []string{fmt.Sprintf("d-q-%03d", i)},
			Usage: &Usage{PromptTokens: 100, CompletionTokens: 20, TotalTokens: 120}}
		if fmt.Sprint(o.Reply.Response, o.Reply.Contexts, o.Reply.ContextIDs, *o.Reply.Usage) != fmt.Sprint(want.Response, want.Contexts, want.ContextIDs, *want.Usage) {
			t.Errorf("sample %d: reply %+v, want %+v", i, o.Reply, want)
		}
		if o.Latency <= 0 {
			t.Errorf("sample %d: latency %v", i, o.Latency)
		}
	}
	if got := auth.Load(); got != "Bearer s3cret" {
		t.Errorf("Authorization = %v", got)
	}
}

// The HTTP target has as many requests in flight as its concurrency, and
// never more. The first requests wait for each other until 4 are in
// flight, so the peak is reached whatever the load of the machine.
func TestHTTPConcurrencyLimit(t *testing.T) {
	var inFlight, peak atomic.Int32
	full := make(chan struct{})
	var once sync.Once
	srv := ragServer(t, func(w http.ResponseWriter, r *http.Request, q string) bool {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if n == 4 {
			once.Do(func() { close(full) })
		}
		select {
		case <-full:
		case <-r.Context().Done(): // the call timed out: fewer than 4 ever came
		}
		return true
	})
	b := buildHTTP(t, Config{URL: srv.URL, Concurrency: 4, Timeout: 10 * time.Second})
	outs := Run(context.Background(), b.Target, samplesN(40), b.Options)
	for _, o := range outs {
		if o.Err != nil {
			t.Fatal(o.Err)
		}
	}
	if p := peak.Load(); p != 4 {
		t.Errorf("peak calls in flight = %d, want 4", p)
	}
}

func TestHTTPTimeoutRetriesAndStatus(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := ragServer(t, func(w http.ResponseWriter, r *http.Request, q string) bool {
		mu.Lock()
		seen[q]++
		n := seen[q]
		mu.Unlock()
		switch q {
		case "question 0": // no reply, ever: each attempt times out
			<-r.Context().Done()
			return false
		case "question 1": // two 503s, then an answer
			if n <= 2 {
				http.Error(w, "overloaded", http.StatusServiceUnavailable)
				return false
			}
		case "question 2": // a client error: not retried
			http.Error(w, "unknown collection", http.StatusNotFound)
			return false
		case "question 3": // a reply without the answer's path
			fmt.Fprint(w, `{"data": {"text": "elsewhere"}}`)
			return false
		}
		return true
	})
	// The silent question alone under a short timeout; the others under
	// one no machine load reaches.
	short := buildHTTP(t, Config{URL: srv.URL, Timeout: 50 * time.Millisecond})
	short.Options.Backoff = time.Millisecond
	outs := Run(context.Background(), short.Target, samplesN(1), short.Options)
	b := buildHTTP(t, Config{URL: srv.URL})
	b.Options.Backoff = time.Millisecond
	outs = append(outs, Run(context.Background(), b.Target, samplesN(5)[1:], b.Options)...)
	check := func(i int, attempts int, errSubstr string) {
		t.Helper()
		o := outs[i]
		if !o.Done || o.Attempts != attempts {
			t.Errorf("sample %d: done %v, attempts %d, want %d (err %v)", i, o.Done, o.Attempts, attempts, o.Err)
		}
		if errSubstr == "" && o.Err != nil || errSubstr != "" && (o.Err == nil || !strings.Contains(o.Err.Error(), errSubstr)) {
			t.Errorf("sample %d: err %v, want %q", i, o.Err, errSubstr)
		}
	}
	check(0, 3, "no reply within 50ms")
	check(1, 3, "")
	check(2, 1, "HTTP 404 Not Found")
	check(3, 1, `response path "data.answer" matches nothing`)
	check(4, 1, "")
	if outs[2].Code() != 404 {
		t.Errorf("code of the 404 = %d", outs[2].Code())
	}
}

func TestHTTPTargetDiesMidRun(t *testing.T) {
	// After 5 answers the service dies: every later request has its
	// connection dropped without a reply, as by a crashed process.
	var served atomic.Int32
	srv := ragServer(t, func(w http.ResponseWriter, r *http.Request, q string) bool {
		if served.Add(1) <= 5 {
			return true
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
		return false
	})
	b := buildHTTP(t, Config{URL: srv.URL, Concurrency: 1})
	b.Options.Backoff = time.Millisecond
	outs := Run(context.Background(), b.Target, samplesN(10), b.Options)
	for i, o := range outs {
		switch {
		case !o.Done:
			t.Fatalf("sample %d: every call should finish, failed or not", i)
		case i < 5 && o.Err != nil:
			t.Errorf("sample %d, before the service died: %v", i, o.Err)
		case i >= 5 && (o.Err == nil || !IsTransient(o.Err) || o.Attempts != 3):
			t.Errorf("sample %d, after: %v after %d attempts; want a transient error after 3", i, o.Err, o.Attempts)
		}
	}
}

func TestRunCancelKeepsFinished(t *testing.T) {
	srv := ragServer(t, func(w http.ResponseWriter, r *http.Request, q string) bool {
		time.Sleep(10 * time.Millisecond)
		return true
	})
	b := buildHTTP(t, Config{URL: srv.URL, Concurrency: 2})
	ctx, cancel := context.WithCancel(context.Background())
	b.Options.Progress = func(done, total int) {
		if done == 6 {
			cancel()
		}
	}
	outs := Run(ctx, b.Target, samplesN(100), b.Options)
	done := 0
	for _, o := range outs {
		if o.Done {
			done++
			if o.Err != nil || o.Reply.Response == "" {
				t.Errorf("a finished call kept without its answer: %+v", o)
			}
		}
	}
	if done < 6 || done > 8 {
		t.Errorf("%d calls kept after cancelling at the 6th; want 6 (or the 1 or 2 in flight that finished first)", done)
	}
}

func TestBuildErrors(t *testing.T) {
	neg := -1
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{}, "give a URL"},
		{Config{URL: "http://x", Command: "y"}, "not both"},
		{Config{URL: "ftp://x"}, `URL "ftp://x"`},
		{Config{URL: "http://x", Method: "DELETE"}, `method "DELETE"`},
		{Config{URL: "http://x", Concurrency: 5000}, "concurrency 5000"},
		{Config{URL: "http://x", Retries: &neg}, "retries -1"},
		{Config{URL: "http://x", Body: `{"q": {{user_input}}}`}, "not JSON"},
		{Config{URL: "http://x", Response: "a[", Headers: map[string]string{"X-Key": "${NOPE}"}}, "$NOPE is not set"},
		{Config{URL: "http://x", PerSample: true}, "per_sample"},
	} {
		_, err := Build(tc.c, func(string) string { return "" }, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%+v) = %v, want %q", tc.c, err, tc.want)
		}
	}
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("t.yaml", []byte(`target:
  url: http://localhost:8000/ask
  headers: {Authorization: "Bearer ${T}"}
  body: {query: "{{user_input}}", top_k: 5}
  response: data.answer
  timeout: 30s
  retries: 0
  concurrency: 16
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeout != 30*time.Second || c.Retries == nil || *c.Retries != 0 || c.Concurrency != 16 || c.Response != "data.answer" {
		t.Errorf("ParseConfig = %+v", c)
	}
	tpl, err := c.body()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := tpl.Render(&metrics.Sample{UserInput: "q"})
	if string(got) != `{"query":"q","top_k":5}` {
		t.Errorf("body = %s", got)
	}
	if _, err := ParseConfig("t.yaml", []byte("target:\n  url: http://x\n  tiemout: 3s\n")); err == nil || !strings.Contains(err.Error(), `t.yaml:3: unknown key "tiemout" in target`) {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := ParseConfig("t.yaml", []byte("other: 1\n")); err == nil {
		t.Error("a file without target: parsed")
	}
}

// target.example.yaml documents every key: it must parse and build.
func TestExampleConfig(t *testing.T) {
	c, err := LoadConfig("../../target.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(c, func(k string) string { return "token-" + k }, "")
	if err != nil {
		t.Fatal(err)
	}
	h := b.Target.(*HTTP)
	if h.Header.Get("Authorization") != "Bearer token-RAG_TOKEN" || h.Paths.Response.String() != "data.answer" || b.Options.Concurrency != 8 {
		t.Errorf("built %+v", h)
	}
}

// A target that is down from the start is given up on after the first
// failed calls: the rest fail at once, naming the first failure, instead
// of each going through its retries.
func TestRunGivesUpOnADeadTarget(t *testing.T) {
	srv := ragServer(t, nil)
	srv.Close()
	b := buildHTTP(t, Config{URL: srv.URL, Concurrency: 4})
	b.Options.Backoff = time.Millisecond
	outs := Run(context.Background(), b.Target, samplesN(100), b.Options)
	called, notCalled := 0, 0
	for i, o := range outs {
		switch {
		case !o.Done || o.Err == nil:
			t.Fatalf("sample %d: %+v", i, o)
		case o.Attempts == 0:
			notCalled++
			if !strings.Contains(o.Err.Error(), "not called: the first 10 calls to the target all failed (the first: ") || !strings.Contains(o.Err.Error(), "connection refused") {
				t.Errorf("sample %d: %v", i, o.Err)
			}
		default:
			called++
		}
	}
	if called < 10 || called > 10+4+1 || notCalled != 100-called {
		t.Errorf("%d called, %d not; want 10 to 15 called (the give-up point, those in flight, one handed over as it came)", called, notCalled)
	}
}

func TestBuildRejectsBadHeaderName(t *testing.T) {
	_, err := Build(Config{URL: "http://x", Headers: map[string]string{"X Api Key": "v"}}, func(string) string { return "" }, "")
	if err == nil || !strings.Contains(err.Error(), `header name "X Api Key"`) {
		t.Errorf("err = %v", err)
	}
	if _, err := Build(Config{URL: "http://x", Headers: map[string]string{"X-Api_Key.v2": "v"}}, func(string) string { return "" }, ""); err != nil {
		t.Errorf("a valid header name refused: %v", err)
	}
}
