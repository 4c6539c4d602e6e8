package importer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// readErr reads content as a file called name and returns the error.
func readErr(t *testing.T, name, content string, opt Options) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := Read(path, opt)
	return err
}

// userMetricCSV is a Ragas export with a user metric (nv_accuracy)
// whose sixth row holds cell instead of a score.
func userMetricCSV(cell string) string {
	var b strings.Builder
	b.WriteString(",user_input,faithfulness,nv_accuracy,topic\n")
	for i := 0; i < 8; i++ {
		v := "0.9"
		if i == 5 {
			v = cell
		}
		b.WriteString(itoa(i) + ",question " + itoa(i) + ",0.8," + v + ",billing\n")
	}
	return b.String()
}

// A text cell in a column of numbers is an undefined score of that
// metric, not a reason to take the whole column for metadata: the
// column stays a metric and its lost scores show in the comparison.
func TestReviewTextCellInUserMetric(t *testing.T) {
	for _, cell := range []string{"TimeoutError()", `"openai.RateLimitError('429 Too Many Requests')"`, "skipped"} {
		f := readString(t, "r.csv", userMetricCSV(cell))
		if _, ok := f.Metric("nv_accuracy"); !ok {
			t.Fatalf("%s: nv_accuracy is not a metric of the import: metrics %v, metadata %v", cell, f.Config.Metrics, f.Samples[0].Metadata)
		}
		s := f.Samples[5]
		if v := s.Scores["nv_accuracy"]; !v.IsNaN() {
			t.Errorf("%s: row 6 scores %v, want undefined", cell, v)
		}
		if k := s.UndefinedKind["nv_accuracy"]; k != results.KindJudge {
			t.Errorf("%s: kind %q, want judge", cell, k)
		}
		want := strings.Trim(cell, `"`)
		if r := s.Undefined["nv_accuracy"]; !strings.Contains(r, want[:min(len(want), 20)]) {
			t.Errorf("%s: reason %q does not quote the cell", cell, r)
		}
		if _, meta := s.Metadata["nv_accuracy"]; meta {
			t.Errorf("%s: nv_accuracy is also metadata", cell)
		}
		if f.Samples[0].Scores["nv_accuracy"] != 0.9 {
			t.Errorf("%s: row 1 scores %v", cell, f.Samples[0].Scores["nv_accuracy"])
		}
	}
}

// A long error text is cut in the reason.
func TestReviewTextCellReasonCut(t *testing.T) {
	long := "RuntimeError(" + strings.Repeat("x", 500) + ")"
	f := readString(t, "r.csv", userMetricCSV(long))
	r := f.Samples[5].Undefined["nv_accuracy"]
	if !strings.Contains(r, "RuntimeError(xxx") || len(r) > 200 {
		t.Errorf("reason %d bytes: %q", len(r), r)
	}
}

// An error text in a catalogue metric's column is an undefined score
// too (other text there stays an error: see TestErrors).
func TestReviewErrorCellInCatalogueMetric(t *testing.T) {
	f := readString(t, "r.csv", "user_input,faithfulness\nq1,0.5\nq2,TimeoutError()\nq3,0.7\n")
	s := f.Samples[1]
	if !s.Scores["faithfulness"].IsNaN() || !strings.Contains(s.Undefined["faithfulness"], "TimeoutError()") {
		t.Errorf("faithfulness %v, reason %q", s.Scores["faithfulness"], s.Undefined["faithfulness"])
	}
}

// A column whose cells are mostly text is metadata, and the import says
// so in its warnings when the column also holds numbers.
func TestReviewMostlyTextIsMetadata(t *testing.T) {
	f := readString(t, "r.csv", "user_input,faithfulness,version\nq1,0.5,beta\nq2,0.6,rc\nq3,0.7,2\n")
	if _, ok := f.Metric("version"); ok {
		t.Fatal("a column of mostly text is a metric")
	}
	if f.Samples[0].Metadata["version"] != "beta" {
		t.Errorf("metadata %v", f.Samples[0].Metadata)
	}
	if !hasWarning(f, "version", "metadata") {
		t.Errorf("no warning names the column taken as metadata: %q", f.Warnings)
	}
}

// A score too large for a float64 (1e400) is an error with its row, as
// an infinite one, not text that makes the column metadata.
func TestReviewOverflowIsError(t *testing.T) {
	for _, tc := range []struct{ name, content string }{
		{"r.csv", userMetricCSV("1e400")},
		{"r.jsonl", `{"user_input": "q1", "nv_accuracy": 0.5}` + "\n" + `{"user_input": "q2", "nv_accuracy": 1e400}` + "\n"},
		{"k.csv", "user_input,faithfulness\nq1,0.5\nq2,-1e400\n"},
	} {
		err := readErr(t, tc.name, tc.content, Options{})
		var e *Error
		if !errors.As(err, &e) || e.Line == 0 || !strings.Contains(e.Msg, "e400") || !strings.Contains(e.Msg, "finite") {
			t.Errorf("%s: %v, want an error with the row's line quoting the cell", tc.name, err)
		}
	}
}

// The dataset hash of an import does not depend on the order of its
// rows.
func TestReviewDatasetHashRowOrder(t *testing.T) {
	a := readString(t, "r.csv", "user_input,reference,faithfulness\nq1,r1,0.5\nq2,r2,0.6\nq3,r3,0.7\n")
	b := readString(t, "r.csv", "user_input,reference,faithfulness\nq3,r3,0.7\nq1,r1,0.5\nq2,r2,0.6\n")
	if a.Dataset.SHA256 != b.Dataset.SHA256 {
		t.Error("reordered rows changed the dataset hash")
	}
	c := readString(t, "r.csv", "user_input,reference,faithfulness\nq3,r3,0.7\nq1,r1,0.5\nq2,r9,0.6\n")
	if c.Dataset.SHA256 == a.Dataset.SHA256 {
		t.Error("another reference did not change the dataset hash")
	}
}

// The input hash of an imported sample is that of the test case, not of
// what the pipeline returned: a new response, or a failed call with no
// response at all, is not a changed input.
func TestReviewInputHashExcludesPipelineOutput(t *testing.T) {
	a := readString(t, "r.csv", "user_input,response,retrieved_contexts,faithfulness\nq1,old answer,['c1'],0.5\n")
	b := readString(t, "r.csv", "user_input,response,retrieved_contexts,faithfulness\nq1,new answer,['c2'],0.5\n")
	if a.Samples[0].InputHash != b.Samples[0].InputHash {
		t.Error("another response changed the input hash")
	}
	c := readString(t, "r.csv", "user_input,response,retrieved_contexts,faithfulness\nq2,old answer,['c1'],0.5\n")
	if c.Samples[0].InputHash == a.Samples[0].InputHash {
		t.Error("another question kept the input hash")
	}
	pf := mustRead(t, "promptfoo_v3.json")
	base := readString(t, "pf.json", strings.Replace(pf, `"failureReason": 2`, `"failureReason": 0`, 1))
	failed := readString(t, "pf.json", pf)
	if base.Samples[2].InputHash != failed.Samples[2].InputHash {
		t.Error("a failed provider call changed the sample's input hash")
	}
}

// A duplicated DeepEval test case name is an error naming both test
// cases: switching every id to the input hash would unpair the file
// from a baseline whose ids are the names.
func TestReviewDeepEvalDuplicateName(t *testing.T) {
	de := mustRead(t, "deepeval_run.json")
	dup := strings.Replace(de, `"name": "ship abroad"`, `"name": "refund window"`, 1)
	if dup == de {
		t.Fatal("the fixture has no test case named ship abroad")
	}
	err := readErr(t, "de.json", dup, Options{})
	var e *Error
	if !errors.As(err, &e) || e.Line == 0 || !strings.Contains(e.Msg, `"refund window"`) || !strings.Contains(e.Msg, "testCases[0]") || !strings.Contains(e.Msg, "testCases[1]") {
		t.Fatalf("got %v, want an error naming both test cases", err)
	}
	if strings.Contains(e.Msg, "id column") {
		t.Errorf("the advice names an id column DeepEval files do not have: %s", e.Msg)
	}
}

// Test cases without names take their ids from the inputs, and a file
// where only some have names says so.
func TestReviewDeepEvalSomeNamed(t *testing.T) {
	de := mustRead(t, "deepeval_run.json")
	part := strings.Replace(de, `"name": "ship abroad"`, `"name": "test_case_1"`, 1)
	f := readString(t, "de.json", part)
	if f.Samples[0].ID != deriveID(qRefund) {
		t.Errorf("id %q, want the input's", f.Samples[0].ID)
	}
	if !hasWarning(f, "test_case_1", "input") {
		t.Errorf("no warning says the ids come from the inputs: %q", f.Warnings)
	}
}

// The promptfoo version is recorded whole where a report shows it, and
// two versions are two judges.
func TestReviewToolVersionInJudge(t *testing.T) {
	pf := mustRead(t, "promptfoo_v3.json")
	a := readString(t, "pf.json", pf)
	b := readString(t, "pf.json", strings.Replace(pf, `"promptfooVersion": "0.112.3"`, `"promptfooVersion": "0.118.10"`, 1))
	if a.Judge.Fingerprint == b.Judge.Fingerprint {
		t.Error("a promptfoo upgrade kept the judge fingerprint")
	}
	if b.Judge.Prompts != "promptfoo 0.118.10" {
		t.Errorf("prompts %q", b.Judge.Prompts)
	}
}

// The model given (gate import --model) is recorded when the file names
// none, and never replaces one the file names.
func TestReviewModelOption(t *testing.T) {
	path := filepath.Join("testdata", "deepeval_run.json")
	f, _, err := Read(path, Options{Model: "my-model"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Judge.Model != "gpt-4o" {
		t.Errorf("model %q: the file's model was replaced", f.Judge.Model)
	}
}

// An empty file says it is empty, whatever the format; a CSV separated
// by semicolons says which separator it expects.
func TestReviewEmptyAndSemicolon(t *testing.T) {
	for _, f := range []Format{Auto, Ragas, Table, Promptfoo, DeepEval} {
		err := readErr(t, "e.csv", " \n", Options{Format: f})
		if err == nil || !strings.Contains(err.Error(), "is empty") {
			t.Errorf("format %q: %v, want \"is empty\"", f, err)
		}
	}
	err := readErr(t, "s.csv", "id;helpfulness;latency_ms\nrefund;4,5;812\nship;3,1;1030\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "semicolon") || !strings.Contains(err.Error(), "comma") {
		t.Errorf("%v, want a hint at the separator", err)
	}
}

func hasWarning(f *results.File, words ...string) bool {
	for _, w := range f.Warnings {
		all := true
		for _, word := range words {
			all = all && strings.Contains(w, word)
		}
		if all {
			return true
		}
	}
	return false
}
