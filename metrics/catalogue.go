package metrics

import (
	"sort"
	"strings"
)

// Direction tells whether a higher or a lower score is better.
type Direction int

// The two directions.
const (
	HigherIsBetter Direction = iota
	LowerIsBetter
)

// String returns "higher" or "lower".
func (d Direction) String() string {
	if d == LowerIsBetter {
		return "lower"
	}
	return "higher"
}

// Metric describes one metric of the catalogue.
type Metric struct {
	Name      string
	Aliases   []string
	Needs     []Field
	Direction Direction
	// Steps are the judge steps the metric uses (none for non-LLM metrics).
	Steps []Step
	// Default: part of the default suite. Non-LLM metrics are in the default
	// suite when the dataset has their fields.
	Default     bool
	Description string
	// Range is the interval every defined score lies in; the zero value
	// means [0, 1]. Cosine-based metrics reach down to -1.
	Range [2]float64
	// User is the definition of a user-defined metric (nil for the
	// built-in ones); see Definition.Metric.
	User *Definition
}

// ScoreRange returns the lowest and the highest score the metric can give.
func (m Metric) ScoreRange() (lo, hi float64) {
	if m.Range == [2]float64{} {
		return 0, 1
	}
	return m.Range[0], m.Range[1]
}

// cosineRange is the range of a raw cosine similarity.
var cosineRange = [2]float64{-1, 1}

// LLM reports whether the metric needs a judge.
func (m Metric) LLM() bool { return len(m.Steps) > 0 }

// Metric names.
const (
	ContextPrecisionName           = "context_precision"
	ContextUtilizationName         = "context_utilization"
	PrecisionAtKName               = "precision_at_k"
	ContextRecallName              = "context_recall"
	FaithfulnessName               = "faithfulness"
	AnswerRelevancyName            = "answer_relevancy"
	FactualCorrectnessName         = "factual_correctness"
	NoiseSensitivityRelevantName   = "noise_sensitivity_relevant"
	NoiseSensitivityIrrelevantName = "noise_sensitivity_irrelevant"
	SemanticSimilarityName         = "semantic_similarity"
	AnswerCorrectnessName          = "answer_correctness"
	IDContextPrecisionName         = "id_context_precision"
	IDContextRecallName            = "id_context_recall"
	NonLLMContextPrecisionName     = "nonllm_context_precision"
	NonLLMContextRecallName        = "nonllm_context_recall"
	StringSimilarityName           = "string_similarity"
	ExactMatchName                 = "exact_match"
	StringPresenceName             = "string_presence"
)

var catalogue = []Metric{
	{Name: ContextPrecisionName, Needs: []Field{UserInput, RetrievedContexts, Reference}, Steps: []Step{StepUseful}, Default: true,
		Description: "rank-aware share of retrieved contexts useful for the reference answer"},
	{Name: ContextUtilizationName, Needs: []Field{UserInput, RetrievedContexts, Response}, Steps: []Step{StepUseful},
		Description: "rank-aware share of retrieved contexts useful for the response"},
	{Name: PrecisionAtKName, Needs: []Field{UserInput, RetrievedContexts, Reference}, Steps: []Step{StepUseful}, Default: true,
		Description: "share of the top-k contexts useful for the reference answer"},
	{Name: ContextRecallName, Needs: []Field{UserInput, RetrievedContexts, Reference}, Steps: []Step{StepStatements, StepVerify}, Default: true,
		Description: "share of reference statements supported by the retrieved contexts"},
	{Name: FaithfulnessName, Needs: []Field{UserInput, RetrievedContexts, Response}, Steps: []Step{StepStatements, StepVerify}, Default: true,
		Description: "share of response statements supported by the retrieved contexts"},
	{Name: AnswerRelevancyName, Aliases: []string{"response_relevancy"}, Needs: []Field{UserInput, Response}, Steps: []Step{StepQuestion, StepEmbed}, Default: true,
		Range:       cosineRange,
		Description: "similarity of questions generated from the response to the real question"},
	{Name: FactualCorrectnessName, Needs: []Field{Response, Reference}, Steps: []Step{StepStatements, StepVerify}, Default: true,
		Description: "F1 of response claims against reference claims"},
	{Name: NoiseSensitivityRelevantName, Needs: []Field{UserInput, Response, Reference, RetrievedContexts}, Direction: LowerIsBetter, Steps: []Step{StepStatements, StepVerify}, Default: true,
		Description: "share of response statements that are wrong yet drawn from relevant contexts (lower is better)"},
	{Name: NoiseSensitivityIrrelevantName, Needs: []Field{UserInput, Response, Reference, RetrievedContexts}, Direction: LowerIsBetter, Steps: []Step{StepStatements, StepVerify}, Default: true,
		Description: "share of response statements that are wrong and drawn from irrelevant contexts (lower is better)"},
	{Name: SemanticSimilarityName, Needs: []Field{Response, Reference}, Steps: []Step{StepEmbed}, Default: true,
		Range:       cosineRange,
		Description: "cosine similarity of response and reference embeddings"},
	{Name: AnswerCorrectnessName, Needs: []Field{Response, Reference}, Steps: []Step{StepStatements, StepVerify, StepEmbed},
		Range:       [2]float64{-0.25, 1}, // the similarity term may be negative
		Description: "0.75 x factual F1 + 0.25 x semantic similarity"},
	{Name: IDContextPrecisionName, Needs: []Field{RetrievedContextIDs, ReferenceContextIDs}, Default: true,
		Description: "share of retrieved context ids that are reference ids"},
	{Name: IDContextRecallName, Needs: []Field{RetrievedContextIDs, ReferenceContextIDs}, Default: true,
		Description: "share of reference context ids retrieved"},
	{Name: NonLLMContextPrecisionName, Needs: []Field{RetrievedContexts, ReferenceContexts}, Default: true,
		Description: "average precision of retrieved contexts matching a reference context by string similarity"},
	{Name: NonLLMContextRecallName, Needs: []Field{RetrievedContexts, ReferenceContexts}, Default: true,
		Description: "share of reference contexts matched by a retrieved context by string similarity"},
	{Name: StringSimilarityName, Needs: []Field{Response, Reference}, Default: true,
		Description: "1 - normalized Levenshtein distance of response and reference"},
	{Name: ExactMatchName, Needs: []Field{Response, Reference}, Default: true,
		Description: "1 when response equals reference"},
	{Name: StringPresenceName, Needs: []Field{Response, Reference}, Default: true,
		Description: "1 when the reference occurs in the response"},
}

// Catalogue returns every metric, in the canonical order used by reports.
func Catalogue() []Metric {
	out := make([]Metric, len(catalogue))
	copy(out, catalogue)
	return out
}

// Lookup finds a metric by name or alias (case-insensitive).
func Lookup(name string) (Metric, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, m := range catalogue {
		if m.Name == name {
			return m, true
		}
		for _, a := range m.Aliases {
			if a == name {
				return m, true
			}
		}
	}
	return Metric{}, false
}

// Names returns every metric name, sorted.
func Names() []string {
	out := make([]string, 0, len(catalogue))
	for _, m := range catalogue {
		out = append(out, m.Name)
	}
	sort.Strings(out)
	return out
}

// Order returns the catalogue position of a metric name (unknown names sort last).
func Order(name string) int {
	for i, m := range catalogue {
		if m.Name == name {
			return i
		}
	}
	return len(catalogue)
}

// SortByOrder sorts metric names in catalogue order, the names the
// catalogue does not know (user-defined metrics) after them by name.
func SortByOrder(names []string) {
	sort.Slice(names, func(i, j int) bool {
		oi, oj := Order(names[i]), Order(names[j])
		if oi != oj {
			return oi < oj
		}
		return names[i] < names[j]
	})
}

// DefaultSuite returns the metrics that run when no list is given: the
// default LLM metrics, plus every default non-LLM metric whose fields
// has reports present.
func DefaultSuite(has func(Field) bool) []Metric {
	var out []Metric
	for _, m := range catalogue {
		if !m.Default {
			continue
		}
		if !m.LLM() {
			ok := true
			for _, f := range m.Needs {
				if !has(f) {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
		}
		out = append(out, m)
	}
	return out
}
