package openaicompat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/metrics"
)

func TestRequestOnTheWire(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.ExtraHeaders = map[string]string{"X-Team": "rag"} })
	a, err := e.j.Ask(context.Background(), statementsReq(parisText))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Paris is the capital of France", "Paris has about two million inhabitants"}
	if a.Statements == nil || strings.Join(a.Statements.Statements, "|") != strings.Join(want, "|") {
		t.Fatalf("statements = %+v, want %q", a.Statements, want)
	}
	reqs := chatRequests(e.srv)
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	// The temperature must really be on the wire: go-openai drops a zero
	// float32 through omitempty.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["temperature"]) != "0" || r.Temperature == nil || *r.Temperature != 0 {
		t.Errorf("temperature on the wire = %s, want 0", raw["temperature"])
	}
	if r.Seed == nil || *r.Seed != DefaultSeed {
		t.Errorf("seed = %v, want %d", r.Seed, DefaultSeed)
	}
	if r.MaxCompletionTokens != DefaultMaxCompletionTokens || r.MaxTokens != 0 {
		t.Errorf("max_completion_tokens = %d, max_tokens = %d", r.MaxCompletionTokens, r.MaxTokens)
	}
	if r.ResponseFormat != "json_schema" || r.SchemaName != "raggate_statements" || !r.Strict {
		t.Errorf("response_format = %s %s strict=%v, want strict json_schema raggate_statements", r.ResponseFormat, r.SchemaName, r.Strict)
	}
	if _, ok := raw["n"]; ok {
		t.Errorf("n sent for a single answer: %s", raw["n"])
	}
	if r.Model != "gpt-4o-mini" || r.Header.Get("Authorization") != "Bearer sk-test" || r.Header.Get("X-Team") != "rag" {
		t.Errorf("model %q, auth %q, extra header %q", r.Model, r.Header.Get("Authorization"), r.Header.Get("X-Team"))
	}
	if len(r.Messages) != 2 || r.Messages[0].Role != "system" || r.Messages[1].Role != "user" {
		t.Errorf("messages = %+v", r.Messages)
	}
	if a.Usage.ChatCalls != 1 || a.Usage.PromptTokens == 0 || a.Usage.CompletionTokens == 0 || a.Usage.CachedCalls != 0 {
		t.Errorf("usage = %+v", a.Usage)
	}
}

func TestSteps(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	t.Run("verify", func(t *testing.T) {
		a, err := e.j.Ask(ctx, verifyReq())
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(a.Verify.Bools()); got != "[true false]" {
			t.Errorf("verdicts = %s", got)
		}
	})
	t.Run("useful", func(t *testing.T) {
		a, err := e.j.Ask(ctx, usefulReq())
		if err != nil {
			t.Fatal(err)
		}
		if a.Useful == nil || a.Useful.Verdict != 1 {
			t.Errorf("useful = %+v", a.Useful)
		}
	})
	t.Run("question n=3 in one call", func(t *testing.T) {
		before := e.srv.ChatCalls()
		a, err := e.j.Ask(ctx, questionReq(3))
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Questions) != 3 || a.Questions[0].Question != "Paris is the capital of France?" {
			t.Errorf("questions = %+v", a.Questions)
		}
		if calls := e.srv.ChatCalls() - before; calls != 1 {
			t.Errorf("%d calls, want 1", calls)
		}
		reqs := chatRequests(e.srv)
		if last := reqs[len(reqs)-1]; last.N != 3 {
			t.Errorf("n = %d, want 3", last.N)
		}
	})
}

func TestUsageMatchesServer(t *testing.T) {
	e := newEnv(t, nil)
	a, err := e.j.Ask(context.Background(), verifyReq())
	if err != nil {
		t.Fatal(err)
	}
	r := chatRequests(e.srv)[0]
	chars := 0
	for _, m := range r.Messages {
		chars += len(m.Content)
	}
	if want := chars/4 + 1; a.Usage.PromptTokens != want {
		t.Errorf("prompt tokens = %d, want %d (the server's count)", a.Usage.PromptTokens, want)
	}
}

func TestCapabilityFallbacks(t *testing.T) {
	tests := []struct {
		name  string
		opt   openaitest.Option
		req   judge.Request
		check func(t *testing.T, reqs []openaitest.Request)
		// first and second: requests of the first and of a second Ask.
		first, second int
		log           string
	}{
		{
			name: "json_schema refused -> json_object", opt: openaitest.RejectJSONSchema(true), req: statementsReq(parisText),
			first: 2, second: 1, log: "json_object",
			check: func(t *testing.T, reqs []openaitest.Request) {
				if reqs[0].ResponseFormat != "json_schema" || reqs[1].ResponseFormat != "json_object" || reqs[2].ResponseFormat != "json_object" {
					t.Errorf("formats %s %s %s", reqs[0].ResponseFormat, reqs[1].ResponseFormat, reqs[2].ResponseFormat)
				}
			},
		},
		{
			name: "response_format refused -> none", opt: openaitest.RejectResponseFormat(true), req: statementsReq(parisText),
			first: 3, second: 1, log: "prompt only",
			check: func(t *testing.T, reqs []openaitest.Request) {
				if reqs[2].ResponseFormat != "" || reqs[3].ResponseFormat != "" {
					t.Errorf("format still sent: %q", reqs[3].ResponseFormat)
				}
			},
		},
		{
			name: "n refused -> one call per choice", opt: openaitest.RejectN(true), req: questionReq(3),
			first: 4, second: 3, log: "n > 1",
			check: func(t *testing.T, reqs []openaitest.Request) {
				if reqs[0].N != 3 {
					t.Errorf("first n = %d", reqs[0].N)
				}
				for _, r := range reqs[1:] {
					if r.N != 0 {
						t.Errorf("n = %d sent after refusal", r.N)
					}
				}
			},
		},
		{
			name: "n ignored (Ollama) -> missing calls", opt: openaitest.IgnoreN(true), req: questionReq(3),
			first: 3, second: 3, log: "ignores n",
			check: func(t *testing.T, reqs []openaitest.Request) {
				if reqs[0].N != 3 || reqs[1].N != 2 || reqs[2].N != 0 {
					t.Errorf("n = %d %d %d, want 3 2 (absent)", reqs[0].N, reqs[1].N, reqs[2].N)
				}
			},
		},
		{
			name: "seed refused", opt: openaitest.RejectSeed(true), req: usefulReq(),
			first: 2, second: 1, log: "seed",
			check: func(t *testing.T, reqs []openaitest.Request) {
				if reqs[0].Seed == nil || reqs[1].Seed != nil || reqs[2].Seed != nil {
					t.Errorf("seed sent after refusal")
				}
			},
		},
		{
			name: "temperature refused (reasoning model)", opt: openaitest.RejectTemperature(true), req: usefulReq(),
			first: 2, second: 1, log: "temperature",
			check: func(t *testing.T, reqs []openaitest.Request) {
				if reqs[0].Temperature == nil || reqs[2].Temperature != nil {
					t.Errorf("temperature sent after refusal")
				}
			},
		},
		{
			name: "max_completion_tokens refused -> max_tokens", opt: openaitest.RejectMaxCompletionTokens(true), req: usefulReq(),
			first: 2, second: 1, log: "max_tokens",
			check: func(t *testing.T, reqs []openaitest.Request) {
				if reqs[2].MaxCompletionTokens != 0 || reqs[2].MaxTokens != DefaultMaxCompletionTokens {
					t.Errorf("max_completion_tokens %d max_tokens %d", reqs[2].MaxCompletionTokens, reqs[2].MaxTokens)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, []openaitest.Option{tt.opt})
			ctx := context.Background()
			a, err := e.j.Ask(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if err := judge.Validate(tt.req, a); err != nil {
				t.Fatalf("answer invalid: %v", err)
			}
			if n := len(chatRequests(e.srv)); n != tt.first {
				t.Fatalf("first ask: %d requests, want %d", n, tt.first)
			}
			// The downgrade is remembered: a different request of the
			// same step goes straight to what works.
			req2 := tt.req
			switch in := req2.Input.(type) {
			case metrics.QuestionInput:
				in.Response = "Lyon is in France."
				req2.Input = in
			case metrics.UsefulInput:
				in.Context = "Lyon is in France."
				req2.Input = in
			case metrics.StatementsInput:
				in.Text = "Lyon is in France."
				req2.Input = in
			}
			if _, err := e.j.Ask(ctx, req2); err != nil {
				t.Fatal(err)
			}
			reqs := chatRequests(e.srv)
			if n := len(reqs) - tt.first; n != tt.second {
				t.Fatalf("second ask: %d requests, want %d", n, tt.second)
			}
			tt.check(t, reqs)
			if !e.logs.contains(tt.log) {
				t.Errorf("no warning mentioning %q: %q", tt.log, e.logs.lines)
			}
		})
	}
}

func TestOutputRepair(t *testing.T) {
	tests := []struct {
		name     string
		faults   []openaitest.Fault
		req      judge.Request
		requests int
		undef    string // empty: success
		check    func(t *testing.T, reqs []openaitest.Request, a judge.Answer)
	}{
		{
			name: "prose around the JSON is accepted", req: usefulReq(), requests: 1,
			faults: []openaitest.Fault{openaitest.InvalidContent("Sure! Here it is:\n```json\n{\"reason\":\"ok\",\"verdict\":1}\n```\nHope this helps.")},
		},
		{
			name: "invalid output re-asked once with the reason", req: usefulReq(), requests: 2,
			faults: []openaitest.Fault{openaitest.InvalidContent("I think the context is useful.")},
			check: func(t *testing.T, reqs []openaitest.Request, a judge.Answer) {
				m := reqs[1].Messages
				if len(m) != 4 || m[2].Role != "assistant" || m[2].Content != "I think the context is useful." || m[3].Role != "user" {
					t.Fatalf("re-ask messages = %+v", m)
				}
				if !strings.Contains(m[3].Content, "no JSON object") {
					t.Errorf("re-ask does not give the validation error: %q", m[3].Content)
				}
				if a.Usage.ChatCalls != 2 {
					t.Errorf("usage = %+v, want 2 chat calls", a.Usage)
				}
			},
		},
		{
			name: "still invalid after the re-ask -> undefined", req: usefulReq(), requests: 2,
			faults: []openaitest.Fault{openaitest.InvalidContent(`{"reason":"ok","verdict":"yes"}`).Times(2)},
			undef:  "invalid judge output:",
		},
		{
			name: "verify with the wrong statement count -> re-ask", req: verifyReq(), requests: 2,
			faults: []openaitest.Fault{openaitest.InvalidContent(`{"verdicts":[{"statement":"Paris is the capital of France","reason":"x","verdict":1}]}`)},
		},
		{
			name: "finish_reason length -> retry with a doubled limit", req: verifyReq(), requests: 2,
			faults: []openaitest.Fault{openaitest.Length()},
			check: func(t *testing.T, reqs []openaitest.Request, _ judge.Answer) {
				if reqs[0].MaxCompletionTokens != DefaultMaxCompletionTokens || reqs[1].MaxCompletionTokens != 2*DefaultMaxCompletionTokens {
					t.Errorf("limits %d then %d", reqs[0].MaxCompletionTokens, reqs[1].MaxCompletionTokens)
				}
			},
		},
		{
			name: "length twice -> undefined truncated", req: verifyReq(), requests: 2,
			faults: []openaitest.Fault{openaitest.Length().Times(2)},
			undef:  "truncated",
		},
		{
			name: "refusal -> undefined, not a score", req: verifyReq(), requests: 1,
			faults: []openaitest.Fault{openaitest.Refusal()},
			undef:  "judge refused",
		},
		{
			name: "content_filter -> undefined", req: verifyReq(), requests: 1,
			faults: []openaitest.Fault{openaitest.ContentFilter()},
			undef:  "judge refused",
		},
		{
			name: "refusal on the re-ask -> undefined", req: usefulReq(), requests: 2,
			faults: []openaitest.Fault{openaitest.InvalidContent("nope"), openaitest.Refusal()},
			undef:  "judge refused",
		},
		{
			name: "invalid choices re-asked together, once", req: questionReq(3), requests: 2,
			faults: []openaitest.Fault{openaitest.InvalidContent(`{"question":"","noncommittal":0}`)},
			check: func(t *testing.T, reqs []openaitest.Request, a judge.Answer) {
				// The fault made all three choices invalid: one re-ask
				// asks for three again.
				if reqs[1].N != 3 || len(reqs[1].Messages) != 4 || len(a.Questions) != 3 {
					t.Errorf("re-ask n = %d, %d messages; questions = %+v", reqs[1].N, len(reqs[1].Messages), a.Questions)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.srv.Inject(tt.faults...)
			a, err := e.j.Ask(context.Background(), tt.req)
			reqs := chatRequests(e.srv)
			if tt.undef != "" {
				wantUndefined(t, err, tt.undef)
			} else if err != nil {
				t.Fatal(err)
			} else if verr := judge.Validate(tt.req, a); verr != nil {
				t.Fatalf("answer invalid: %v", verr)
			}
			if len(reqs) != tt.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tt.requests)
			}
			if tt.check != nil {
				tt.check(t, reqs, a)
			}
		})
	}
}

func TestTransientFaultsRetried(t *testing.T) {
	tests := []struct {
		name  string
		fault openaitest.Fault
	}{
		{"502 HTML page", openaitest.HTMLError(http.StatusBadGateway)},
		{"503 HTML page", openaitest.HTMLError(http.StatusServiceUnavailable)},
		{"500 JSON error", openaitest.APIError(500, "server_error", "", "", "The server had an error while processing your request.")},
		{"body cut mid-JSON", openaitest.Truncated()},
		{"empty choices", openaitest.EmptyChoices()},
		{"200 HTML from a proxy", openaitest.Fault{Status: 200, ContentType: "text/html", Body: "<html>maintenance</html>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.srv.Inject(tt.fault)
			a, err := e.j.Ask(context.Background(), verifyReq())
			if err != nil {
				t.Fatal(err)
			}
			if a.Verify == nil || len(a.Verify.Verdicts) != 2 {
				t.Fatalf("answer = %+v", a)
			}
			if n := len(chatRequests(e.srv)); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
			// One backoff with jitter 0.5: 500ms x 0.75.
			if s := e.clock.Sleeps(); len(s) != 1 || s[0] != 375*time.Millisecond {
				t.Errorf("sleeps = %v, want [375ms]", s)
			}
		})
	}
}

func TestUnreachableWithoutRetries(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.MaxRetries = -1 })
	e.srv.Inject(openaitest.HTMLError(http.StatusServiceUnavailable).Times(-1))
	_, err := e.j.Ask(context.Background(), verifyReq())
	wantFatal(t, err, "judge unreachable after 1 attempt: ", "503")
	if n := len(chatRequests(e.srv)); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestUnreachableAfterRetries(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.MaxRetries = 3 })
	e.srv.Inject(openaitest.HTMLError(http.StatusServiceUnavailable).Times(-1))
	_, err := e.j.Ask(context.Background(), verifyReq())
	wantFatal(t, err, "judge unreachable after 4 attempts", "503")
	if n := len(chatRequests(e.srv)); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	// Exponential backoff: 500ms, 1s, 2s (x 0.75 jitter).
	want := []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond}
	if got := e.clock.Sleeps(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("backoff = %v, want %v", got, want)
	}
}

func TestFatalErrors(t *testing.T) {
	tests := []struct {
		name  string
		fault openaitest.Fault
		says  []string
	}{
		{"insufficient_quota", openaitest.QuotaExceeded(), []string{"quota", "billing", "OPENAI_API_KEY"}},
		{"401", openaitest.Unauthorized(), []string{"401", "OPENAI_API_KEY"}},
		{"403", openaitest.Forbidden(), []string{"403", "gpt-4o-mini"}},
		{"404", openaitest.APIError(404, "invalid_request_error", "model_not_found", "", "The model `gpt-9` does not exist"), []string{"404", "model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.srv.Inject(tt.fault)
			_, err := e.j.Ask(context.Background(), verifyReq())
			wantFatal(t, err, tt.says...)
			if n := len(chatRequests(e.srv)); n != 1 {
				t.Errorf("%d requests, want 1 (no retry)", n)
			}
		})
	}
	t.Run("wrong key against the fake", func(t *testing.T) {
		e := newEnv(t, nil, func(c *Config) { c.APIKey = "sk-wrong"; c.APIKeyEnv = "JUDGE_KEY" })
		_, err := e.j.Ask(context.Background(), verifyReq())
		wantFatal(t, err, "JUDGE_KEY")
	})
}

func TestContextLengthExceeded(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Inject(openaitest.ContextTooLong())
	_, err := e.j.Ask(context.Background(), verifyReq())
	wantUndefined(t, err, "too long")
	// The run goes on.
	if _, err := e.j.Ask(context.Background(), usefulReq()); err != nil {
		t.Fatal(err)
	}
}

func TestRateLimitWaits(t *testing.T) {
	tests := []struct {
		name   string
		header map[string]string
		fault  *openaitest.Fault
		want   time.Duration
	}{
		{name: "retry-after seconds", header: map[string]string{"retry-after": "2"}, want: 2 * time.Second},
		{name: "retry-after-ms", header: map[string]string{"retry-after-ms": "1500", "retry-after": "2"}, want: 1500 * time.Millisecond},
		{name: "reset-requests exhausted", header: map[string]string{
			"x-ratelimit-reset-requests": "1s", "x-ratelimit-remaining-requests": "0",
			"x-ratelimit-reset-tokens": "6m0s", "x-ratelimit-remaining-tokens": "1000",
		}, want: time.Second},
		{name: "reset-tokens exhausted", header: map[string]string{
			"x-ratelimit-reset-requests": "120ms", "x-ratelimit-remaining-requests": "59",
			"x-ratelimit-reset-tokens": "7.5s", "x-ratelimit-remaining-tokens": "0",
		}, want: 7500 * time.Millisecond},
		// Nothing exhausted: the message's "try again in 20s" wins over a
		// short reset, which would only burn attempts.
		{name: "nothing exhausted: the message", header: map[string]string{"x-ratelimit-reset-tokens": "20ms"}, want: 20 * time.Second},
		{name: "long wait capped", header: map[string]string{"retry-after": "3600"}, want: DefaultMaxRetryWait},
		{name: "message only", header: nil, want: 20 * time.Second},
		{name: "nothing: backoff", fault: ptr(openaitest.APIError(429, "requests", "rate_limit_exceeded", "", "Rate limit reached.")), want: 375 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			f := openaitest.RateLimited(tt.header)
			if tt.fault != nil {
				f = *tt.fault
			}
			e.srv.Inject(f)
			if _, err := e.j.Ask(context.Background(), usefulReq()); err != nil {
				t.Fatal(err)
			}
			if got := e.clock.Sleeps(); len(got) != 1 || got[0] != tt.want {
				t.Errorf("waits = %v, want [%s]", got, tt.want)
			}
			if n := len(chatRequests(e.srv)); n != 2 {
				t.Errorf("%d requests, want 2", n)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestRateLimitSharedBackoff: when one worker is told to wait, every worker
// waits until the reset, without calling the server in between.
func TestRateLimitSharedBackoff(t *testing.T) {
	e := newEnv(t, nil)
	e.clock = newClock(true)
	e.srv.Inject(openaitest.RateLimited(map[string]string{"retry-after": "2"}))
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(1)
	go func() { defer wg.Done(); _, errs[0] = e.j.Ask(ctx, usefulReq()) }()
	if d := <-e.clock.sleeping; d != 2*time.Second {
		t.Fatalf("worker A waits %s, want 2s", d)
	}
	if n := e.srv.ChatRequests(); n != 1 {
		t.Fatalf("%d requests before the second worker, want 1", n)
	}
	wg.Add(1)
	go func() { defer wg.Done(); _, errs[1] = e.j.Ask(ctx, verifyReq()) }()
	if d := <-e.clock.sleeping; d != 2*time.Second {
		t.Fatalf("worker B waits %s, want 2s (the shared backoff)", d)
	}
	if n := e.srv.ChatRequests(); n != 1 {
		t.Fatalf("worker B called the server during the backoff: %d requests", n)
	}
	e.clock.Advance(2 * time.Second)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := e.srv.ChatRequests(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestRateLimitForever(t *testing.T) {
	e := newEnv(t, nil)
	e.srv.Inject(openaitest.RateLimited(map[string]string{"retry-after": "1"}).Times(-1))
	_, err := e.j.Ask(context.Background(), usefulReq())
	wantFatal(t, err, "rate limited", "concurrency")
	if n := len(chatRequests(e.srv)); n != maxRateLimitRetries+1 {
		t.Errorf("%d requests, want %d", n, maxRateLimitRetries+1)
	}
}

func TestStallAndRequestTimeout(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.RequestTimeout = 300 * time.Millisecond })
	e.srv.Inject(openaitest.Stall())
	a, err := e.j.Ask(context.Background(), usefulReq())
	if err != nil {
		t.Fatal(err)
	}
	if a.Useful == nil {
		t.Fatal("no answer")
	}
	reqs := chatRequests(e.srv)
	if len(reqs) != 2 || reqs[0].Status != 0 || reqs[1].Status != 200 {
		t.Errorf("requests = %d (statuses %v), want a stalled one then a success", len(reqs), statuses(reqs))
	}
	t.Run("always stalls -> unreachable", func(t *testing.T) {
		e := newEnv(t, nil, func(c *Config) { c.RequestTimeout = 20 * time.Millisecond; c.MaxRetries = 1 })
		e.srv.Inject(openaitest.Stall().Times(-1))
		_, err := e.j.Ask(context.Background(), usefulReq())
		wantFatal(t, err, "unreachable after 2 attempts", "request timeout")
	})
}

func statuses(reqs []openaitest.Request) []int {
	var s []int
	for _, r := range reqs {
		s = append(s, r.Status)
	}
	return s
}

func TestCancelReturnsPromptly(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.RequestTimeout = time.Hour })
	e.srv.Inject(openaitest.Stall().Times(-1))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.j.Ask(ctx, usefulReq())
		done <- err
	}()
	if err := e.srv.Wait(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) || judge.IsFatal(err) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	t.Run("while waiting out a rate limit", func(t *testing.T) {
		e := newEnv(t, nil)
		e.clock = newClock(true)
		e.srv.Inject(openaitest.RateLimited(map[string]string{"retry-after": "30"}))
		ctx, cancel := context.WithCancel(context.Background())
		go func() { _, err := e.j.Ask(ctx, usefulReq()); done <- err }()
		<-e.clock.sleeping
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

func TestConcurrencyBound(t *testing.T) {
	e := newEnv(t, []openaitest.Option{openaitest.WithLatency(20 * time.Millisecond)}, func(c *Config) { c.Concurrency = 3 })
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := e.j.Ask(context.Background(), statementsReq(fmt.Sprintf("Fact number %d.", i))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if m := e.srv.MaxInFlight(); m > 3 || m < 1 {
		t.Errorf("max in flight = %d, want <= 3", m)
	}
}

func TestRateLimits(t *testing.T) {
	t.Run("RPM", func(t *testing.T) {
		// 60 RPM: a bucket of 10 requests refilled at 1 per second.
		e := newEnv(t, nil, func(c *Config) { c.RPM = 60; c.Concurrency = 1 })
		for i := range 12 {
			if _, err := e.j.Ask(context.Background(), statementsReq(fmt.Sprintf("Fact %d.", i))); err != nil {
				t.Fatal(err)
			}
		}
		var total time.Duration
		for _, d := range e.clock.Sleeps() {
			total += d
		}
		if total < 2*time.Second-time.Millisecond || total > 2*time.Second+10*time.Millisecond {
			t.Errorf("waited %s for 12 requests at 60 RPM, want 2s", total)
		}
	})
	t.Run("TPM", func(t *testing.T) {
		e := newEnv(t, nil, func(c *Config) { c.TPM = 6000; c.Concurrency = 1 })
		for i := range 4 {
			if _, err := e.j.Ask(context.Background(), statementsReq(fmt.Sprintf("Fact %d.", i))); err != nil {
				t.Fatal(err)
			}
		}
		// Every prompt is larger than the 1000-token bucket's
		// refill per request gap, so requests after the first wait.
		if len(e.clock.Sleeps()) == 0 {
			t.Error("no wait under a tokens-per-minute limit")
		}
	})
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	withCache := func(model string) func(*Config) {
		return func(c *Config) { c.NoCache = false; c.CacheDir = dir; c.Model = model }
	}
	ctx := context.Background()
	e := newEnv(t, nil, withCache("gpt-4o-mini"))
	first, err := e.j.Ask(ctx, questionReq(3))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("hit", func(t *testing.T) {
		again, err := e.j.Ask(ctx, questionReq(3))
		if err != nil {
			t.Fatal(err)
		}
		if e.srv.ChatRequests() != 1 {
			t.Errorf("%d requests, want 1", e.srv.ChatRequests())
		}
		if fmt.Sprint(again.Questions) != fmt.Sprint(first.Questions) {
			t.Errorf("cached answer %v != %v", again.Questions, first.Questions)
		}
		if again.Usage != (judge.Usage{CachedCalls: 1}) {
			t.Errorf("cached usage = %+v, want only CachedCalls 1", again.Usage)
		}
	})
	t.Run("another n is another request", func(t *testing.T) {
		if _, err := e.j.Ask(ctx, questionReq(2)); err != nil {
			t.Fatal(err)
		}
		if e.srv.ChatRequests() != 2 {
			t.Errorf("%d requests, want 2", e.srv.ChatRequests())
		}
	})
	t.Run("a new judge on the same directory hits", func(t *testing.T) {
		before := e.srv.ChatRequests()
		j2 := e.judge(t, withCache("gpt-4o-mini"))
		if _, err := j2.Ask(ctx, questionReq(3)); err != nil {
			t.Fatal(err)
		}
		if n := e.srv.ChatRequests() - before; n != 0 {
			t.Errorf("%d requests, want 0", n)
		}
	})
	t.Run("model change misses", func(t *testing.T) {
		before := e.srv.ChatRequests()
		j2 := e.judge(t, withCache("gpt-4.1-mini"))
		if _, err := j2.Ask(ctx, questionReq(3)); err != nil {
			t.Fatal(err)
		}
		if n := e.srv.ChatRequests() - before; n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
	t.Run("another endpoint serving the same model misses", func(t *testing.T) {
		other := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
		j2 := e.judge(t, withCache("gpt-4o-mini"), func(c *Config) { c.BaseURL = other.URL })
		if _, err := j2.Ask(ctx, questionReq(3)); err != nil {
			t.Fatal(err)
		}
		if other.ChatRequests() != 1 {
			t.Error("another endpoint's judge answered from the first endpoint's cache")
		}
	})
	t.Run("a repeat (salt) asks again and is cached on its own", func(t *testing.T) {
		salted := func(c *Config) { c.CacheSalt = "repeat-1" }
		before := e.srv.ChatRequests()
		j2 := e.judge(t, withCache("gpt-4o-mini"), salted)
		if _, err := j2.Ask(ctx, questionReq(3)); err != nil {
			t.Fatal(err)
		}
		if n := e.srv.ChatRequests() - before; n != 1 {
			t.Errorf("a salted judge made %d requests, want 1 (not the unsalted cache entry)", n)
		}
		j3 := e.judge(t, withCache("gpt-4o-mini"), salted)
		if _, err := j3.Ask(ctx, questionReq(3)); err != nil {
			t.Fatal(err)
		}
		if n := e.srv.ChatRequests() - before; n != 1 {
			t.Errorf("the same salt again made %d requests in all, want 1 (its own cache entry)", n)
		}
	})
	t.Run("corrupt entry ignored and rewritten", func(t *testing.T) {
		e2 := newEnv(t, nil, withCache("gpt-4o-mini"))
		r, _ := judge.Render(questionReq(3))
		path := e2.j.cache.Dir() + "/chat/" + e2.j.chatKey(questionReq(3), r)[:2] + "/" + e2.j.chatKey(questionReq(3), r) + ".json"
		for _, garbage := range []string{`{"format":"raggate.cache/v1","key":"`, `{"format":"raggate.cache/v1","contents":["not json"]}`} {
			if err := writeFile(path, garbage); err != nil {
				t.Fatal(err)
			}
			before := e2.srv.ChatRequests()
			if _, err := e2.j.Ask(ctx, questionReq(3)); err != nil {
				t.Fatal(err)
			}
			if e2.srv.ChatRequests() != before+1 {
				t.Errorf("corrupt entry %q used", garbage)
			}
			if _, err := e2.j.Ask(ctx, questionReq(3)); err != nil {
				t.Fatal(err)
			}
			if e2.srv.ChatRequests() != before+1 {
				t.Errorf("entry not rewritten after %q", garbage)
			}
		}
		if e2.j.cache.Stats().Corrupt != 2 {
			t.Errorf("corrupt count = %d, want 2", e2.j.cache.Stats().Corrupt)
		}
	})
	t.Run("undefined answers are not cached", func(t *testing.T) {
		e2 := newEnv(t, nil, withCache("gpt-4o-mini"))
		e2.srv.Inject(openaitest.Refusal())
		_, err := e2.j.Ask(ctx, usefulReq())
		wantUndefined(t, err, "refused")
		if _, err := e2.j.Ask(ctx, usefulReq()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("concurrent identical requests coalesce", func(t *testing.T) {
		e2 := newEnv(t, []openaitest.Option{openaitest.WithLatency(50 * time.Millisecond)}, func(c *Config) {
			c.NoCache = false
			c.CacheDir = t.TempDir()
		})
		var wg sync.WaitGroup
		usages := make([]judge.Usage, 5)
		for i := range usages {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := e2.j.Ask(ctx, verifyReq())
				if err != nil {
					t.Error(err)
				}
				usages[i] = a.Usage
			}()
		}
		wg.Wait()
		// Requests arriving after the first finished are disk hits; the
		// rest were coalesced: either way one call.
		if e2.srv.ChatRequests() != 1 {
			t.Errorf("%d requests, want 1", e2.srv.ChatRequests())
		}
		var total judge.Usage
		for _, u := range usages {
			total = total.Add(u)
		}
		if total.ChatCalls != 1 || total.CachedCalls != 4 {
			t.Errorf("usage total = %+v, want 1 call and 4 cached", total)
		}
	})
}

func TestAzure(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("azure-key"))
	j, err := New(Config{
		APIKey:  "azure-key",
		Model:   "gpt-4o-mini",
		NoCache: true,
		Azure:   AzureConfig{Endpoint: srv.Endpoint, ChatDeployment: "judge-4o", EmbeddingDeployment: "emb-3s"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := j.Ask(ctx, usefulReq()); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Embed(ctx, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Path != "/openai/deployments/judge-4o/chat/completions" || reqs[0].Query.Get("api-version") != DefaultAzureAPIVersion {
		t.Errorf("chat path %s?%s", reqs[0].Path, reqs[0].Query.Encode())
	}
	if reqs[1].Path != "/openai/deployments/emb-3s/embeddings" {
		t.Errorf("embeddings path %s", reqs[1].Path)
	}
	if reqs[0].Header.Get("api-key") != "azure-key" {
		t.Errorf("api-key header missing")
	}
	if info := j.Info(); info.Provider != ProviderAzure || info.Model != "gpt-4o-mini" || info.EmbeddingModel != "emb-3s" {
		t.Errorf("info = %+v", info)
	}
}

func TestInfo(t *testing.T) {
	e := newEnv(t, nil)
	want := judge.Info{Provider: "openai", Model: "gpt-4o-mini", EmbeddingModel: "text-embedding-3-small", Temperature: 0, SampleTemperature: judge.SampleTemperature, Prompts: judge.PromptsHash()}
	if got := e.j.Info(); got != want {
		t.Errorf("Info() = %+v, want %+v", got, want)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"bad base URL", Config{BaseURL: "localhost:11434", Model: "m"}, "not an http(s) URL"},
		{"no model for a custom server", Config{BaseURL: "http://localhost:11434/v1"}, "no chat model"},
		{"bad response format", Config{Model: "m", ResponseFormat: "xml"}, "unknown response format"},
		{"azure without deployment", Config{Azure: AzureConfig{Endpoint: "https://x.openai.azure.com"}}, "deployment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.NoCache = true
			_, err := New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	j, err := New(Config{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if j.chatModel != DefaultModel || j.embModel != DefaultEmbeddingModel {
		t.Errorf("defaults for OpenAI: %s %s", j.chatModel, j.embModel)
	}
}
