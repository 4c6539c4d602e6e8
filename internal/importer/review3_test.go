package importer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// ragasRows is a Ragas CSV of n rows with faithfulness scored and a user
// metric my_score whose every cell is cell(i).
func ragasRows(n int, cell func(i int) string) string {
	var b strings.Builder
	b.WriteString(",user_input,response,my_score,faithfulness\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,Question %d?,ans %d,%s,0.8%d\n", i, i, i, cell(i), i%10)
	}
	return b.String()
}

// A user-metric column the evaluator failed on in every row (all empty,
// or all error texts) is a metric whose every score is undefined: it
// counts against --max-undefined instead of vanishing.
func TestReview3AllUndefinedUserMetric(t *testing.T) {
	for name, cell := range map[string]func(int) string{
		"empty":  func(int) string { return "" },
		"errors": func(int) string { return `"openai.RateLimitError('Error code: 429')"` },
		"mixed": func(i int) string {
			if i%2 == 0 {
				return "nan"
			}
			return "TimeoutError()"
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := readString(t, "r.csv", ragasRows(10, cell))
			if msg := f.TooManyUndefined(0.5); !strings.Contains(msg, "my_score") {
				t.Errorf("my_score undefined in every row passes --max-undefined 0.5: %q", msg)
			}
			s := f.Samples[3]
			if k := s.KindOf("my_score"); k != results.KindJudge {
				t.Errorf("my_score kind %q, want judge", k)
			}
			if _, ok := s.Metadata["my_score"]; ok {
				t.Errorf("my_score kept as metadata: %v", s.Metadata)
			}
			if r := s.Undefined["my_score"]; r == "" {
				t.Errorf("no reason for the undefined score")
			}
		})
	}
	// A column of plain text stays metadata.
	f := readString(t, "r.csv", ragasRows(4, func(i int) string { return fmt.Sprintf("note %d", i) }))
	if got := f.Samples[1].Metadata["my_score"]; got != "note 1" {
		t.Errorf("text column: metadata %q, want note 1", got)
	}
}

// pandas to_json(orient="table") is read as records, its index (the
// schema's primaryKey) as the rows' index labels, not as a metric.
func TestReview3OrientTable(t *testing.T) {
	const doc = `{"schema": {"fields": [{"name": "index", "type": "integer"}, {"name": "user_input", "type": "string"}, {"name": "faithfulness", "type": "number"}], "primaryKey": ["index"], "pandas_version": "1.4.0"},
 "data": [{"index": 0, "user_input": "q0", "faithfulness": 0.5}, {"index": 1, "user_input": "q1", "faithfulness": null}, {"index": 2, "user_input": "q2", "faithfulness": 0.75}]}`
	if f, ok := Sniff([]byte(doc)); !ok || f != Ragas {
		t.Fatalf("sniffed %q %v, want ragas", f, ok)
	}
	f := readString(t, "t.json", doc)
	if len(f.Samples) != 3 {
		t.Fatalf("%d samples, want 3", len(f.Samples))
	}
	if _, ok := f.Metric("index"); ok {
		t.Error("the index column is taken as a metric")
	}
	if v := f.Samples[2].Scores["faithfulness"]; v.Value() != 0.75 {
		t.Errorf("row 3 faithfulness %v, want 0.75", v)
	}
	if k := f.Samples[1].KindOf("faithfulness"); k != results.KindJudge {
		t.Errorf("null score: kind %q, want judge", k)
	}
	if !SchemaNotString([]byte(doc)) || SchemaNotString([]byte(`{"schema": "raggate.results/v1"}`)) {
		t.Error("SchemaNotString")
	}
}

// promptfoo eval -o out.jsonl: one result a line, read as the results
// array, errors on the file's own lines; other JSON Lines forced as
// promptfoo are refused saying which output to write.
func TestReview3PromptfooJSONLines(t *testing.T) {
	line := func(i int, score string) string {
		return fmt.Sprintf(`{"testIdx": %d, "promptIdx": 0, "provider": {"id": "openai:gpt-4o"}, "vars": {"question": "q%d"}, "success": true, "score": %s, "namedScores": {"Faithfulness": 0.9}}`, i, i, score)
	}
	doc := line(0, "0.5") + "\n" + line(1, "0.6") + "\n\n" + line(2, "0.7") + "\n"
	if f, ok := Sniff([]byte(doc)); !ok || f != Promptfoo {
		t.Fatalf("sniffed %q %v, want promptfoo", f, ok)
	}
	f := readString(t, "out.jsonl", doc)
	if len(f.Samples) != 3 {
		t.Fatalf("%d samples, want 3", len(f.Samples))
	}
	_, _, err := Parse("bad.jsonl", []byte(line(0, "0.5")+"\n\n"+line(1, `"x"`)+"\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl:3") {
		t.Errorf("bad score on line 3: %v", err)
	}
	_, _, err = Parse("r.jsonl", []byte("{\"user_input\": \"q\", \"faithfulness\": 1}\n{\"user_input\": \"r\", \"faithfulness\": 1}\n"), Options{Format: Promptfoo})
	if err == nil || !strings.Contains(err.Error(), "promptfoo's JSON Lines output is not read: use -o out.json") {
		t.Errorf("other JSON Lines as promptfoo: %v", err)
	}
}

// An integer id written as a float (pandas, for an id column with a NaN)
// is put in its integer form in every format, so 1 and 1.0 pair.
func TestReview3IntegralFloatID(t *testing.T) {
	for name, doc := range map[string]string{
		"t.jsonl": "{\"id\": 1.0, \"helpfulness\": 0.5}\n{\"id\": 2.00, \"helpfulness\": 0.6}\n{\"id\": 2.5, \"helpfulness\": 0.6}\n",
		"t.csv":   "id,helpfulness\n1.0,0.5\n2.00,0.6\n2.5,0.6\n",
		"de.json": `{"testCases": [{"name": "1.0", "input": "q1", "actualOutput": "a", "metricsData": [{"name": "Faithfulness", "score": 0.9}]}, {"name": "2.00", "input": "q2", "actualOutput": "a", "metricsData": [{"name": "Faithfulness", "score": 0.9}]}, {"name": "2.5", "input": "q3", "actualOutput": "a", "metricsData": [{"name": "Faithfulness", "score": 0.9}]}]}`,
		"pf.json": `{"evalId": "e", "results": {"version": 3, "results": [` +
			`{"testIdx": 0, "promptIdx": 0, "provider": "p", "vars": {"question": "q1"}, "testCase": {"description": "1.0"}, "success": true, "score": 1, "namedScores": {}},` +
			`{"testIdx": 1, "promptIdx": 0, "provider": "p", "vars": {"question": "q2"}, "testCase": {"description": "2.00"}, "success": true, "score": 1, "namedScores": {}},` +
			`{"testIdx": 2, "promptIdx": 0, "provider": "p", "vars": {"question": "q3"}, "testCase": {"description": "2.5"}, "success": true, "score": 1, "namedScores": {}}]}}`,
	} {
		f := readString(t, name, doc)
		var ids []string
		for _, s := range f.Samples {
			ids = append(ids, s.ID)
		}
		got := strings.Join(ids, " ")
		for _, want := range []string{"1", "2", "2.5"} {
			found := false
			for _, id := range ids {
				if id == want {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: ids %s, want %s among them", name, got, want)
			}
		}
	}
}
