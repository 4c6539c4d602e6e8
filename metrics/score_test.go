package metrics

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Expected values in these tests are worked out by hand from the formulas of
// METRICS.md (and Ragas's arithmetic), not produced by the code under test.

const scoreTol = 1e-12

var undef = math.NaN()

// sameScore reports whether got matches want within scoreTol, NaN matching NaN only.
func sameScore(got, want float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= scoreTol
}

// checkScore fails the test when got is not sameScore as want.
func checkScore(t *testing.T, got, want float64) {
	t.Helper()
	if !sameScore(got, want) {
		t.Errorf("got %.17g, want %.17g", got, want)
	}
}

// bits turns a 0/1 string into verdicts: bits("101") = [true false true].
func bits(s string) []bool {
	out := make([]bool, 0, len(s))
	for _, c := range s {
		out = append(out, c == '1')
	}
	return out
}

// bitMatrix turns 0/1 strings into a verdict matrix, one string per row.
func bitMatrix(rows ...string) [][]bool {
	out := make([][]bool, len(rows))
	for i, r := range rows {
		out[i] = bits(r)
	}
	return out
}

func TestAveragePrecision(t *testing.T) {
	tests := []struct {
		name     string
		verdicts []bool
		want     float64
	}{
		{"single useful: epsilon keeps it below 1", bits("1"), 1 / (1 + 1e-10)},
		{"single useful literal", bits("1"), 0.9999999999},
		{"useful second", bits("01"), 0.49999999995},
		{"useful first and third", bits("101"), (1 + 2.0/3) / (2 + 1e-10)},
		{"useful first and third literal", bits("101"), 0.8333333332916666},
		{"useful second and third", bits("011"), (1.0/2 + 2.0/3) / (2 + 1e-10)},
		{"useful last of four", bits("0001"), 0.249999999975},
		{"two useful on top", bits("1100"), 2 / (2 + 1e-10)},
		{"all useful", bits("111"), 3 / (3 + 1e-10)},
		{"all false", bits("000"), 0},
		{"empty", nil, 0},
		{"empty non-nil", []bool{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, AveragePrecision(tt.verdicts), tt.want)
		})
	}
}

func TestAveragePrecisionIsRankAware(t *testing.T) {
	// Same verdicts, better ranking, higher score.
	if AveragePrecision(bits("110")) <= AveragePrecision(bits("011")) {
		t.Error("useful contexts ranked first should score higher")
	}
	// An irrelevant context after all the useful ones does not cost anything.
	if AveragePrecision(bits("1")) != AveragePrecision(bits("10")) {
		t.Error("trailing useless context changed the score")
	}
}

func TestPrecisionAtKAndFraction(t *testing.T) {
	tests := []struct {
		name     string
		verdicts []bool
		want     float64
	}{
		{"empty is undefined", nil, undef},
		{"empty non-nil is undefined", []bool{}, undef},
		{"all true", bits("111"), 1},
		{"all false", bits("00"), 0},
		{"one of three", bits("100"), 1.0 / 3},
		{"order does not matter", bits("001"), 1.0 / 3},
		{"three of four", bits("1101"), 0.75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, PrecisionAtK(tt.verdicts), tt.want)
			checkScore(t, Fraction(tt.verdicts), tt.want)
		})
	}
}

func TestFactualCounts(t *testing.T) {
	tests := []struct {
		name       string
		resp, ref  []bool
		mode       FactualMode
		tp, fp, fn int
	}{
		{"f1", bits("1101"), bits("100"), FactualF1, 3, 1, 2},
		{"recall counts fn", bits("1101"), bits("100"), FactualRecall, 3, 1, 2},
		{"precision ignores the reference side", bits("1101"), bits("100"), FactualPrecision, 3, 1, 0},
		{"empty", nil, nil, FactualF1, 0, 0, 0},
		{"only reference claims", nil, bits("00"), FactualF1, 0, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp, fp, fn := FactualCounts(tt.resp, tt.ref, tt.mode)
			if tp != tt.tp || fp != tt.fp || fn != tt.fn {
				t.Errorf("got (%d, %d, %d), want (%d, %d, %d)", tp, fp, fn, tt.tp, tt.fp, tt.fn)
			}
		})
	}
}

func TestFactualCorrectness(t *testing.T) {
	tests := []struct {
		name      string
		resp, ref []bool
		mode      FactualMode
		beta      float64
		want      float64
	}{
		// Precision: tp/(tp+fp+1e-8), then rounded.
		{"precision one true claim: 1/(1+1e-8) rounds to 1", bits("1"), nil, FactualPrecision, 1, 1},
		{"precision one of three", bits("100"), bits("000"), FactualPrecision, 1, 0.33},
		{"precision ignores reference claims", bits("11"), bits("0000"), FactualPrecision, 1, 1},
		{"precision no claims", nil, nil, FactualPrecision, 1, 0},
		{"precision all false", bits("00"), nil, FactualPrecision, 1, 0},
		// 57/(200+1e-8) = 0.28499999998575, below the half: 0.28.
		{"precision 57 of 200", append(bits(strings.Repeat("1", 57)), bits(strings.Repeat("0", 143))...), nil, FactualPrecision, 1, 0.28},

		// Recall: tp (supported RESPONSE claims) / (tp+fn+1e-8).
		{"recall two and two missing", bits("11"), bits("100"), FactualRecall, 1, 0.5},
		{"recall no reference claims", bits("1"), nil, FactualRecall, 1, 1},
		{"recall no supported response claim", bits("0"), bits("11"), FactualRecall, 1, 0},
		{"recall no claims", nil, nil, FactualRecall, 1, 0},

		// F1 from unsmoothed precision and recall.
		{"f1 perfect", bits("11"), bits("11"), FactualF1, 1, 1},
		{"f1 tp=2 fp=1 fn=1", bits("110"), bits("110"), FactualF1, 1, 0.67},
		{"f1 no claims", nil, nil, FactualF1, 1, 0},
		{"f1 no true claim", bits("00"), bits("00"), FactualF1, 1, 0},
		{"f1 only reference claims", nil, bits("11"), FactualF1, 1, 0},
		{"f1 only response claims, all supported", bits("11"), nil, FactualF1, 1, 1},
		// tp=5 fp=3 fn=3: P=R=0.625 exactly, F1=0.625, 62.5 rounds to even 62.
		{"f1 0.625 rounds half to even down", bits("11111000"), bits("11111000"), FactualF1, 1, 0.62},
		// tp=3 fp=5 fn=5: P=R=F1=0.375, 37.5 rounds to even 38.
		{"f1 0.375 rounds half to even up", bits("11100000"), bits("11100000"), FactualF1, 1, 0.38},
		// tp=57 fp=143 fn=143: F1=0.285 whose x100 is 28.499999999999996.
		{"f1 0.285 float imprecision rounds down", append(bits(strings.Repeat("1", 57)), bits(strings.Repeat("0", 143))...),
			append(bits(strings.Repeat("1", 57)), bits(strings.Repeat("0", 143))...), FactualF1, 1, 0.28},
		// tp=1 fp=0 fn=1: P=1, R=0.5.
		{"f2 favours recall", bits("1"), bits("10"), FactualF1, 2, 0.56},        // 5*0.5/(4+0.5) = 0.5556
		{"f0.5 favours precision", bits("1"), bits("10"), FactualF1, 0.5, 0.83}, // 1.25*0.5/(0.25+0.5) = 0.8333
		{"f0 is precision", bits("1"), bits("10"), FactualF1, 0, 1},
		{"empty mode is f1", bits("110"), bits("110"), "", 1, 0.67},
		{"unknown mode", bits("1"), bits("1"), FactualMode("f2"), 1, undef},
		{"NaN beta", bits("1"), bits("10"), FactualF1, undef, undef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, FactualCorrectness(tt.resp, tt.ref, tt.mode, tt.beta), tt.want)
		})
	}
}

func TestRoundHalfEven2(t *testing.T) {
	tests := []struct {
		in, want float64
	}{
		{0.625, 0.62},
		{0.375, 0.38},
		{0.125, 0.12},
		{0.875, 0.88},
		{0.285, 0.28},   // 28.499999999999996
		{0.135, 0.14},   // 13.5 exactly after the multiplication: even is 14
		{1.005, 1},      // 100.49999999999999
		{0.99999999, 1}, // 1/(1+1e-8)
		{0.3333333322222222, 0.33},
		{0, 0},
		{1, 1},
		{-0.625, -0.62},
	}
	for _, tt := range tests {
		if got := roundHalfEven2(tt.in); got != tt.want {
			t.Errorf("roundHalfEven2(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if !math.IsNaN(roundHalfEven2(undef)) {
		t.Error("NaN must stay NaN")
	}
}

func TestFbeta(t *testing.T) {
	tests := []struct {
		name       string
		tp, fp, fn int
		beta       float64
		want       float64
	}{
		{"all zero", 0, 0, 0, 1, 0},
		{"no tp", 0, 3, 2, 1, 0},
		{"perfect", 4, 0, 0, 1, 1},
		{"f1 2/3", 2, 1, 1, 1, 2.0 / 3},
		{"f1 unsmoothed, P=1 R=0.5", 1, 0, 1, 1, 2.0 / 3},
		{"f2", 1, 0, 1, 2, 0.5555555555555556},
		{"negative beta squares like positive", 1, 0, 1, -2, 0.5555555555555556},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, fbeta(tt.tp, tt.fp, tt.fn, tt.beta), tt.want)
		})
	}
}

func TestNoiseSensitivity(t *testing.T) {
	// Hand-worked example: 2 reference statements, 3 contexts, 5 response
	// statements.
	//
	//   refByContext  c0 c1 c2      relevantCtx = [1 0 1]
	//     g0           1  0  0
	//     g1           0  0  1
	//
	//   respByContext c0 c1 c2  respByRef  incorrect relFaithful irrFaithful
	//     a0           1  0  0     1           0         1           0
	//     a1           0  1  0     0           1         0           1
	//     a2           0  1  1     0           1         1           0 (excluded: relFaithful)
	//     a3           0  0  0     0           1         0           0
	//     a4           0  1  0     0           1         0           1
	//
	// relevant   = mean(relFaithful && incorrect) = a2      -> 1/5
	// irrelevant = mean(irrFaithful && incorrect) = a1, a4  -> 2/5
	ref := bitMatrix("100", "001")
	resp := bitMatrix("100", "010", "011", "000", "010")
	respByRef := bits("10000")

	tests := []struct {
		name           string
		ref, resp      [][]bool
		respByRef      []bool
		wantRelevant   float64
		wantIrrelevant float64
	}{
		{"hand-worked", ref, resp, respByRef, 0.2, 0.4},
		{"all correct: no noise", ref, resp, bits("11111"), 0, 0},
		{"all incorrect", ref, resp, bits("00000"), 0.4, 0.4},
		// No context supports any reference statement: every context is
		// irrelevant.
		{"no relevant context", bitMatrix("000", "000"), resp, respByRef, 0, 0.6},
		// Every context relevant: nothing can be irrelevant-faithful.
		{"all contexts relevant", bitMatrix("111"), resp, respByRef, 0.6, 0},
		{"single statement single context", bitMatrix("1"), bitMatrix("1"), bits("0"), 1, 0},
		{"no response statement", ref, nil, nil, undef, undef},
		{"no reference statement", nil, resp, respByRef, undef, undef},
		{"no context", bitMatrix(""), bitMatrix(""), bits("0"), undef, undef},
		// Ragged input: A = max(len(respByContext), len(respByRef)) = 2, N =
		// longest row = 2; missing cells read false. a0 is supported only by
		// the irrelevant c1 and is incorrect; a1 has no context row (not
		// faithful).
		{"ragged", bitMatrix("1"), bitMatrix("01"), bits("00"), 0, 0.5},
		// No respByRef at all: both statements are incorrect; a0 drawn from
		// the irrelevant c1, a1 from the relevant c0.
		{"ragged respByRef shorter", bitMatrix("1"), bitMatrix("01", "1"), nil, 0.5, 0.5},
		// A = 3 from respByRef; a0 is incorrect and drawn from the relevant c0.
		{"ragged respByRef longer", bitMatrix("1"), bitMatrix("1"), bits("011"), 1.0 / 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Run("relevant", func(t *testing.T) {
				checkScore(t, NoiseSensitivity(NoiseRelevant, tt.ref, tt.resp, tt.respByRef), tt.wantRelevant)
			})
			t.Run("irrelevant", func(t *testing.T) {
				checkScore(t, NoiseSensitivity(NoiseIrrelevant, tt.ref, tt.resp, tt.respByRef), tt.wantIrrelevant)
			})
		})
	}

	t.Run("empty mode is relevant", func(t *testing.T) {
		checkScore(t, NoiseSensitivity("", ref, resp, respByRef), 0.2)
	})
	t.Run("unknown mode", func(t *testing.T) {
		checkScore(t, NoiseSensitivity("both", ref, resp, respByRef), undef)
	})
	t.Run("inputs not modified", func(t *testing.T) {
		r, s, v := bitMatrix("100", "001"), bitMatrix("100", "010"), bits("10")
		NoiseSensitivity(NoiseIrrelevant, r, s, v)
		if !slices.EqualFunc(r, bitMatrix("100", "001"), slices.Equal) || !slices.EqualFunc(s, bitMatrix("100", "010"), slices.Equal) || !slices.Equal(v, bits("10")) {
			t.Error("inputs were modified")
		}
	})
}

func TestCosineSimilarity(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 1},
		{"scaled", []float64{1, 2}, []float64{3, 6}, 1},
		{"hand-worked", []float64{1, 2, 3}, []float64{4, 5, 6}, 32 / math.Sqrt(1078)},
		{"orthogonal", []float64{1, 0}, []float64{0, 1}, 0},
		{"opposite is negative, not clipped", []float64{1, 0}, []float64{-1, 0}, -1},
		{"obtuse", []float64{1, 0}, []float64{-1, 1}, -1 / math.Sqrt2},
		{"zero vector is undefined", []float64{0, 0}, []float64{1, 0}, undef},
		{"both zero", []float64{0, 0}, []float64{0, 0}, undef},
		{"empty", nil, nil, undef},
		{"length mismatch", []float64{1, 0}, []float64{1, 0, 0}, undef},
		{"NaN component", []float64{undef, 1}, []float64{1, 1}, undef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, CosineSimilarity(tt.a, tt.b), tt.want)
			checkScore(t, CosineSimilarity(tt.b, tt.a), tt.want)
		})
	}
}

func TestAnswerRelevancy(t *testing.T) {
	q := []float64{1, 0}
	gen := [][]float64{{1, 0}, {0, 1}, {1, 1}}
	// cosines 1, 0, 1/sqrt(2): mean (1 + 0 + 0.70710678...)/3
	mean := (1 + 0 + 1/math.Sqrt2) / 3

	tests := []struct {
		name         string
		question     []float64
		generated    [][]float64
		noncommittal []bool
		want         float64
	}{
		{"mean cosine", q, gen, bits("000"), mean},
		{"mean cosine literal", q, gen, bits("000"), 0.5690355937288492},
		{"some noncommittal keeps the score", q, gen, bits("010"), mean},
		{"all noncommittal zeroes it", q, gen, bits("111"), 0},
		{"missing flags are committal", q, gen, nil, mean},
		{"short flags are committal", q, gen, bits("11"), mean},
		{"extra flags ignored", q, gen[:1], bits("01"), 1},
		{"negative cosine not clipped", q, [][]float64{{-1, 0}}, bits("0"), -1},
		{"negative mean", q, [][]float64{{-1, 0}, {0, 1}}, bits("00"), -0.5},
		{"negative but noncommittal", q, [][]float64{{-1, 0}}, bits("1"), 0},
		{"no generated question", q, nil, nil, 0},
		{"zero question vector", []float64{0, 0}, gen, bits("000"), undef},
		{"zero generated vector", q, [][]float64{{1, 0}, {0, 0}}, bits("00"), undef},
		{"NaN stays NaN when noncommittal", q, [][]float64{{0, 0}}, bits("1"), undef},
		{"dimension mismatch", q, [][]float64{{1, 0, 0}}, bits("0"), undef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, AnswerRelevancy(tt.question, tt.generated, tt.noncommittal), tt.want)
		})
	}
}

func TestSemanticSimilarity(t *testing.T) {
	a, c := []float64{1, 2, 3}, []float64{4, 5, 6} // cosine 0.9746318461970762
	tests := []struct {
		name      string
		x, y      []float64
		threshold float64
		want      float64
	}{
		{"raw cosine", a, c, 0, 32 / math.Sqrt(1078)},
		{"negative raw cosine", []float64{1, 0}, []float64{-1, 0}, 0, -1},
		{"negative threshold leaves raw", a, c, -1, 32 / math.Sqrt(1078)},
		{"NaN threshold leaves raw", a, c, undef, 32 / math.Sqrt(1078)},
		{"above threshold", a, c, 0.9, 1},
		{"below threshold", a, c, 0.98, 0},
		{"equal to threshold passes", []float64{1, 0}, []float64{2, 0}, 1, 1},
		{"zero vector", []float64{0, 0}, c[:2], 0, undef},
		{"zero vector with threshold stays undefined", []float64{0, 0}, c[:2], 0.5, undef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, SemanticSimilarity(tt.x, tt.y, tt.threshold), tt.want)
		})
	}
}

func TestAnswerCorrectness(t *testing.T) {
	def := DefaultAnswerCorrectnessWeights
	tests := []struct {
		name       string
		tp, fp, fn int
		sim        float64
		weights    [2]float64
		beta       float64
		want       float64
	}{
		// F1 = 2/3: 0.75*2/3 + 0.25*0.9 = 0.5 + 0.225.
		{"default weights", 2, 1, 1, 0.9, def, 1, 0.725},
		{"not rounded", 1, 0, 2, 0, def, 1, 0.75 * 0.5},
		{"no true claim leaves similarity", 0, 2, 2, 0.8, def, 1, 0.2},
		{"no claims", 0, 0, 0, 1, def, 1, 0.25},
		{"perfect", 3, 0, 0, 1, def, 1, 1},
		{"negative similarity", 3, 0, 0, -1, def, 1, 0.5},
		{"weights are normalized", 2, 1, 1, 0.9, [2]float64{3, 1}, 1, 0.725},
		{"similarity only", 0, 0, 0, 0.3, [2]float64{0, 1}, 1, 0.3},
		{"factuality only ignores NaN similarity", 2, 1, 1, undef, [2]float64{1, 0}, 1, 2.0 / 3},
		{"NaN similarity with weight", 2, 1, 1, undef, def, 1, undef},
		{"beta 2", 1, 0, 1, 0, [2]float64{1, 0}, 2, 0.5555555555555556},
		{"zero weights", 1, 0, 0, 1, [2]float64{0, 0}, 1, undef},
		{"negative weight", 1, 0, 0, 1, [2]float64{-1, 2}, 1, undef},
		{"NaN weight", 1, 0, 0, 1, [2]float64{undef, 1}, 1, undef},
		{"negative count", -1, 0, 0, 1, def, 1, undef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, AnswerCorrectness(tt.tp, tt.fp, tt.fn, tt.sim, tt.weights, tt.beta), tt.want)
		})
	}
}

func TestDefaults(t *testing.T) {
	if DefaultBeta != 1.0 || DefaultNonLLMThreshold != 0.5 || DefaultStrictness != 3 {
		t.Errorf("defaults changed: beta %v threshold %v strictness %v", DefaultBeta, DefaultNonLLMThreshold, DefaultStrictness)
	}
	if DefaultAnswerCorrectnessWeights != [2]float64{0.75, 0.25} {
		t.Errorf("answer correctness weights %v", DefaultAnswerCorrectnessWeights)
	}
}

func TestIDContextMetrics(t *testing.T) {
	tests := []struct {
		name              string
		retrieved, ref    []string
		precision, recall float64
	}{
		{"two of three each way", []string{"a", "b", "c"}, []string{"a", "b", "d"}, 2.0 / 3, 2.0 / 3},
		{"all retrieved are relevant, some missed", []string{"a"}, []string{"a", "b"}, 1, 0.5},
		{"nothing relevant", []string{"x", "y"}, []string{"a"}, 0, 0},
		{"identical", []string{"a", "b"}, []string{"b", "a"}, 1, 1},
		// Sets: retrieved {a, b} (not 3 items), 1 hit -> 1/2, not 2/3.
		{"duplicates in retrieved count once", []string{"a", "a", "b"}, []string{"a"}, 0.5, 1},
		// Reference set {a, b}: 1 of 2 retrieved.
		{"duplicates in reference count once", []string{"a", "a"}, []string{"a", "a", "b"}, 1, 0.5},
		{"case-sensitive strings", []string{"A"}, []string{"a"}, 0, 0},
		{"empty string is an id", []string{""}, []string{""}, 1, 1},
		{"no retrieved ids", nil, []string{"a"}, undef, 0},
		{"no reference ids", []string{"a"}, nil, 0, undef},
		{"neither", []string{}, []string{}, undef, undef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Run("precision", func(t *testing.T) { checkScore(t, IDContextPrecision(tt.retrieved, tt.ref), tt.precision) })
			t.Run("recall", func(t *testing.T) { checkScore(t, IDContextRecall(tt.retrieved, tt.ref), tt.recall) })
		})
	}
}

func TestNanMean(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want float64
	}{
		{"plain", []float64{1, 2, 3, 4}, 2.5},
		{"NaN ignored", []float64{1, undef, 2}, 1.5},
		{"all NaN", []float64{undef, undef}, undef},
		{"empty", nil, undef},
		{"single", []float64{0.3}, 0.3},
		{"zeros count", []float64{0, 1, undef}, 0.5},
		{"negative", []float64{-1, 1, -3}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkScore(t, NanMean(tt.xs), tt.want)
		})
	}

	// numpy's pairwise summation gives np.sum([0.1]*10) == 1.0 where a
	// left-to-right sum gives 0.9999999999999999; the mean must be the
	// exact float 0.1 as np.nanmean returns.
	t.Run("pairwise summation like numpy", func(t *testing.T) {
		xs := make([]float64, 10)
		for i := range xs {
			xs[i] = 0.1
		}
		if got := NanMean(xs); got != 0.1 {
			t.Errorf("got %.17g, want exactly 0.1", got)
		}
		// A NaN among them is replaced by 0 in place, as numpy does.
		xs = append(xs, undef)
		if got := NanMean(xs); got != 0.1 {
			t.Errorf("with NaN: got %.17g, want exactly 0.1", got)
		}
	})
}

func TestPairwiseSum(t *testing.T) {
	ones := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 1
		}
		return xs
	}
	// Integer-valued sums are exact whatever the grouping: every branch of
	// the algorithm (below 8, block of up to 128, recursive halving) must
	// add each element exactly once.
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 255, 256, 1000, 1001} {
		if got := pairwiseSum(ones(n)); got != float64(n) {
			t.Errorf("n=%d: got %v", n, got)
		}
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i)
		}
		if got, want := pairwiseSum(xs), float64(n*(n-1)/2); got != want {
			t.Errorf("0..%d: got %v, want %v", n-1, got, want)
		}
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Summary
	}{
		// numpy: mean 2.5, std (ddof=0) sqrt(1.25), percentile 10/50/90 of
		// [1 2 3 4] = 1.3, 2.5, 3.7 (virtual index 0.3, 1.5, 2.7).
		{"hand-worked with one undefined", []float64{4, 1, undef, 3, 2},
			Summary{Mean: 2.5, N: 4, Undefined: 1, Std: math.Sqrt(1.25), P10: 1.3, P50: 2.5, P90: 3.7}},
		{"single value", []float64{0.5},
			Summary{Mean: 0.5, N: 1, Std: 0, P10: 0.5, P50: 0.5, P90: 0.5}},
		// [0 1]: std 0.5, p10 0.1, median 0.5, p90 0.9.
		{"two values", []float64{1, 0},
			Summary{Mean: 0.5, N: 2, Std: 0.5, P10: 0.1, P50: 0.5, P90: 0.9}},
		// odd count: median is the middle value; p10 of [0 0.5 1] at index 0.2.
		{"three values", []float64{1, 0.5, 0},
			Summary{Mean: 0.5, N: 3, Std: math.Sqrt(1.0 / 6), P10: 0.1, P50: 0.5, P90: 0.9}},
		{"constant", []float64{0.8, 0.8, 0.8, 0.8},
			Summary{Mean: 0.8, N: 4, Std: 0, P10: 0.8, P50: 0.8, P90: 0.8}},
		{"all undefined", []float64{undef, undef},
			Summary{Mean: undef, N: 0, Undefined: 2, Std: undef, P10: undef, P50: undef, P90: undef}},
		{"empty", nil,
			Summary{Mean: undef, Std: undef, P10: undef, P50: undef, P90: undef}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.xs)
			if got.N != tt.want.N || got.Undefined != tt.want.Undefined {
				t.Errorf("N, Undefined = %d, %d; want %d, %d", got.N, got.Undefined, tt.want.N, tt.want.Undefined)
			}
			for _, f := range []struct {
				name      string
				got, want float64
			}{
				{"Mean", got.Mean, tt.want.Mean},
				{"Std", got.Std, tt.want.Std},
				{"P10", got.P10, tt.want.P10},
				{"P50", got.P50, tt.want.P50},
				{"P90", got.P90, tt.want.P90},
			} {
				if !sameScore(f.got, f.want) {
					t.Errorf("%s = %.17g, want %.17g", f.name, f.got, f.want)
				}
			}
		})
	}

	t.Run("input not modified", func(t *testing.T) {
		xs := []float64{3, undef, 1, 2}
		Summarize(xs)
		if xs[0] != 3 || !math.IsNaN(xs[1]) || xs[2] != 1 || xs[3] != 2 {
			t.Errorf("input changed: %v", xs)
		}
	})
}

func TestPercentileSorted(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		p, want float64
	}{
		{0, 1}, {100, 10}, {50, 5.5}, {10, 1.9}, {90, 9.1}, {25, 3.25}, {75, 7.75},
	}
	for _, tt := range tests {
		checkScore(t, percentileSorted(xs, tt.p), tt.want)
	}
}

func TestNoPanicsOnHostileInput(t *testing.T) {
	// Every function must return a number (possibly NaN) for any input.
	huge := make([]bool, 10000)
	_ = AveragePrecision(huge)
	_ = NoiseSensitivity(NoiseIrrelevant, [][]bool{nil, {true}}, [][]bool{{}, nil, {false, true, true}}, []bool{true})
	_ = NoiseSensitivity(NoiseRelevant, [][]bool{{}}, [][]bool{{}}, nil)
	_ = AnswerRelevancy(nil, [][]float64{nil, {1}}, nil)
	_ = CosineSimilarity([]float64{math.Inf(1)}, []float64{1})
	_ = FactualCorrectness(nil, nil, "", math.Inf(1))
	_ = AnswerCorrectness(0, 0, 0, math.Inf(-1), [2]float64{math.Inf(1), 1}, 1)
	_ = Summarize([]float64{math.Inf(1), math.Inf(-1), undef})
	_ = IDContextPrecision(nil, nil)
}
