package dataset_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/metrics"
)

// FuzzParse checks that Parse (and ParseResponses) never panic, that every
// error is an *Error with at most MaxProblems located problems, and that
// every loaded dataset keeps its invariants. The first argument chooses the
// format (JSONL, JSON, CSV, sniffed) and whether a field mapping is used.
func FuzzParse(f *testing.F) {
	seeds := []string{
		`{"user_input":"q","retrieved_contexts":["c"],"response":"r","reference":"g","id":1}` + "\n" + `{"question":"q2","contexts":[],"answer":"a","ground_truths":["x","y"]}`,
		"[\n {\"user_input\": \"a\", \"reference_contexts\": [\"x\"]},\n {\"id\": \"b\", \"retrieved_context_ids\": [\"1\"]}\n]",
		"{\n \"user_input\": \"a\"\n}\n{\"user_input\": \"b\", \"context\": \"c\", \"output\": \"o\"}",
		"id,user_input,retrieved_contexts,response\n1,\"multi\nline\",\"[\"\"a\"\"]\",r\n2,b,[],\n",
		"\ufeffuser_input,context,output\r\na,c,o\r\n",
		`{"user_input":"a"}` + "\n" + `{"user_input":"a"}`,
		`{"user_input":"a","retreived_contexts":"x"}`,
		"{\"user_input\":\"\xff\"}",
		"",
	}
	for i, s := range seeds {
		for k := range 8 {
			if k%4 == i%4 || k >= 4 {
				f.Add(uint8(k), []byte(s))
			}
		}
	}
	// A Parquet file, found by its magic bytes under the name "f".
	pq, err := os.ReadFile("testdata/golden.parquet")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(3), pq)
	f.Add(uint8(7), pq)
	names := []string{"f.jsonl", "f.json", "f.csv", "f"}
	f.Fuzz(func(t *testing.T, mode uint8, data []byte) {
		opts := dataset.Options{}
		if mode&4 != 0 {
			opts.Mapping = map[string]string{"retrieved_contexts": "context", "response": "output", "id": "qid"}
		}
		name := names[mode%4]
		d, err := dataset.Parse(name, data, opts)
		if err != nil {
			checkError(t, err)
			return
		}
		checkFuzzDataset(t, d)
		// Join the same bytes as a responses file.
		if err := dataset.ParseResponses(d, "r"+name[1:], data, opts); err != nil {
			checkError(t, err)
			return
		}
		checkFuzzDataset(t, d)
	})
}

func checkError(t *testing.T, err error) {
	var de *dataset.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %T is not a *dataset.Error: %v", err, err)
	}
	if len(de.Problems) == 0 || len(de.Problems) > dataset.MaxProblems || de.More < 0 || (de.More > 0 && len(de.Problems) != dataset.MaxProblems) {
		t.Fatalf("%d problems, %d more", len(de.Problems), de.More)
	}
	for _, p := range de.Problems {
		if p.Msg == "" || p.Line < 0 || p.Col < 0 || (p.Col > 0 && p.Line == 0) {
			t.Fatalf("bad problem %+v", p)
		}
	}
	if strings.Count(err.Error(), "\n")+1 != len(de.Problems)+min(de.More, 1) {
		t.Fatalf("Error() does not print one problem per line:\n%s", err)
	}
}

func checkFuzzDataset(t *testing.T, d *dataset.Dataset) {
	if len(d.Samples) == 0 || len(d.Lines) != len(d.Samples) {
		t.Fatalf("%d samples, %d lines", len(d.Samples), len(d.Lines))
	}
	ids := make(map[string]bool)
	fields := make(map[metrics.Field]bool)
	for i, s := range d.Samples {
		if s.ID == "" || ids[s.ID] {
			t.Fatalf("sample %d: id %q empty or repeated", i, s.ID)
		}
		ids[s.ID] = true
		if d.Lines[i] < 1 || (i > 0 && d.Lines[i] < d.Lines[i-1]) {
			t.Fatalf("lines decreasing: %v", d.Lines)
		}
		for f := range s.Present {
			fields[f] = true
		}
	}
	if len(fields) != len(d.Fields) {
		t.Fatalf("Fields %v; samples have %v", d.Fields, fields)
	}
}
