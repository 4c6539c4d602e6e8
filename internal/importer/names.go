package importer

import (
	"strings"
	"unicode"

	"github.com/raggate/raggate/metrics"
)

// toolNames maps the metric names other tools write (snake-cased, see
// snake) to catalogue metrics whose definition is the same: Ragas' class
// names and versions, DeepEval's display names. A name not here that the
// catalogue knows (metrics.Lookup) is that metric; any other name is a
// user metric.
var toolNames = map[string]string{
	// Ragas
	"factual_correctness_mode_f1":              metrics.FactualCorrectnessName,
	"noise_sensitivity_mode_relevant":          metrics.NoiseSensitivityRelevantName,
	"noise_sensitivity_mode_irrelevant":        metrics.NoiseSensitivityIrrelevantName,
	"llm_context_precision_with_reference":     metrics.ContextPrecisionName,
	"llm_context_precision_without_reference":  metrics.ContextUtilizationName,
	"llm_context_recall":                       metrics.ContextRecallName,
	"non_llm_context_precision_with_reference": metrics.NonLLMContextPrecisionName,
	"non_llm_context_recall":                   metrics.NonLLMContextRecallName,
	"id_based_context_precision":               metrics.IDContextPrecisionName,
	"id_based_context_recall":                  metrics.IDContextRecallName,
	"non_llm_string_similarity":                metrics.StringSimilarityName,
	"string_present":                           metrics.StringPresenceName,
	// Ragas 0.1 called semantic similarity answer_similarity.
	"answer_similarity": metrics.SemanticSimilarityName,
	// DeepEval: Faithfulness and Answer Relevancy snake-case to the
	// catalogue's names. Contextual Precision (rank-weighted precision of
	// the retrieval context's nodes useful for the expected output) and
	// Contextual Recall (share of the expected output's sentences
	// attributable to the retrieval context) are the catalogue's
	// context_precision and context_recall; Contextual Relevancy (share
	// of the context's statements relevant to the input) has no
	// catalogue equivalent and stays a user metric.
	"contextual_precision": metrics.ContextPrecisionName,
	"contextual_recall":    metrics.ContextRecallName,
}

// lowerIsBetter lists user metrics whose tool scores them lower-is-better
// (DeepEval's hallucination, bias and toxicity pass below their
// threshold).
var lowerIsBetter = map[string]bool{"hallucination": true, "bias": true, "toxicity": true}

// measured lists the names (snake-cased) of what a run measures rather
// than scores: its latency and cost, lower-is-better and report-only
// (compared and shown, gated only when the thresholds say), in every
// format, as promptfoo's latencyMs and cost are and as a native run's
// latency is. docs/importing.md lists them.
var measured = map[string]string{
	"latency":     "latency",
	"latency_ms":  "latency in ms",
	"latency_s":   "latency in seconds",
	"duration_ms": "duration in ms",
	"duration_s":  "duration in seconds",
	"cost":        "cost",
	"cost_usd":    "cost in USD",
	"total_cost":  "cost",
}

// metricName returns the raggate name of a tool's metric name and whether
// it is a catalogue metric.
func metricName(raw string) (name string, known bool) {
	s := snake(raw)
	if c, ok := toolNames[s]; ok {
		return c, true
	}
	if m, ok := metrics.Lookup(s); ok {
		return m.Name, true
	}
	return s, false
}

// snake returns name in snake case: lower case letters, digits and single
// underscores ("Answer Relevancy" -> answer_relevancy,
// "factual_correctness(mode=f1)" -> factual_correctness_mode_f1,
// "Correctness [GEval]" -> correctness_geval, "nv_accuracy" stays).
func snake(name string) string {
	var b strings.Builder
	under := false
	prevLower := false
	for _, r := range strings.TrimSpace(name) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower && !under {
				// camelCase: latencyMs -> latency_ms
				b.WriteByte('_')
			}
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(unicode.ToLower(r))
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		default:
			under = true
			prevLower = false
		}
	}
	return b.String()
}
