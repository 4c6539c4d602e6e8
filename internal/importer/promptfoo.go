package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// pfResult is one result of a promptfoo eval (EvaluateResult): one test
// case run with one prompt on one provider.
type pfResult struct {
	TestIdx       *int                       `json:"testIdx"`
	PromptIdx     *int                       `json:"promptIdx"`
	Provider      json.RawMessage            `json:"provider"`
	Prompt        json.RawMessage            `json:"prompt"`
	Vars          map[string]json.RawMessage `json:"vars"`
	Success       *bool                      `json:"success"`
	Score         *float64                   `json:"score"`
	NamedScores   pfNamed                    `json:"namedScores"`
	GradingResult *pfGrading                 `json:"gradingResult"`
	LatencyMs     *float64                   `json:"latencyMs"`
	Cost          *float64                   `json:"cost"`
	Error         *string                    `json:"error"`
	FailureReason *int                       `json:"failureReason"`
	Description   string                     `json:"description"`
	Response      *struct {
		Output json.RawMessage `json:"output"`
		Error  string          `json:"error"`
		Cost   *float64        `json:"cost"`
	} `json:"response"`
	TestCase *struct {
		Description string                     `json:"description"`
		Vars        map[string]json.RawMessage `json:"vars"`
		Metadata    map[string]json.RawMessage `json:"metadata"`
	} `json:"testCase"`
}

// pfNamed is promptfoo's namedScores object, its keys in the file's order:
// the metrics keep the order the evaluation gave them.
type pfNamed struct {
	keys []string
	vals map[string]*float64
}

func (n *pfNamed) UnmarshalJSON(b []byte) error {
	var vals map[string]*float64
	if err := json.Unmarshal(b, &vals); err != nil {
		return err
	}
	n.vals, n.keys = vals, nil
	if vals == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		if !seen[k] {
			seen[k] = true
			n.keys = append(n.keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

// add adds v to metric k's score, keeping k's first place.
func (n *pfNamed) add(k string, v float64) {
	if n.vals == nil {
		n.vals = map[string]*float64{}
	}
	if n.vals[k] == nil {
		n.vals[k] = new(float64)
		n.keys = append(n.keys, k)
	}
	*n.vals[k] += v
}

type pfGrading struct {
	Pass             *bool    `json:"pass"`
	Score            *float64 `json:"score"`
	Reason           string   `json:"reason"`
	NamedScores      pfNamed  `json:"namedScores"`
	ComponentResults []struct {
		Pass      bool     `json:"pass"`
		Score     *float64 `json:"score"`
		Reason    string   `json:"reason"`
		Assertion *struct {
			Type   string `json:"type"`
			Metric string `json:"metric"`
		} `json:"assertion"`
	} `json:"componentResults"`
}

// promptfoo's failureReason of a result whose provider call failed.
const pfErrorFailure = 2

// pfVarFields are the vars read as sample fields, by field, the first
// present winning; the other vars are metadata.
var pfVarFields = []struct {
	field metrics.Field
	names []string
}{
	{metrics.UserInput, []string{"user_input", "question", "query", "input"}},
	{metrics.RetrievedContexts, []string{"retrieved_contexts", "contexts", "context"}},
	{metrics.Reference, []string{"reference", "ground_truth", "expected_answer", "expected"}},
}

// readPromptfoo reads the JSON that promptfoo eval -o writes: the results
// under results.results (output files since evalId, format versions 2
// and 3), a top-level results array (older output files) or a bare array
// of results.
func readPromptfoo(name string, data []byte) (source, []record, error) {
	src := source{format: Promptfoo}
	var els []element
	var ok bool
	var err error
	for _, path := range [][]string{{"results", "results"}, {"results"}, {}} {
		if els, ok, err = arrayAt(data, path...); ok || err != nil {
			break
		}
	}
	if err != nil {
		return src, nil, asError(name, err)
	}
	if !ok {
		return src, nil, &Error{File: name, Msg: "no results: promptfoo's output holds them under results.results (or, in older versions, a top-level results array); was the file written by promptfoo eval -o out.json?"}
	}
	var meta struct {
		Metadata struct {
			PromptfooVersion string `json:"promptfooVersion"`
		} `json:"metadata"`
		Config struct {
			Description string `json:"description"`
			DefaultTest struct {
				Options struct {
					Provider json.RawMessage `json:"provider"`
				} `json:"options"`
			} `json:"defaultTest"`
		} `json:"config"`
	}
	_ = json.Unmarshal(data, &meta) // a bare array has none of it
	src.version = meta.Metadata.PromptfooVersion
	src.name = meta.Config.Description
	if id, _ := providerLabel(meta.Config.DefaultTest.Options.Provider); id != "" {
		src.models = []string{id}
	}
	rs := make([]pfResult, len(els))
	for i, el := range els {
		if err := json.Unmarshal(el.raw, &rs[i]); err != nil {
			return src, nil, asError(name, jsonError(data, el.off, err).prefix(fmt.Sprintf("results[%d]: ", i)))
		}
	}
	hasLatency, hasCost := false, false
	for i := range rs {
		hasLatency = hasLatency || rs[i].LatencyMs != nil
		hasCost = hasCost || rs[i].cost() != nil
	}
	if hasLatency {
		src.columns = append(src.columns, column{raw: "latency_ms", name: "latency_ms", direction: metrics.LowerIsBetter, reported: true,
			what: "promptfoo's latencyMs: the provider call's latency in ms"})
	}
	if hasCost {
		src.columns = append(src.columns, column{raw: "cost", name: "cost", direction: metrics.LowerIsBetter, reported: true,
			what: "promptfoo's cost: the provider call's cost"})
	}
	ids := pfIDs(rs)
	recs := make([]record, 0, len(rs))
	for i := range rs {
		recs = append(recs, pfRecord(&rs[i], els[i].line, i, ids, hasLatency, hasCost))
	}
	return src, recs, nil
}

func (r *pfResult) cost() *float64 {
	if r.Cost != nil {
		return r.Cost
	}
	if r.Response != nil {
		return r.Response.Cost
	}
	return nil
}

func (r *pfResult) vars() map[string]json.RawMessage {
	if len(r.Vars) > 0 {
		return r.Vars
	}
	if r.TestCase != nil {
		return r.TestCase.Vars
	}
	return nil
}

func (r *pfResult) description() string {
	if r.TestCase != nil && r.TestCase.Description != "" {
		return r.TestCase.Description
	}
	return r.Description
}

// providerLabel returns a provider's label (its id when it has none); the
// provider is a string or {id, label}.
func providerLabel(raw json.RawMessage) (label string, ok bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var p struct{ ID, Label string }
	if json.Unmarshal(raw, &p) == nil {
		if p.Label != "" {
			return p.Label, true
		}
		return p.ID, p.ID != ""
	}
	return "", false
}

// promptLabel returns a prompt's label: its label (display in older
// versions), else its raw text; "prompt N" when that is long.
func promptLabel(raw json.RawMessage, idx *int) string {
	var p struct{ Label, Display, Raw string }
	if json.Unmarshal(raw, &p) != nil {
		_ = json.Unmarshal(raw, &p.Raw)
	}
	l := p.Label
	if l == "" {
		l = p.Display
	}
	if l == "" {
		l = p.Raw
	}
	l = strings.Join(strings.Fields(l), " ")
	if l == "" || len([]rune(l)) > 60 {
		if idx != nil {
			return fmt.Sprintf("prompt %d", *idx+1)
		}
	}
	return l
}

// pfKey identifies the test of a result: its testIdx, else its vars.
func pfKey(r *pfResult) string {
	if r.TestIdx != nil {
		return strconv.Itoa(*r.TestIdx)
	}
	b, _ := json.Marshal(r.vars())
	return "vars:" + string(b)
}

// pfIDs gives each result its sample id: the test's id, and the prompt
// and provider where the file has several of them. The test's id is its
// description when every test has a distinct one, else the id derived
// from its question var when every test has a distinct one (as golden
// datasets derive it), else a hash of its vars.
func pfIDs(rs []pfResult) []string {
	type test struct {
		desc, question, vars string
	}
	tests := map[string]*test{}
	for i := range rs {
		k := pfKey(&rs[i])
		if tests[k] != nil {
			continue
		}
		vb, _ := json.Marshal(rs[i].vars())
		t := &test{desc: rs[i].description(), vars: string(vb)}
		if q, ok := varText(rs[i].vars(), pfVarFields[0].names); ok {
			t.question = q
		}
		tests[k] = t
	}
	distinct := func(get func(*test) string) bool {
		seen := map[string]bool{}
		for _, t := range tests {
			v := get(t)
			if v == "" || seen[v] {
				return false
			}
			seen[v] = true
		}
		return true
	}
	byDesc := distinct(func(t *test) string { return t.desc })
	byQuestion := !byDesc && distinct(func(t *test) string { return t.question })
	prompts, providers := map[string]bool{}, map[string]bool{}
	for i := range rs {
		prompts[promptLabel(rs[i].Prompt, rs[i].PromptIdx)] = true
		p, _ := providerLabel(rs[i].Provider)
		providers[p] = true
	}
	ids := make([]string, len(rs))
	for i := range rs {
		t := tests[pfKey(&rs[i])]
		var id string
		switch {
		case byDesc:
			id = t.desc
		case byQuestion:
			id = deriveID(t.question)
		default:
			sum := sha256.Sum256([]byte(t.vars))
			id = "t-" + hex.EncodeToString(sum[:6])
		}
		var parts []string
		if len(prompts) > 1 {
			parts = append(parts, promptLabel(rs[i].Prompt, rs[i].PromptIdx))
		}
		if len(providers) > 1 {
			p, _ := providerLabel(rs[i].Provider)
			parts = append(parts, p)
		}
		if len(parts) > 0 {
			id += " [" + strings.Join(parts, " | ") + "]"
		}
		ids[i] = id
	}
	return ids
}

// varText returns the first of names present in vars, as text.
func varText(vars map[string]json.RawMessage, names []string) (string, bool) {
	for _, n := range names {
		if raw, ok := vars[n]; ok {
			return rawText(raw), true
		}
	}
	return "", false
}

// rawText returns a JSON value as text: a string as it is, anything else
// as its JSON.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

func pfRecord(r *pfResult, line, i int, ids []string, hasLatency, hasCost bool) record {
	rec := record{line: line, where: fmt.Sprintf("results[%d]", i), id: ids[i],
		idWhy: "ids are the test's description (or its question var, or a hash of its vars) with the prompt and provider when the file has several; promptfoo's repeat option writes a test more than once, and raggate pairs one score per sample"}
	s := &rec.sample
	s.Present = map[metrics.Field]bool{}
	vars := r.vars()
	used := map[string]bool{}
	for _, vf := range pfVarFields {
		for _, n := range vf.names {
			raw, ok := vars[n]
			if !ok {
				continue
			}
			used[n] = true
			if vf.field.IsList() {
				var items []string
				if json.Unmarshal(raw, &items) != nil {
					items = []string{rawText(raw)}
				}
				s.SetList(vf.field, items)
			} else {
				s.Set(vf.field, rawText(raw))
			}
			break
		}
	}
	if r.Response != nil && len(r.Response.Output) > 0 && string(r.Response.Output) != "null" {
		s.Set(metrics.Response, rawText(r.Response.Output))
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		if !used[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if s.Metadata == nil {
			s.Metadata = map[string]string{}
		}
		s.Metadata[k] = rawText(vars[k])
	}
	if r.TestCase != nil {
		for k, v := range r.TestCase.Metadata {
			if strings.HasPrefix(k, "_") {
				continue // promptfoo's own (_promptfooFileMetadata)
			}
			if s.Metadata == nil {
				s.Metadata = map[string]string{}
			}
			if _, clash := s.Metadata[k]; !clash {
				s.Metadata[k] = rawText(v)
			}
		}
	}
	if p, ok := providerLabel(r.Provider); ok {
		if s.Metadata == nil {
			s.Metadata = map[string]string{}
		}
		if _, clash := s.Metadata["provider"]; !clash {
			s.Metadata["provider"] = p
		}
	}
	if r.failed() {
		msg := "the provider call failed"
		if e := r.errorText(); e != "" {
			msg += ": " + e
		}
		rec.target = msg
	}
	reason := ""
	if r.GradingResult != nil && !r.passed() {
		reason = r.GradingResult.Reason
	}
	named := r.NamedScores
	if len(named.vals) == 0 && r.GradingResult != nil {
		named = r.GradingResult.NamedScores
	}
	if len(named.vals) == 0 && r.GradingResult != nil {
		named = pfNamed{}
		n := map[string]int{}
		for _, c := range r.GradingResult.ComponentResults {
			if c.Assertion == nil || c.Assertion.Metric == "" || c.Score == nil {
				continue
			}
			named.add(c.Assertion.Metric, *c.Score)
			n[c.Assertion.Metric]++
		}
		for m, k := range n {
			*named.vals[m] /= float64(k)
		}
	}
	for _, k := range named.keys {
		rec.scores = append(rec.scores, pfScore(k, named.vals[k], r.componentReason(k)))
	}
	sc := r.Score
	if sc == nil && r.GradingResult != nil {
		sc = r.GradingResult.Score
	}
	rec.scores = append(rec.scores, pfScore("score", sc, reason))
	var pass *float64
	if r.Success != nil || (r.GradingResult != nil && r.GradingResult.Pass != nil) {
		v := 0.0
		if r.passed() {
			v = 1
		}
		pass = &v
	}
	rec.scores = append(rec.scores, pfScore("pass", pass, reason))
	// A result that records no latency or cost was not measured: not
	// applicable, never the evaluator failing.
	if hasLatency && r.LatencyMs != nil {
		rec.scores = append(rec.scores, pfScore("latency_ms", r.LatencyMs, ""))
	}
	if hasCost && r.cost() != nil {
		rec.scores = append(rec.scores, pfScore("cost", r.cost(), ""))
	}
	return rec
}

func pfScore(metric string, v *float64, reason string) score {
	if v == nil {
		return score{metric: metric, v: math.NaN(), reason: "the promptfoo result has no " + metric, kind: "judge"}
	}
	return score{metric: metric, v: *v, reason: reason}
}

func (r *pfResult) passed() bool {
	if r.Success != nil {
		return *r.Success
	}
	return r.GradingResult != nil && r.GradingResult.Pass != nil && *r.GradingResult.Pass
}

// failed reports whether the provider call failed (nothing was graded):
// failureReason 2, or, in versions without it, a response error.
func (r *pfResult) failed() bool {
	if r.FailureReason != nil {
		return *r.FailureReason == pfErrorFailure
	}
	if r.Response != nil && r.Response.Error != "" {
		return true
	}
	return r.Error != nil && *r.Error != "" && r.GradingResult == nil
}

func (r *pfResult) errorText() string {
	if r.Response != nil && r.Response.Error != "" {
		return r.Response.Error
	}
	if r.Error != nil {
		return *r.Error
	}
	return ""
}

// componentReason is the reason of the failing assertions of a named
// metric.
func (r *pfResult) componentReason(metric string) string {
	if r.GradingResult == nil {
		return ""
	}
	var rs []string
	for _, c := range r.GradingResult.ComponentResults {
		if c.Assertion != nil && c.Assertion.Metric == metric && !c.Pass && c.Reason != "" {
			rs = append(rs, c.Reason)
		}
	}
	return strings.Join(rs, "; ")
}
