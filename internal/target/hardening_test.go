package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raggate/raggate/metrics"
)

// Settings a config file gives as 0 are refused with their line, as the
// flags are, instead of silently becoming the defaults.
func TestParseConfigRefusesZeroSettings(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"target:\n  url: http://x\n  concurrency: 0\n", "t.yaml:3: concurrency: want a whole number 1 to 1000"},
		{"target:\n  url: http://x\n  retries: 1\n  timeout: 0s\n", "t.yaml:4: timeout 0s: want 10ms to 1h"},
	} {
		if _, err := ParseConfig("t.yaml", []byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseConfig(%q) = %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

// A header value with a line break (a secret file's trailing newline)
// would fail every call; it is refused up front without showing it.
func TestBuildRefusesHeaderValueWithLineBreak(t *testing.T) {
	env := func(string) string { return "sk-secret-value\n" }
	_, err := Build(Config{URL: "http://x", Headers: map[string]string{"X-Api-Key": "${KEY}"}}, env, "")
	if err == nil || !strings.Contains(err.Error(), "header X-Api-Key: the value holds a line break or another control character") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("the error shows the value: %v", err)
	}
}

// A path that selects a list cannot be the answer (or the usage): refused
// when the config is checked, not on every call.
func TestBuildRefusesListPathForTheAnswer(t *testing.T) {
	for _, c := range []Config{{URL: "http://x", Response: "data[*].answer"}, {URL: "http://x", Usage: "steps[*].usage"}} {
		_, err := Build(c, func(string) string { return "" }, "")
		if err == nil || !strings.Contains(err.Error(), "selects a list ([*])") {
			t.Errorf("Build(%+v) = %v", c, err)
		}
	}
}

// Anything after the reply's JSON value makes the reply malformed: it is
// not one reply.
func TestExtractRefusesTrailingData(t *testing.T) {
	for _, reply := range []string{`{"response": "a"} {"response": "b"}`, `{"response": "a"}x`, `{"response": "a"}]`} {
		if _, err := DefaultPaths().Extract([]byte(reply)); err == nil || !strings.Contains(err.Error(), "more after the reply's JSON value") {
			t.Errorf("Extract(%s) = %v", reply, err)
		}
	}
	if _, err := DefaultPaths().Extract([]byte("{\"response\": \"a\"}\n  \n")); err != nil {
		t.Errorf("trailing white space refused: %v", err)
	}
}

// null where contexts are expected is never "keep the dataset's": with a
// path given explicitly the reply is malformed, under the default path it
// means no contexts.
func TestExtractNullContexts(t *testing.T) {
	ps, err := Config{URL: "http://x", Contexts: "retrieved_contexts", ContextIDs: "ids"}.paths()
	if err != nil {
		t.Fatal(err)
	}
	_, err = ps.Extract([]byte(`{"response": "a", "retrieved_contexts": null, "ids": []}`))
	if err == nil || !strings.Contains(err.Error(), `contexts path "retrieved_contexts": null`) {
		t.Errorf("explicit path, null: %v", err)
	}
	_, err = ps.Extract([]byte(`{"response": "a", "retrieved_contexts": [], "ids": null}`))
	if err == nil || !strings.Contains(err.Error(), `context_ids path "ids": null`) {
		t.Errorf("explicit ids path, null: %v", err)
	}
	r, err := DefaultPaths().Extract([]byte(`{"response": "a", "retrieved_contexts": null, "retrieved_context_ids": null}`))
	if err != nil || r.Contexts == nil || len(r.Contexts) != 0 || r.ContextIDs == nil || len(r.ContextIDs) != 0 {
		t.Errorf("default path, null: %#v, %v; want no contexts (an empty list), not the dataset's (nil)", r, err)
	}
}

// A redirect is not followed: the secret headers must not reach another
// host, and a POST must not become a body-less GET whose answer is
// judged. It fails the call, naming where it pointed.
func TestHTTPDoesNotFollowRedirects(t *testing.T) {
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			leaked.Add(1)
		}
		_, _ = w.Write([]byte(`{"response": "answer of a GET at ` + r.Method + `"}`))
	}))
	defer other.Close()
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusFound} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/elsewhere", code)
		}))
		b := buildHTTP(t, Config{URL: srv.URL, Headers: map[string]string{"X-Api-Key": "k-123456"}})
		outs := Run(context.Background(), b.Target, samplesN(1), b.Options)
		srv.Close()
		o := outs[0]
		if o.Err == nil || !strings.Contains(o.Err.Error(), "redirect") || !strings.Contains(o.Err.Error(), other.URL+"/elsewhere") || IsTransient(o.Err) || o.Attempts != 1 {
			t.Errorf("HTTP %d: outcome %+v (%v), want a failure naming the Location, not retried", code, o, o.Err)
		}
	}
	if leaked.Load() != 0 {
		t.Errorf("the secret header reached another host %d times", leaked.Load())
	}
}

// A per-sample program writing without end is stopped at the reply cap.
func TestCommandPerSampleReplyIsBounded(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs yes(1)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a safety net, not an assertion
	defer cancel()
	c := &Command{Line: "yes", PerSample: true, Paths: DefaultPaths()}
	_, err := c.Call(ctx, &metrics.Sample{ID: "a", UserInput: "q"})
	if err == nil || !strings.Contains(err.Error(), "reply larger than 16 MiB") || IsTransient(err) {
		t.Errorf("err = %v, want a reply larger than 16 MiB, not retried", err)
	}
}

// A reply that carries an id answers that request: another id is a
// shifted answer, and refused.
func TestCommandReplyIDMustMatch(t *testing.T) {
	b := commandTarget(t, "extra-with-id", Config{Concurrency: 1})
	outs := Run(context.Background(), b.Target, samplesN(4), b.Options)
	_ = b.Target.Close()
	failed := 0
	for i, o := range outs {
		if o.Err != nil {
			failed++
			continue
		}
		if want := "answer to question " + string(rune('0'+i)); o.Reply.Response != want {
			t.Errorf("sample %d got %q, want %q (a shifted answer)", i, o.Reply.Response, want)
		}
	}
	if failed == 0 {
		t.Error("the extra line shifted nothing and failed nothing")
	}
	// Without the extra line, replies with ids pass.
	b = commandTarget(t, "echo-id", Config{Concurrency: 2})
	for i, o := range Run(context.Background(), b.Target, samplesN(4), b.Options) {
		if o.Err != nil {
			t.Errorf("sample %d: %v", i, o.Err)
		}
	}
	_ = b.Target.Close()
}

// An explicit id path is checked for HTTP targets too; the default one
// ("id") only for commands, whose replies are matched by order.
func TestHTTPReplyIDPath(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id": "chatcmpl-1", "meta": {"sample": "other"}, "data": {"answer": "x", "sources": []}}`))
	}))
	defer srv.Close()
	b := buildHTTP(t, Config{URL: srv.URL})
	if o := Run(context.Background(), b.Target, samplesN(1), b.Options)[0]; o.Err != nil {
		t.Errorf("default id path on HTTP: %v", o.Err)
	}
	b = buildHTTP(t, Config{URL: srv.URL, ID: "meta.sample"})
	if o := Run(context.Background(), b.Target, samplesN(1), b.Options)[0]; o.Err == nil || !strings.Contains(o.Err.Error(), `the reply's id "other" is not the request's "q-000"`) {
		t.Errorf("explicit id path: %v", o.Err)
	}
}

// A line the program writes before it is sent a request fails the call
// of that process: it would be taken for the next request's reply.
func TestCommandUnsolicitedLine(t *testing.T) {
	b := commandTarget(t, "extra", Config{Concurrency: 1})
	c := b.Target.(*Command)
	defer c.Close()
	ctx := context.Background()
	s := samplesN(2)
	r, err := c.Call(ctx, &s[0])
	if err != nil || r.Response != "answer to question 0" {
		t.Fatalf("first call: %+v, %v", r, err)
	}
	// Wait until the extra line has been read from the process.
	for deadline := time.Now().Add(time.Minute); ; {
		c.mu.Lock()
		n := len(c.idle) == 1 && len(c.idle[0].lines) > 0
		c.mu.Unlock()
		if n || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	_, err = c.Call(ctx, &s[1])
	if err == nil || !strings.Contains(err.Error(), "wrote a line before it was sent a request") || IsTransient(err) {
		t.Errorf("second call: %v", err)
	}
}

// Item 3, deterministically: a process that writes more lines than it was
// sent requests (a banner at start, or a line after its last reply) is
// found out when it stops, whatever the timing, and every answer it gave
// is named, so that none is judged against the wrong question.
func TestCommandOutOfStepFoundAtClose(t *testing.T) {
	for _, mode := range []string{"banner", "goodbye"} {
		t.Run(mode, func(t *testing.T) {
			b := commandTarget(t, mode, Config{Concurrency: 2})
			s := samplesN(6)
			outs := Run(context.Background(), b.Target, s, b.Options)
			err := b.Target.Close()
			var oos *OutOfStepError
			if !errors.As(err, &oos) {
				t.Fatalf("Close: %v, want an *OutOfStepError", err)
			}
			answered := 0
			for _, o := range outs {
				if o.Err == nil {
					answered++
				}
			}
			if len(oos.IDs) != answered || answered == 0 {
				t.Errorf("out of step: %d ids named, %d answers given", len(oos.IDs), answered)
			}
			if !strings.Contains(err.Error(), "one line per request") || IsTransient(oos.Call()) {
				t.Errorf("error %q (transient %v)", err, IsTransient(oos.Call()))
			}
		})
	}
	// In step: nothing to report.
	b := commandTarget(t, "echo", Config{Concurrency: 2})
	Run(context.Background(), b.Target, samplesN(6), b.Options)
	if err := b.Target.Close(); err != nil {
		t.Errorf("Close of processes in step: %v", err)
	}
}

// A reply naming another request (or a line waiting before a request)
// discards its process, so the next call starts a process in step, and
// the answers the discarded process gave before are named. The helper
// writes its first reply twice in every process.
func TestCommandWrongIDDiscardsTheProcess(t *testing.T) {
	b := commandTarget(t, "extra-with-id", Config{Concurrency: 1})
	outs := Run(context.Background(), b.Target, samplesN(4), b.Options)
	err := b.Target.Close()
	var oos *OutOfStepError
	if !errors.As(err, &oos) || strings.Join(oos.IDs, ",") != "q-000,q-002" {
		t.Fatalf("Close: %v, want q-000 and q-002 named", err)
	}
	for i, o := range outs {
		if i%2 == 0 && (o.Err != nil || o.Reply.Response != fmt.Sprintf("answer to question %d", i)) {
			t.Errorf("sample %d, first of a new process: %+v, %v", i, o.Reply, o.Err)
		}
		if i%2 == 1 && o.Err == nil {
			t.Errorf("sample %d took the stray line as its answer: %+v", i, o.Reply)
		}
	}
}
