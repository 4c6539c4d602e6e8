package metrics

import (
	"sort"
	"strconv"
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

// Ask is one judge step a metric asks of each sample, and how often.
type Ask struct {
	Step Step
	// Calls is the number of calls of the step per sample, plus PerContext
	// calls per retrieved context. Both are zero for the embed step, whose
	// texts are batched across samples.
	Calls, PerContext int
	// Embeds lists the fields whose texts the embed step embeds; they are
	// known before judging, so the evaluator embeds them ahead, in batches
	// across samples.
	Embeds []Field
	// How says what the calls ask, for the documentation.
	How string
}

// CallsFor returns the calls of the step for a sample with n retrieved
// contexts.
func (a Ask) CallsFor(n int) int { return a.Calls + a.PerContext*n }

// Metric describes one metric of the catalogue: the one declaration of
// what it needs, what it asks the judge, whether it runs and is gated by
// default, and whether the offline judge scores it. The evaluator, the
// offline judge, the thresholds' defaults, the cost estimate and the
// documentation (docs/metrics.md) all read it.
type Metric struct {
	Name      string
	Aliases   []string
	Needs     []Field
	Direction Direction
	// Asks are the judge steps the metric asks of each sample, and how
	// often (none for non-LLM metrics).
	Asks []Ask
	// Steps are the steps of Asks, in order: the judge steps the metric
	// uses (none for non-LLM metrics).
	Steps []Step
	// Default: part of the default suite. Non-LLM metrics are in the default
	// suite when the dataset has their fields.
	Default bool
	// Gated: may fail the gate when the thresholds name no metrics to gate
	// (the core judge metrics); the others are report-only by default.
	Gated bool
	// OfflineUnreliable: the offline judge cannot score the metric
	// reliably (measured on labelled data: it ranks the better of two
	// candidates higher in less than 0.70 of the pairs of at least one kind
	// of flaw, or it does not beat a trivial lexical baseline clearly on
	// human labels, or it was never shown to on them), so it leaves it
	// undefined and out of its default suite.
	OfflineUnreliable bool
	Description       string
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

// The judge steps of the catalogue, as the metrics ask them.
var (
	usefulPerContext = func(answer string) Ask {
		return Ask{Step: StepUseful, PerContext: 1, How: "is the context useful to arrive at the " + answer + "? (question, context, " + answer + "), for each retrieved context"}
	}
	factualClaims = Ask{Step: StepClaims, Calls: 2, How: "the claims of the response and of the reference, each text alone (atomicity and coverage low by default)"}
	factualVerify = Ask{Step: StepVerify, Calls: 2, How: "the response's claims verified against the reference, the reference's against the response"}
	embedPair     = Ask{Step: StepEmbed, Embeds: []Field{Reference, Response}, How: "the reference and the response"}
	noiseAsks     = []Ask{
		{Step: StepStatements, Calls: 2, How: "the statements of the response and of the reference (given the question)"},
		{Step: StepVerify, Calls: 1, How: "the response's statements verified against the reference"},
		{Step: StepVerifyPair, PerContext: 1, How: "both statement lists, labelled, verified against each retrieved context (two verify calls, one per list, when the lists are long)"},
	}
)

var catalogue = declare([]Metric{
	{Name: ContextPrecisionName, Needs: []Field{UserInput, RetrievedContexts, Reference}, Default: true, Gated: true, OfflineUnreliable: true,
		Asks:        []Ask{usefulPerContext("reference")},
		Description: "rank-aware share of retrieved contexts useful for the reference answer"},
	{Name: ContextUtilizationName, Needs: []Field{UserInput, RetrievedContexts, Response}, OfflineUnreliable: true,
		Asks:        []Ask{usefulPerContext("response")},
		Description: "rank-aware share of retrieved contexts useful for the response"},
	{Name: PrecisionAtKName, Needs: []Field{UserInput, RetrievedContexts, Reference}, Default: true, OfflineUnreliable: true,
		Asks:        []Ask{usefulPerContext("reference")},
		Description: "share of the top-k contexts useful for the reference answer"},
	{Name: ContextRecallName, Needs: []Field{UserInput, RetrievedContexts, Reference}, Default: true, Gated: true, OfflineUnreliable: true,
		Asks:        []Ask{{Step: StepAttribute, Calls: 1, How: "each sentence of the reference attributed (or not) to the joined contexts, in one call"}},
		Description: "share of reference sentences attributed to the retrieved contexts"},
	{Name: FaithfulnessName, Needs: []Field{UserInput, RetrievedContexts, Response}, Default: true, Gated: true,
		Asks: []Ask{
			{Step: StepStatements, Calls: 1, How: "the statements of the response (given the question)"},
			{Step: StepVerify, Calls: 1, How: "the statements verified against the joined contexts"},
		},
		Description: "share of response statements supported by the retrieved contexts"},
	{Name: AnswerRelevancyName, Aliases: []string{"response_relevancy"}, Needs: []Field{UserInput, Response}, Default: true, Gated: true, OfflineUnreliable: true,
		Asks: []Ask{
			{Step: StepQuestion, Calls: 1, How: "questions the response answers, strictness answers (default " + strconv.Itoa(DefaultStrictness) + ") in one call, each flagged if noncommittal"},
			{Step: StepEmbed, Embeds: []Field{UserInput}, How: "the question and the generated questions"},
		},
		Range:       cosineRange,
		Description: "similarity of questions generated from the response to the real question"},
	{Name: FactualCorrectnessName, Needs: []Field{Response, Reference}, Default: true, Gated: true, OfflineUnreliable: true,
		Asks:        []Ask{factualClaims, factualVerify},
		Description: "F1 of response claims against reference claims"},
	{Name: NoiseSensitivityRelevantName, Needs: []Field{UserInput, Response, Reference, RetrievedContexts}, Direction: LowerIsBetter, Default: true, OfflineUnreliable: true,
		Asks:        noiseAsks,
		Description: "share of response statements that are wrong yet drawn from relevant contexts (lower is better)"},
	{Name: NoiseSensitivityIrrelevantName, Needs: []Field{UserInput, Response, Reference, RetrievedContexts}, Direction: LowerIsBetter, Default: true, OfflineUnreliable: true,
		Asks:        noiseAsks,
		Description: "share of response statements that are wrong and drawn from irrelevant contexts (lower is better)"},
	{Name: SemanticSimilarityName, Needs: []Field{Response, Reference}, Default: true, OfflineUnreliable: true,
		Asks:        []Ask{embedPair},
		Range:       cosineRange,
		Description: "cosine similarity of response and reference embeddings"},
	{Name: AnswerCorrectnessName, Needs: []Field{Response, Reference}, OfflineUnreliable: true,
		Asks:        []Ask{factualClaims, factualVerify, embedPair},
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
})

// declare fills in what the declarations imply: the steps of their asks.
func declare(ms []Metric) []Metric {
	for i := range ms {
		ms[i].Steps = stepsOf(ms[i].Asks)
	}
	return ms
}

// stepsOf returns the steps of asks, in order.
func stepsOf(asks []Ask) []Step {
	var out []Step
	for _, a := range asks {
		out = append(out, a.Step)
	}
	return out
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

// GatedByDefault returns the names of the metrics that may fail the gate
// when the thresholds name none (Metric.Gated), in catalogue order.
func GatedByDefault() []string {
	var out []string
	for _, m := range catalogue {
		if m.Gated {
			out = append(out, m.Name)
		}
	}
	return out
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
