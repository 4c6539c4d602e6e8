package judge_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/judgetest"
	"github.com/raggate/raggate/metrics"
)

func statementsReq(text, metric string) judge.Request {
	return judge.Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: "q", Text: text}, Metric: metric}
}

func TestMemoSameInputOnce(t *testing.T) {
	f := judgetest.New(t).WithUsage(judge.Usage{ChatCalls: 1, PromptTokens: 10, CompletionTokens: 2})
	f.OnStatements("The chain is worn.", "The chain is worn.")
	f.OnStatements("Lyon is in France.", "Lyon is in France.")
	m := judge.Memo(f)
	ctx := context.Background()

	first, err := m.Ask(ctx, statementsReq("The chain is worn.", metrics.FaithfulnessName))
	if err != nil {
		t.Fatal(err)
	}
	if first.Usage.ChatCalls != 1 {
		t.Errorf("first answer usage %+v, want the underlying call's", first.Usage)
	}
	// The same step and input for another metric, given as a pointer.
	in := metrics.StatementsInput{Question: "q", Text: "The chain is worn."}
	second, err := m.Ask(ctx, judge.Request{Step: metrics.StepStatements, Input: &in, Metric: metrics.FactualCorrectnessName})
	if err != nil {
		t.Fatal(err)
	}
	if second.Usage != (judge.Usage{}) {
		t.Errorf("memo hit usage %+v, want zero", second.Usage)
	}
	if !reflect.DeepEqual(second.Statements, first.Statements) {
		t.Errorf("memo hit %+v, want %+v", second.Statements, first.Statements)
	}
	second.Statements.Statements[0] = "changed"
	third, _ := m.Ask(ctx, statementsReq("The chain is worn.", metrics.ContextRecallName))
	if third.Statements.Statements[0] != "The chain is worn." {
		t.Errorf("changing an answer changed the memo")
	}
	if _, err := m.Ask(ctx, statementsReq("Lyon is in France.", metrics.ContextRecallName)); err != nil {
		t.Fatal(err)
	}

	if got := f.Calls(metrics.StepStatements); got != 2 {
		t.Errorf("underlying statements calls %d, want 2", got)
	}
	if got := m.Calls(); !reflect.DeepEqual(got, map[metrics.Step]int{metrics.StepStatements: 2}) {
		t.Errorf("Calls() = %v", got)
	}
	total, per := m.Usage()
	if want := (judge.Usage{ChatCalls: 2, PromptTokens: 20, CompletionTokens: 4}); total != want {
		t.Errorf("total usage %+v, want %+v", total, want)
	}
	wantPer := map[string]judge.Usage{
		metrics.FaithfulnessName:  {ChatCalls: 1, PromptTokens: 10, CompletionTokens: 2},
		metrics.ContextRecallName: {ChatCalls: 1, PromptTokens: 10, CompletionTokens: 2},
	}
	if !reflect.DeepEqual(per, wantPer) {
		t.Errorf("usage per metric %+v, want %+v", per, wantPer)
	}
}

func TestMemoKey(t *testing.T) {
	f := judgetest.New(t)
	f.OnQuestion("Lyon is in France.", "Where is Lyon?", 0)
	f.OnUseful("ctx", "answer", 1)
	m := judge.Memo(f)
	ctx := context.Background()
	ask := func(req judge.Request) {
		t.Helper()
		if _, err := m.Ask(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	q := metrics.QuestionInput{Response: "Lyon is in France."}
	ask(judge.Request{Step: metrics.StepQuestion, Input: q, N: 3})
	ask(judge.Request{Step: metrics.StepQuestion, Input: q, N: 3})
	ask(judge.Request{Step: metrics.StepQuestion, Input: q, N: 1})
	ask(judge.Request{Step: metrics.StepQuestion, Input: q}) // N 0 is N 1
	// The useful input's question is part of the key (the fake ignores it).
	ask(judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "a", Context: "ctx", Answer: "answer"}})
	ask(judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "b", Context: "ctx", Answer: "answer"}})
	ask(judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "b", Context: "ctx", Answer: "answer"}})
	want := map[metrics.Step]int{metrics.StepQuestion: 2, metrics.StepUseful: 2}
	if got := m.Calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("Calls() = %v, want %v", got, want)
	}
}

func TestMemoCoalescesConcurrentRequests(t *testing.T) {
	f := judgetest.New(t)
	f.OnStatements("The chain is worn.", "The chain is worn.")
	m := judge.Memo(f)
	release := f.Hold()
	const n = 8
	var wg sync.WaitGroup
	answers := make([]judge.Answer, n)
	errs := make([]error, n)
	ask := func(i int) {
		defer wg.Done()
		answers[i], errs[i] = m.Ask(context.Background(), statementsReq("The chain is worn.", metrics.FaithfulnessName))
	}
	wg.Add(1)
	go ask(0)
	f.WaitCalls(metrics.StepStatements, 1) // the leader is in flight
	for i := 1; i < n; i++ {
		wg.Add(1)
		go ask(i)
	}
	for judge.Waits(m) < n-1 {
		time.Sleep(time.Millisecond)
	}
	release()
	wg.Wait()
	for i := range n {
		if errs[i] != nil || len(answers[i].Statements.Statements) != 1 {
			t.Errorf("request %d: %+v, %v", i, answers[i], errs[i])
		}
	}
	if got := f.Calls(metrics.StepStatements); got != 1 {
		t.Errorf("underlying calls %d, want 1", got)
	}
	total, _ := m.Usage()
	if total.ChatCalls != 1 {
		t.Errorf("usage %+v, want one chat call", total)
	}
}

func TestMemoErrors(t *testing.T) {
	undefined := &judge.Undefined{Reason: "input too long"}
	fatal := &judge.Fatal{Err: errors.New("bad API key")}
	tests := []struct {
		name      string
		err       error
		wantCalls int
	}{
		{"undefined is memoized", undefined, 1},
		{"wrapped undefined is memoized", errors.Join(errors.New("ctx"), undefined), 1},
		{"fatal is not memoized", fatal, 3},
		{"fatal undefined is not memoized", &judge.Fatal{Err: undefined}, 3},
		{"plain error is not memoized", errors.New("boom"), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := judgetest.New(t)
			f.FailStatements("x", tt.err)
			m := judge.Memo(f)
			for range 3 {
				_, err := m.Ask(context.Background(), statementsReq("x", "m"))
				if !errors.Is(err, tt.err) {
					t.Fatalf("Ask error %v, want %v", err, tt.err)
				}
			}
			if got := f.Calls(metrics.StepStatements); got != tt.wantCalls {
				t.Errorf("underlying calls %d, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestMemoLeaderCancelled(t *testing.T) {
	f := judgetest.New(t)
	f.OnStatements("x", "X is a letter.")
	m := judge.Memo(f)
	release := f.Hold()

	leaderCtx, cancel := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := m.Ask(leaderCtx, statementsReq("x", "m"))
		leaderErr <- err
	}()
	f.WaitCalls(metrics.StepStatements, 1)
	waiter := make(chan error, 1)
	go func() {
		_, err := m.Ask(context.Background(), statementsReq("x", "m"))
		waiter <- err
	}()
	cancel()
	if err := <-leaderErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader error %v, want context.Canceled", err)
	}
	// The waiter asks again on its own; let that call through.
	f.WaitCalls(metrics.StepStatements, 2)
	release()
	if err := <-waiter; err != nil {
		t.Fatalf("waiter error %v, want its own answer", err)
	}
	// Now memoized.
	if _, err := m.Ask(context.Background(), statementsReq("x", "m")); err != nil {
		t.Fatal(err)
	}
	if got := f.Calls(metrics.StepStatements); got != 2 {
		t.Errorf("underlying calls %d, want 2", got)
	}
}

func TestMemoEmbed(t *testing.T) {
	f := judgetest.New(t)
	for i, s := range []string{"a", "b", "c", "d"} {
		f.OnEmbed(s, []float64{float64(i), 1})
	}
	m := judge.Memo(f)
	ctx := context.Background()
	vec := func(s string) []float64 {
		return []float64{float64(map[string]int{"a": 0, "b": 1, "c": 2, "d": 3}[s]), 1}
	}
	for _, batch := range [][]string{{"a", "b", "a"}, {"b", "c", "a", "d", "c"}, {"d", "a"}, {}} {
		emb, err := m.EmbedFor(ctx, metrics.AnswerRelevancyName, batch)
		if err != nil {
			t.Fatal(err)
		}
		if len(emb.Vectors) != len(batch) {
			t.Fatalf("%d vectors for %d texts", len(emb.Vectors), len(batch))
		}
		for i, s := range batch {
			if !reflect.DeepEqual(emb.Vectors[i], vec(s)) {
				t.Errorf("vector of %q = %v, want %v", s, emb.Vectors[i], vec(s))
			}
		}
	}
	want := [][]string{{"a", "b"}, {"c", "d"}}
	if got := f.EmbedBatches(); !reflect.DeepEqual(got, want) {
		t.Errorf("underlying batches %q, want %q", got, want)
	}
	total, per := m.Usage()
	if total.EmbeddingCalls != 2 || per[metrics.AnswerRelevancyName].EmbeddingTokens != 4 {
		t.Errorf("usage %+v / %+v, want 2 calls, 4 tokens for answer_relevancy", total, per)
	}
	if got := m.Calls()[metrics.StepEmbed]; got != 2 {
		t.Errorf("embed calls %d, want 2", got)
	}
	emb, _ := m.Embed(ctx, []string{"a"})
	emb.Vectors[0][0] = 99
	emb, _ = m.Embed(ctx, []string{"a"})
	if emb.Vectors[0][0] != 0 {
		t.Errorf("changing a vector changed the memo")
	}
}

func TestMemoEmbedErrorsNotMemoized(t *testing.T) {
	f := judgetest.New(t)
	f.OnEmbed("a", []float64{1})
	f.FailEmbed("b", &judge.Undefined{Reason: "too long"})
	m := judge.Memo(f)
	ctx := context.Background()
	if _, err := m.Embed(ctx, []string{"a", "b"}); err == nil {
		t.Fatal("want an error")
	}
	f.OnEmbed("b", []float64{2})
	emb, err := m.Embed(ctx, []string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if emb.Vectors[0][0] != 2 || emb.Vectors[1][0] != 1 {
		t.Errorf("vectors %v", emb.Vectors)
	}
	want := [][]string{{"a", "b"}, {"b", "a"}}
	if got := f.EmbedBatches(); !reflect.DeepEqual(got, want) {
		t.Errorf("underlying batches %q, want %q", got, want)
	}
}

func TestMemoEmbedCoalesces(t *testing.T) {
	f := judgetest.New(t)
	f.OnEmbed("a", []float64{1})
	f.OnEmbed("b", []float64{2})
	m := judge.Memo(f)
	release := f.Hold()
	done := make(chan error, 2)
	go func() {
		_, err := m.Embed(context.Background(), []string{"a"})
		done <- err
	}()
	f.WaitCalls(metrics.StepEmbed, 1)
	go func() {
		emb, err := m.Embed(context.Background(), []string{"a", "b"})
		if err == nil && (emb.Vectors[0][0] != 1 || emb.Vectors[1][0] != 2) {
			err = errors.New("wrong vectors")
		}
		done <- err
	}()
	f.WaitCalls(metrics.StepEmbed, 2)
	release()
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	want := [][]string{{"a"}, {"b"}}
	if got := f.EmbedBatches(); !reflect.DeepEqual(got, want) {
		t.Errorf("underlying batches %q, want %q", got, want)
	}
}

type panicky struct{ judge.Judge }

func (panicky) Ask(context.Context, judge.Request) (judge.Answer, error) { panic("boom") }

func TestMemoJudgePanics(t *testing.T) {
	m := judge.Memo(panicky{})
	func() {
		defer func() { _ = recover() }()
		_, _ = m.Ask(context.Background(), statementsReq("x", "m"))
	}()
	// The entry was released and forgotten: the next request asks again.
	func() {
		defer func() {
			if recover() == nil {
				t.Error("second request did not reach the judge")
			}
		}()
		_, _ = m.Ask(context.Background(), statementsReq("x", "m"))
	}()
}

func TestMemoScopeRelease(t *testing.T) {
	f := judgetest.New(t)
	f.OnStatements("The chain is worn.", "The chain is worn.")
	f.OnStatements("Lyon is in France.", "Lyon is in France.")
	f.OnEmbed("a", []float64{1, 0}).OnEmbed("b", []float64{0, 1})
	m := judge.Memo(f)
	ctx := context.Background()
	held := func(wantAsks, wantVecs int) {
		t.Helper()
		if a, v := m.Held(); a != wantAsks || v != wantVecs {
			t.Errorf("memo holds %d answers and %d vectors, want %d and %d", a, v, wantAsks, wantVecs)
		}
	}

	s1, s2 := m.Scope(), m.Scope()
	for _, s := range []*judge.Scope{s1, s2} {
		if _, err := s.Ask(ctx, statementsReq("The chain is worn.", metrics.FaithfulnessName)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Embed(ctx, []string{"a", "a"}); err != nil {
			t.Fatal(err)
		}
	}
	// Memoized itself keeps what it is asked for the whole run.
	if _, err := m.Ask(ctx, statementsReq("Lyon is in France.", metrics.FaithfulnessName)); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Embed(ctx, []string{"b"}); err != nil {
		t.Fatal(err)
	}
	held(2, 2)
	s1.Release()
	held(2, 2) // s2 still uses them
	if _, err := s2.Ask(ctx, statementsReq("The chain is worn.", metrics.FactualCorrectnessName)); err != nil {
		t.Fatal(err)
	}
	if got := f.Calls(metrics.StepStatements); got != 2 {
		t.Errorf("underlying statements calls %d, want 2 (the scopes share the answer)", got)
	}
	s2.Release()
	held(1, 1)

	// Released entries are asked again; usage keeps counting.
	s3 := m.Scope()
	if _, err := s3.Ask(ctx, statementsReq("The chain is worn.", metrics.FaithfulnessName)); err != nil {
		t.Fatal(err)
	}
	s3.Release()
	if got := f.Calls(metrics.StepStatements); got != 3 {
		t.Errorf("underlying statements calls %d, want 3", got)
	}
	if got := m.Calls()[metrics.StepStatements]; got != 3 {
		t.Errorf("Calls() counts %d statements calls, want 3", got)
	}
	held(1, 1)
}

// A clone's graded supports are its own: changing one does not change the
// answer it was cloned from (a memoized answer).
func TestCloneCopiesSupports(t *testing.T) {
	s := 0.25
	a := judge.Answer{
		Verify:     &metrics.VerifyOutput{Verdicts: []metrics.StatementVerdict{{Statement: "x", Support: &s}}},
		VerifyPair: &metrics.VerifyPairOutput{ResponseVerdicts: []metrics.StatementVerdict{{Statement: "y", Support: &s}}},
	}
	c := a.Clone()
	*c.Verify.Verdicts[0].Support = 0.9
	*c.VerifyPair.ResponseVerdicts[0].Support = 0.8
	if s != 0.25 || *a.Verify.Verdicts[0].Support != 0.25 || *a.VerifyPair.ResponseVerdicts[0].Support != 0.25 {
		t.Errorf("changing the clone's supports changed the original: %v", s)
	}
}
