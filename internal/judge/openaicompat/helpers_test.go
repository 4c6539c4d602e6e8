package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/metrics"
)

// fakeClock is an injected clock. Without block, Sleep returns at once and
// moves the clock forward; with block, Sleep waits until Advance moves the
// clock past its deadline.
type fakeClock struct {
	mu       sync.Mutex
	now      time.Time
	block    bool
	sleeps   []time.Duration
	waiters  []*waiter
	sleeping chan time.Duration
}

type waiter struct {
	until time.Time
	ch    chan struct{}
}

func newClock(block bool) *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), block: block, sleeping: make(chan time.Duration, 1000)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	if !c.block {
		c.now = c.now.Add(d)
		c.mu.Unlock()
		return ctx.Err()
	}
	w := &waiter{until: c.now.Add(d), ch: make(chan struct{})}
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	c.sleeping <- d
	select {
	case <-w.ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	keep := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.until.After(c.now) {
			close(w.ch)
		} else {
			keep = append(keep, w)
		}
	}
	c.waiters = keep
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// logs collects Logf output.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) Logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) contains(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

type env struct {
	srv   *openaitest.Server
	j     *Judge
	clock *fakeClock
	logs  *logs
}

// newEnv starts a fake and a judge on it (no cache unless the options set
// one; instant fake sleeps).
func newEnv(t *testing.T, srvOpts []openaitest.Option, mods ...func(*Config)) *env {
	t.Helper()
	srv := openaitest.NewServer(t, append([]openaitest.Option{openaitest.WithAPIKey("sk-test")}, srvOpts...)...)
	e := &env{srv: srv, clock: newClock(false), logs: &logs{}}
	e.j = e.judge(t, mods...)
	return e
}

// judge returns another judge on the environment's server.
func (e *env) judge(t *testing.T, mods ...func(*Config)) *Judge {
	t.Helper()
	srv := e.srv
	cfg := Config{
		BaseURL:        srv.URL,
		APIKey:         "sk-test",
		Model:          "gpt-4o-mini",
		EmbeddingModel: "text-embedding-3-small",
		NoCache:        true,
		Now:            func() time.Time { return e.clock.Now() },
		Sleep:          func(ctx context.Context, d time.Duration) error { return e.clock.Sleep(ctx, d) },
		Rand:           func() float64 { return 0.5 },
		Logf:           e.logs.Logf,
	}
	for _, m := range mods {
		m(&cfg)
	}
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func statementsReq(text string) judge.Request {
	return judge.Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: "What about Paris?", Text: text}, Metric: "faithfulness"}
}

const parisText = "Paris is the capital of France. Paris has about two million inhabitants."

func verifyReq() judge.Request {
	return judge.Request{Step: metrics.StepVerify, Input: metrics.VerifyInput{
		Statements: []string{"Paris is the capital of France", "Paris has ten million inhabitants"},
		Evidence:   "Paris is the capital and largest city of France.",
	}, Metric: "faithfulness"}
}

func usefulReq() judge.Request {
	return judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "What is the capital of France?", Context: "Paris is the capital of France.", Answer: "Paris"}, Metric: "context_precision"}
}

func questionReq(n int) judge.Request {
	return judge.Request{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: "Paris is the capital of France."}, N: n, Metric: "answer_relevancy"}
}

func chatRequests(s *openaitest.Server) []openaitest.Request {
	var out []openaitest.Request
	for _, r := range s.Requests() {
		if r.Kind == "chat" {
			out = append(out, r)
		}
	}
	return out
}

func wantUndefined(t *testing.T, err error, reason string) {
	t.Helper()
	var u *judge.Undefined
	if err == nil || !strings.Contains(judge.ReasonOf(err), reason) || judge.IsFatal(err) {
		t.Fatalf("err = %v, want undefined %q", err, reason)
	}
	if !errors.As(err, &u) {
		t.Fatalf("err = %T %v, want *judge.Undefined", err, err)
	}
}

func wantFatal(t *testing.T, err error, contains ...string) {
	t.Helper()
	if !judge.IsFatal(err) {
		t.Fatalf("err = %v, want fatal", err)
	}
	for _, c := range contains {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("fatal error %q does not say %q", err, c)
		}
	}
}
