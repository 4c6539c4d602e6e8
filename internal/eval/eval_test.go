package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/judgetest"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// A hand-worked sample: two retrieved contexts, the first relevant.
const (
	q    = "When was the bridge opened?"
	c1   = "The bridge opened in 1932. It spans 503 metres."
	c2   = "Ferries crossed the harbour before the bridge."
	resp = "The bridge opened in 1932 and is painted red."
	ref  = "It opened in 1932."
)

var (
	respSt = []string{"The bridge opened in 1932.", "The bridge is painted red."}
	refSt  = []string{"The bridge opened in 1932."}
	// The claims of factual correctness are their own decomposition: they
	// need not match the statements.
	respCl = []string{"The bridge opened in 1932.", "The bridge is red."}
	refCl  = []string{"The bridge opened in 1932!"}
	joined = c1 + "\n" + c2
)

func sample() metrics.Sample {
	var s metrics.Sample
	s.ID = "s1"
	s.Set(metrics.UserInput, q)
	s.SetList(metrics.RetrievedContexts, []string{c1, c2})
	s.Set(metrics.Response, resp)
	s.Set(metrics.Reference, ref)
	return s
}

// fakeFor answers every step the default suite asks for sample().
func fakeFor(t *testing.T) *judgetest.Fake {
	f := judgetest.New(t)
	f.OnStatements(resp, respSt...)
	f.OnStatements(ref, refSt...)
	f.OnUseful(c1, ref, 1).OnUseful(c2, ref, 0)
	f.OnUseful(c1, resp, 1).OnUseful(c2, resp, 0)
	f.OnAttribute(joined, ref, []string{ref}, 1) // context recall
	f.OnVerify(joined, respSt, 1, 0)             // faithfulness
	f.OnVerify(ref, respSt, 1, 0)                // noise sensitivity
	f.OnClaims(resp, metrics.LevelLow, metrics.LevelLow, respCl...)
	f.OnClaims(ref, metrics.LevelLow, metrics.LevelLow, refCl...)
	f.OnVerify(ref, respCl, 1, 0)                            // factual correctness (precision side)
	f.OnVerify(resp, refCl, 1)                               // factual correctness (recall side)
	f.OnVerifyPair(c1, refSt, respSt, []int{1}, []int{1, 0}) // noise sensitivity, context 1
	f.OnVerifyPair(c2, refSt, respSt, []int{0}, []int{0, 1}) // context 2: "painted red" wrongly supported
	f.OnQuestion(resp, "When did the bridge open?", 0)
	f.OnEmbed(q, []float64{1, 0})
	f.OnEmbed("When did the bridge open?", []float64{0.6, 0.8})
	f.OnEmbed(ref, []float64{1, 0})
	f.OnEmbed(resp, []float64{0.8, 0.6})
	return f
}

func TestRunScoresAndSharesSteps(t *testing.T) {
	f := fakeFor(t)
	memo := judge.Memo(f)
	all, err := Resolve(metrics.Names())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), memo, []metrics.Sample{sample()}, Options{Metrics: all})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Samples[0]
	// Expected values worked out by hand from METRICS.md.
	want := map[string]float64{
		metrics.ContextPrecisionName:   1 / (1 + 1e-10), // [1,0]: precision@1 = 1
		metrics.PrecisionAtKName:       0.5,
		metrics.ContextUtilizationName: 1 / (1 + 1e-10),
		metrics.ContextRecallName:      1,
		metrics.FaithfulnessName:       0.5,
		// tp=1 fp=1 fn=0: P=0.5 R=1 F1=2/3 -> 0.67
		metrics.FactualCorrectnessName: 0.67,
		// relevant ctx = [c1]; resp stmt 2 is incorrect and supported only by c2 (irrelevant)
		metrics.NoiseSensitivityRelevantName:   0,
		metrics.NoiseSensitivityIrrelevantName: 0.5,
		metrics.AnswerRelevancyName:            0.6, // cosine((1,0),(0.6,0.8))
		metrics.SemanticSimilarityName:         0.8,
		// 0.75 * F1(2/3) + 0.25 * 0.8
		metrics.AnswerCorrectnessName: 0.75*(2.0/3.0) + 0.25*0.8,
		metrics.StringSimilarityName:  metrics.StringSimilarity(ref, resp, metrics.Levenshtein),
		metrics.ExactMatchName:        0,
		metrics.StringPresenceName:    0,
	}
	for name, w := range want {
		if g := got.Scores[name]; math.Abs(g-w) > 1e-9 {
			t.Errorf("%s = %v, want %v (reason %q)", name, g, w, got.Undefined[name])
		}
	}
	for _, name := range []string{metrics.IDContextPrecisionName, metrics.IDContextRecallName, metrics.NonLLMContextPrecisionName, metrics.NonLLMContextRecallName} {
		if !math.IsNaN(got.Scores[name]) || !strings.HasPrefix(got.Undefined[name], "missing field ") {
			t.Errorf("%s = %v (%q), want NaN with reason missing field", name, got.Scores[name], got.Undefined[name])
		}
	}
	if r := got.Reasons[metrics.FaithfulnessName]; !strings.Contains(r, "painted red") {
		t.Errorf("faithfulness reason %q does not name the unsupported statement", r)
	}

	// Every (step, input) was asked exactly once: the call budget of the
	// default suite is 2N+10 chat calls per sample (context_utilization adds N).
	const n = 2
	calls := memo.Calls()
	chat := chatCalls(calls)
	if want := 2*n + 10 + n; chat != want {
		t.Errorf("chat calls = %d (%v), want %d", chat, calls, want)
	}
	if calls[metrics.StepStatements] != 2 {
		t.Errorf("statements asked %d times, want 2 (response and reference, shared)", calls[metrics.StepStatements])
	}
}

func TestDefaultSuiteCallBudget(t *testing.T) {
	f := fakeFor(t)
	memo := judge.Memo(f)
	res, err := Run(context.Background(), memo, []metrics.Sample{sample()}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Samples[0].Scores[metrics.ContextUtilizationName]; ok {
		t.Error("context_utilization ran though it is not in the default suite")
	}
	calls := memo.Calls()
	if chat := chatCalls(calls); chat != 2*2+10 {
		t.Errorf("default suite used %d chat calls, budget is 2N+10 = 14 (%v)", chat, calls)
	}
}

func chatCalls(calls map[metrics.Step]int) int {
	n := 0
	for _, s := range metrics.Steps {
		n += calls[s]
	}
	return n
}

func TestStepFailureIsUndefinedNotFatal(t *testing.T) {
	f := fakeFor(t)
	f.FailVerify(joined, respSt, &judge.Undefined{Reason: "judge refused"})
	res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{sample()}, Options{Metrics: mustResolve(t, "faithfulness", "context_recall")})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Samples[0]
	if !math.IsNaN(s.Scores["faithfulness"]) || s.Undefined["faithfulness"] != "judge refused" {
		t.Errorf("faithfulness = %v (%q), want NaN with reason %q", s.Scores["faithfulness"], s.Undefined["faithfulness"], "judge refused")
	}
	if s.Scores["context_recall"] != 1 {
		t.Errorf("context_recall = %v, want 1: a failure of another metric's step must not spread", s.Scores["context_recall"])
	}
}

func TestFatalErrorStopsRunAndKeepsFinishedSamples(t *testing.T) {
	f := judgetest.New(t)
	var samples []metrics.Sample
	for i, text := range []string{"one.", "two.", "three."} {
		var s metrics.Sample
		s.ID = string(rune('a' + i))
		s.Set(metrics.UserInput, "q")
		s.SetList(metrics.RetrievedContexts, []string{"ctx"})
		s.Set(metrics.Response, text)
		samples = append(samples, s)
	}
	f.OnStatements("one.", "one.").OnVerify("ctx", []string{"one."}, 1)
	f.FailStatements("two.", &judge.Fatal{Err: errors.New("401 invalid api key")})
	f.OnStatements("three.", "three.").OnVerify("ctx", []string{"three."}, 1)
	res, err := Run(context.Background(), judge.Memo(f), samples, Options{Metrics: mustResolve(t, "faithfulness"), Concurrency: 1})
	if !judge.IsFatal(err) {
		t.Fatalf("err = %v, want the fatal judge error", err)
	}
	if len(res.Samples) != 1 || res.Samples[0].ID != "a" {
		t.Fatalf("finished samples = %+v, want just the first", res.Samples)
	}
	if res.Skipped != 2 {
		t.Errorf("skipped = %d, want 2", res.Skipped)
	}
}

func TestNoStatementsIsUndefinedWithoutCall(t *testing.T) {
	f := judgetest.New(t)
	var s metrics.Sample
	s.ID = "x"
	s.Set(metrics.UserInput, "q")
	s.SetList(metrics.RetrievedContexts, []string{"ctx"})
	s.Set(metrics.Response, "ok")
	f.OnStatements("ok")
	res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{s}, Options{Metrics: mustResolve(t, "faithfulness")})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Samples[0].Undefined["faithfulness"]; got != "no statements in response" {
		t.Errorf("reason = %q", got)
	}
	if f.Calls(metrics.StepVerify) != 0 {
		t.Error("verify was asked with no statements")
	}
}

func TestCancelReturnsPartial(t *testing.T) {
	f := fakeFor(t)
	release := f.Hold()
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var res *Result
	var err error
	go func() {
		res, err = Run(ctx, judge.Memo(f), []metrics.Sample{sample()}, Options{Metrics: mustResolve(t, "faithfulness")})
		close(done)
	}()
	f.WaitCalls(metrics.StepStatements, 1)
	cancel()
	<-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || len(res.Samples) != 0 || res.Skipped != 1 {
		t.Fatalf("res = %+v, want no finished samples and 1 skipped", res)
	}
}

func TestResolve(t *testing.T) {
	ms, err := Resolve([]string{"response_relevancy", "faithfulness", "answer_relevancy"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Name != "answer_relevancy" || ms[1].Name != "faithfulness" {
		t.Errorf("Resolve = %v, want alias resolved and duplicates dropped", ms)
	}
	if _, err := Resolve([]string{"faithfullness"}); err == nil || !strings.Contains(err.Error(), `did you mean "faithfulness"?`) {
		t.Errorf("unknown metric error = %v", err)
	}
}

func mustResolve(t *testing.T, names ...string) []metrics.Metric {
	t.Helper()
	ms, err := Resolve(names)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestUndefinedKinds: every undefined score says whether the data, the
// judge or the metric's definition left it undefined.
func TestUndefinedKinds(t *testing.T) {
	f := judgetest.New(t)
	f.FailStatements("broken.", &judge.Undefined{Reason: "judge refused"})
	f.OnStatements("ok")
	f.OnStatements(" ")
	f.FailStatements("Yes.", &judge.Undefined{Reason: "nothing to check offline: the answer has no content words", Err: judge.ErrNothingToCheck})
	f.OnAttribute("ctx", " ", nil)
	mk := func(id, resp string, ref *string) metrics.Sample {
		var s metrics.Sample
		s.ID = id
		s.Set(metrics.UserInput, "q")
		s.SetList(metrics.RetrievedContexts, []string{"ctx"})
		s.Set(metrics.Response, resp)
		if ref != nil {
			s.Set(metrics.Reference, *ref)
		}
		return s
	}
	empty := " "
	samples := []metrics.Sample{mk("judge", "broken.", nil), mk("metric", "ok", nil), mk("data", "ok", &empty), mk("nothing", "Yes.", &empty)}
	res, err := Run(context.Background(), judge.Memo(f), samples, Options{Metrics: mustResolve(t, "faithfulness", "context_recall")})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]SampleResult{}
	for _, s := range res.Samples {
		byID[s.ID] = s
	}
	tests := []struct {
		id, metric, reason string
		kind               results.UndefinedKind
	}{
		{"judge", "faithfulness", "judge refused", results.KindJudge},
		{"judge", "context_recall", "missing field reference", results.KindData},
		{"metric", "faithfulness", "no statements in response", results.KindMetric},
		{"data", "context_recall", "empty field reference", results.KindData},
		// A judge that finds nothing it can check in the sample (the
		// offline judge given a bare "Yes.") leaves it undefined by the
		// metric's definition for this sample, not as a judge failure.
		{"nothing", "faithfulness", "nothing to check offline: the answer has no content words", results.KindMetric},
	}
	for _, tt := range tests {
		t.Run(tt.id+"/"+tt.metric, func(t *testing.T) {
			s := byID[tt.id]
			if !math.IsNaN(s.Scores[tt.metric]) {
				t.Fatalf("score = %v, want NaN", s.Scores[tt.metric])
			}
			if s.Undefined[tt.metric] != tt.reason || s.UndefinedKind[tt.metric] != tt.kind {
				t.Errorf("undefined = %q (%s), want %q (%s)", s.Undefined[tt.metric], s.UndefinedKind[tt.metric], tt.reason, tt.kind)
			}
		})
	}
}

// TestRunReleasesMemo checks that a run keeps in the memo only what the
// samples in flight need: once it is over, nothing of any sample is held.
func TestRunReleasesMemo(t *testing.T) {
	f := fakeFor(t)
	memo := judge.Memo(f)
	samples := make([]metrics.Sample, 300)
	for i := range samples {
		samples[i] = sample()
		samples[i].ID = fmt.Sprintf("s%d", i)
	}
	res, err := Run(context.Background(), memo, samples, Options{Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != len(samples) {
		t.Fatalf("%d samples judged, want %d", len(res.Samples), len(samples))
	}
	if a, v := memo.Held(); a != 0 || v != 0 {
		t.Errorf("after the run the memo holds %d answers and %d vectors, want none", a, v)
	}
	for i := range res.Samples {
		if got, want := res.Samples[i].Scores[metrics.AnswerRelevancyName], 0.6; math.Abs(got-want) > 1e-9 {
			t.Fatalf("sample %d: answer_relevancy %v, want %v", i, got, want)
		}
	}
}

// Release is told of every judged sample once, after which Run reads the
// sample no more: a caller that drops the texts gets the same results.
func TestRunReleasesSamples(t *testing.T) {
	samples := make([]metrics.Sample, 40)
	for i := range samples {
		samples[i] = sample()
		samples[i].ID = fmt.Sprintf("s%d", i)
	}
	var mu sync.Mutex
	released := map[int]int{}
	res, err := Run(context.Background(), judge.Memo(fakeFor(t)), samples, Options{Concurrency: 3, Release: func(i int) {
		mu.Lock()
		defer mu.Unlock()
		released[i]++
		samples[i] = metrics.Sample{ID: samples[i].ID}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range samples {
		if released[i] != 1 {
			t.Errorf("sample %d released %d times, want once", i, released[i])
		}
	}
	for _, r := range res.Samples {
		if r.Question != q || math.Abs(r.Scores[metrics.FaithfulnessName]-0.5) > 1e-9 {
			t.Fatalf("sample %s: question %q, faithfulness %v", r.ID, r.Question, r.Scores[metrics.FaithfulnessName])
		}
	}
}

// A sample the target did not answer is not judged: every metric is
// undefined with kind target and the call's reason, and no judge step is
// asked (the fake fails on any unexpected prompt).
func TestUnansweredIsUndefinedWithoutCall(t *testing.T) {
	f := judgetest.New(t)
	var s metrics.Sample
	s.ID = "x"
	s.Set(metrics.UserInput, "q")
	s.SetList(metrics.RetrievedContexts, []string{"ctx"})
	res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{s},
		Options{Metrics: mustResolve(t, "faithfulness", "context_recall"), Unanswered: func(id string) string { return map[string]string{"x": "HTTP 502 Bad Gateway"}[id] }})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"faithfulness", "context_recall"} {
		r := res.Samples[0]
		if !math.IsNaN(r.Scores[m]) || r.UndefinedKind[m] != results.KindTarget || r.Undefined[m] != "target call failed: HTTP 502 Bad Gateway" {
			t.Errorf("%s: %v, %q (%s)", m, r.Scores[m], r.Undefined[m], r.UndefinedKind[m])
		}
	}
}

// TestEmptyGoldenFieldIsDataForEveryMetric (review 9): an empty golden
// field makes every metric that needs it undefined with kind data, "empty
// field X", whatever the metric would compute on "" (exact_match 0,
// string_presence 1.0 before), and without a judge call.
func TestEmptyGoldenFieldIsDataForEveryMetric(t *testing.T) {
	f := judgetest.New(t) // answers nothing: any call fails the metric as a judge error
	var s metrics.Sample
	s.ID = "s"
	s.Set(metrics.UserInput, "q")
	s.SetList(metrics.RetrievedContexts, []string{"ctx"})
	s.Set(metrics.Response, "Paris.")
	s.Set(metrics.Reference, "")
	names := []string{"string_presence", "exact_match", "string_similarity", "factual_correctness", "semantic_similarity",
		"answer_correctness", "context_recall", "context_precision"}
	res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{s}, Options{Metrics: mustResolve(t, names...)})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Samples[0]
	for _, m := range names {
		if !math.IsNaN(got.Scores[m]) || got.Undefined[m] != "empty field reference" || got.UndefinedKind[m] != results.KindData {
			t.Errorf("%s: score %v, undefined %q (%s); want undefined \"empty field reference\" (data)", m, got.Scores[m], got.Undefined[m], got.UndefinedKind[m])
		}
	}
}

// A judge that grades its support of each statement (the offline judge)
// gives faithfulness the mean of the supports; a judge that gives only
// verdicts (an LLM) gives the share of supported statements, as Ragas.
func TestFaithfulnessMeanOfSupport(t *testing.T) {
	stmts := []string{"The sky is blue.", "Grass is red."}
	for _, tt := range []struct {
		name     string
		supports []float64
		want     float64
	}{
		{"verdicts only", nil, 0.5},
		{"graded", []float64{0.9, 0.25}, 0.575},
		{"graded zeros", []float64{0, 0}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := judgetest.New(t)
			f.OnStatements("The sky is blue. Grass is red.", stmts...)
			if tt.supports == nil {
				f.OnVerify("ctx", stmts, 1, 0)
			} else {
				f.OnVerifySupport("ctx", stmts, tt.supports...)
			}
			var s metrics.Sample
			s.ID = "s"
			s.Set(metrics.UserInput, "q")
			s.Set(metrics.Response, "The sky is blue. Grass is red.")
			s.SetList(metrics.RetrievedContexts, []string{"ctx"})
			res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{s}, Options{Metrics: mustResolve(t, "faithfulness")})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Samples[0].Scores["faithfulness"]; math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("faithfulness = %v, want %v", got, tt.want)
			}
		})
	}
}
