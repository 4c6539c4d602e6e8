package judgetest_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/judgetest"
	"github.com/raggate/raggate/metrics"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Error(args ...any) { r.record(fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
}
func (r *recorder) record(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, s)
}
func (r *recorder) failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errors...)
}

func TestFakeAnswers(t *testing.T) {
	ctx := context.Background()
	stmts := []string{"The chain is worn.", "The cassette is worn."}
	f := judgetest.New(t).
		OnStatements("The chain and the cassette are worn.", stmts...).
		OnVerify("evidence", stmts, 1, 0).
		OnUseful("context", "answer", 1).
		OnQuestion("response", "Why?", 0).
		OnQuestion("response", "How?", 1).
		OnEmbed("Why?", []float64{1, 2})

	a, err := f.Ask(ctx, judge.Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: "any", Text: "The chain and the cassette are worn."}})
	if err != nil || !reflect.DeepEqual(a.Statements.Statements, stmts) || a.Usage.ChatCalls != 1 {
		t.Errorf("statements: %+v, %v", a, err)
	}
	a, err = f.Ask(ctx, judge.Request{Step: metrics.StepVerify, Input: &metrics.VerifyInput{Statements: stmts, Evidence: "evidence"}})
	if err != nil || !reflect.DeepEqual(a.Verify.Bools(), []bool{true, false}) {
		t.Errorf("verify: %+v, %v", a, err)
	}
	a, err = f.Ask(ctx, judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "q", Context: "context", Answer: "answer"}})
	if err != nil || a.Useful.Verdict != 1 {
		t.Errorf("useful: %+v, %v", a, err)
	}
	a, err = f.Ask(ctx, judge.Request{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: "response"}, N: 3})
	want := []metrics.QuestionOutput{{Question: "Why?"}, {Question: "How?", Noncommittal: 1}, {Question: "Why?"}}
	if err != nil || !reflect.DeepEqual(a.Questions, want) {
		t.Errorf("question: %+v, %v", a, err)
	}
	emb, err := f.Embed(ctx, []string{"Why?", "Why?"})
	if err != nil || !reflect.DeepEqual(emb.Vectors, [][]float64{{1, 2}, {1, 2}}) || emb.Usage.EmbeddingCalls != 1 {
		t.Errorf("embed: %+v, %v", emb, err)
	}
	for step, n := range map[metrics.Step]int{metrics.StepStatements: 1, metrics.StepVerify: 1, metrics.StepUseful: 1, metrics.StepQuestion: 1, metrics.StepEmbed: 1} {
		if got := f.Calls(step); got != n {
			t.Errorf("Calls(%s) = %d, want %d", step, got, n)
		}
	}
	if got := len(f.Requests()); got != 4 {
		t.Errorf("%d requests recorded, want 4", got)
	}
	if got := f.EmbedBatches(); !reflect.DeepEqual(got, [][]string{{"Why?", "Why?"}}) {
		t.Errorf("EmbedBatches() = %q", got)
	}
}

func TestFakeFailures(t *testing.T) {
	ctx := context.Background()
	undefined := &judge.Undefined{Reason: "refused"}
	fatal := &judge.Fatal{Err: errors.New("quota")}
	f := judgetest.New(t).
		FailStatements("s", undefined).
		FailVerify("e", []string{"a"}, fatal).
		FailUseful("c", "a", undefined).
		FailQuestion("r", fatal).
		FailEmbed("x", undefined)
	tests := []struct {
		req  judge.Request
		want error
	}{
		{judge.Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Text: "s"}}, undefined},
		{judge.Request{Step: metrics.StepVerify, Input: metrics.VerifyInput{Statements: []string{"a"}, Evidence: "e"}}, fatal},
		{judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Context: "c", Answer: "a"}}, undefined},
		{judge.Request{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: "r"}}, fatal},
	}
	for _, tt := range tests {
		t.Run(string(tt.req.Step), func(t *testing.T) {
			if _, err := f.Ask(ctx, tt.req); err != tt.want {
				t.Errorf("Ask error %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := f.Embed(ctx, []string{"x"}); err != undefined {
		t.Errorf("Embed error %v, want %v", err, undefined)
	}
}

func TestFakeUnexpected(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(f *judgetest.Fake)
		call  func(f *judgetest.Fake) error
		want  string
	}{
		{
			name: "unknown statements text",
			setup: func(f *judgetest.Fake) {
				f.OnStatements("known", "Known is known.")
			},
			call: func(f *judgetest.Fake) error {
				_, err := f.Ask(ctx, judge.Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Text: "other"}})
				return err
			},
			want: "unexpected statements request",
		},
		{
			name: "verify with other statements",
			setup: func(f *judgetest.Fake) {
				f.OnVerify("e", []string{"a", "b"}, 1, 1)
			},
			call: func(f *judgetest.Fake) error {
				_, err := f.Ask(ctx, judge.Request{Step: metrics.StepVerify, Input: metrics.VerifyInput{Statements: []string{"b", "a"}, Evidence: "e"}})
				return err
			},
			want: "unexpected verify request",
		},
		{
			name:  "malformed request",
			setup: func(*judgetest.Fake) {},
			call: func(f *judgetest.Fake) error {
				_, err := f.Ask(ctx, judge.Request{Step: metrics.StepVerify, Input: metrics.UsefulInput{}})
				return err
			},
			want: "malformed request",
		},
		{
			name: "canned verdict 2",
			setup: func(f *judgetest.Fake) {
				f.OnUseful("c", "a", 2)
			},
			call: func(f *judgetest.Fake) error {
				_, err := f.Ask(ctx, judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Context: "c", Answer: "a"}})
				return err
			},
			want: "canned answer does not validate",
		},
		{
			name: "unknown embedding",
			setup: func(f *judgetest.Fake) {
				f.OnEmbed("a", []float64{1})
			},
			call: func(f *judgetest.Fake) error {
				_, err := f.Embed(ctx, []string{"a", "b"})
				return err
			},
			want: `unexpected embedding of ["b"]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			f := judgetest.New(rec)
			tt.setup(f)
			err := tt.call(f)
			if !judge.IsFatal(err) {
				t.Errorf("error %v, want a fatal error", err)
			}
			got := rec.failures()
			if len(got) != 1 || !strings.Contains(got[0], tt.want) {
				t.Errorf("test failures %q, want one with %q", got, tt.want)
			}
		})
	}
}

func TestFakeHold(t *testing.T) {
	f := judgetest.New(t).OnUseful("c", "a", 0)
	release := f.Hold()
	req := judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Context: "c", Answer: "a"}}

	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() {
		_, err := f.Ask(ctx, req)
		cancelled <- err
	}()
	done := make(chan error, 1)
	go func() {
		_, err := f.Ask(context.Background(), req)
		done <- err
	}()
	f.WaitCalls(metrics.StepUseful, 2)
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("held call returned %v before release", err)
	default:
	}
	release()
	release()
	if err := <-done; err != nil {
		t.Errorf("released call: %v", err)
	}
	if _, err := f.Ask(context.Background(), req); err != nil {
		t.Errorf("call after release: %v", err)
	}
}

func TestRendered(t *testing.T) {
	r := judgetest.Rendered(t, judge.Request{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: "Lyon."}})
	if !strings.Contains(r.User, `{"response":"Lyon."}`) {
		t.Errorf("rendered user message lacks the input:\n%s", r.User)
	}
	if info := judgetest.New(t).Info(); info.Prompts != judge.PromptsHash() {
		t.Errorf("Info().Prompts = %q", info.Prompts)
	}
}
