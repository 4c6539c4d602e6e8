package metrics

import (
	"math"
	"sort"
)

// This file holds the scoring arithmetic of the LLM-judged and
// embedding-based metrics, the ID-based metrics and the aggregation over
// samples. Every function is pure: verdicts in, a score out. math.NaN()
// means "undefined for this sample" and is never a crash: malformed input
// (ragged matrices, vectors of different lengths, unknown modes) yields NaN
// or is read defensively as documented on each function, and nothing here
// panics.
//
// The arithmetic follows Ragas operation for operation (same epsilons, same
// order of floating-point operations where it matters, numpy's rounding and
// percentile rules), so scores agree with Ragas within 1e-9.

// Defaults of the metric parameters (the values Ragas uses).
const (
	// DefaultBeta is the F-beta weight of factual correctness and answer
	// correctness: 1 gives the F1 score.
	DefaultBeta = 1.0
	// DefaultNonLLMThreshold is the string-similarity threshold of the
	// non-LLM context precision and recall metrics.
	DefaultNonLLMThreshold = 0.5
	// DefaultStrictness is how many questions answer relevancy asks the
	// judge to generate from one response.
	DefaultStrictness = 3
)

// DefaultAnswerCorrectnessWeights are the weights of answer correctness:
// 0.75 on the factual F-beta score, 0.25 on the semantic similarity.
// Treat it as a constant; copy it before changing a weight.
var DefaultAnswerCorrectnessWeights = [2]float64{0.75, 0.25}

// Epsilons Ragas adds to denominators. They are part of the arithmetic: a
// single useful context scores 1/(1+1e-10) = 0.9999999999, not 1.
const (
	averagePrecisionEpsilon = 1e-10
	factualEpsilon          = 1e-8
)

// FactualMode selects which side of the claim comparison factual
// correctness reports.
type FactualMode string

// The factual correctness modes.
const (
	// FactualPrecision scores the share of response claims supported by
	// the reference: tp/(tp+fp+1e-8).
	FactualPrecision FactualMode = "precision"
	// FactualRecall scores tp/(tp+fn+1e-8), where tp counts supported
	// response claims and fn counts reference claims the response lacks.
	FactualRecall FactualMode = "recall"
	// FactualF1 scores the F-beta of (unsmoothed) precision and recall.
	// It is the default mode; the empty FactualMode means FactualF1.
	FactualF1 FactualMode = "f1"
)

// NoiseMode selects which kind of retrieved context noise sensitivity
// blames for incorrect response statements.
type NoiseMode string

// The noise sensitivity modes.
const (
	// NoiseRelevant counts incorrect response statements supported by a
	// relevant context (one that supports some reference statement). It is
	// the default mode; the empty NoiseMode means NoiseRelevant.
	NoiseRelevant NoiseMode = "relevant"
	// NoiseIrrelevant counts incorrect response statements supported only
	// by irrelevant contexts.
	NoiseIrrelevant NoiseMode = "irrelevant"
)

// AveragePrecision is the rank-aware score of context precision and
// context utilization: the sum over ranks i (1-based) of precision@i times
// verdicts[i], divided by (number of true verdicts + 1e-10).
//
// Because of the epsilon a perfect ranking scores just under 1: [true]
// gives 0.9999999999 and [false, true] gives 0.49999999995. No true
// verdict, and no verdict at all, give 0 (not NaN), as in Ragas.
func AveragePrecision(verdicts []bool) float64 {
	numerator := 0.0
	hits := 0
	for i, v := range verdicts {
		if !v {
			continue
		}
		hits++
		numerator += float64(hits) / float64(i+1)
	}
	return numerator / (float64(hits) + averagePrecisionEpsilon)
}

// PrecisionAtK is the order-free share of true verdicts among the top-k
// verdicts it is given. No verdict gives NaN.
func PrecisionAtK(verdicts []bool) float64 {
	return Fraction(verdicts)
}

// Fraction is the share of true verdicts: the score of context recall
// (reference statements supported by the contexts) and faithfulness
// (response statements supported by the contexts). No verdict (no
// statements) gives NaN.
func Fraction(verdicts []bool) float64 {
	if len(verdicts) == 0 {
		return math.NaN()
	}
	return float64(countTrue(verdicts)) / float64(len(verdicts))
}

// MeanSupport is faithfulness over graded supports: the mean of the
// statements' supports (each in [0, 1]), NaN without statements. With
// supports of 0 and 1 only it is Fraction.
func MeanSupport(supports []float64) float64 {
	if len(supports) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, s := range supports {
		sum += s
	}
	return sum / float64(len(supports))
}

// FactualCounts turns the two verify verdict lists of factual correctness
// into counts. responseClaims[i] tells whether response claim i is
// supported by the reference, referenceClaims[j] whether reference claim j
// is supported by the response. tp counts true responseClaims, fp false
// responseClaims, fn false referenceClaims; in FactualPrecision mode the
// reference side is not consulted and fn is 0.
//
// Note that tp counts response claims in every mode, recall included: this
// is how Ragas defines it.
func FactualCounts(responseClaims, referenceClaims []bool, mode FactualMode) (tp, fp, fn int) {
	tp = countTrue(responseClaims)
	fp = len(responseClaims) - tp
	if mode != FactualPrecision {
		fn = len(referenceClaims) - countTrue(referenceClaims)
	}
	return tp, fp, fn
}

// FactualCorrectness scores response claims against reference claims (see
// FactualCounts for the inputs):
//
//	precision: tp/(tp+fp+1e-8)
//	recall:    tp/(tp+fn+1e-8)
//	f1:        F-beta of the unsmoothed precision and recall (see fbeta)
//
// The result is rounded to 2 decimals half-to-even exactly like numpy.round
// (0.625 -> 0.62, 0.375 -> 0.38, and 0.285 -> 0.28 because 0.285*100 is
// 28.499999999999996 in floating point). No claims at all give 0. The
// empty mode means FactualF1; an unknown mode gives NaN.
func FactualCorrectness(responseClaims, referenceClaims []bool, mode FactualMode, beta float64) float64 {
	if mode == "" {
		mode = FactualF1
	}
	tp, fp, fn := FactualCounts(responseClaims, referenceClaims, mode)
	var score float64
	switch mode {
	case FactualPrecision:
		score = float64(tp) / (float64(tp+fp) + factualEpsilon)
	case FactualRecall:
		score = float64(tp) / (float64(tp+fn) + factualEpsilon)
	case FactualF1:
		score = fbeta(tp, fp, fn, beta)
	default:
		return math.NaN()
	}
	return roundHalfEven2(score)
}

// fbeta is Ragas's F-beta score from counts: precision and recall are
// unsmoothed (each 0 when its denominator is 0) and the result is 0 when
// both are 0. Because precision and recall share tp they are either both 0
// or both positive, so the final division never divides by zero.
func fbeta(tp, fp, fn int, beta float64) float64 {
	precision, recall := 0.0, 0.0
	if tp+fp > 0 {
		precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		recall = float64(tp) / float64(tp+fn)
	}
	if precision == 0 && recall == 0 {
		return 0
	}
	b2 := beta * beta
	return (1 + b2) * (precision * recall) / (b2*precision + recall)
}

// roundHalfEven2 rounds to 2 decimals the way numpy.round(x, 2) does:
// multiply by 100, round half to even, divide by 100.
func roundHalfEven2(x float64) float64 {
	return math.RoundToEven(x*100) / 100
}

// NoiseSensitivity scores how often the response states incorrect things
// drawn from the retrieved contexts. Lower is better.
//
// refByContext is G x N: refByContext[g][c] tells whether reference
// statement g is supported by retrieved context c. respByContext is A x N:
// whether response statement a is supported by context c. respByRef has
// length A: whether response statement a is supported by the reference.
//
//	relevantCtx[c] = any g refByContext[g][c]
//	incorrect[a]   = !respByRef[a]
//	relFaithful[a] = any c (relevantCtx[c] && respByContext[a][c])
//	irrFaithful[a] = any c (!relevantCtx[c] && respByContext[a][c]) && !relFaithful[a]
//
// NoiseRelevant scores the mean over a of relFaithful[a] && incorrect[a];
// NoiseIrrelevant the mean of irrFaithful[a] && incorrect[a]. The empty
// mode means NoiseRelevant; an unknown mode gives NaN.
//
// Undefined (NaN): no response statement (A = 0), no reference statement
// (G = 0), or no retrieved context (N = 0; Ragas refuses such a sample).
//
// Shapes are read defensively: A is the larger of len(respByContext) and
// len(respByRef), N the length of the longest row of either matrix, and a
// missing cell (a short row, a missing row, a short respByRef) reads as
// false. In particular a response statement without a respByRef verdict
// counts as unsupported by the reference, i.e. incorrect.
func NoiseSensitivity(mode NoiseMode, refByContext, respByContext [][]bool, respByRef []bool) float64 {
	if mode == "" {
		mode = NoiseRelevant
	}
	if mode != NoiseRelevant && mode != NoiseIrrelevant {
		return math.NaN()
	}
	g := len(refByContext)
	a := max(len(respByContext), len(respByRef))
	n := 0
	for _, row := range refByContext {
		n = max(n, len(row))
	}
	for _, row := range respByContext {
		n = max(n, len(row))
	}
	if a == 0 || g == 0 || n == 0 {
		return math.NaN()
	}

	relevantCtx := make([]bool, n)
	for _, row := range refByContext {
		for c, v := range row {
			if v {
				relevantCtx[c] = true
			}
		}
	}

	count := 0
	for i := range a {
		incorrect := !cell(respByRef, i)
		if !incorrect {
			continue
		}
		var row []bool
		if i < len(respByContext) {
			row = respByContext[i]
		}
		relFaithful, irrFaithful := false, false
		for c, v := range row {
			if !v {
				continue
			}
			if relevantCtx[c] {
				relFaithful = true
			} else {
				irrFaithful = true
			}
		}
		switch mode {
		case NoiseRelevant:
			if relFaithful {
				count++
			}
		case NoiseIrrelevant:
			if irrFaithful && !relFaithful {
				count++
			}
		}
	}
	return float64(count) / float64(a)
}

// AnswerRelevancy scores how well questions generated from the response
// match the real question: the mean cosine similarity between each
// generated question's embedding and the question's embedding, times 0
// when every generated question was flagged noncommittal.
//
// noncommittal[i] is the flag of generated[i]; a missing flag counts as
// committal (false) and extra flags are ignored. The cosine is not clipped,
// so the score can be negative. No generated question gives 0. A zero or
// empty vector, or a generated vector whose length differs from the
// question's, gives NaN (see CosineSimilarity); NaN stays NaN even when
// the response is noncommittal.
func AnswerRelevancy(question []float64, generated [][]float64, noncommittal []bool) float64 {
	if len(generated) == 0 {
		return 0
	}
	cosines := make([]float64, len(generated))
	for i, g := range generated {
		cosines[i] = CosineSimilarity(g, question)
	}
	mean := pairwiseSum(cosines) / float64(len(generated))
	if math.IsNaN(mean) {
		return mean
	}
	for i := range generated {
		if !cell(noncommittal, i) {
			return mean
		}
	}
	return 0
}

// CosineSimilarity is a.b / (|a| |b|), not clipped: it ranges over [-1, 1]
// up to rounding. Like numpy's 0/0 it is NaN when either vector has zero
// norm (including empty vectors); it is also NaN when the lengths differ,
// where numpy would raise.
func CosineSimilarity(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.NaN()
	}
	dot, na, nb := 0.0, 0.0, 0.0
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	norm := math.Sqrt(na) * math.Sqrt(nb)
	if norm == 0 {
		return math.NaN()
	}
	return dot / norm
}

// SemanticSimilarity is the cosine similarity of the reference and
// response embeddings. A threshold > 0 turns it into a verdict: 1 when the
// similarity is >= threshold, else 0. A threshold <= 0 (or NaN) leaves the
// raw cosine. An undefined cosine (see CosineSimilarity) stays NaN
// whatever the threshold.
func SemanticSimilarity(reference, response []float64, threshold float64) float64 {
	sim := CosineSimilarity(reference, response)
	if math.IsNaN(sim) || !(threshold > 0) {
		return sim
	}
	if sim >= threshold {
		return 1
	}
	return 0
}

// AnswerCorrectness blends factuality and semantic similarity:
// (w0 x F-beta(tp, fp, fn) + w1 x similarity) / (w0 + w1), with the F-beta
// of FactualCorrectness's f1 mode (not rounded here).
//
// As in Ragas, similarity is not consulted when w1 is 0 (so a NaN
// similarity does not matter then). Invalid weights (negative, NaN, or
// both 0) and negative counts give NaN.
func AnswerCorrectness(tp, fp, fn int, similarity float64, weights [2]float64, beta float64) float64 {
	w0, w1 := weights[0], weights[1]
	if !(w0 >= 0) || !(w1 >= 0) || w0+w1 == 0 || math.IsInf(w0+w1, 0) {
		return math.NaN()
	}
	if tp < 0 || fp < 0 || fn < 0 {
		return math.NaN()
	}
	if w1 == 0 {
		similarity = 0
	}
	f := fbeta(tp, fp, fn, beta)
	return (w0*f + w1*similarity) / (w0 + w1)
}

// IDContextPrecision is the share of distinct retrieved context ids that
// are reference ids. Ids are compared as sets of strings, so duplicates
// count once. No retrieved id gives NaN.
func IDContextPrecision(retrieved, reference []string) float64 {
	ret := stringSet(retrieved)
	if len(ret) == 0 {
		return math.NaN()
	}
	return float64(intersectionSize(ret, stringSet(reference))) / float64(len(ret))
}

// IDContextRecall is the share of distinct reference context ids that were
// retrieved. Ids are compared as sets of strings, so duplicates count
// once. No reference id gives NaN; no retrieved id (with some reference
// ids) gives 0.
func IDContextRecall(retrieved, reference []string) float64 {
	ref := stringSet(reference)
	if len(ref) == 0 {
		return math.NaN()
	}
	return float64(intersectionSize(ref, stringSet(retrieved))) / float64(len(ref))
}

func stringSet(xs []string) map[string]struct{} {
	set := make(map[string]struct{}, len(xs))
	for _, x := range xs {
		set[x] = struct{}{}
	}
	return set
}

func intersectionSize(a, b map[string]struct{}) int {
	n := 0
	for x := range a {
		if _, ok := b[x]; ok {
			n++
		}
	}
	return n
}

// NanMean is the mean of the defined (non-NaN) values, as numpy.nanmean:
// NaN values are ignored, and no defined value (all NaN, or no value)
// gives NaN. The sum uses numpy's pairwise summation so that the result
// agrees with numpy bit for bit.
func NanMean(xs []float64) float64 {
	mean, _ := nanMeanCount(xs)
	return mean
}

// nanMeanCount returns numpy.nanmean(xs) and the number of defined values.
func nanMeanCount(xs []float64) (float64, int) {
	zeroed := make([]float64, len(xs))
	n := 0
	for i, x := range xs {
		if !math.IsNaN(x) {
			zeroed[i] = x
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return pairwiseSum(zeroed) / float64(n), n
}

// pairwiseSum adds xs the way numpy's float64 add.reduce does: plain
// accumulation below 8 values, eight interleaved accumulators up to 128
// values, and recursive halving (at multiples of 8) above.
func pairwiseSum(xs []float64) float64 {
	const blockSize = 128
	n := len(xs)
	switch {
	case n < 8:
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s
	case n <= blockSize:
		var r [8]float64
		copy(r[:], xs[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += xs[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += xs[i]
		}
		return s
	default:
		half := n / 2
		half -= half % 8
		return pairwiseSum(xs[:half]) + pairwiseSum(xs[half:])
	}
}

// Summary describes one metric's scores over samples. NaN scores are
// undefined samples: they are counted in Undefined and excluded from every
// statistic. With no defined score, Mean, Std and the percentiles are NaN.
type Summary struct {
	// Mean is the mean of the defined scores (NanMean).
	Mean float64 `json:"mean"`
	// N is the number of defined scores.
	N int `json:"n"`
	// Undefined is the number of NaN scores.
	Undefined int `json:"undefined"`
	// Std is the population standard deviation (ddof = 0, numpy.nanstd's
	// default) of the defined scores; 0 for a single score.
	Std float64 `json:"std"`
	// P10 is the 10th percentile of the defined scores. Percentiles use
	// linear interpolation between the closest ranks (virtual index
	// (n-1) x p/100), numpy.nanpercentile's default "linear" method.
	P10 float64 `json:"p10"`
	// P50 is the median of the defined scores (50th percentile, as P10).
	P50 float64 `json:"p50"`
	// P90 is the 90th percentile of the defined scores (as P10).
	P90 float64 `json:"p90"`
}

// Summarize aggregates one metric's per-sample scores into a Summary; see
// Summary for the definitions. xs is not modified.
func Summarize(xs []float64) Summary {
	mean, n := nanMeanCount(xs)
	s := Summary{Mean: mean, N: n, Undefined: len(xs) - n}
	if n == 0 {
		nan := math.NaN()
		s.Std, s.P10, s.P50, s.P90 = nan, nan, nan, nan
		return s
	}

	// Population variance as numpy.nanvar computes it: deviations from the
	// mean, zero for NaN entries, pairwise-summed, divided by n.
	sq := make([]float64, len(xs))
	defined := make([]float64, 0, n)
	for i, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		d := x - mean
		sq[i] = d * d
		defined = append(defined, x)
	}
	s.Std = math.Sqrt(pairwiseSum(sq) / float64(n))

	sort.Float64s(defined)
	s.P10 = percentileSorted(defined, 10)
	s.P50 = percentileSorted(defined, 50)
	s.P90 = percentileSorted(defined, 90)
	return s
}

// percentileSorted is numpy.percentile(sorted, p) with the default linear
// method: virtual index (n-1)*p/100 between the two closest ranks, blended
// with numpy's two-sided lerp. sorted must be non-empty and ascending.
func percentileSorted(sorted []float64, p float64) float64 {
	n := len(sorted)
	idx := float64(n-1) * (p / 100)
	if idx >= float64(n-1) {
		return sorted[n-1]
	}
	if idx <= 0 {
		return sorted[0]
	}
	lo := math.Floor(idx)
	gamma := idx - lo
	a, b := sorted[int(lo)], sorted[int(lo)+1]
	diff := b - a
	if gamma >= 0.5 {
		return b - diff*(1-gamma)
	}
	return a + diff*gamma
}

func countTrue(vs []bool) int {
	n := 0
	for _, v := range vs {
		if v {
			n++
		}
	}
	return n
}

// cell reads vs[i], treating an index past the end as false.
func cell(vs []bool, i int) bool {
	return i < len(vs) && vs[i]
}
