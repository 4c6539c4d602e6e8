package metrics_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/raggate/raggate/metrics"
)

func TestPromptsCoverChatSteps(t *testing.T) {
	ps := metrics.Prompts()
	if len(ps) != len(metrics.Steps) {
		t.Fatalf("Prompts() has %d prompts, want %d", len(ps), len(metrics.Steps))
	}
	for i, s := range metrics.Steps {
		if ps[i].Step != s {
			t.Errorf("Prompts()[%d].Step = %q, want %q", i, ps[i].Step, s)
		}
		p, ok := metrics.PromptFor(s)
		if !ok || !reflect.DeepEqual(p, ps[i]) {
			t.Errorf("PromptFor(%q) = %v, %v; want Prompts()[%d]", s, p.Step, ok, i)
		}
	}
	for _, s := range []metrics.Step{metrics.StepEmbed, "nope"} {
		if _, ok := metrics.PromptFor(s); ok {
			t.Errorf("PromptFor(%q) ok, want none", s)
		}
	}
}

// types of the step inputs and outputs, for checking the examples.
var stepTypes = map[metrics.Step][2]reflect.Type{
	metrics.StepStatements: {reflect.TypeFor[metrics.StatementsInput](), reflect.TypeFor[metrics.StatementsOutput]()},
	metrics.StepVerify:     {reflect.TypeFor[metrics.VerifyInput](), reflect.TypeFor[metrics.VerifyOutput]()},
	metrics.StepUseful:     {reflect.TypeFor[metrics.UsefulInput](), reflect.TypeFor[metrics.UsefulOutput]()},
	metrics.StepQuestion:   {reflect.TypeFor[metrics.QuestionInput](), reflect.TypeFor[metrics.QuestionOutput]()},
	metrics.StepClaims:     {reflect.TypeFor[metrics.ClaimsInput](), reflect.TypeFor[metrics.ClaimsOutput]()},
	metrics.StepAttribute:  {reflect.TypeFor[metrics.AttributeInput](), reflect.TypeFor[metrics.AttributeOutput]()},
	metrics.StepVerifyPair: {reflect.TypeFor[metrics.VerifyPairInput](), reflect.TypeFor[metrics.VerifyPairOutput]()},
}

func TestPrompt(t *testing.T) {
	for _, p := range metrics.Prompts() {
		t.Run(string(p.Step), func(t *testing.T) {
			if !strings.Contains(p.Instruction, "data") || !strings.Contains(p.Instruction, "not instructions") {
				t.Errorf("instruction does not say that the input is data, not instructions")
			}
			var schema map[string]any
			if err := json.Unmarshal(p.Schema, &schema); err != nil {
				t.Fatalf("schema: %v", err)
			}
			checkStrict(t, "schema", schema)
			if n := len(p.Examples); n < 1 || n > 3 {
				t.Errorf("%d examples, want 1 to 3", n)
			}
			types := stepTypes[p.Step]
			for i, ex := range p.Examples {
				if got := reflect.TypeOf(ex.Input); got != types[0] {
					t.Errorf("example %d input is %v, want %v", i, got, types[0])
				}
				if got := reflect.TypeOf(ex.Output); got != types[1] {
					t.Errorf("example %d output is %v, want %v", i, got, types[1])
				}
				out, err := json.Marshal(ex.Output)
				if err != nil {
					t.Fatal(err)
				}
				var v any
				if err := json.Unmarshal(out, &v); err != nil {
					t.Fatal(err)
				}
				conforms(t, fmt.Sprintf("example %d output", i), schema, v)
				if vi, ok := ex.Input.(metrics.VerifyPairInput); ok {
					vo := ex.Output.(metrics.VerifyPairOutput)
					echoes(t, i, vi.ReferenceStatements, metrics.VerifyOutput{Verdicts: vo.ReferenceVerdicts})
					echoes(t, i, vi.ResponseStatements, metrics.VerifyOutput{Verdicts: vo.ResponseVerdicts})
				}
				if vi, ok := ex.Input.(metrics.VerifyInput); ok {
					vo := ex.Output.(metrics.VerifyOutput)
					if len(vo.Verdicts) != len(vi.Statements) {
						t.Fatalf("example %d: %d verdicts for %d statements", i, len(vo.Verdicts), len(vi.Statements))
					}
					for k, s := range vi.Statements {
						if vo.Verdicts[k].Statement != s {
							t.Errorf("example %d verdict %d echoes %q, want %q", i, k, vo.Verdicts[k].Statement, s)
						}
					}
				}
			}
		})
	}
}

// The claims examples decompose one text at several settings: higher
// atomicity gives more claims, lower coverage fewer, so the judge sees what
// the levels change.
func TestClaimsExamplesShowLevels(t *testing.T) {
	p, _ := metrics.PromptFor(metrics.StepClaims)
	count := map[[2]metrics.Level]int{}
	text := ""
	for i, ex := range p.Examples {
		in := ex.Input.(metrics.ClaimsInput)
		if text != "" && in.Text != text {
			t.Errorf("example %d decomposes another text", i)
		}
		text = in.Text
		count[[2]metrics.Level{in.Atomicity, in.Coverage}] = len(ex.Output.(metrics.ClaimsOutput).Claims)
	}
	low, atomic, full := count[[2]metrics.Level{"low", "low"}], count[[2]metrics.Level{"high", "low"}], count[[2]metrics.Level{"high", "high"}]
	if !(low >= 1 && atomic > low && full > atomic) {
		t.Errorf("claims per setting low/low %d, high/low %d, high/high %d: want each level to add claims", low, atomic, full)
	}
	if strings.Contains(p.Instruction, "question") {
		t.Errorf("the claims step sees the text only, but its instruction mentions a question")
	}
}

// A refusal asserts something: the statements prompt shows it, and no
// longer allows an empty list for a non-empty text.
func TestStatementsPromptKeepsRefusals(t *testing.T) {
	p, _ := metrics.PromptFor(metrics.StepStatements)
	if strings.Contains(p.Instruction, "asserts no fact, return an empty list") {
		t.Errorf("instruction still returns an empty list for a text without facts")
	}
	found := false
	for _, ex := range p.Examples {
		text := strings.ToLower(ex.Input.(metrics.StatementsInput).Text)
		if strings.Contains(text, "couldn't find") || strings.Contains(text, "don't know") {
			found = len(ex.Output.(metrics.StatementsOutput).Statements) > 0
		}
	}
	if !found {
		t.Errorf("no example shows a refusal giving statements")
	}
}

// The attribute example keeps a reference sentence with several facts as
// one item, and judges every sentence of the reference in order.
func TestAttributeExampleSentenceIsOneItem(t *testing.T) {
	p, _ := metrics.PromptFor(metrics.StepAttribute)
	for i, ex := range p.Examples {
		in := ex.Input.(metrics.AttributeInput)
		out := ex.Output.(metrics.AttributeOutput)
		if got := strings.Join(sentenceList(out), " "); got != in.Reference {
			t.Errorf("example %d: sentences %q do not make up the reference %q", i, got, in.Reference)
		}
		multi := false
		for _, s := range out.Sentences {
			multi = multi || strings.Count(s.Sentence, ",")+strings.Count(s.Sentence, " and ") >= 2
		}
		if !multi {
			t.Errorf("example %d has no sentence with several facts", i)
		}
	}
}

func sentenceList(o metrics.AttributeOutput) []string {
	var out []string
	for _, s := range o.Sentences {
		out = append(out, s.Sentence)
	}
	return out
}

// checkStrict checks the rules of OpenAI strict structured outputs: every
// object lists all its properties as required and forbids others.
func checkStrict(t *testing.T, where string, s map[string]any) {
	t.Helper()
	switch s["type"] {
	case "object":
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			t.Errorf("%s: object without properties", where)
		}
		if s["additionalProperties"] != false {
			t.Errorf("%s: additionalProperties is not false", where)
		}
		var req []string
		for _, r := range s["required"].([]any) {
			req = append(req, r.(string))
		}
		keys := make([]string, 0, len(props))
		for k, sub := range props {
			keys = append(keys, k)
			checkStrict(t, where+"."+k, sub.(map[string]any))
		}
		sort.Strings(keys)
		sort.Strings(req)
		if !slices.Equal(keys, req) {
			t.Errorf("%s: required %v, want every property %v", where, req, keys)
		}
	case "array":
		checkStrict(t, where+"[]", s["items"].(map[string]any))
	case "string", "integer":
	default:
		t.Errorf("%s: unexpected type %v", where, s["type"])
	}
}

// conforms checks a decoded JSON value against the subset of JSON Schema
// the prompts use.
func conforms(t *testing.T, where string, s map[string]any, v any) {
	t.Helper()
	switch s["type"] {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			t.Errorf("%s: not an object", where)
			return
		}
		props := s["properties"].(map[string]any)
		for k := range obj {
			if _, ok := props[k]; !ok {
				t.Errorf("%s: unknown key %q", where, k)
			}
		}
		for k, sub := range props {
			x, ok := obj[k]
			if !ok {
				t.Errorf("%s: missing %q", where, k)
				continue
			}
			conforms(t, where+"."+k, sub.(map[string]any), x)
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			t.Errorf("%s: not an array", where)
			return
		}
		for i, x := range arr {
			conforms(t, fmt.Sprintf("%s[%d]", where, i), s["items"].(map[string]any), x)
		}
	case "string":
		if str, ok := v.(string); !ok || strings.TrimSpace(str) == "" {
			t.Errorf("%s: not a non-empty string: %v", where, v)
		}
	case "integer":
		f, ok := v.(float64)
		if !ok || (f != 0 && f != 1) {
			t.Errorf("%s: not 0 or 1: %v", where, v)
		}
	}
}

func echoes(t *testing.T, i int, stmts []string, vo metrics.VerifyOutput) {
	t.Helper()
	if len(vo.Verdicts) != len(stmts) {
		t.Fatalf("example %d: %d verdicts for %d statements", i, len(vo.Verdicts), len(stmts))
	}
	for k, s := range stmts {
		if vo.Verdicts[k].Statement != s {
			t.Errorf("example %d verdict %d echoes %q, want %q", i, k, vo.Verdicts[k].Statement, s)
		}
	}
}

func TestPromptsAreFreshValues(t *testing.T) {
	p, _ := metrics.PromptFor(metrics.StepVerify)
	want, _ := metrics.PromptFor(metrics.StepVerify)
	p.Instruction = "changed"
	p.Schema[0] = 'x'
	p.Examples[0].Input.(metrics.VerifyInput).Statements[0] = "changed"
	p.Examples = p.Examples[:0]
	got, _ := metrics.PromptFor(metrics.StepVerify)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changing a returned prompt changed the template")
	}
}

func ExamplePromptFor() {
	p, _ := metrics.PromptFor(metrics.StepVerify)
	in := p.Examples[0].Input.(metrics.VerifyInput)
	out := p.Examples[0].Output.(metrics.VerifyOutput)
	fmt.Println(in.Statements[2])
	fmt.Println(out.Bools())
	// Output:
	// Bicycles travel free on regional trains at 08:00.
	// [true true false false]
}
