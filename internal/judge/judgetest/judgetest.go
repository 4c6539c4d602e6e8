// Package judgetest provides a fake judge.Judge for tests: canned answers
// keyed by step and input, a test failure on any request it was not told
// about, call counting, injected *judge.Undefined or *judge.Fatal errors,
// and a way to hold calls in flight for concurrency tests.
//
//	f := judgetest.New(t)
//	f.OnStatements("Paris is in France.", "Paris is in France.")
//	f.OnVerify(contexts, []string{"Paris is in France."}, 1)
//	f.OnUseful(context, reference, 1)
//	f.OnQuestion(response, "Where is Paris?", 0)
//	f.OnEmbed("Where is Paris?", []float64{1, 0})
package judgetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// Fake is a judge with canned answers. Requests are matched on the parts of
// the input that the On methods name: statements on the text, verify on
// evidence and statements, useful on context and answer, question on the
// response; the question of statements and useful inputs is not compared.
// Every request is rendered with judge.Render, and every canned answer is
// checked with judge.Validate, so a malformed request or canned answer
// fails the test. A Fake is safe for concurrent use.
type Fake struct {
	t testing.TB

	mu       sync.Mutex
	answers  map[string]*canned
	vectors  map[string][]float64
	embErrs  map[string]error
	calls    map[metrics.Step]int
	requests []judge.Request
	batches  [][]string
	hold     chan struct{}
	usage    judge.Usage
}

type canned struct {
	ans       judge.Answer
	questions []metrics.QuestionOutput
	err       error
}

var (
	_ judge.Judge     = (*Fake)(nil)
	_ judge.Describer = (*Fake)(nil)
)

// New returns a Fake that reports unexpected requests to t.
func New(t testing.TB) *Fake {
	return &Fake{
		t:       t,
		answers: map[string]*canned{},
		vectors: map[string][]float64{},
		embErrs: map[string]error{},
		calls:   map[metrics.Step]int{},
		usage:   judge.Usage{ChatCalls: 1},
	}
}

// WithUsage sets the Usage of every later chat answer (default
// judge.Usage{ChatCalls: 1}). Embed answers report EmbeddingCalls 1 and one
// embedding token per text.
func (f *Fake) WithUsage(u judge.Usage) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.usage = u
	return f
}

func (f *Fake) set(key string, c *canned) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[key] = c
	return f
}

// OnStatements answers the statements step for text with stmts.
func (f *Fake) OnStatements(text string, stmts ...string) *Fake {
	return f.set(statementsKey(text), &canned{ans: judge.Answer{
		Statements: &metrics.StatementsOutput{Statements: append([]string{}, stmts...)},
	}})
}

// OnVerify answers the verify step for evidence and stmts with one verdict
// (0 or 1) per statement.
func (f *Fake) OnVerify(evidence string, stmts []string, verdicts ...int) *Fake {
	f.t.Helper()
	if len(verdicts) != len(stmts) {
		f.t.Fatalf("judgetest: OnVerify: %d verdicts for %d statements", len(verdicts), len(stmts))
	}
	out := &metrics.VerifyOutput{Verdicts: make([]metrics.StatementVerdict, len(stmts))}
	for i, s := range stmts {
		out.Verdicts[i] = metrics.StatementVerdict{Statement: s, Reason: "canned", Verdict: verdicts[i]}
	}
	return f.set(verifyKey(evidence, stmts), &canned{ans: judge.Answer{Verify: out}})
}

// OnVerifySupport answers the verify step for evidence and stmts with a
// graded support per statement (as the offline judge gives them); the
// verdict of each is 1 when its support is at least 0.5.
func (f *Fake) OnVerifySupport(evidence string, stmts []string, supports ...float64) *Fake {
	f.t.Helper()
	if len(supports) != len(stmts) {
		f.t.Fatalf("judgetest: OnVerifySupport: %d supports for %d statements", len(supports), len(stmts))
	}
	out := &metrics.VerifyOutput{Verdicts: make([]metrics.StatementVerdict, len(stmts))}
	for i, s := range stmts {
		v := 0
		if supports[i] >= 0.5 {
			v = 1
		}
		out.Verdicts[i] = metrics.StatementVerdict{Statement: s, Reason: "canned", Verdict: v, Support: &supports[i]}
	}
	return f.set(verifyKey(evidence, stmts), &canned{ans: judge.Answer{Verify: out}})
}

// OnClaims answers the claims step for text at the given atomicity and
// coverage with claims.
func (f *Fake) OnClaims(text string, atomicity, coverage metrics.Level, claims ...string) *Fake {
	return f.set(claimsKey(text, atomicity, coverage), &canned{ans: judge.Answer{
		Claims: &metrics.ClaimsOutput{Claims: append([]string{}, claims...)},
	}})
}

// OnAttribute answers the attribute step for the joined contexts and the
// reference (any question) with one verdict (0 or 1) per given sentence.
func (f *Fake) OnAttribute(context, reference string, sentences []string, verdicts ...int) *Fake {
	f.t.Helper()
	if len(verdicts) != len(sentences) {
		f.t.Fatalf("judgetest: OnAttribute: %d verdicts for %d sentences", len(verdicts), len(sentences))
	}
	out := &metrics.AttributeOutput{Sentences: make([]metrics.SentenceVerdict, len(sentences))}
	for i, s := range sentences {
		out.Sentences[i] = metrics.SentenceVerdict{Sentence: s, Reason: "canned", Attributed: verdicts[i]}
	}
	return f.set(attributeKey(context, reference), &canned{ans: judge.Answer{Attribute: out}})
}

// OnVerifyPair answers the verify_pair step for evidence and the two lists
// with the given verdicts. The verdict lists may be shorter than the
// statement lists, to play a judge that loses count: the missing verdicts
// are left out.
func (f *Fake) OnVerifyPair(evidence string, ref, resp []string, refVerdicts, respVerdicts []int) *Fake {
	f.t.Helper()
	if len(refVerdicts) > len(ref) || len(respVerdicts) > len(resp) {
		f.t.Fatalf("judgetest: OnVerifyPair: more verdicts than statements")
	}
	list := func(stmts []string, vs []int) []metrics.StatementVerdict {
		out := make([]metrics.StatementVerdict, len(vs))
		for i, v := range vs {
			out[i] = metrics.StatementVerdict{Statement: stmts[i], Reason: "canned", Verdict: v}
		}
		return out
	}
	return f.set(verifyPairKey(evidence, ref, resp), &canned{ans: judge.Answer{VerifyPair: &metrics.VerifyPairOutput{
		ReferenceVerdicts: list(ref, refVerdicts), ResponseVerdicts: list(resp, respVerdicts),
	}}})
}

// OnUseful answers the useful step for context and answer (any question)
// with verdict (0 or 1).
func (f *Fake) OnUseful(context, answer string, verdict int) *Fake {
	return f.set(usefulKey(context, answer), &canned{ans: judge.Answer{
		Useful: &metrics.UsefulOutput{Reason: "canned", Verdict: verdict},
	}})
}

// OnQuestion adds a generated question for response. A request for N
// questions gets the first N added for the response, repeated in turn when
// fewer were added.
func (f *Fake) OnQuestion(response, question string, noncommittal int) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := questionKey(response)
	c := f.answers[key]
	if c == nil || c.err != nil {
		c = &canned{}
		f.answers[key] = c
	}
	c.questions = append(c.questions, metrics.QuestionOutput{Question: question, Noncommittal: noncommittal})
	return f
}

// OnEmbed answers the embedding of text with vec.
func (f *Fake) OnEmbed(text string, vec []float64) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.vectors[text] = slices.Clone(vec)
	delete(f.embErrs, text)
	return f
}

// FailStatements makes the statements step for text fail with err (for
// example a *judge.Undefined or a *judge.Fatal).
func (f *Fake) FailStatements(text string, err error) *Fake {
	return f.set(statementsKey(text), &canned{err: err})
}

// FailVerify makes the verify step for evidence and stmts fail with err.
func (f *Fake) FailVerify(evidence string, stmts []string, err error) *Fake {
	return f.set(verifyKey(evidence, stmts), &canned{err: err})
}

// FailUseful makes the useful step for context and answer fail with err.
func (f *Fake) FailUseful(context, answer string, err error) *Fake {
	return f.set(usefulKey(context, answer), &canned{err: err})
}

// FailQuestion makes the question step for response fail with err.
func (f *Fake) FailQuestion(response string, err error) *Fake {
	return f.set(questionKey(response), &canned{err: err})
}

// FailEmbed makes every Embed call that includes text fail with err.
func (f *Fake) FailEmbed(text string, err error) *Fake {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.embErrs[text] = err
	delete(f.vectors, text)
	return f
}

// Hold makes every later Ask and Embed call wait (counted as started) until
// release is called or the call's context ends. release may be called more
// than once.
func (f *Fake) Hold() (release func()) {
	ch := make(chan struct{})
	f.mu.Lock()
	f.hold = ch
	f.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			f.mu.Lock()
			if f.hold == ch {
				f.hold = nil
			}
			f.mu.Unlock()
			close(ch)
		})
	}
}

// WaitCalls waits until at least n calls of step (metrics.StepEmbed for
// Embed) have started, and fails the test after 10 seconds. Call it from
// the test's goroutine.
func (f *Fake) WaitCalls(step metrics.Step, n int) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.Calls(step) < n {
		if time.Now().After(deadline) {
			f.t.Fatalf("judgetest: %d %s calls after 10s, want %d", f.Calls(step), step, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// Calls returns the number of calls of step so far (metrics.StepEmbed for
// Embed), unexpected ones included.
func (f *Fake) Calls(step metrics.Step) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[step]
}

// Requests returns the chat requests received so far, in order.
func (f *Fake) Requests() []judge.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

// EmbedBatches returns the texts of each Embed call so far, in order.
func (f *Fake) EmbedBatches() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([][]string, len(f.batches))
	for i, b := range f.batches {
		out[i] = slices.Clone(b)
	}
	return out
}

// Info describes the fake.
func (f *Fake) Info() judge.Info {
	return judge.Info{Provider: "fake", Model: "judgetest", EmbeddingModel: "judgetest", Prompts: judge.PromptsHash()}
}

// start counts a call and waits while calls are held.
func (f *Fake) start(ctx context.Context, step metrics.Step) error {
	f.mu.Lock()
	f.calls[step]++
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return ctx.Err()
}

// Ask answers req from the canned answers. An unexpected request fails the
// test and returns a *judge.Fatal.
func (f *Fake) Ask(ctx context.Context, req judge.Request) (judge.Answer, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	if err := f.start(ctx, req.Step); err != nil {
		return judge.Answer{}, err
	}
	if _, err := judge.Render(req); err != nil {
		f.t.Errorf("judgetest: malformed request: %v", err)
		return judge.Answer{}, &judge.Fatal{Err: err}
	}
	key, err := keyOf(req)
	if err != nil {
		f.t.Errorf("judgetest: %v", err)
		return judge.Answer{}, &judge.Fatal{Err: err}
	}
	ans, usage, found, err := f.lookup(key, req.Count())
	if !found {
		in, _ := json.Marshal(req.Input)
		err := fmt.Errorf("judgetest: unexpected %s request (metric %q): %s", req.Step, req.Metric, in)
		f.t.Error(err)
		return judge.Answer{}, &judge.Fatal{Err: err}
	}
	if err != nil {
		return judge.Answer{}, err
	}
	if err := judge.Validate(req, ans); err != nil {
		f.t.Errorf("judgetest: canned answer does not validate: %v", err)
		return judge.Answer{}, &judge.Fatal{Err: err}
	}
	ans.Usage = usage
	return ans, nil
}

// lookup returns a copy of the canned answer for key, with n questions.
func (f *Fake) lookup(key string, n int) (ans judge.Answer, usage judge.Usage, found bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.answers[key]
	if c == nil {
		return judge.Answer{}, judge.Usage{}, false, nil
	}
	if c.err != nil {
		return judge.Answer{}, judge.Usage{}, true, c.err
	}
	ans = c.ans.Clone()
	if len(c.questions) > 0 {
		for i := range n {
			ans.Questions = append(ans.Questions, c.questions[i%len(c.questions)])
		}
	}
	return ans, f.usage, true, nil
}

// Embed answers each text from the canned vectors, in order. An unknown
// text fails the test and returns a *judge.Fatal; a text given to FailEmbed
// fails the call with its error.
func (f *Fake) Embed(ctx context.Context, texts []string) (judge.Embedding, error) {
	f.mu.Lock()
	f.batches = append(f.batches, slices.Clone(texts))
	f.mu.Unlock()
	if err := f.start(ctx, metrics.StepEmbed); err != nil {
		return judge.Embedding{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := judge.Embedding{
		Vectors: make([][]float64, len(texts)),
		Usage:   judge.Usage{EmbeddingCalls: 1, EmbeddingTokens: len(texts)},
	}
	var missing []string
	for i, t := range texts {
		if err := f.embErrs[t]; err != nil {
			return judge.Embedding{}, err
		}
		v, ok := f.vectors[t]
		if !ok {
			missing = append(missing, t)
			continue
		}
		out.Vectors[i] = slices.Clone(v)
	}
	if len(missing) > 0 {
		err := fmt.Errorf("judgetest: unexpected embedding of %q", missing)
		f.t.Error(err)
		return judge.Embedding{}, &judge.Fatal{Err: err}
	}
	return out, nil
}

// Rendered renders req with judge.Render and fails the test on error.
func Rendered(t testing.TB, req judge.Request) judge.Rendered {
	t.Helper()
	r, err := judge.Render(req)
	if err != nil {
		t.Fatalf("judgetest: %v", err)
	}
	return r
}

func keyOf(req judge.Request) (string, error) {
	switch req.Step {
	case metrics.StepStatements:
		if in, ok := judge.InputAs[metrics.StatementsInput](req.Input); ok {
			return statementsKey(in.Text), nil
		}
	case metrics.StepVerify:
		if in, ok := judge.InputAs[metrics.VerifyInput](req.Input); ok {
			return verifyKey(in.Evidence, in.Statements), nil
		}
	case metrics.StepUseful:
		if in, ok := judge.InputAs[metrics.UsefulInput](req.Input); ok {
			return usefulKey(in.Context, in.Answer), nil
		}
	case metrics.StepQuestion:
		if in, ok := judge.InputAs[metrics.QuestionInput](req.Input); ok {
			return questionKey(in.Response), nil
		}
	case metrics.StepClaims:
		if in, ok := judge.InputAs[metrics.ClaimsInput](req.Input); ok {
			return claimsKey(in.Text, in.Atomicity, in.Coverage), nil
		}
	case metrics.StepAttribute:
		if in, ok := judge.InputAs[metrics.AttributeInput](req.Input); ok {
			return attributeKey(in.Context, in.Reference), nil
		}
	case metrics.StepVerifyPair:
		if in, ok := judge.InputAs[metrics.VerifyPairInput](req.Input); ok {
			return verifyPairKey(in.Evidence, in.ReferenceStatements, in.ResponseStatements), nil
		}
	default:
		return "", fmt.Errorf("%q is not a chat step", req.Step)
	}
	return "", errors.New("input does not fit the step")
}

func key(parts ...string) string {
	b, _ := json.Marshal(parts)
	return string(b)
}

func statementsKey(text string) string { return key("statements", text) }
func verifyKey(evidence string, stmts []string) string {
	return key(append([]string{"verify", evidence}, stmts...)...)
}
func usefulKey(context, answer string) string { return key("useful", context, answer) }
func questionKey(response string) string      { return key("question", response) }
func claimsKey(text string, atomicity, coverage metrics.Level) string {
	return key("claims", text, string(atomicity), string(coverage))
}
func attributeKey(context, reference string) string { return key("attribute", context, reference) }
func verifyPairKey(evidence string, ref, resp []string) string {
	return key(append(append([]string{"verify_pair", evidence, strconv.Itoa(len(ref))}, ref...), resp...)...)
}
