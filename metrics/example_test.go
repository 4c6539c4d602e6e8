package metrics_test

import (
	"fmt"
	"math"

	"github.com/raggate/raggate/metrics"
)

func ExampleAveragePrecision() {
	// The judge found the 1st and 3rd retrieved contexts useful.
	fmt.Printf("%.10f\n", metrics.AveragePrecision([]bool{true, false, true}))
	// Ragas's 1e-10 epsilon keeps a perfect ranking just below 1.
	fmt.Println(metrics.AveragePrecision([]bool{true}))
	fmt.Println(metrics.AveragePrecision([]bool{false, true}))
	// No useful context: 0, not undefined.
	fmt.Println(metrics.AveragePrecision(nil))
	// Output:
	// 0.8333333333
	// 0.9999999999
	// 0.49999999995
	// 0
}

func ExampleFactualCorrectness() {
	// Response claims checked against the reference: 2 supported, 1 not.
	response := []bool{true, true, false}
	// Reference claims checked against the response: 1 missing.
	reference := []bool{true, true, false}

	for _, mode := range []metrics.FactualMode{metrics.FactualPrecision, metrics.FactualRecall, metrics.FactualF1} {
		fmt.Println(mode, metrics.FactualCorrectness(response, reference, mode, metrics.DefaultBeta))
	}
	// Scores are rounded half to even like numpy: tp=5, fp=3, fn=3 gives
	// exactly 0.625, reported as 0.62.
	five := []bool{true, true, true, true, true, false, false, false}
	fmt.Println(metrics.FactualCorrectness(five, five, metrics.FactualF1, 1))
	// Output:
	// precision 0.67
	// recall 0.67
	// f1 0.67
	// 0.62
}

func ExampleNoiseSensitivity() {
	// Two retrieved contexts; the reference's only statement is supported
	// by context 0, so context 0 is relevant and context 1 irrelevant.
	refByContext := [][]bool{{true, false}}
	// Three response statements and the contexts supporting them.
	respByContext := [][]bool{
		{true, false}, // drawn from the relevant context
		{true, false}, // drawn from the relevant context
		{false, true}, // drawn from the irrelevant context
	}
	// Only the first response statement is supported by the reference.
	respByRef := []bool{true, false, false}

	fmt.Printf("relevant %.4f\n", metrics.NoiseSensitivity(metrics.NoiseRelevant, refByContext, respByContext, respByRef))
	fmt.Printf("irrelevant %.4f\n", metrics.NoiseSensitivity(metrics.NoiseIrrelevant, refByContext, respByContext, respByRef))
	// No response statement: undefined.
	fmt.Println(metrics.NoiseSensitivity(metrics.NoiseRelevant, refByContext, nil, nil))
	// Output:
	// relevant 0.3333
	// irrelevant 0.3333
	// NaN
}

func ExampleAnswerRelevancy() {
	question := []float64{1, 0}
	generated := [][]float64{{1, 0}, {0.6, 0.8}, {-0.6, 0.8}} // cosines 1, 0.6, -0.6

	fmt.Printf("%.4f\n", metrics.AnswerRelevancy(question, generated, []bool{false, false, false}))
	// Zeroed only when every generated question is noncommittal.
	fmt.Printf("%.4f\n", metrics.AnswerRelevancy(question, generated, []bool{true, false, true}))
	fmt.Println(metrics.AnswerRelevancy(question, generated, []bool{true, true, true}))
	// A zero vector has no direction: the cosine is undefined.
	fmt.Println(metrics.AnswerRelevancy([]float64{0, 0}, generated, nil))
	// Output:
	// 0.3333
	// 0.3333
	// 0
	// NaN
}

func ExampleStringSimilarity() {
	for _, m := range []metrics.DistanceMeasure{metrics.Levenshtein, metrics.Hamming, metrics.Jaro, metrics.JaroWinkler} {
		fmt.Printf("%-12s %.6f\n", m, metrics.StringSimilarity("MARTHA", "MARHTA", m))
	}
	// Lengths are counted in runes: one substitution out of four.
	fmt.Println(metrics.StringSimilarity("café", "cafe", metrics.Levenshtein))
	fmt.Println(metrics.StringSimilarity("", "", metrics.Levenshtein))
	// Output:
	// levenshtein  0.666667
	// hamming      0.666667
	// jaro         0.944444
	// jaro_winkler 0.961111
	// 0.75
	// 1
}

func ExampleNanMean() {
	scores := []float64{0.8, math.NaN(), 0.6}
	fmt.Printf("%.1f\n", metrics.NanMean(scores))
	fmt.Println(metrics.NanMean([]float64{math.NaN()}))
	// Output:
	// 0.7
	// NaN
}

func ExampleSummarize() {
	s := metrics.Summarize([]float64{0.4, math.NaN(), 1, 0.8, 0.6})
	fmt.Printf("mean %.2f n %d undefined %d std %.4f p10 %.2f p50 %.2f p90 %.2f\n",
		s.Mean, s.N, s.Undefined, s.Std, s.P10, s.P50, s.P90)
	// Output:
	// mean 0.70 n 4 undefined 1 std 0.2236 p10 0.46 p50 0.70 p90 0.94
}

func ExampleIDContextPrecision() {
	retrieved := []string{"doc1", "doc2", "doc2", "doc3"} // duplicates count once
	reference := []string{"doc1", "doc4"}
	fmt.Printf("precision %.4f\n", metrics.IDContextPrecision(retrieved, reference))
	fmt.Printf("recall %.4f\n", metrics.IDContextRecall(retrieved, reference))
	// Output:
	// precision 0.3333
	// recall 0.5000
}

func ExampleNonLLMContextRecall() {
	retrieved := []string{"Paris is the capital of France."}
	reference := []string{"Paris is the capital of France", "Berlin is in Germany."}
	r := metrics.NonLLMContextRecall(retrieved, reference, metrics.DefaultNonLLMThreshold, metrics.Levenshtein)
	fmt.Println(r)
	// Output:
	// 0.5
}

func ExampleAnswerCorrectness() {
	// Factual F1 of tp=2, fp=1, fn=1 is 2/3; embeddings similarity 0.9.
	fmt.Printf("%.3f\n", metrics.AnswerCorrectness(2, 1, 1, 0.9, metrics.DefaultAnswerCorrectnessWeights, metrics.DefaultBeta))
	// Output:
	// 0.725
}
