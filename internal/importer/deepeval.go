package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// deCase is a DeepEval test case of a test run (LLMApiTestCase; the
// conversational ones have turns instead of input and output). Both the
// camelCase names of the saved test run and the snake_case ones of the
// Python objects are read.
type deCase struct {
	Name                string                     `json:"name"`
	Input               *string                    `json:"input"`
	ActualOutput        *string                    `json:"actualOutput"`
	ActualOutputSnake   *string                    `json:"actual_output"`
	ExpectedOutput      *string                    `json:"expectedOutput"`
	ExpectedOutputSnake *string                    `json:"expected_output"`
	RetrievalContext    []string                   `json:"retrievalContext"`
	RetrievalSnake      []string                   `json:"retrieval_context"`
	Context             []string                   `json:"context"`
	MetricsData         []deMetric                 `json:"metricsData"`
	MetricsDataSnake    []deMetric                 `json:"metrics_data"`
	AdditionalMetadata  map[string]json.RawMessage `json:"additionalMetadata"`
	AdditionalSnake     map[string]json.RawMessage `json:"additional_metadata"`
	Turns               []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
		Input   string `json:"input"`
	} `json:"turns"`
}

type deMetric struct {
	Name            string   `json:"name"`
	Score           *float64 `json:"score"`
	Threshold       *float64 `json:"threshold"`
	Success         *bool    `json:"success"`
	Reason          string   `json:"reason"`
	EvaluationModel string   `json:"evaluationModel"`
	ModelSnake      string   `json:"evaluation_model"`
	Error           string   `json:"error"`
}

// autoName matches the names DeepEval gives test cases that have none:
// their position, which changes when the dataset does.
var autoName = regexp.MustCompile(`^test_case_\d+$`)

// readDeepEval reads a DeepEval test run: the file deepeval test run saves
// (.deepeval/.latest_test_run.json, {"testRunData": {...}}), a test run
// saved under DEEPEVAL_RESULTS_FOLDER ({"testCases": [...]}), its
// snake_case form, or a bare array of test cases.
func readDeepEval(name string, data []byte) (source, []record, error) {
	src := source{format: DeepEval}
	type list struct {
		els  []element
		path string
	}
	var found []list
	for _, path := range [][]string{
		{"testRunData", "testCases"}, {"testRunData", "conversationalTestCases"},
		{"testCases"}, {"conversationalTestCases"}, {"test_cases"}, {"conversational_test_cases"},
		{"testRun", "testCases"}, {"test_run", "test_cases"}, {},
	} {
		els, ok, err := arrayAt(data, path...)
		if err != nil {
			return src, nil, asError(name, err)
		}
		if ok {
			found = append(found, list{els, strings.Join(path, ".")})
		}
	}
	var cases []deCase
	var lines []int
	var wheres []string
	for _, l := range found {
		for i, el := range l.els {
			var c deCase
			if err := json.Unmarshal(el.raw, &c); err != nil {
				return src, nil, asError(name, jsonError(data, el.off, err).prefix(fmt.Sprintf("%s[%d]: ", l.path, i)))
			}
			cases = append(cases, c)
			lines = append(lines, el.line)
			where := l.path
			if where == "" {
				where = "test cases"
			}
			wheres = append(wheres, fmt.Sprintf("%s[%d]", where, i))
		}
	}
	if len(found) == 0 {
		return src, nil, &Error{File: name, Msg: "no test cases: a DeepEval test run holds them under testCases (or testRunData.testCases, as .deepeval/.latest_test_run.json); was the file saved by deepeval test run?"}
	}
	var run struct {
		TestRunData struct {
			Identifier string `json:"identifier"`
			TestFile   string `json:"testFile"`
		} `json:"testRunData"`
		Identifier string `json:"identifier"`
		TestFile   string `json:"testFile"`
	}
	_ = json.Unmarshal(data, &run)
	for _, n := range []string{run.TestRunData.Identifier, run.Identifier, run.TestRunData.TestFile, run.TestFile} {
		if n != "" {
			src.name = n
			break
		}
	}
	useNames, warning, err := deNames(cases, lines, wheres)
	if err != nil {
		return src, nil, asError(name, err)
	}
	if warning != "" {
		src.warnings = append(src.warnings, warning)
	}
	models := map[string]bool{}
	recs := make([]record, 0, len(cases))
	for i := range cases {
		rec, err := deRecord(&cases[i], lines[i], wheres[i], useNames, models)
		if err != nil {
			return src, nil, asError(name, err)
		}
		recs = append(recs, rec)
	}
	for m := range models {
		src.models = append(src.models, m)
	}
	sort.Strings(src.models)
	return src, recs, nil
}

// deNames decides whether the test cases' names are their ids: when
// every test case has a name of its own (DeepEval's test_case_N are
// positions, not names). A name given twice is an error naming both test
// cases: taking the ids from the inputs instead would unpair the file
// from a baseline whose ids are the names. When only some test cases
// have names, the ids come from the inputs, and warning says so.
func deNames(cases []deCase, lines []int, wheres []string) (bool, string, error) {
	seen := map[string]int{}
	var unnamed []string
	for i := range cases {
		n := cases[i].Name
		if n == "" || autoName.MatchString(n) {
			if n == "" {
				n = "no name"
			}
			unnamed = append(unnamed, fmt.Sprintf("%s (%s)", wheres[i], n))
			continue
		}
		if j, dup := seen[n]; dup {
			return false, "", lineErr{line: lines[i], msg: fmt.Sprintf("%s has the same name %q as %s (line %d); the names are the samples' ids, which pair them with the baseline: give each test case a distinct name (LLMTestCase(name=...)), or remove the duplicate",
				wheres[i], n, wheres[j], lines[j])}
		}
		seen[n] = i
	}
	switch {
	case len(unnamed) == 0:
		return true, "", nil
	case len(seen) == 0:
		return false, "", nil
	}
	more := ""
	if len(unnamed) > 3 {
		more = fmt.Sprintf(" and %d more", len(unnamed)-3)
		unnamed = unnamed[:3]
	}
	return false, fmt.Sprintf("%d of %d test cases have names, but %s%s have none of their own, so every id is derived from the input instead of the name; name every test case (LLMTestCase(name=...)) to pair by names",
		len(seen), len(cases), strings.Join(unnamed, ", "), more), nil
}

func first[T any](ps ...*T) *T {
	for _, p := range ps {
		if p != nil {
			return p
		}
	}
	return nil
}

func deRecord(c *deCase, line int, where string, useNames bool, models map[string]bool) (record, error) {
	rec := record{line: line, where: where}
	s := &rec.sample
	s.Present = map[metrics.Field]bool{}
	input := c.Input
	if input == nil && len(c.Turns) > 0 {
		// A conversation: its first user turn stands for the question.
		for _, t := range c.Turns {
			if t.Role == "user" || t.Input != "" {
				q := t.Content
				if q == "" {
					q = t.Input
				}
				input = &q
				break
			}
		}
	}
	if input != nil {
		s.Set(metrics.UserInput, *input)
	}
	if out := first(c.ActualOutput, c.ActualOutputSnake); out != nil {
		s.Set(metrics.Response, *out)
	}
	if exp := first(c.ExpectedOutput, c.ExpectedOutputSnake); exp != nil {
		s.Set(metrics.Reference, *exp)
	}
	if rc := c.RetrievalContext; rc != nil {
		s.SetList(metrics.RetrievedContexts, rc)
	} else if c.RetrievalSnake != nil {
		s.SetList(metrics.RetrievedContexts, c.RetrievalSnake)
	}
	if c.Context != nil {
		s.SetList(metrics.ReferenceContexts, c.Context)
	}
	md := c.AdditionalMetadata
	if md == nil {
		md = c.AdditionalSnake
	}
	for k, v := range md {
		if s.Metadata == nil {
			s.Metadata = map[string]string{}
		}
		s.Metadata[k] = rawText(v)
	}
	switch {
	case useNames:
		rec.id = c.Name
		rec.idWhy = "ids are the test cases' names"
	case input != nil && strings.TrimSpace(*input) != "":
		rec.id = deriveID(*input)
		rec.idWhy = "the test cases' names are not all given and distinct (DeepEval's test_case_N are positions), so ids are derived from the input, and the same input twice is one id"
	default:
		return rec, lineErr{line: line, msg: fmt.Sprintf("%s has neither a name nor an input to take its id from; give each test case a distinct name", where)}
	}
	ms := c.MetricsData
	if ms == nil {
		ms = c.MetricsDataSnake
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if m.Name == "" {
			return rec, lineErr{line: line, msg: fmt.Sprintf("%s has a metricsData entry without a name", where)}
		}
		if seen[m.Name] {
			return rec, lineErr{line: line, msg: fmt.Sprintf("%s has two metrics named %q: raggate keeps one score per metric and sample, and would lose one of them; give each metric of a test case its own name (GEval(name=...))", where, m.Name)}
		}
		seen[m.Name] = true
		model := m.EvaluationModel
		if model == "" {
			model = m.ModelSnake
		}
		if model != "" {
			models[model] = true
		}
		sc := score{metric: m.Name}
		switch {
		case m.Score == nil || m.Error != "":
			sc.v = math.NaN()
			sc.reason = "DeepEval has no score"
			if m.Error != "" {
				sc.reason += ": " + m.Error
			}
		default:
			sc.v = *m.Score
			if m.Success != nil && !*m.Success {
				sc.reason = m.Reason
			}
		}
		rec.scores = append(rec.scores, sc)
	}
	return rec, nil
}
