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
	// StepEmbed turns texts into vectors.
	StepEmbed Step = "embed"
)

// Steps lists the chat steps (every step but embed) in a fixed order.
var Steps = []Step{StepStatements, StepVerify, StepUseful, StepQuestion}

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
