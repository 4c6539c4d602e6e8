package metrics

// Step names a judge step: one kind of question an LLM (or the offline
// judge) is asked. Metrics are built from the answers to these steps.
type Step string

// The judge steps of the metric specification.
const (
	// StepStatements breaks a text into short self-contained statements.
	StepStatements Step = "statements"
	// StepVerify decides, per statement and in order, whether it can be
	// directly inferred from the evidence (natural-language inference).
	StepVerify Step = "verify"
	// StepUseful decides whether one context was useful to arrive at an answer.
	StepUseful Step = "useful"
	// StepQuestion writes a question the response answers and flags
	// noncommittal (evasive) responses.
	StepQuestion Step = "question"
	// StepClaims decomposes a text (without the question) into the claims
	// factual correctness compares, at a given atomicity and coverage.
	StepClaims Step = "claims"
	// StepAttribute decides, per sentence of a reference, whether it can be
	// attributed to the retrieved contexts (context recall).
	StepAttribute Step = "attribute"
	// StepVerifyPair verifies two labelled statement lists (of the reference
	// and of the response) against one piece of evidence in one call
	// (noise sensitivity).
	StepVerifyPair Step = "verify_pair"
	// StepCritic asks a user-defined yes/no criterion of a sample (the
	// critic kind of user-defined metrics).
	StepCritic Step = "critic"
	// StepRubric asks for the level of a user-defined rubric that fits a
	// sample (the rubric kind of user-defined metrics).
	StepRubric Step = "rubric"
	// StepEmbed turns texts into vectors.
	StepEmbed Step = "embed"
)

// Steps lists the chat steps (every step but embed) in a fixed order.
var Steps = []Step{StepStatements, StepVerify, StepUseful, StepQuestion, StepClaims, StepAttribute, StepVerifyPair}

// UserSteps lists the chat steps of user-defined metrics. They are kept
// apart from Steps so that the built-in prompts' hash (and with it the
// judge fingerprint of a run without user-defined metrics) does not change
// with them.
var UserSteps = []Step{StepCritic, StepRubric}

// CriticInput is the input of the critic step: the criterion and the
// sample's fields and columns the metric reads, both data.
type CriticInput struct {
	Criterion string         `json:"criterion"`
	Sample    map[string]any `json:"sample"`
}

// CriticOutput is one answer of the critic step.
type CriticOutput struct {
	Reason  string `json:"reason"`
	Verdict int    `json:"verdict"`
}

// RubricInput is the input of the rubric step: what is scored, the levels
// of the scale and the sample's fields and columns the metric reads.
type RubricInput struct {
	Criterion string         `json:"criterion"`
	Levels    []RubricLevel  `json:"levels"`
	Sample    map[string]any `json:"sample"`
}

// RubricOutput is the answer of the rubric step: one of the input levels.
type RubricOutput struct {
	Reason string `json:"reason"`
	Score  int    `json:"score"`
}

// StatementsInput is the input of the statements step.
type StatementsInput struct {
	Question string `json:"question"`
	Text     string `json:"text"`
}

// StatementsOutput is the answer of the statements step.
type StatementsOutput struct {
	Statements []string `json:"statements"`
}

// VerifyInput is the input of the verify step.
type VerifyInput struct {
	Statements []string `json:"statements"`
	Evidence   string   `json:"evidence"`
}

// StatementVerdict is the verdict on one statement of a verify step.
type StatementVerdict struct {
	Statement string `json:"statement"`
	Reason    string `json:"reason"`
	Verdict   int    `json:"verdict"`
	// Support is a judge's graded degree of support of the statement, in
	// [0, 1], when it has one (the offline judge); nil: the verdict is the
	// support (1 or 0). It is not part of the step's JSON: an LLM is
	// neither asked for it nor read for it.
	Support *float64 `json:"-"`
}

// SupportOf returns the statement's support: Support when the judge gave
// one, else 1 for a verdict of 1 and 0 otherwise.
func (v StatementVerdict) SupportOf() float64 {
	if v.Support != nil {
		return *v.Support
	}
	if v.Verdict == 1 {
		return 1
	}
	return 0
}

// VerifyOutput is the answer of the verify step: one verdict per input
// statement, in the input's order.
type VerifyOutput struct {
	Verdicts []StatementVerdict `json:"verdicts"`
}

// Bools returns the verdicts as booleans.
func (o VerifyOutput) Bools() []bool {
	out := make([]bool, len(o.Verdicts))
	for i, v := range o.Verdicts {
		out[i] = v.Verdict == 1
	}
	return out
}

// UsefulInput is the input of the useful step.
type UsefulInput struct {
	Question string `json:"question"`
	Context  string `json:"context"`
	Answer   string `json:"answer"`
}

// UsefulOutput is the answer of the useful step.
type UsefulOutput struct {
	Reason  string `json:"reason"`
	Verdict int    `json:"verdict"`
}

// QuestionInput is the input of the question step.
type QuestionInput struct {
	Response string `json:"response"`
}

// QuestionOutput is one answer of the question step.
type QuestionOutput struct {
	Question     string `json:"question"`
	Noncommittal int    `json:"noncommittal"`
}

// Level is the atomicity or the coverage of a claims decomposition.
type Level string

// The levels of atomicity and coverage (Ragas's ClaimDecomposition settings).
const (
	// LevelLow: atomicity low keeps a sentence's claims together; coverage
	// low keeps the main claims and drops minor qualifiers.
	LevelLow Level = "low"
	// LevelHigh: atomicity high splits into single facts; coverage high
	// keeps every detail.
	LevelHigh Level = "high"
)

// Valid reports whether l is low or high.
func (l Level) Valid() bool { return l == LevelLow || l == LevelHigh }

// DefaultClaimsAtomicity and DefaultClaimsCoverage are Ragas's defaults for
// factual correctness.
const (
	DefaultClaimsAtomicity = LevelLow
	DefaultClaimsCoverage  = LevelLow
)

// ClaimsInput is the input of the claims step: the text alone (not the
// question) and the decomposition's atomicity and coverage.
type ClaimsInput struct {
	Text      string `json:"text"`
	Atomicity Level  `json:"atomicity"`
	Coverage  Level  `json:"coverage"`
}

// ClaimsOutput is the answer of the claims step.
type ClaimsOutput struct {
	Claims []string `json:"claims"`
}

// AttributeInput is the input of the attribute step: the question, the
// retrieved contexts joined with "\n", and the reference answer.
type AttributeInput struct {
	Question  string `json:"question"`
	Context   string `json:"context"`
	Reference string `json:"reference"`
}

// SentenceVerdict says whether one reference sentence can be attributed to
// the context.
type SentenceVerdict struct {
	Sentence   string `json:"sentence"`
	Reason     string `json:"reason"`
	Attributed int    `json:"attributed"`
}

// AttributeOutput is the answer of the attribute step: one verdict per
// sentence of the reference, in order.
type AttributeOutput struct {
	Sentences []SentenceVerdict `json:"sentences"`
}

// Bools returns the attributions as booleans.
func (o AttributeOutput) Bools() []bool {
	out := make([]bool, len(o.Sentences))
	for i, v := range o.Sentences {
		out[i] = v.Attributed == 1
	}
	return out
}

// VerifyPairInput is the input of the verify_pair step: the statements of
// the reference and of the response, labelled, and one piece of evidence.
type VerifyPairInput struct {
	ReferenceStatements []string `json:"reference_statements"`
	ResponseStatements  []string `json:"response_statements"`
	Evidence            string   `json:"evidence"`
}

// VerifyPairOutput is the answer of the verify_pair step: one verdict list
// per input list. A list whose verdicts do not match its statements is
// recovered by the caller (see the evaluator), not rejected.
type VerifyPairOutput struct {
	ReferenceVerdicts []StatementVerdict `json:"reference_verdicts"`
	ResponseVerdicts  []StatementVerdict `json:"response_verdicts"`
}
