package eval

import (
	"context"
	"math"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/judgetest"
	"github.com/raggate/raggate/metrics"
)

// Context recall asks one attribute call with the question, the joined
// contexts and the whole reference: a reference sentence holding several
// facts is one item (Ragas), so a one-sentence reference scores 0 or 1.
func TestContextRecallSentenceIsOneItem(t *testing.T) {
	const multi = "The bridge opened in 1932, spans 503 metres and is painted red."
	tests := []struct {
		name     string
		verdicts []int
		want     float64
	}{
		{"attributed", []int{1}, 1},
		{"not attributed", []int{0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := judgetest.New(t)
			f.OnAttribute(joined, multi, []string{multi}, tt.verdicts...)
			s := sample()
			s.Set(metrics.Reference, multi)
			res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{s}, Options{Metrics: mustResolve(t, "context_recall")})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Samples[0].Scores[metrics.ContextRecallName]; got != tt.want {
				t.Errorf("context_recall = %v, want %v", got, tt.want)
			}
			reqs := f.Requests()
			if len(reqs) != 1 || reqs[0].Step != metrics.StepAttribute {
				t.Fatalf("requests %+v, want one attribute call", reqs)
			}
			if in := reqs[0].Input.(metrics.AttributeInput); in.Question != q || in.Context != joined || in.Reference != multi {
				t.Errorf("attribute input %+v", in)
			}
		})
	}
}

// The claims of factual correctness are asked for the response and the
// reference alone (no question) at the run's atomicity and coverage
// (default low/low, as Ragas).
func TestClaimsLevelsAreRequested(t *testing.T) {
	tests := []struct {
		name                string
		atomicity, coverage metrics.Level
		wantA, wantC        metrics.Level
	}{
		{"default", "", "", metrics.LevelLow, metrics.LevelLow},
		{"high atomicity", metrics.LevelHigh, "", metrics.LevelHigh, metrics.LevelLow},
		{"high coverage", "", metrics.LevelHigh, metrics.LevelLow, metrics.LevelHigh},
		{"high/high", metrics.LevelHigh, metrics.LevelHigh, metrics.LevelHigh, metrics.LevelHigh},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := judgetest.New(t)
			f.OnClaims(resp, tt.wantA, tt.wantC, respCl...).OnClaims(ref, tt.wantA, tt.wantC, refCl...)
			f.OnVerify(ref, respCl, 1, 0).OnVerify(resp, refCl, 1)
			opts := Options{Metrics: mustResolve(t, "factual_correctness"), ClaimsAtomicity: tt.atomicity, ClaimsCoverage: tt.coverage}
			res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{sample()}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Samples[0].Scores[metrics.FactualCorrectnessName]; got != 0.67 {
				t.Errorf("factual_correctness = %v (%s), want 0.67", got, res.Samples[0].Undefined[metrics.FactualCorrectnessName])
			}
			if n := f.Calls(metrics.StepClaims); n != 2 {
				t.Errorf("%d claims calls, want 2", n)
			}
			if n := f.Calls(metrics.StepStatements); n != 0 {
				t.Errorf("factual correctness asked the statements step %d times", n)
			}
		})
	}
}

// Noise sensitivity judges both labelled lists against a context in one
// call; when the judge loses count, the verdicts that match are kept and
// only the statements after them are verified again.
func TestNoiseCountMismatchIsRecovered(t *testing.T) {
	tests := []struct {
		name string
		// verify_pair answer for c2 (c1 is answered in full).
		refV, respV []int
		// statements re-asked with verify against c2, and their verdicts.
		reask    []string
		reaskV   []int
		wantCall int // verify calls against c2
	}{
		{"full answer", []int{0}, []int{0, 1}, nil, nil, 0},
		{"response verdict missing", []int{0}, []int{0}, respSt[1:], []int{1}, 1},
		{"response verdicts missing", []int{0}, nil, respSt, []int{0, 1}, 1},
		{"reference verdict missing", nil, []int{0, 1}, refSt, []int{0}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := judgetest.New(t)
			f.OnStatements(resp, respSt...).OnStatements(ref, refSt...)
			f.OnVerify(ref, respSt, 1, 0)
			f.OnVerifyPair(c1, refSt, respSt, []int{1}, []int{1, 0})
			f.OnVerifyPair(c2, refSt, respSt, tt.refV, tt.respV)
			if tt.reask != nil {
				f.OnVerify(c2, tt.reask, tt.reaskV...)
			}
			ms := mustResolve(t, "noise_sensitivity_relevant", "noise_sensitivity_irrelevant")
			res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{sample()}, Options{Metrics: ms})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Samples[0]
			// As in TestRunScoresAndSharesSteps: "painted red" is wrong and
			// supported only by the irrelevant context c2.
			if r, i := got.Scores[metrics.NoiseSensitivityRelevantName], got.Scores[metrics.NoiseSensitivityIrrelevantName]; r != 0 || i != 0.5 {
				t.Errorf("noise sensitivity relevant %v irrelevant %v (%v), want 0 and 0.5", r, i, got.Undefined)
			}
			verifyC2 := 0
			for _, r := range f.Requests() {
				if in, ok := r.Input.(metrics.VerifyInput); ok && in.Evidence == c2 {
					verifyC2++
				}
			}
			if verifyC2 != tt.wantCall {
				t.Errorf("%d verify calls against context 2, want %d", verifyC2, tt.wantCall)
			}
		})
	}
}

// Long statement lists are not mixed in one call: each list is verified
// against the context on its own.
func TestNoiseLongListsAreSplit(t *testing.T) {
	long := make([]string, judge.PairMaxStatements)
	ones := make([]int, len(long))
	for i := range long {
		long[i] = "The bridge fact " + string(rune('A'+i%26)) + string(rune('a'+i/26)) + "."
		ones[i] = 1
	}
	f := judgetest.New(t)
	f.OnStatements(resp, long...).OnStatements(ref, refSt...)
	f.OnVerify(ref, long, ones...)
	for _, c := range []string{c1, c2} {
		f.OnVerify(c, refSt, 1)
		f.OnVerify(c, long, ones...)
	}
	res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{sample()}, Options{Metrics: mustResolve(t, "noise_sensitivity_relevant")})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Samples[0].Scores[metrics.NoiseSensitivityRelevantName]; math.IsNaN(v) || v != 0 {
		t.Errorf("noise_sensitivity_relevant = %v (%v), want 0", v, res.Samples[0].Undefined)
	}
	if n := f.Calls(metrics.StepVerifyPair); n != 0 {
		t.Errorf("%d verify_pair calls for %d statements, want the lists split", n, len(long)+1)
	}
}
