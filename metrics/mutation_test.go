package metrics

// Tests of numpy and Ragas parity to the last bit, found by mutation
// testing (bench/mutation.sh). The expected values come from numpy 1.24
// (np.percentile, np.mean) and from Ragas's formulas, not from this code.

import (
	"math"
	"testing"
)

// TestSummarizeMatchesNumpyBits: the mean is numpy's pairwise sum (eight
// accumulators from 8 values up to 128, halving above) and percentiles use
// numpy's two-sided lerp (from the upper value when the fraction is at
// least 0.5); a plain sum or a one-sided lerp differs in the last bit.
func TestSummarizeMatchesNumpyBits(t *testing.T) {
	two := Summarize([]float64{0.1, 0.7})
	if two.P50 != 0.39999999999999997 || two.P10 != 0.16 || two.P90 != 0.64 {
		t.Errorf("[0.1 0.7]: p10 %v p50 %v p90 %v, want numpy's 0.16, 0.39999999999999997, 0.64", two.P10, two.P50, two.P90)
	}
	eight := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}
	if m := Summarize(eight).Mean; m != 0.45 {
		t.Errorf("mean of 0.1..0.8 %v, want numpy's 0.45", m)
	}
	var many []float64
	for i := range 128 {
		many = append(many, float64(i*5%100)/100)
	}
	if m := NanMean(many); m != 0.45625 {
		t.Errorf("mean of 128 values %v, want numpy's 0.45625", m)
	}
	// 24 values: eight accumulators over three blocks.
	if m := NanMean(many[:24]); m != 0.4083333333333334 {
		t.Errorf("mean of 24 values %v, want numpy's 0.4083333333333334", m)
	}
	if m := NanMean(append(many[:7:7], math.NaN())); m != NanMean(many[:7]) {
		t.Errorf("a NaN changed the mean of 7 values: %v", m)
	}
}

// TestFactualRecallRoundsLikeRagas: recall is tp/(tp+fn+1e-8), so 3 of 8
// is 0.37499999... and rounds to 0.37, where 0.375 would round to 0.38.
func TestFactualRecallRoundsLikeRagas(t *testing.T) {
	got := FactualCorrectness(bits("111"), bits("00000"), FactualRecall, 1)
	if got != 0.37 {
		t.Errorf("recall 3 of 8 = %v, want 0.37", got)
	}
}

// TestAnswerCorrectnessWeights: equal weights average the two parts, and
// weights too large to add up are invalid (NaN), not a silent 0.
func TestAnswerCorrectnessWeights(t *testing.T) {
	if got := AnswerCorrectness(1, 0, 1, 0.2, [2]float64{0.5, 0.5}, 1); !sameScore(got, (2.0/3+0.2)/2) {
		t.Errorf("equal weights: %v, want %v", got, (2.0/3+0.2)/2)
	}
	if got := AnswerCorrectness(1, 0, 0, 0, [2]float64{math.MaxFloat64, math.MaxFloat64}, 1); !math.IsNaN(got) {
		t.Errorf("weights summing to +Inf: %v, want NaN", got)
	}
}

// TestSampleSetters: a field set is present, an empty list stays an empty
// list (present, not missing), and a list for a string field is joined.
func TestSampleSetters(t *testing.T) {
	var s Sample
	s.SetList(RetrievedContexts, nil)
	if !s.Has(RetrievedContexts) || s.List(RetrievedContexts) == nil || len(s.List(RetrievedContexts)) != 0 {
		t.Errorf("nil list: present %v, value %#v", s.Has(RetrievedContexts), s.List(RetrievedContexts))
	}
	s.SetList(Reference, []string{"a", "b"})
	s.Set(ReferenceContextIDs, "id-1")
	if s.String(Reference) != "a\nb" || !s.Has(Reference) || len(s.List(ReferenceContextIDs)) != 1 || s.Has(Response) {
		t.Errorf("sample %+v", s)
	}
}
