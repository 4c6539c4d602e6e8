package importer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// pfSubset is a promptfoo output of n tests where only the tests with
// i%3 == 0 ask for Faithfulness; test 1's Faithfulness score is null (asked
// for, not scored).
func pfSubset(n int) string {
	var rs []string
	for i := 0; i < n; i++ {
		named := fmt.Sprintf(`"relevance": 0.%d`, 5+i%4)
		switch {
		case i%3 == 0:
			named += fmt.Sprintf(`, "Faithfulness": 0.%d`, 6+i%3)
		case i == 1:
			named += `, "Faithfulness": null`
		}
		rs = append(rs, fmt.Sprintf(`{"testIdx": %d, "promptIdx": 0, "provider": "openai:gpt-4o", "vars": {"question": "q%d"},
 "testCase": {"description": "case %d"}, "success": true, "score": 0.7, "namedScores": {%s}, "latencyMs": 100}`, i, i, i, named))
	}
	return `{"evalId": "e", "results": {"version": 3, "results": [` + strings.Join(rs, ",\n") + `]}}`
}

// A metric only some tests ask for is not applicable to the others
// (kind data: never against --max-undefined, on neither side of a
// comparison); one asked for and not scored stays the evaluator's failure.
func TestReview2MetricNotAsked(t *testing.T) {
	f := readString(t, "pf.json", pfSubset(12))
	if msg := f.TooManyUndefined(0.5); msg != "" {
		t.Errorf("Faithfulness on 4 of 12 tests counts against --max-undefined: %s", msg)
	}
	byID := map[string]*results.Sample{}
	for i := range f.Samples {
		byID[f.Samples[i].ID] = &f.Samples[i]
	}
	if k := byID["case 2"].KindOf("faithfulness"); k != results.KindData {
		t.Errorf("test not asking for Faithfulness: kind %q, want data", k)
	}
	if r := byID["case 2"].Undefined["faithfulness"]; !strings.Contains(r, "not applicable") {
		t.Errorf("reason %q does not say not applicable", r)
	}
	if k := byID["case 1"].KindOf("faithfulness"); k != results.KindJudge {
		t.Errorf("Faithfulness asked for, null: kind %q, want judge", k)
	}

	// DeepEval: a metric only the conversational case has.
	var cases []string
	for i := 0; i < 6; i++ {
		cases = append(cases, fmt.Sprintf(`{"name": "c%d", "input": "q%d", "actualOutput": "a", "metricsData": [{"name": "Faithfulness", "score": 0.9, "success": true}, {"name": "Answer Relevancy", "score": null, "error": "timeout"}]}`, i, i))
	}
	cases = append(cases, `{"name": "conv", "turns": [{"role": "user", "content": "hi"}], "metricsData": [{"name": "Knowledge Retention", "score": 1, "success": true}]}`)
	d := readString(t, "de.json", `{"testRunData": {"testCases": [`+strings.Join(cases, ",\n")+`]}}`)
	for i := range d.Samples {
		s := &d.Samples[i]
		if s.ID == "conv" {
			if k := s.KindOf("faithfulness"); k != results.KindData {
				t.Errorf("conversational case: faithfulness kind %q, want data", k)
			}
			continue
		}
		if k := s.KindOf("knowledge_retention"); k != results.KindData {
			t.Errorf("%s: knowledge_retention kind %q, want data", s.ID, k)
		}
		if k := s.KindOf("answer_relevancy"); k != results.KindJudge {
			t.Errorf("%s: errored answer_relevancy kind %q, want judge", s.ID, k)
		}
	}
	if msg := d.TooManyUndefined(0.5); !strings.Contains(msg, "answer_relevancy") || strings.Contains(msg, "knowledge_retention") || strings.Contains(msg, "faithfulness") {
		t.Errorf("TooManyUndefined = %q, want answer_relevancy alone", msg)
	}
}

// A DeepEval test case with two metrics of one name (two GEval metrics
// both "Correctness") is an error naming the case, its line and the
// metric, not one score silently kept.
func TestReview2DeepEvalMetricTwice(t *testing.T) {
	err := readErr(t, "de.json", `{"testRunData": {"testCases": [
{"name": "a", "input": "q1", "metricsData": [{"name": "Correctness [GEval]", "score": 0.9}]},
{"name": "b", "input": "q2", "metricsData": [{"name": "Correctness [GEval]", "score": 0.9}, {"name": "Correctness [GEval]", "score": 0.1}]}
]}}`, Options{})
	if err == nil {
		t.Fatal("a metric named twice in one test case is read")
	}
	for _, want := range []string{"de.json:3:", "testCases[1]", `"Correctness [GEval]"`, "GEval(name=...)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// JSON errors are worded for users, at file:line:column, never Go's
// texts.
func TestReview2JSONMessages(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"trailing comma", "t.jsonl", []string{"t.jsonl:1:32:", "comma before '}'"}},
		{"missing comma", "t.json", []string{"t.json:2:13:", "is a comma missing?"}},
		{"cut short", "t.jsonl", []string{"t.jsonl:2:", "cut short"}},
		{"bad word", "pf.json", []string{"pf.json:2:", "not true, false or null"}},
		{"text score", "de.json", []string{"de.json:2:", `"score" (in metricsData) is text ("high") where a number is expected`}},
	} {
		content := map[string]string{
			"trailing comma": `{"id": "a", "helpfulness": 4.5,}` + "\n",
			"missing comma":  "[{\"id\": \"a\", \"helpfulness\": 4.5},\n {\"id\": \"b\" \"helpfulness\": 1}]",
			"cut short":      "{\"id\": \"a\", \"h\": 4.5}\n{\"id\": \"b\", \"h\": 4.5\n",
			"bad word":       "{\"evalId\": \"x\", \"results\": {\"version\": 3, \"results\": [\n{\"promptIdx\": 0, \"testIdx\": 0, \"score\": tru }]}}",
			"text score":     "{\"testRunData\": {\"testCases\": [\n{\"input\": \"a\", \"metricsData\": [{\"name\": \"Faithfulness\", \"score\": \"high\"}]}]}}",
		}[tc.name]
		err := readErr(t, tc.file, content, Options{})
		if err == nil {
			t.Errorf("%s: read", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, w)
			}
		}
		for _, goText := range []string{"invalid character", "looking for beginning", "unexpected end of JSON input", "float64", "JSON string"} {
			if strings.Contains(err.Error(), goText) {
				t.Errorf("%s: error %q holds Go's %q", tc.name, err, goText)
			}
		}
	}
}

// Data after the JSON value (a run followed by garbage, two outputs in one
// file) is refused, not ignored.
func TestReview2TrailingData(t *testing.T) {
	run := `{"testRunData": {"testCases": [{"input": "a", "metricsData": [{"name": "Faithfulness", "score": 0.5}]}]}}`
	for name, content := range map[string]string{
		"de.json":      run + " garbage",
		"de2.json":     run + "\n" + run,
		"pf.json":      `{"evalId": "e", "results": {"version": 3, "results": [{"testIdx": 0, "promptIdx": 0, "score": 1, "success": true}]}}]`,
		"records.json": `[{"id": "a", "h": 1}] [{"id": "b", "h": 2}]`,
	} {
		err := readErr(t, name, content, Options{})
		if err == nil || !strings.Contains(err.Error(), "more data after the JSON value") {
			t.Errorf("%s: error %v, want one about data after the JSON value", name, err)
		}
	}
}

// latency and cost columns are lower-is-better and report-only in every
// format, as promptfoo's are.
func TestReview2MeasuredNames(t *testing.T) {
	f := readString(t, "t.csv", "id,helpfulness,latency_ms,Cost\na,4,812,0.01\nb,3,900,0.02\n")
	for _, name := range []string{"latency_ms", "cost"} {
		m, ok := f.Metric(name)
		if !ok || m.User == nil {
			t.Fatalf("%s is not a user metric", name)
		}
		if m.Direction != metrics.LowerIsBetter || !m.User.Reported {
			t.Errorf("%s: direction %v reported %v, want lower-is-better report-only", name, m.Direction, m.User.Reported)
		}
	}
	if m, _ := f.Metric("helpfulness"); m.Direction != metrics.HigherIsBetter || m.User.Reported {
		t.Errorf("helpfulness: direction %v reported %v", m.Direction, m.User.Reported)
	}
}

// Small things of the review: the id column in any case; the pandas index
// beside the row number; the duplicate's advice said once; a forced
// format names the one the file looks like; metrics in the file's order.
func TestReview2Small(t *testing.T) {
	f := readString(t, "caps.csv", "ID,Helpfulness Score,Notes\nA,0.5,x\nB,0.7,y\n")
	if f.Samples[0].ID != "A" || f.Samples[1].ID != "B" {
		t.Errorf("ids %q %q, want A B from the ID column", f.Samples[0].ID, f.Samples[1].ID)
	}

	err := readErr(t, "r.csv", ",user_input,faithfulness\n0,q1,0.5\n1,q2,0.5\n2,q1,0.6\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "row 3 (pandas index 2)") || !strings.Contains(err.Error(), "row 1 (pandas index 0)") {
		t.Errorf("error %v does not give the pandas index", err)
	} else if strings.Count(strings.ToLower(err.Error()), "add an id column") != 1 {
		t.Errorf("error %q repeats its advice", err)
	}

	err = readErr(t, "pf.json", pfSubset(3), Options{Format: Table})
	if err == nil || !strings.Contains(err.Error(), "looks like promptfoo output") || strings.Contains(err.Error(), "is this pandas") {
		t.Errorf("forced table on promptfoo: %v", err)
	}

	f = readString(t, "order.csv", "id,zeta,faithfulness,alpha\na,1,0.5,2\n")
	if got := strings.Join(f.Config.Metrics, ","); got != "zeta,faithfulness,alpha" {
		t.Errorf("metrics %s, want the file's order zeta,faithfulness,alpha", got)
	}
}

// recordsJSON is a pandas to_json(orient="records") export of n rows of
// long texts.
func recordsJSON(n int) []byte {
	var b strings.Builder
	b.WriteString("[")
	long := strings.Repeat("r", 3000)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"user_input":"q%d","response":"%s","retrieved_contexts":["%s"],"faithfulness":0.5}`, i, long, long)
	}
	b.WriteString("]")
	return []byte(b.String())
}

// BenchmarkReview2Records reads JSON arrays of 1,000 to 8,000 rows: the
// time per row stays flat (it grew with the file's size when each row's
// line was counted from the start of the file).
func BenchmarkReview2Records(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000, 8000} {
		data := recordsJSON(n)
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, _, err := Parse("r.json", data, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
		})
	}
}
