package judge

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/raggate/raggate/metrics"
)

var (
	stmtReq = Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: "q", Text: "t"}}
	verReq  = Request{Step: metrics.StepVerify, Input: metrics.VerifyInput{
		Statements: []string{"The chain is worn.", "Replace the cassette too."},
		Evidence:   "e",
	}}
	useReq = Request{Step: metrics.StepUseful, Input: &metrics.UsefulInput{Question: "q", Context: "c", Answer: "a"}}
	qReq   = Request{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: "r"}, N: 3}
	clReq  = Request{Step: metrics.StepClaims, Input: metrics.ClaimsInput{Text: "t", Atomicity: metrics.LevelLow, Coverage: metrics.LevelHigh}}
	atReq  = Request{Step: metrics.StepAttribute, Input: metrics.AttributeInput{Question: "q", Context: "c", Reference: "A. B."}}
	vpReq  = Request{Step: metrics.StepVerifyPair, Input: metrics.VerifyPairInput{
		ReferenceStatements: []string{"A."}, ResponseStatements: []string{"B.", "C."}, Evidence: "e",
	}}
)

const verOK = `{"verdicts":[{"statement":"The chain is worn.","reason":"said","verdict":1},{"statement":"Replace the cassette too.","reason":"not said","verdict":0}]}`

var verAnswer = Answer{Verify: &metrics.VerifyOutput{Verdicts: []metrics.StatementVerdict{
	{Statement: "The chain is worn.", Reason: "said", Verdict: 1},
	{Statement: "Replace the cassette too.", Reason: "not said", Verdict: 0},
}}}

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		req     Request
		content string
		want    Answer
		wantErr string // substring of the InvalidOutputError reason
	}{
		{
			name:    "bare statements",
			req:     stmtReq,
			content: `{"statements": ["A chain wears.", "  Chains stretch.  "]}`,
			want:    Answer{Statements: &metrics.StatementsOutput{Statements: []string{"A chain wears.", "Chains stretch."}}},
		},
		{
			name:    "no statements",
			req:     stmtReq,
			content: `{"statements": []}`,
			want:    Answer{Statements: &metrics.StatementsOutput{Statements: []string{}}},
		},
		{
			name:    "fenced JSON",
			req:     stmtReq,
			content: "```json\n{\"statements\": [\"A chain wears.\"]}\n```",
			want:    Answer{Statements: &metrics.StatementsOutput{Statements: []string{"A chain wears."}}},
		},
		{
			name:    "prose around JSON",
			req:     useReq,
			content: "Sure! Here is my verdict:\n{\"reason\": \"it helps\", \"verdict\": 1}\nLet me know if {you} need more.",
			want:    Answer{Useful: &metrics.UsefulOutput{Reason: "it helps", Verdict: 1}},
		},
		{
			name:    "stray brace in prose before JSON",
			req:     useReq,
			content: "Result { see below:\n{\"reason\": \"r\", \"verdict\": 0}",
			want:    Answer{Useful: &metrics.UsefulOutput{Reason: "r", Verdict: 0}},
		},
		{
			name:    "nested braces and quotes inside strings",
			req:     useReq,
			content: `{"reason": "the context says \"use {x} and }\" here", "verdict": 1}`,
			want:    Answer{Useful: &metrics.UsefulOutput{Reason: `the context says "use {x} and }" here`, Verdict: 1}},
		},
		{
			name:    "unknown keys tolerated",
			req:     qReq,
			content: `{"question": " Where is Lyon? ", "noncommittal": 0, "explanation": "extra"}`,
			want:    Answer{Questions: []metrics.QuestionOutput{{Question: "Where is Lyon?", Noncommittal: 0}}},
		},
		{
			name:    "verdict 1.0 is 1",
			req:     useReq,
			content: `{"reason": "r", "verdict": 1.0}`,
			want:    Answer{Useful: &metrics.UsefulOutput{Reason: "r", Verdict: 1}},
		},
		{
			name:    "verify",
			req:     verReq,
			content: verOK,
			want:    verAnswer,
		},
		{
			name:    "verify tolerates case, space and punctuation in echoes",
			req:     verReq,
			content: `{"verdicts":[{"statement":"the  chain is worn","reason":"said","verdict":1},{"statement":"Replace the cassette, too!","reason":"not said","verdict":0}]}`,
			want:    verAnswer,
		},
		{
			name:    "reasoning section skipped",
			req:     useReq,
			content: "<think>Draft: {\"reason\": \"r\", \"verdict\": 0}. No, it helps.</think>\n{\"reason\": \"r\", \"verdict\": 1}",
			want:    Answer{Useful: &metrics.UsefulOutput{Reason: "r", Verdict: 1}},
		},
		{
			name:    "same object twice counts once",
			req:     useReq,
			content: "{\"reason\": \"r\", \"verdict\": 1}\n```json\n{\"reason\":\"r\",\"verdict\":1}\n```",
			want:    Answer{Useful: &metrics.UsefulOutput{Reason: "r", Verdict: 1}},
		},
		{
			name:    "two objects, one valid",
			req:     stmtReq,
			content: `The input was {"question": "q", "text": "t"}. Answer: {"statements": ["A."]}`,
			want:    Answer{Statements: &metrics.StatementsOutput{Statements: []string{"A."}}},
		},
		{
			name:    "two valid objects",
			req:     useReq,
			content: `{"reason": "r", "verdict": 1} or maybe {"reason": "r", "verdict": 0}`,
			wantErr: "several JSON objects that are valid",
		},
		{
			name:    "two invalid objects",
			req:     useReq,
			content: `{"reason": "r"} {"verdict": 0}`,
			wantErr: "several JSON objects and none",
		},
		{name: "truncated JSON", req: stmtReq, content: `{"statements": ["A.", "B`, wantErr: "truncated"},
		{name: "invalid JSON", req: stmtReq, content: `{"statements": ["A.",]}`, wantErr: "not valid JSON"},
		{name: "no JSON", req: stmtReq, content: "I cannot help with that.", wantErr: "no JSON object"},
		{name: "empty reply", req: stmtReq, content: "", wantErr: "no JSON object"},
		{name: "array only", req: stmtReq, content: `["A."]`, wantErr: "no JSON object"},
		{name: "missing key", req: stmtReq, content: `{"facts": ["A."]}`, wantErr: `missing key "statements"`},
		{name: "statements null", req: stmtReq, content: `{"statements": null}`, wantErr: "must be an array, got null"},
		{name: "statement not a string", req: stmtReq, content: `{"statements": ["A.", 3]}`, wantErr: `"statements[1]" must be a string`},
		{name: "empty statement", req: stmtReq, content: `{"statements": ["A.", " "]}`, wantErr: "statements[1] is empty"},
		{name: "verdict 2", req: useReq, content: `{"reason": "r", "verdict": 2}`, wantErr: `"verdict" must be 0 or 1, got 2`},
		{name: "verdict boolean", req: useReq, content: `{"reason": "r", "verdict": true}`, wantErr: "got a boolean"},
		{name: "verdict string", req: useReq, content: `{"reason": "r", "verdict": "1"}`, wantErr: "got a string"},
		{name: "missing reason", req: useReq, content: `{"verdict": 1}`, wantErr: `missing key "reason"`},
		{name: "missing noncommittal", req: qReq, content: `{"question": "Why?"}`, wantErr: `missing key "noncommittal"`},
		{name: "noncommittal 2", req: qReq, content: `{"question": "Why?", "noncommittal": 2}`, wantErr: "must be 0 or 1"},
		{name: "empty question", req: qReq, content: `{"question": "", "noncommittal": 1}`, wantErr: "is empty"},
		{
			name:    "wrong verdict count",
			req:     verReq,
			content: `{"verdicts":[{"statement":"The chain is worn.","reason":"r","verdict":1}]}`,
			wantErr: "1 verdicts for 2 statements",
		},
		{
			name:    "reordered statements",
			req:     verReq,
			content: `{"verdicts":[{"statement":"Replace the cassette too.","reason":"r","verdict":0},{"statement":"The chain is worn.","reason":"r","verdict":1}]}`,
			wantErr: `verdicts[0] is about "Replace the cassette too."`,
		},
		{
			name:    "reworded statement",
			req:     verReq,
			content: `{"verdicts":[{"statement":"The chain is worn out.","reason":"r","verdict":1},{"statement":"Replace the cassette too.","reason":"r","verdict":0}]}`,
			wantErr: "verdicts[0] is about",
		},
		{
			name:    "verdict missing in item",
			req:     verReq,
			content: `{"verdicts":[{"statement":"The chain is worn.","reason":"r"},{"statement":"Replace the cassette too.","reason":"r","verdict":0}]}`,
			wantErr: `missing key "verdicts[0].verdict"`,
		},
		{
			name:    "verdict item not an object",
			req:     verReq,
			content: `{"verdicts":[1, 0]}`,
			wantErr: "verdicts[0]: want an object, got a number",
		},
		{
			name:    "verdict 2 in verify",
			req:     verReq,
			content: strings.Replace(verOK, `"verdict":0`, `"verdict":2`, 1),
			wantErr: `"verdicts[1].verdict" must be 0 or 1, got 2`,
		},
		{
			name:    "claims",
			req:     clReq,
			content: `{"claims":[" The Rhine is long. "]}`,
			want:    Answer{Claims: &metrics.ClaimsOutput{Claims: []string{"The Rhine is long."}}},
		},
		{
			name:    "empty claim",
			req:     clReq,
			content: `{"claims":["x", " "]}`,
			wantErr: "claims[1] is empty",
		},
		{
			name:    "attribute",
			req:     atReq,
			content: `{"sentences":[{"sentence":"A.","reason":"in c","attributed":1},{"sentence":"B.","reason":"not in c","attributed":0}]}`,
			want: Answer{Attribute: &metrics.AttributeOutput{Sentences: []metrics.SentenceVerdict{
				{Sentence: "A.", Reason: "in c", Attributed: 1}, {Sentence: "B.", Reason: "not in c", Attributed: 0},
			}}},
		},
		{
			name:    "attributed as a word",
			req:     atReq,
			content: `{"sentences":[{"sentence":"A.","reason":"r","attributed":"yes"}]}`,
			wantErr: `"sentences[0].attributed" must be the number 0 or 1, got a string`,
		},
		{
			// A short list is not rejected: the evaluator re-asks only the
			// statements without a verdict.
			name:    "verify_pair with a missing verdict",
			req:     vpReq,
			content: `{"reference_verdicts":[{"statement":"A.","reason":"r","verdict":1}],"response_verdicts":[{"statement":"B.","reason":"r","verdict":0}]}`,
			want: Answer{VerifyPair: &metrics.VerifyPairOutput{
				ReferenceVerdicts: []metrics.StatementVerdict{{Statement: "A.", Reason: "r", Verdict: 1}},
				ResponseVerdicts:  []metrics.StatementVerdict{{Statement: "B.", Reason: "r", Verdict: 0}},
			}},
		},
		{
			name:    "verify_pair without a list",
			req:     vpReq,
			content: `{"reference_verdicts":[]}`,
			wantErr: `missing key "response_verdicts"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.req, tt.content)
			if tt.wantErr != "" {
				var inv *InvalidOutputError
				if !errors.As(err, &inv) {
					t.Fatalf("Parse error = %v, want an *InvalidOutputError", err)
				}
				if inv.Step != tt.req.Step || !strings.Contains(inv.Reason, tt.wantErr) {
					t.Errorf("Parse error = %v, want step %s and a reason with %q", err, tt.req.Step, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse = %+v, want %+v", got, tt.want)
			}
			if err := Validate(tt.req, fill(tt.req, got)); err != nil {
				t.Errorf("Validate(Parse(...)) = %v", err)
			}
		})
	}
}

func TestMatchedPrefix(t *testing.T) {
	stmts := []string{"The chain is worn.", "Replace the cassette.", "Oil it."}
	v := func(ss ...string) []metrics.StatementVerdict {
		out := make([]metrics.StatementVerdict, len(ss))
		for i, s := range ss {
			out[i] = metrics.StatementVerdict{Statement: s, Verdict: 1}
		}
		return out
	}
	tests := []struct {
		name string
		vs   []metrics.StatementVerdict
		want int
	}{
		{"all", v("the chain is worn", "Replace the cassette.", "Oil it."), 3},
		{"one missing", v("The chain is worn.", "Replace the cassette."), 2},
		{"skipped one", v("The chain is worn.", "Oil it."), 1},
		{"none", nil, 0},
		{"extra verdict ignored", v("The chain is worn.", "Replace the cassette.", "Oil it.", "More."), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchedPrefix(stmts, tt.vs); got != tt.want {
				t.Errorf("MatchedPrefix = %d, want %d", got, tt.want)
			}
			for i := 0; i < tt.want; i++ {
				if tt.vs[i].Statement != stmts[i] {
					t.Errorf("verdict %d statement %q not replaced by the input", i, tt.vs[i].Statement)
				}
			}
		})
	}
}

// fill repeats a single parsed question to the request's count, as a judge
// that asks for several choices does.
func fill(req Request, a Answer) Answer {
	if req.Step == metrics.StepQuestion {
		for len(a.Questions) < req.Count() {
			a.Questions = append(a.Questions, a.Questions[0])
		}
	}
	return a
}

func TestParseVerifyEchoesInputStatements(t *testing.T) {
	got, err := Parse(verReq, `{"verdicts":[{"statement":"THE CHAIN IS WORN","reason":"r","verdict":1},{"statement":"replace the cassette too","reason":"r","verdict":1}]}`)
	if err != nil {
		t.Fatal(err)
	}
	in := verReq.Input.(metrics.VerifyInput)
	for i, v := range got.Verify.Verdicts {
		if v.Statement != in.Statements[i] {
			t.Errorf("verdict %d statement %q, want the input's %q", i, v.Statement, in.Statements[i])
		}
	}
}

func TestParseRequestErrors(t *testing.T) {
	for _, req := range []Request{
		{Step: metrics.StepEmbed, Input: []string{"x"}},
		{Step: metrics.StepVerify, Input: metrics.UsefulInput{}},
	} {
		_, err := Parse(req, `{}`)
		var inv *InvalidOutputError
		if err == nil || errors.As(err, &inv) {
			t.Errorf("Parse(%s, %T) = %v, want a request error", req.Step, req.Input, err)
		}
	}
}

func TestParseLimits(t *testing.T) {
	tests := map[string]string{
		"too long":       strings.Repeat(" ", maxOutput+1),
		"too many opens": strings.Repeat("{", 20000),
	}
	for name, content := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(stmtReq, content)
			var inv *InvalidOutputError
			if !errors.As(err, &inv) {
				t.Errorf("Parse = %v, want an *InvalidOutputError", err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		ans  Answer
		ok   bool
	}{
		{"statements", stmtReq, Answer{Statements: &metrics.StatementsOutput{Statements: []string{"A."}}}, true},
		{"nil statements are empty", stmtReq, Answer{Statements: &metrics.StatementsOutput{}}, true},
		{"no output", stmtReq, Answer{Useful: &metrics.UsefulOutput{}}, false},
		{"verify", verReq, verAnswer, true},
		{"verify count", verReq, Answer{Verify: &metrics.VerifyOutput{Verdicts: verAnswer.Verify.Verdicts[:1]}}, false},
		{"useful 2", useReq, Answer{Useful: &metrics.UsefulOutput{Verdict: 2}}, false},
		{"questions", qReq, Answer{Questions: make([]metrics.QuestionOutput, 3)}, false},
		{"question count", qReq, Answer{Questions: []metrics.QuestionOutput{{Question: "Why?"}}}, false},
		{"three questions", qReq, Answer{Questions: []metrics.QuestionOutput{{Question: "A?"}, {Question: "B?"}, {Question: "C?", Noncommittal: 1}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.req, tt.ans)
			var inv *InvalidOutputError
			if tt.ok && err != nil || !tt.ok && !errors.As(err, &inv) {
				t.Errorf("Validate = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func TestInvalidOutputErrorUndefined(t *testing.T) {
	inv := &InvalidOutputError{Step: metrics.StepUseful, Reason: "missing key"}
	u := inv.Undefined()
	if u.Reason != "invalid judge output: missing key" || !errors.Is(u, inv) || IsFatal(u) {
		t.Errorf("Undefined() = %v", u)
	}
	if inv.Error() != "invalid useful output: missing key" {
		t.Errorf("Error() = %q", inv.Error())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		verOK,
		"```json\n" + verOK + "\n```",
		`{"statements": ["A.", "B."]}`,
		`{"reason": "x {y} \"z\"", "verdict": 1} {"reason": "", "verdict": 0}`,
		`{"question": "Why?", "noncommittal": 1}`,
		`{"verdicts": [{"statement": "a`,
		"{{{{\"a\":}}}}",
		`{"verdict": 1e400}`,
	} {
		f.Add(s)
	}
	reqs := []Request{stmtReq, verReq, useReq, qReq}
	f.Fuzz(func(t *testing.T, content string) {
		for _, req := range reqs {
			a, err := Parse(req, content)
			if err != nil {
				var inv *InvalidOutputError
				if !errors.As(err, &inv) || inv.Reason == "" {
					t.Fatalf("Parse(%s) error %v is not an *InvalidOutputError with a reason", req.Step, err)
				}
				continue
			}
			if err := Validate(req, fill(req, a)); err != nil {
				t.Fatalf("Parse(%s) accepted an answer that does not validate: %v", req.Step, err)
			}
		}
	})
}
