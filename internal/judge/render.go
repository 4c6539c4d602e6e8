package judge

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/raggate/raggate/metrics"
)

// renderVersion names the layout of rendered prompts. Change it whenever
// the layout changes in a way the templates below do not show; it is part
// of PromptsHash.
const renderVersion = "raggate.prompt/v2"

// systemPrompt is the system message of every chat step.
const systemPrompt = "You are a careful, literal evaluator in an automated test of a retrieval-augmented generation (RAG) system. " +
	"Follow the task instructions exactly. Reply with a single JSON object that matches the given JSON Schema, and nothing else."

// Fixed parts of the user message, in order.
const (
	schemaIntro   = "Output: one JSON object that matches this JSON Schema:\n"
	exampleIntro  = "Example %d input:\n"
	exampleOutput = "Example %d output:\n"
	inputIntro    = "Input:\n"
	outputRequest = "Respond with one JSON object that matches the schema."
	reaskIntro    = "Your previous reply could not be used. The validator said: "
	reaskRequest  = "\nReply again with one JSON object that matches the schema and follows the rules."
)

// Rendered is a chat step rendered as messages.
type Rendered struct {
	// System is the system message.
	System string
	// User is the user message: instruction, output schema, few-shot
	// examples, the input as a JSON object, and the request for the output.
	User string
	// SchemaName names the output schema for structured-output APIs
	// ("raggate_verify", ...; it matches ^[a-zA-Z0-9_-]{1,64}$).
	SchemaName string
	// Schema is the JSON Schema of the output object (strict-mode compatible).
	Schema json.RawMessage
}

// Render renders a chat step request as messages. The output depends only on
// the step, the input and the prompt templates: the same request renders to
// the same bytes. Untrusted text (questions, contexts, answers) is only ever
// placed inside JSON strings. Render fails for the embed step and for an
// input whose type does not belong to the step.
func Render(req Request) (Rendered, error) {
	p, ok := metrics.PromptFor(req.Step)
	if !ok {
		return Rendered{}, fmt.Errorf("render: %q is not a chat step", req.Step)
	}
	return renderPrompt(p, req.Input)
}

// Reask returns the follow-up user message that asks the judge to answer
// again after its reply failed validation. The validator's reason is given
// as a JSON string.
func Reask(err *InvalidOutputError) string {
	reason, _ := marshalJSON(err.Reason)
	return reaskIntro + string(reason) + reaskRequest
}

func renderPrompt(p metrics.Prompt, input any) (Rendered, error) {
	if err := checkInput(p.Step, input); err != nil {
		return Rendered{}, fmt.Errorf("render: %w", err)
	}
	var b bytes.Buffer
	b.WriteString(p.Instruction)
	b.WriteString("\n\n")
	b.WriteString(schemaIntro)
	var schema bytes.Buffer
	if err := json.Compact(&schema, p.Schema); err != nil {
		return Rendered{}, fmt.Errorf("render: %s schema: %w", p.Step, err)
	}
	b.Write(schema.Bytes())
	b.WriteString("\n\n")
	for i, ex := range p.Examples {
		in, err := marshalJSON(ex.Input)
		if err != nil {
			return Rendered{}, fmt.Errorf("render: %s example %d input: %w", p.Step, i+1, err)
		}
		out, err := marshalJSON(ex.Output)
		if err != nil {
			return Rendered{}, fmt.Errorf("render: %s example %d output: %w", p.Step, i+1, err)
		}
		fmt.Fprintf(&b, exampleIntro, i+1)
		b.Write(in)
		b.WriteString("\n")
		fmt.Fprintf(&b, exampleOutput, i+1)
		b.Write(out)
		b.WriteString("\n\n")
	}
	in, err := marshalJSON(input)
	if err != nil {
		return Rendered{}, fmt.Errorf("render: %s input: %w", p.Step, err)
	}
	b.WriteString(inputIntro)
	b.Write(in)
	b.WriteString("\n\n")
	b.WriteString(outputRequest)
	return Rendered{
		System:     systemPrompt,
		User:       b.String(),
		SchemaName: "raggate_" + string(p.Step),
		Schema:     schema.Bytes(),
	}, nil
}

// marshalJSON encodes v as compact JSON without HTML escaping (the reader
// is a model, not a browser; the result is valid JSON either way).
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// checkInput reports whether input has the input type of step (a value or a
// non-nil pointer).
func checkInput(step metrics.Step, input any) error {
	var ok bool
	switch step {
	case metrics.StepStatements:
		_, ok = InputAs[metrics.StatementsInput](input)
	case metrics.StepVerify:
		_, ok = InputAs[metrics.VerifyInput](input)
	case metrics.StepUseful:
		_, ok = InputAs[metrics.UsefulInput](input)
	case metrics.StepQuestion:
		_, ok = InputAs[metrics.QuestionInput](input)
	case metrics.StepClaims:
		var in metrics.ClaimsInput
		if in, ok = InputAs[metrics.ClaimsInput](input); ok && !(in.Atomicity.Valid() && in.Coverage.Valid()) {
			return fmt.Errorf("claims step: atomicity %q and coverage %q must each be low or high", in.Atomicity, in.Coverage)
		}
	case metrics.StepAttribute:
		_, ok = InputAs[metrics.AttributeInput](input)
	case metrics.StepVerifyPair:
		_, ok = InputAs[metrics.VerifyPairInput](input)
	case metrics.StepCritic:
		var in metrics.CriticInput
		if in, ok = InputAs[metrics.CriticInput](input); ok && in.Criterion == "" {
			return fmt.Errorf("critic step: empty criterion")
		}
	case metrics.StepRubric:
		var in metrics.RubricInput
		if in, ok = InputAs[metrics.RubricInput](input); ok && len(in.Levels) < 2 {
			return fmt.Errorf("rubric step: %d levels, want at least 2", len(in.Levels))
		}
	default:
		return fmt.Errorf("%q is not a chat step", step)
	}
	if !ok {
		return fmt.Errorf("%s step: input of type %T, want the step's input type", step, input)
	}
	return nil
}

// InputAs returns a step input as a T when it is a T or a non-nil *T
// (judges accept both values and pointers as Request.Input).
func InputAs[T any](input any) (T, bool) {
	switch v := input.(type) {
	case T:
		return v, true
	case *T:
		if v != nil {
			return *v, true
		}
	}
	var zero T
	return zero, false
}

// zeroInput returns the zero input value of a chat step.
func zeroInput(step metrics.Step) any {
	switch step {
	case metrics.StepStatements:
		return metrics.StatementsInput{}
	case metrics.StepVerify:
		return metrics.VerifyInput{Statements: []string{}}
	case metrics.StepUseful:
		return metrics.UsefulInput{}
	case metrics.StepQuestion:
		return metrics.QuestionInput{}
	case metrics.StepClaims:
		return metrics.ClaimsInput{Atomicity: metrics.DefaultClaimsAtomicity, Coverage: metrics.DefaultClaimsCoverage}
	case metrics.StepAttribute:
		return metrics.AttributeInput{}
	case metrics.StepVerifyPair:
		return metrics.VerifyPairInput{ReferenceStatements: []string{}, ResponseStatements: []string{}}
	case metrics.StepCritic:
		return metrics.CriticInput{Criterion: "criterion", Sample: map[string]any{}}
	case metrics.StepRubric:
		return metrics.RubricInput{Criterion: "criterion", Levels: []metrics.RubricLevel{{Score: 0}, {Score: 1}}, Sample: map[string]any{}}
	}
	return nil
}

var promptsHash = sync.OnceValue(func() string { return hashPrompts(metrics.Prompts()) })

// PromptsHash identifies the prompt templates: every instruction, output
// schema and few-shot example, the system message, the message layout and
// the re-ask message and the sampling temperature. It is the first 16 hex digits of a SHA-256 and goes
// into the judge fingerprint, so results judged with different prompts are
// never compared as if they were alike.
func PromptsHash() string { return promptsHash() }

// hashPrompts hashes the templates by rendering each prompt with the zero
// input of its step, so that any change to what a judge is shown changes
// the hash.
func hashPrompts(ps []metrics.Prompt) string { return hashTemplates(ps, SampleTemperature) }

// hashTemplates is hashPrompts with the sampling temperature as a parameter.
func hashTemplates(ps []metrics.Prompt, temperature float64) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(renderVersion)
	field(strconv.FormatFloat(temperature, 'g', -1, 64))
	field(Reask(&InvalidOutputError{Reason: "reason"}))
	field(strconv.Itoa(len(ps)))
	for _, p := range ps {
		field(string(p.Step))
		r, err := renderPrompt(p, zeroInput(p.Step))
		if err != nil {
			// Cannot happen for the built-in prompts (a test renders them);
			// keep the hash distinct rather than panic.
			field("error: " + err.Error())
			continue
		}
		field(r.System)
		field(r.User)
		field(r.SchemaName)
		field(string(r.Schema))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// UserMetricsHash identifies the user-defined metrics of a run: the prompt
// templates of their steps and their definitions (criteria, rubrics,
// votes, columns, transforms, directions). It goes into the judge
// fingerprint (Info.UserMetrics), so that results with a changed
// definition are reported as judged differently, never compared as if
// alike; "" when there are none, which leaves the fingerprint of a run
// without user-defined metrics as it was.
func UserMetricsHash(defs []metrics.Definition) string {
	if len(defs) == 0 {
		return ""
	}
	b, _ := json.Marshal(defs)
	h := sha256.Sum256([]byte(hashPrompts(metrics.UserPrompts()) + "\x00" + string(b)))
	return hex.EncodeToString(h[:])[:16]
}
