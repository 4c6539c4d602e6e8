package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/judgetest"
	"github.com/raggate/raggate/metrics"
)

// A metric judges at most MaxStatements statements of a text, the first
// ones, whatever the judge split it into, and its reason says so: a huge
// response cannot cost a verification of thousands of statements.
func TestStatementsAreCapped(t *testing.T) {
	stmts := make([]string, 3*MaxStatements)
	for i := range stmts {
		stmts[i] = fmt.Sprintf("Statement %d.", i+1)
	}
	verdicts := make([]int, MaxStatements)
	for i := range verdicts {
		verdicts[i] = 1
	}
	got := judgeLongResponse(t, stmts, verdicts)
	if v := got.Scores[metrics.FaithfulnessName]; v != 1 {
		t.Errorf("faithfulness = %v, want 1 (the first %d statements, all supported)", v, MaxStatements)
	}
	want := fmt.Sprintf("only the first %d of %d statements were judged", MaxStatements, len(stmts))
	if r := got.Reasons[metrics.FaithfulnessName]; !strings.Contains(r, want) {
		t.Errorf("reason %q does not say %q", r, want)
	}
}

// The edit-distance metrics compare at most MaxStringRunes characters of
// each text, and say so: the distance is quadratic, and a 2 MiB response
// must not take minutes. Shorter texts are compared whole.
func TestStringMetricsCompareBoundedTexts(t *testing.T) {
	long := strings.Repeat("the K2 stores 13.5 kWh ", 3*MaxStringRunes/20)
	other := strings.Repeat("a heat pump moves heat ", 3*MaxStringRunes/20)
	var s metrics.Sample
	s.ID = "x"
	s.Set(metrics.UserInput, "q")
	s.Set(metrics.Response, long)
	s.Set(metrics.Reference, other)
	s.SetList(metrics.RetrievedContexts, []string{long})
	s.SetList(metrics.ReferenceContexts, []string{other})
	ms := mustResolve(t, "string_similarity", "nonllm_context_precision", "nonllm_context_recall")
	res, err := Run(context.Background(), judge.Memo(judgetest.New(t)), []metrics.Sample{s}, Options{Metrics: ms})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Samples[0]
	cut := func(s string) string { return string([]rune(s)[:MaxStringRunes]) }
	if want := metrics.StringSimilarity(cut(other), cut(long), metrics.Levenshtein); got.Scores[metrics.StringSimilarityName] != want {
		t.Errorf("string_similarity = %v, want %v (on the cut texts)", got.Scores[metrics.StringSimilarityName], want)
	}
	for _, m := range []string{metrics.StringSimilarityName, metrics.NonLLMContextPrecisionName, metrics.NonLLMContextRecallName} {
		if r := got.Reasons[m]; !strings.Contains(r, fmt.Sprintf("first %d characters", MaxStringRunes)) {
			t.Errorf("%s: reason %q does not say the texts were cut", m, r)
		}
	}
	// Short texts: whole, no note.
	s.Set(metrics.Response, "The K2 stores 13.5 kWh.")
	s.Set(metrics.Reference, "The K2 stores 13.5 kWh of energy.")
	res, err = Run(context.Background(), judge.Memo(judgetest.New(t)), []metrics.Sample{s}, Options{Metrics: mustResolve(t, "string_similarity")})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Samples[0].Reasons[metrics.StringSimilarityName]; r != "" {
		t.Errorf("short texts: reason %q, want none", r)
	}
}

// judgeLongResponse judges faithfulness of a response the judge splits
// into stmts, the first MaxStatements of them verified with verdicts
// against one context, and returns the sample's result.
func judgeLongResponse(t *testing.T, stmts []string, verdicts []int) SampleResult {
	t.Helper()
	f := judgetest.New(t)
	f.OnStatements("long", stmts...).OnVerify("ctx", stmts[:MaxStatements], verdicts...)
	var s metrics.Sample
	s.ID = "x"
	s.Set(metrics.UserInput, "q")
	s.SetList(metrics.RetrievedContexts, []string{"ctx"})
	s.Set(metrics.Response, "long")
	res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{s}, Options{Metrics: mustResolve(t, "faithfulness")})
	if err != nil {
		t.Fatal(err)
	}
	return res.Samples[0]
}
