package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/raggate/raggate/metrics"
)

// InvalidOutputError is the error of a judge reply that is not one valid
// output object of the step: no JSON object, truncated JSON, several
// candidate objects, a missing key, a wrong type, a verdict other than 0 or
// 1, or verify verdicts that do not match the input statements. Reason says
// what is wrong in words a model can act on: a judge re-asks once with it
// (see Reask) and then gives up with an *Undefined (see Undefined).
type InvalidOutputError struct {
	Step   metrics.Step
	Reason string
}

// Error returns "invalid <step> output: <reason>".
func (e *InvalidOutputError) Error() string {
	return "invalid " + string(e.Step) + " output: " + e.Reason
}

// Undefined returns the error to report when the output is still invalid
// after the re-ask: the sample's metrics that need the step are undefined.
func (e *InvalidOutputError) Undefined() *Undefined {
	return &Undefined{Reason: "invalid judge output: " + e.Reason, Err: e}
}

func invalid(step metrics.Step, format string, args ...any) *InvalidOutputError {
	return &InvalidOutputError{Step: step, Reason: fmt.Sprintf(format, args...)}
}

// Limits of Parse.
const (
	// maxOutput is the longest reply Parse reads.
	maxOutput = 1 << 20
	// maxScan bounds the bytes scanned while looking for objects, so that
	// a pathological reply (thousands of unbalanced braces) fails fast
	// instead of taking quadratic time.
	maxScan = 32 << 20
)

// thinkEnd closes the reasoning section that some models (DeepSeek-R1,
// Qwen3 through Ollama) put before their answer.
const thinkEnd = "</think>"

// Parse reads a judge's reply to req and returns the validated answer.
//
// Finding the object: the reply may wrap the JSON object in code fences or
// prose, and may start with a reasoning section ending in "</think>", which
// is skipped (its drafts are not answers). Parse scans it for balanced JSON objects (aware of strings and
// escapes) that are valid JSON; objects nested inside an accepted object
// are part of it. Repeats of the same object count once. When exactly one
// object is found it is validated; when several distinct objects are found,
// the one that validates is used, and it is an error if none or more than
// one validates. Parse never just takes the first match.
//
// Validation follows the step's JSON Schema in code: required keys present,
// strings are strings, verdict and noncommittal are the numbers 0 or 1 (1.0
// is accepted, true and "1" are not), statements and questions are
// non-empty. Unknown keys are tolerated and ignored: strict structured
// outputs cannot produce them, and other endpoints sometimes add harmless
// ones ("explanation"); rejecting them would spend a re-ask without
// changing a verdict. Statements and questions are trimmed of surrounding
// white space.
//
// A verify answer must have one verdict per input statement, in order:
// verdicts[i].statement must match input statement i after case folding and
// dropping everything but letters and digits (so case, white space and
// punctuation differences are tolerated, other edits are not). The returned
// verdicts carry the input statements verbatim. A verify_pair answer is
// only checked for its structure: a list that does not match its input
// statements is recovered by the caller, which keeps the matching verdicts
// (MatchedPrefix) and re-asks the rest, rather than re-asking both lists.
//
// For the question step Parse returns Answer.Questions with one element,
// whatever req.Count(); a judge that asks for several choices parses each.
//
// An invalid reply yields an *InvalidOutputError; a request whose input does
// not fit its step yields another error.
func Parse(req Request, content string) (Answer, error) {
	if err := checkInput(req.Step, req.Input); err != nil {
		return Answer{}, fmt.Errorf("parse: %w", err)
	}
	if len(content) > maxOutput {
		return Answer{}, invalid(req.Step, "the reply is longer than %d bytes", maxOutput)
	}
	if i := strings.LastIndex(content, thinkEnd); i >= 0 {
		content = content[i+len(thinkEnd):]
	}
	cands, syntax, truncated, err := findObjects(content)
	if err != nil {
		return Answer{}, invalid(req.Step, "%v", err)
	}
	switch len(cands) {
	case 0:
		switch {
		case syntax != nil:
			return Answer{}, invalid(req.Step, "the reply is not valid JSON: %v", syntax)
		case truncated:
			return Answer{}, invalid(req.Step, "the JSON object is truncated (unbalanced braces)")
		}
		return Answer{}, invalid(req.Step, "the reply contains no JSON object")
	case 1:
		return decode(req, cands[0])
	}
	var (
		found  Answer
		nvalid int
		first  error
	)
	for _, c := range cands {
		a, err := decode(req, c)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		found = a
		nvalid++
	}
	switch nvalid {
	case 0:
		reason := first.Error()
		var inv *InvalidOutputError
		if errors.As(first, &inv) {
			reason = inv.Reason
		}
		return Answer{}, invalid(req.Step, "the reply contains several JSON objects and none is a valid answer (first: %s)", reason)
	case 1:
		return found, nil
	}
	return Answer{}, invalid(req.Step, "the reply contains several JSON objects that are valid answers; give exactly one")
}

// findObjects returns the distinct valid JSON objects of s (compacted), the
// syntax error of the first balanced but invalid candidate, and whether a
// candidate ran to the end of s unbalanced.
func findObjects(s string) (objs [][]byte, syntax error, truncated bool, err error) {
	budget := maxScan
	seen := map[string]bool{}
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		end, n := balanced(s, start)
		budget -= n
		if budget < 0 {
			return nil, nil, false, fmt.Errorf("the reply is too complex to scan for a JSON object")
		}
		if end < 0 {
			truncated = true
			i = start + 1
			continue
		}
		raw := s[start:end]
		var buf bytes.Buffer
		if cerr := json.Compact(&buf, []byte(raw)); cerr != nil {
			if syntax == nil {
				syntax = cerr
			}
			i = start + 1
			continue
		}
		if !seen[buf.String()] {
			seen[buf.String()] = true
			objs = append(objs, buf.Bytes())
		}
		i = end
	}
	return objs, syntax, truncated, nil
}

// balanced returns the end (exclusive) of the brace-balanced span starting
// at the '{' at s[start], skipping braces inside JSON strings, or -1 when s
// ends first; n is the number of bytes scanned.
func balanced(s string, start int) (end, n int) {
	depth := 0
	inString, escaped := false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1, i + 1 - start
			}
		}
	}
	return -1, len(s) - start
}

// decode validates one candidate object and converts it to an Answer.
func decode(req Request, raw []byte) (Answer, error) {
	obj, err := object(raw)
	if err != nil {
		return Answer{}, invalid(req.Step, "%v", err)
	}
	var a Answer
	switch req.Step {
	case metrics.StepStatements:
		a.Statements, err = decodeStatements(obj)
	case metrics.StepVerify:
		a.Verify, err = decodeVerify(obj)
	case metrics.StepUseful:
		a.Useful, err = decodeUseful(obj)
	case metrics.StepQuestion:
		var q *metrics.QuestionOutput
		q, err = decodeQuestion(obj)
		if err == nil {
			a.Questions = []metrics.QuestionOutput{*q}
		}
	case metrics.StepClaims:
		a.Claims, err = decodeClaims(obj)
	case metrics.StepAttribute:
		a.Attribute, err = decodeAttribute(obj)
	case metrics.StepVerifyPair:
		a.VerifyPair, err = decodeVerifyPair(obj)
	case metrics.StepCritic:
		var c *metrics.UsefulOutput
		if c, err = decodeUseful(obj); err == nil {
			a.Critic = []metrics.CriticOutput{{Reason: c.Reason, Verdict: c.Verdict}}
		}
	case metrics.StepRubric:
		a.Rubric, err = decodeRubric(obj, req.Input)
	}
	if err != nil {
		return Answer{}, invalid(req.Step, "%v", err)
	}
	if req.Step == metrics.StepVerify {
		in, _ := InputAs[metrics.VerifyInput](req.Input)
		if err := matchStatements(in.Statements, a.Verify); err != nil {
			return Answer{}, invalid(req.Step, "%v", err)
		}
	}
	return a, nil
}

func decodeStatements(obj map[string]json.RawMessage) (*metrics.StatementsOutput, error) {
	items, err := arrayField(obj, "statements", "")
	if err != nil {
		return nil, err
	}
	out := &metrics.StatementsOutput{Statements: make([]string, 0, len(items))}
	for i, raw := range items {
		s, err := str(raw, fmt.Sprintf("statements[%d]", i))
		if err != nil {
			return nil, err
		}
		if s = strings.TrimSpace(s); s == "" {
			return nil, fmt.Errorf("statements[%d] is empty", i)
		}
		out.Statements = append(out.Statements, s)
	}
	return out, nil
}

func decodeVerify(obj map[string]json.RawMessage) (*metrics.VerifyOutput, error) {
	vs, err := decodeVerdicts(obj, "verdicts")
	if err != nil {
		return nil, err
	}
	return &metrics.VerifyOutput{Verdicts: vs}, nil
}

// decodeVerifyPair checks the structure of both verdict lists; how they
// match the input lists is left to the caller, which recovers a mismatch
// by re-asking the unmatched statements (see MatchedPrefix).
func decodeVerifyPair(obj map[string]json.RawMessage) (*metrics.VerifyPairOutput, error) {
	ref, err := decodeVerdicts(obj, "reference_verdicts")
	if err != nil {
		return nil, err
	}
	resp, err := decodeVerdicts(obj, "response_verdicts")
	if err != nil {
		return nil, err
	}
	return &metrics.VerifyPairOutput{ReferenceVerdicts: ref, ResponseVerdicts: resp}, nil
}

func decodeClaims(obj map[string]json.RawMessage) (*metrics.ClaimsOutput, error) {
	items, err := arrayField(obj, "claims", "")
	if err != nil {
		return nil, err
	}
	out := &metrics.ClaimsOutput{Claims: make([]string, 0, len(items))}
	for i, raw := range items {
		s, err := str(raw, fmt.Sprintf("claims[%d]", i))
		if err != nil {
			return nil, err
		}
		if s = strings.TrimSpace(s); s == "" {
			return nil, fmt.Errorf("claims[%d] is empty", i)
		}
		out.Claims = append(out.Claims, s)
	}
	return out, nil
}

func decodeAttribute(obj map[string]json.RawMessage) (*metrics.AttributeOutput, error) {
	items, err := arrayField(obj, "sentences", "")
	if err != nil {
		return nil, err
	}
	out := &metrics.AttributeOutput{Sentences: make([]metrics.SentenceVerdict, 0, len(items))}
	for i, raw := range items {
		where := fmt.Sprintf("sentences[%d]", i)
		v, err := object(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		var sv metrics.SentenceVerdict
		if sv.Sentence, err = strField(v, "sentence", where+"."); err != nil {
			return nil, err
		}
		if sv.Reason, err = strField(v, "reason", where+"."); err != nil {
			return nil, err
		}
		if sv.Attributed, err = bitField(v, "attributed", where+"."); err != nil {
			return nil, err
		}
		out.Sentences = append(out.Sentences, sv)
	}
	return out, nil
}

// decodeVerdicts reads the verdict list under key.
func decodeVerdicts(obj map[string]json.RawMessage, key string) ([]metrics.StatementVerdict, error) {
	items, err := arrayField(obj, key, "")
	if err != nil {
		return nil, err
	}
	out := make([]metrics.StatementVerdict, 0, len(items))
	for i, raw := range items {
		where := fmt.Sprintf("%s[%d]", key, i)
		v, err := object(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		var sv metrics.StatementVerdict
		if sv.Statement, err = strField(v, "statement", where+"."); err != nil {
			return nil, err
		}
		if sv.Reason, err = strField(v, "reason", where+"."); err != nil {
			return nil, err
		}
		if sv.Verdict, err = bitField(v, "verdict", where+"."); err != nil {
			return nil, err
		}
		out = append(out, sv)
	}
	return out, nil
}

func decodeUseful(obj map[string]json.RawMessage) (*metrics.UsefulOutput, error) {
	var (
		out metrics.UsefulOutput
		err error
	)
	if out.Reason, err = strField(obj, "reason", ""); err != nil {
		return nil, err
	}
	if out.Verdict, err = bitField(obj, "verdict", ""); err != nil {
		return nil, err
	}
	return &out, nil
}

// decodeRubric reads a rubric answer; its score must be one of the input's
// levels.
func decodeRubric(obj map[string]json.RawMessage, input any) (*metrics.RubricOutput, error) {
	var (
		out metrics.RubricOutput
		err error
	)
	if out.Reason, err = strField(obj, "reason", ""); err != nil {
		return nil, err
	}
	raw, err := member(obj, "score", "")
	if err != nil {
		return nil, err
	}
	var x float64
	if json.Unmarshal(raw, &x) != nil || x != float64(int(x)) {
		return nil, fmt.Errorf(`"score" is %s, want an integer`, kind(raw))
	}
	out.Score = int(x)
	in, _ := InputAs[metrics.RubricInput](input)
	scores := make([]string, len(in.Levels))
	for i, l := range in.Levels {
		if l.Score == out.Score {
			return &out, nil
		}
		scores[i] = strconv.Itoa(l.Score)
	}
	return nil, fmt.Errorf(`"score" is %d, which is not a level; want one of %s`, out.Score, strings.Join(scores, ", "))
}

func decodeQuestion(obj map[string]json.RawMessage) (*metrics.QuestionOutput, error) {
	var (
		out metrics.QuestionOutput
		err error
	)
	if out.Question, err = strField(obj, "question", ""); err != nil {
		return nil, err
	}
	if out.Question = strings.TrimSpace(out.Question); out.Question == "" {
		return nil, fmt.Errorf(`"question" is empty`)
	}
	if out.Noncommittal, err = bitField(obj, "noncommittal", ""); err != nil {
		return nil, err
	}
	return &out, nil
}

// matchStatements checks that the verdicts answer the input statements one
// by one and in order, and replaces the echoed statements with the inputs.
func matchStatements(in []string, out *metrics.VerifyOutput) error {
	if len(out.Verdicts) != len(in) {
		return fmt.Errorf("%d verdicts for %d statements: give exactly one verdict per input statement, in input order", len(out.Verdicts), len(in))
	}
	for i, s := range in {
		if foldStatement(out.Verdicts[i].Statement) != foldStatement(s) {
			return fmt.Errorf("verdicts[%d] is about %s but input statement %d is %s: keep the input order and copy each statement unchanged",
				i, quote(out.Verdicts[i].Statement), i, quote(s))
		}
		out.Verdicts[i].Statement = s
	}
	return nil
}

// MatchedPrefix returns how many verdicts, from the first, answer the
// statements one by one and in order (compared as Parse compares verify
// verdicts), and sets those verdicts' statements to the inputs. The
// evaluator keeps that prefix of a verify_pair list and re-asks only the
// statements after it.
func MatchedPrefix(stmts []string, vs []metrics.StatementVerdict) int {
	n := 0
	for n < len(stmts) && n < len(vs) && (vs[n].Statement == stmts[n] || foldStatement(vs[n].Statement) == foldStatement(stmts[n])) {
		vs[n].Statement = stmts[n]
		n++
	}
	return n
}

// foldStatement keeps only the letters and digits of s, lower-cased, so
// that statements differing in case, white space or punctuation compare
// equal.
func foldStatement(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// quote quotes s for an error message, shortened to about 80 characters.
func quote(s string) string {
	const max = 80
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "..."
	}
	return strconv.Quote(s)
}

// object decodes a JSON object into its members.
func object(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if kind(raw) != "an object" {
		return nil, fmt.Errorf("want an object, got %s", kind(raw))
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func member(obj map[string]json.RawMessage, key, prefix string) (json.RawMessage, error) {
	raw, ok := obj[key]
	if !ok {
		return nil, fmt.Errorf("missing key %q", prefix+key)
	}
	return raw, nil
}

func arrayField(obj map[string]json.RawMessage, key, prefix string) ([]json.RawMessage, error) {
	raw, err := member(obj, key, prefix)
	if err != nil {
		return nil, err
	}
	if k := kind(raw); k != "an array" {
		return nil, fmt.Errorf("%q must be an array, got %s", prefix+key, k)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	return items, nil
}

func strField(obj map[string]json.RawMessage, key, prefix string) (string, error) {
	raw, err := member(obj, key, prefix)
	if err != nil {
		return "", err
	}
	return str(raw, prefix+key)
}

func str(raw json.RawMessage, where string) (string, error) {
	if k := kind(raw); k != "a string" {
		return "", fmt.Errorf("%q must be a string, got %s", where, k)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// bitField reads a 0/1 integer member.
func bitField(obj map[string]json.RawMessage, key, prefix string) (int, error) {
	raw, err := member(obj, key, prefix)
	if err != nil {
		return 0, err
	}
	if k := kind(raw); k != "a number" {
		return 0, fmt.Errorf("%q must be the number 0 or 1, got %s", prefix+key, k)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	switch {
	case err == nil && f == 0:
		return 0, nil
	case err == nil && f == 1:
		return 1, nil
	}
	return 0, fmt.Errorf("%q must be 0 or 1, got %s", prefix+key, raw)
}

// kind names the JSON type of a (valid) raw value.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// Validate checks a typed answer to req by the rules Parse enforces (see
// Parse), so that judges that do not parse text, such as the offline judge
// or a test fake, can hold their answers to the same contract. The answer
// must set the field of req.Step, and the question step must have
// req.Count() questions. It returns an *InvalidOutputError or nil.
func Validate(req Request, a Answer) error {
	if err := checkInput(req.Step, req.Input); err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if req.Step == metrics.StepQuestion && len(a.Questions) != req.Count() {
		return invalid(req.Step, "%d questions, want %d", len(a.Questions), req.Count())
	}
	if req.Step == metrics.StepCritic && len(a.Critic) != req.Count() {
		return invalid(req.Step, "%d votes, want %d", len(a.Critic), req.Count())
	}
	outs := outputsOf(req.Step, a)
	if len(outs) == 0 {
		return invalid(req.Step, "the answer has no %s output", req.Step)
	}
	for _, o := range outs {
		raw, err := marshalJSON(o)
		if err != nil {
			return invalid(req.Step, "%v", err)
		}
		if _, err := decode(req, raw); err != nil {
			return err
		}
	}
	return nil
}

// outputsOf returns the output objects of step in a, as a judge would have
// sent them (nil lists as empty lists, not JSON null); none when a lacks
// the step's field.
func outputsOf(step metrics.Step, a Answer) []any {
	switch step {
	case metrics.StepStatements:
		if a.Statements != nil {
			return []any{metrics.StatementsOutput{Statements: nonNil(a.Statements.Statements)}}
		}
	case metrics.StepVerify:
		if a.Verify != nil {
			return []any{metrics.VerifyOutput{Verdicts: nonNil(a.Verify.Verdicts)}}
		}
	case metrics.StepUseful:
		if a.Useful != nil {
			return []any{a.Useful}
		}
	case metrics.StepQuestion:
		return anys(a.Questions)
	case metrics.StepClaims:
		if a.Claims != nil {
			return []any{metrics.ClaimsOutput{Claims: nonNil(a.Claims.Claims)}}
		}
	case metrics.StepAttribute:
		if a.Attribute != nil {
			return []any{metrics.AttributeOutput{Sentences: nonNil(a.Attribute.Sentences)}}
		}
	case metrics.StepCritic:
		return anys(a.Critic)
	case metrics.StepRubric:
		if a.Rubric != nil {
			return []any{a.Rubric}
		}
	case metrics.StepVerifyPair:
		if a.VerifyPair != nil {
			return []any{metrics.VerifyPairOutput{
				ReferenceVerdicts: nonNil(a.VerifyPair.ReferenceVerdicts),
				ResponseVerdicts:  nonNil(a.VerifyPair.ResponseVerdicts),
			}}
		}
	}
	return nil
}

// nonNil returns xs, or an empty list for nil (JSON [] rather than null).
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// anys returns the elements of xs as []any.
func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
