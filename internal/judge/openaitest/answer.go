package openaitest

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// inputMarker precedes the step input in a rendered prompt (see
// judge.Render): "Input:\n{...}\n\n".
const inputMarker = "Input:\n"

// findInput returns the input JSON object embedded in the first user
// message that has one (later user messages are re-asks).
func findInput(messages []message) (map[string]json.RawMessage, bool) {
	for _, m := range messages {
		if m.Role != "user" {
			continue
		}
		i := strings.LastIndex(m.Content, "\n"+inputMarker)
		if i < 0 {
			if !strings.HasPrefix(m.Content, inputMarker) {
				continue
			}
		} else {
			i++
		}
		dec := json.NewDecoder(strings.NewReader(m.Content[i+len(inputMarker):]))
		var obj map[string]json.RawMessage
		if err := dec.Decode(&obj); err == nil {
			return obj, true
		}
	}
	return nil, false
}

// stepOf infers the step from the input's keys.
func stepOf(in map[string]json.RawMessage) string {
	has := func(k string) bool { _, ok := in[k]; return ok }
	switch {
	case has("criterion") && has("levels"):
		return "rubric"
	case has("criterion"):
		return "critic"
	case has("reference_statements"):
		return "verify_pair"
	case has("statements") && has("evidence"):
		return "verify"
	case has("context") && has("reference"):
		return "attribute"
	case has("text") && has("atomicity"):
		return "claims"
	case has("context") && has("answer"):
		return "useful"
	case has("text"):
		return "statements"
	case has("response"):
		return "question"
	}
	return ""
}

func str(in map[string]json.RawMessage, k string) string {
	var s string
	_ = json.Unmarshal(in[k], &s)
	return s
}

// answer returns the content a careful judge would give for the step.
func answer(step string, in map[string]json.RawMessage) string {
	switch step {
	case "statements":
		return mustJSON(map[string]any{"statements": Sentences(str(in, "text"))})
	case "verify":
		return mustJSON(map[string]any{"verdicts": verdicts(in, "statements")})
	case "verify_pair":
		return mustJSON(map[string]any{
			"reference_verdicts": verdicts(in, "reference_statements"),
			"response_verdicts":  verdicts(in, "response_statements"),
		})
	case "claims":
		return mustJSON(map[string]any{"claims": Claims(str(in, "text"), str(in, "atomicity") == "high")})
	case "attribute":
		ctx := str(in, "context")
		out := []map[string]any{}
		for _, s := range Sentences(str(in, "reference")) {
			v, reason := 0, "The context does not contain this."
			if Supported(s, ctx) {
				v, reason = 1, "The context contains this."
			}
			out = append(out, map[string]any{"sentence": s, "reason": reason, "attributed": v})
		}
		return mustJSON(map[string]any{"sentences": out})
	case "useful":
		return mustJSON(map[string]any{"reason": "The context helps to arrive at the answer.", "verdict": 1})
	case "critic":
		return criticAnswer(in, 0)
	case "rubric":
		return rubricAnswer(in)
	case "question":
		r := str(in, "response")
		nonc := 0
		low := strings.ToLower(r)
		for _, p := range []string{"i don't know", "i do not know", "not sure", "it depends", "cannot answer"} {
			if strings.Contains(low, p) {
				nonc = 1
			}
		}
		q := strings.TrimRight(strings.TrimSpace(r), ".!?") + "?"
		return mustJSON(map[string]any{"question": q, "noncommittal": nonc})
	}
	return "{}"
}

// verdicts are the fake's verdicts on the statement list under key against
// the input's evidence.
func verdicts(in map[string]json.RawMessage, key string) []map[string]any {
	var stmts []string
	_ = json.Unmarshal(in[key], &stmts)
	ev := str(in, "evidence")
	out := make([]map[string]any, 0, len(stmts))
	for _, s := range stmts {
		v, reason := 0, "The evidence does not state this."
		if Supported(s, ev) {
			v, reason = 1, "The evidence states this."
		}
		out = append(out, map[string]any{"statement": s, "reason": reason, "verdict": v})
	}
	return out
}

// Claims is the fake's claims step: the Sentences of text with their
// period (so that, as with a real judge, they differ from the statements),
// each further split at ", " and " and " when atomic (atomicity high).
func Claims(text string, atomic bool) []string {
	out := []string{}
	for _, s := range Sentences(text) {
		if !atomic {
			out = append(out, s+".")
			continue
		}
		for _, part := range strings.Split(strings.ReplaceAll(s, " and ", ", "), ", ") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part+".")
			}
		}
	}
	return out
}

// Sentences splits text into the statements the fake returns: on ". ",
// trimmed, without the final period, empty pieces dropped.
func Sentences(text string) []string {
	out := []string{}
	for _, s := range strings.Split(text, ". ") {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "."))
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Supported is the fake's verdict: at least 60% of the statement's words
// (letters and digits, case folded) occur in the evidence.
func Supported(statement, evidence string) bool {
	words := fields(statement)
	if len(words) == 0 {
		return false
	}
	ev := map[string]bool{}
	for _, w := range fields(evidence) {
		ev[w] = true
	}
	n := 0
	for _, w := range words {
		if ev[w] {
			n++
		}
	}
	return float64(n) >= 0.6*float64(len(words))
}

func fields(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Vector is the fake's embedding of text: a bag of hashed words in dim
// dimensions, unit length (all zeros for a text without words).
// Deterministic, and texts sharing words are similar.
func Vector(text string, dim int) []float64 {
	v := make([]float64, dim)
	for _, w := range fields(text) {
		h := fnv.New64a()
		h.Write([]byte(w))
		x := h.Sum64()
		sign := 1.0
		if x&1 == 1 {
			sign = -1
		}
		v[int((x>>1)%uint64(dim))] += sign
	}
	var n float64
	for _, x := range v {
		n += x * x
	}
	if n > 0 {
		n = math.Sqrt(n)
		for i := range v {
			v[i] /= n
		}
	}
	return v
}

func mustJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// sampleOf returns the sample object of a critic or rubric input.
func sampleOf(in map[string]json.RawMessage) map[string]any {
	var s map[string]any
	_ = json.Unmarshal(in["sample"], &s)
	return s
}

// criticAnswer is the fake's vote i on a criterion: taken from the
// sample's fake_votes column ("1,0,1") when it has one, else 1 when the
// response contains the criterion's first double-quoted phrase (or the
// criterion has none).
func criticAnswer(in map[string]json.RawMessage, i int) string {
	s := sampleOf(in)
	if votes, ok := s["fake_votes"].(string); ok {
		vs := strings.Split(votes, ",")
		v := strings.TrimSpace(vs[i%len(vs)])
		return mustJSON(map[string]any{"reason": "vote " + v + " from fake_votes.", "verdict": map[string]int{"1": 1}[v]})
	}
	v, reason := 1, "The response meets the criterion."
	if parts := strings.Split(str(in, "criterion"), `"`); len(parts) >= 3 {
		resp, _ := s["response"].(string)
		if !strings.Contains(strings.ToLower(resp), strings.ToLower(parts[1])) {
			v, reason = 0, "The response does not contain "+strconv.Quote(parts[1])+"."
		}
	}
	return mustJSON(map[string]any{"reason": reason, "verdict": v})
}

// rubricAnswer is the fake's level: the sample's fake_level column when it
// has one, else the highest level.
func rubricAnswer(in map[string]json.RawMessage) string {
	var levels []struct {
		Score int `json:"score"`
	}
	_ = json.Unmarshal(in["levels"], &levels)
	level := 0
	for _, l := range levels {
		level = max(level, l.Score)
	}
	if s, ok := sampleOf(in)["fake_level"].(string); ok {
		level, _ = strconv.Atoi(s)
	}
	return mustJSON(map[string]any{"reason": "The level that fits.", "score": level})
}
