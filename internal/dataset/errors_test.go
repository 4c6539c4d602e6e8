package dataset_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
)

// parseErr parses data and returns the error text, failing the test if
// parsing succeeds or the error is not an *dataset.Error.
func parseErr(t *testing.T, name, data string, opts dataset.Options) string {
	t.Helper()
	d, err := dataset.Parse(name, []byte(data), opts)
	if err == nil {
		t.Fatalf("Parse succeeded with %d samples; want an error", len(d.Samples))
	}
	var de *dataset.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %T is not a *dataset.Error: %v", err, err)
	}
	if len(de.Problems) == 0 {
		t.Fatalf("*Error without problems")
	}
	return err.Error()
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		data string
		opts dataset.Options
		want string
	}{
		{
			name: "unknown field with suggestion",
			file: "golden.jsonl",
			data: `{"user_input":"a"}
{"user_input":"b"}
{"user_input":"c","retreived_contexts":["x"]}
`,
			want: `golden.jsonl:3:19: unknown field "retreived_contexts": did you mean "retrieved_contexts"? (if it is a column of its own, rename it in the file; no option keeps it)`,
		},
		{
			name: "unknown field reported once per file",
			file: "golden.jsonl",
			data: `{"user_input":"a","questoin":1}
{"user_input":"b","questoin":2}
`,
			want: `golden.jsonl:1:19: unknown field "questoin": did you mean "question"? (if it is a column of its own, rename it in the file; no option keeps it)`,
		},
		{
			name: "strict: unknown field without suggestion",
			file: "golden.jsonl",
			data: `{"user_input":"a","foo":1}`,
			opts: dataset.Options{StrictFields: true},
			want: `golden.jsonl:1:19: unknown field "foo"; rename it to one of id, user_input, retrieved_contexts, response, reference, reference_contexts, retrieved_context_ids, reference_context_ids, or map it with --field <field>=<name>; or drop --strict-fields to keep it as metadata`,
		},
		{
			name: "strict: unknown field that other tools use",
			file: "golden.jsonl",
			data: `{"query":"a","context":"c"}`,
			opts: dataset.Options{StrictFields: true},
			want: `golden.jsonl:1:2: unknown field "query": if it holds user_input, rename it "user_input" or map it with --field user_input=query; or drop --strict-fields to keep it as metadata
golden.jsonl:1:14: unknown field "context": if it holds retrieved_contexts, rename it "retrieved_contexts" or map it with --field retrieved_contexts=context; or drop --strict-fields to keep it as metadata`,
		},
		{
			name: "strict: a misspelling keeps its suggestion",
			file: "golden.jsonl",
			data: `{"user_input":"a","respnose":"r"}`,
			opts: dataset.Options{StrictFields: true},
			want: `golden.jsonl:1:19: unknown field "respnose": did you mean "response"? (if it is a column of its own, rename it in the file; no option keeps it)`,
		},
		{
			name: "misspelled mapped name",
			file: "golden.jsonl",
			data: `{"user_input":"a","answer_txt":"r"}`,
			opts: dataset.Options{Mapping: map[string]string{"response": "answer_text"}},
			want: `golden.jsonl:1:19: unknown field "answer_txt": did you mean "answer_text"? (if it is a column of its own, rename it in the file; no option keeps it)`,
		},
		{
			name: "list field given as a string",
			file: "golden.jsonl",
			data: "{\"user_input\":\"a\"}\n\n\n" + `{"user_input":"d","retrieved_contexts":"x"}`,
			want: `golden.jsonl:4:40: retrieved_contexts: given as a string; write a JSON array of strings, e.g. ["..."]`,
		},
		{
			name: "old name list field given as a string",
			file: "golden.jsonl",
			data: `{"question":"d","contexts":"x"}`,
			want: `golden.jsonl:1:28: contexts: given as a string; write a JSON array of strings, e.g. ["..."]`,
		},
		{
			name: "wrong types",
			file: "golden.jsonl",
			data: `{"user_input":3,"response":{"a":1},"id":[1],"retrieved_contexts":[1],"reference":true}
{"user_input":"a","response":["x"],"reference":["a",2],"reference_contexts":["a",null],"id":""}
`,
			want: `golden.jsonl:1:15: user_input: given as a number; write a JSON string, e.g. "3"
golden.jsonl:1:28: response: given as an object; write a JSON string, e.g. "..."
golden.jsonl:1:41: id: given as a list; write a string or a number, e.g. "q-001"
golden.jsonl:1:67: retrieved_contexts: item 1 is a number; write every item as a JSON string
golden.jsonl:1:82: reference: given as true or false; write a JSON string, e.g. "..."
golden.jsonl:2:30: response: given as a list; write a single JSON string, e.g. "..."
golden.jsonl:2:53: reference: item 2 is a number; write every item as a JSON string
golden.jsonl:2:82: reference_contexts: item 2 is null; write every item as a JSON string
golden.jsonl:2:93: id: empty; give a non-empty id or remove the field`,
		},
		{
			name: "duplicate explicit ids name both lines",
			file: "golden.jsonl",
			data: `{"user_input":"a","id":1}
{"user_input":"b","id":"x"}
{"user_input":"c","id":"1"}
`,
			want: `golden.jsonl:3:24: id: duplicate id "1", also on line 1; give each sample a unique "id"`,
		},
		{
			name: "same user_input without ids",
			file: "golden.jsonl",
			data: `{"question":"a"}
{"user_input":"b"}
{"user_input":"a"}
`,
			want: `golden.jsonl:3:15: user_input: same user_input as the sample on line 1, so both get the id "q-ca978112ca1b"; add an "id" field to each sample to tell them apart`,
		},
		{
			name: "explicit id equal to a derived one",
			file: "golden.jsonl",
			data: `{"user_input":"a"}
{"user_input":"b","id":"q-ca978112ca1b"}
`,
			want: `golden.jsonl:2:24: id: "q-ca978112ca1b" is also the id derived from the user_input of the sample on line 1; give each sample a unique "id"`,
		},
		{
			name: "no user_input and no id",
			file: "golden.jsonl",
			data: `{"response":"x"}`,
			want: `golden.jsonl:1:1: no "user_input" and no "id"; every sample needs a user_input (the question), or at least an id`,
		},
		{
			name: "two names for one field with different values",
			file: "golden.jsonl",
			data: `{"question":"a","user_input":"b"}
{"ground_truth":"r","ground_truths":["r"],"user_input":"ok"}
`,
			want: `golden.jsonl:1:30: user_input: user_input is also given as "question", with a different value; keep one`,
		},
		{
			name: "duplicate key",
			file: "golden.jsonl",
			data: `{"user_input":"q","user_input":"q"}`,
			want: `golden.jsonl:1:19: duplicate key "user_input" (first at 1:2); keep one`,
		},
		{
			name: "empty file",
			file: "golden.jsonl",
			data: "",
			want: `golden.jsonl: no samples; each line must be a JSON object like {"user_input": "...", "retrieved_contexts": ["..."], "response": "...", "reference": "..."}`,
		},
		{
			name: "blank lines only",
			file: "golden.jsonl",
			data: "\ufeff  \r\n\n\t\n",
			want: `golden.jsonl: no samples; each line must be a JSON object like {"user_input": "...", "retrieved_contexts": ["..."], "response": "...", "reference": "..."}`,
		},
		{
			name: "empty array",
			file: "golden.json",
			data: " [ ] ",
			want: `golden.json: no samples; the array must hold objects like {"user_input": "...", "retrieved_contexts": ["..."], "response": "...", "reference": "..."}`,
		},
		{
			name: "CSV with only a header",
			file: "golden.csv",
			data: "user_input,response\r\n",
			want: `golden.csv: no samples; the first row must be a header naming the fields (e.g. user_input,retrieved_contexts,response,reference) and each further row one sample`,
		},
		{
			name: "invalid UTF-8",
			file: "golden.jsonl",
			data: "{\"user_input\":\"a\xff\"}\n{\"user_input\":\"ok\"}\n{\"a\xc3\":1}",
			want: `golden.jsonl:1:17: invalid UTF-8 (byte 0xff); save the file as UTF-8
golden.jsonl:3:4: invalid UTF-8 (byte 0xc3); save the file as UTF-8`,
		},
		{
			name: "UTF-16",
			file: "golden.jsonl",
			data: "\xff\xfe{\x00\"\x00",
			want: `golden.jsonl: the file is UTF-16 encoded; save it as UTF-8`,
		},
		{
			name: "invalid JSON lines",
			file: "golden.jsonl",
			data: "{\"user_input\":\"a\",}\n{'user_input':'b'}\n{\"user_input\":\"c\"\n{\"user_input\":\"d\"} {}\n[1]\n{\"user_input\":\"e\",\"response\":NaN}\n{\"user_input\":\"f\tg\"}\n\"text\"",
			want: `golden.jsonl:1:19: not valid JSON: expected a field name in quotes, found '}'; remove the trailing comma
golden.jsonl:2:2: not valid JSON: expected a field name in quotes, found '\''; JSON strings and keys need double quotes
golden.jsonl:3:18: not valid JSON: the text ends before the JSON does; each line must hold one complete JSON object (is an object split over several lines?)
golden.jsonl:4:20: not valid JSON: found '{' after the end of the object; put one JSON object per line
golden.jsonl:5:1: expected a JSON object, found a list; each line must be an object like {"user_input": "...", "response": "..."}
golden.jsonl:6:30: not valid JSON: expected a value (a string in quotes, a number, true, false, null, [ or {), found 'N'; NaN and Infinity are not JSON: use null
golden.jsonl:7:17: not valid JSON: found '\t' inside a string; write tabs and line breaks inside strings as \t and \n
golden.jsonl:8:1: expected a JSON object, found a string; each line must be an object like {"user_input": "...", "response": "..."}`,
		},
		{
			name: "an unquoted field name",
			file: "golden.jsonl",
			data: "{\"id\":\"a\",\"user_input\":\"q\"}\n{\"id\":\"b\", bad json}\n",
			want: `golden.jsonl:2:12: not valid JSON: expected a field name in quotes, found 'b'`,
		},
		{
			name: "invalid JSON after a BOM with CRLF",
			file: "golden.jsonl",
			data: "\ufeff{\"user_input\":\"a\"}\r\n{\"user_input\" \"b\"}\r\n",
			want: `golden.jsonl:2:15: not valid JSON: expected a colon (:) after the field name, found '"'`,
		},
		{
			name: "invalid JSON array",
			file: "golden.json",
			data: "[\n  {\"user_input\": \"a\"},\n  {\"user_input\": \"b\",\n   \"response\": \"x\",}\n]",
			want: `golden.json:4:20: not valid JSON: expected a field name in quotes, found '}'; remove the trailing comma`,
		},
		{
			name: "unclosed JSON array",
			file: "golden.json",
			data: "[\n  {\"user_input\": \"a\"},\n",
			want: `golden.json:3:1: not valid JSON: the text ends before the JSON does; the JSON ends too early: close every { and [`,
		},
		{
			name: "JSON array elements are located",
			file: "golden.json",
			data: "[\n  {\"user_input\": \"a\"},\n  {\"user_input\": \"b\",\n   \"response\": 3},\n  [\"x\"]\n]",
			want: `golden.json:4:16: response: given as a number; write a JSON string, e.g. "3"
golden.json:5:3: expected a JSON object, found a list; each sample is an object like {"user_input": "...", "response": "..."}`,
		},
		{
			name: "pretty-printed objects",
			file: "golden.json",
			data: "{\n \"user_input\": \"a\"\n}\n{\n \"user_input\": \"b\", \"response\": true\n}",
			want: `golden.json:5:33: response: given as true or false; write a JSON string, e.g. "..."`,
		},
		{
			name: "objects separated by commas",
			file: "golden.json",
			data: "{\"user_input\": \"a\"},\n{\"user_input\": \"b\"}",
			want: `golden.json:1:20: not valid JSON: expected a value (a string in quotes, a number, true, false, null, [ or {), found ','; to list objects separated by commas, wrap them in [ and ] to make a JSON array`,
		},
		{
			name: "a .json file that is not JSON",
			file: "golden.json",
			data: "user_input,response\na,b\n",
			want: `golden.json:1:1: not JSON: a .json file must hold a JSON array of objects, or JSON objects one per line; name a CSV file .csv`,
		},
		{
			name: "CSV wrong column count",
			file: "golden.csv",
			data: "user_input,response\na,b\nc\nd,e,f\n",
			want: `golden.csv:3: the row has 1 cell but the header has 2; quote cells that contain commas, quotes or line breaks
golden.csv:4: the row has 3 cells but the header has 2; quote cells that contain commas, quotes or line breaks`,
		},
		{
			name: "CSV wrong column count after a multi-line cell",
			file: "golden.csv",
			data: "user_input,response\n\"a\nb\nc\",x\nd,e,f\n",
			want: `golden.csv:5: the row has 3 cells but the header has 2; quote cells that contain commas, quotes or line breaks`,
		},
		{
			name: "CSV list cells",
			file: "golden.csv",
			data: "user_input,retrieved_contexts,response\na,\"[\"\"x\"\"]\",r\nc,x,r\nd,\"['x']\",r\ne,\"[1]\",r\nf,\"[\"\"x\"\",]\",r\n",
			want: `golden.csv:3:3: retrieved_contexts: given as a string; write a JSON array of strings, e.g. ["..."], quoted for CSV as "[""..."",""...""]"
golden.csv:4:3: retrieved_contexts: not a JSON array of strings: invalid character '\'' looking for beginning of value (it looks like a Python list: JSON needs double quotes); write e.g. ["first","second"], quoted for CSV as "[""first"",""second""]"
golden.csv:5:3: retrieved_contexts: item 1 is a number; write every item as a JSON string
golden.csv:6:3: retrieved_contexts: not a JSON array of strings: invalid character ']' looking for beginning of value; write e.g. ["first","second"], quoted for CSV as "[""first"",""second""]"`,
		},
		{
			name: "CSV bare quote",
			file: "golden.csv",
			data: "user_input,response\na,b \"c\"\n",
			want: `golden.csv:2:5: a " inside a cell that is not quoted; quote the whole cell and double the quotes inside it ("")`,
		},
		{
			name: "CSV unclosed quote",
			file: "golden.csv",
			data: "user_input,response\na,b\nc,\"d\ne\n",
			want: `golden.csv:4:3: a quoted cell is not closed properly (the row starts on line 3); end it with " and double the quotes inside it ("")`,
		},
		{
			name: "CSV header problems",
			file: "golden.csv",
			data: "question,answr, ctx ,metadata,,question\na,b,c,d,e,f\n",
			want: `golden.csv:1:10: unknown field "answr": did you mean "answer"? (if it is a column of its own, rename it in the file; no option keeps it)
golden.csv:1:31: column 5 has no name; name every column in the header row
golden.csv:1:32: column 6 repeats the name "question" of column 1; keep one`,
		},
		{
			name: "strict: CSV header",
			file: "golden.csv",
			data: "question,Retreival Setting\na,b\n",
			opts: dataset.Options{StrictFields: true},
			want: `golden.csv:1:10: unknown field "Retreival Setting"; rename it to one of id, user_input, retrieved_contexts, response, reference, reference_contexts, retrieved_context_ids, reference_context_ids, or map it with --field <field>=<name>; or drop --strict-fields to keep it as metadata`,
		},
		{
			name: "CSV without a header",
			file: "golden.csv",
			data: "What is X?,X is Y\n",
			want: `golden.csv:1: no known field in the header; the first row must name the fields, e.g. user_input,retrieved_contexts,response,reference`,
		},
		{
			name: "CSV with semicolons",
			file: "golden.csv",
			data: "user_input;response\na;b\n",
			want: `golden.csv:1: the header has a single column; raggate reads comma-separated values: save the file with commas as separators`,
		},
		{
			name: "mapping problems",
			file: "golden.jsonl",
			data: `{"q":"x"}`,
			opts: dataset.Options{Mapping: map[string]string{
				"usr_input": "q", "question": "x", "response": "", "reference": "a", "id": "a", "foo": "b",
			}},
			want: `field mapping foo=b: unknown field "foo"; the fields are id, user_input, retrieved_contexts, response, reference, reference_contexts, retrieved_context_ids, reference_context_ids
field mapping question=x: "question" is an old field name; map the canonical name instead: user_input=x
field mapping reference=a: "a" is already mapped to id; a file field can feed only one field
field mapping response=: give the name the file uses for response, e.g. response=my_response
field mapping usr_input=q: unknown field "usr_input": did you mean "user_input"?`,
		},
		{
			name: "unknown format",
			file: "golden.jsonl",
			data: `{"user_input":"a"}`,
			opts: dataset.Options{Format: "yaml"},
			want: `unknown format "yaml"; use jsonl, json, csv or parquet (or leave it empty to choose by extension)`,
		},
		{
			name: "keys with line breaks stay on one line",
			file: "golden.jsonl",
			data: `{"user_input":"a","respon\nse":"r","response\n":"r"}`,
			want: `golden.jsonl:1:19: unknown field "respon\nse": did you mean "response"? (if it is a column of its own, rename it in the file; no option keeps it)
golden.jsonl:1:36: unknown field "response\n": did you mean "response"? (if it is a column of its own, rename it in the file; no option keeps it)`,
		},
		{
			name: "long keys are shortened",
			file: "golden.jsonl",
			data: `{"user_input":"a","` + strings.Repeat("k", 100) + `":1}`,
			opts: dataset.Options{StrictFields: true},
			want: `golden.jsonl:1:19: unknown field "` + strings.Repeat("k", 60) + `"...; rename it to one of id, user_input, retrieved_contexts, response, reference, reference_contexts, retrieved_context_ids, reference_context_ids, or map it with --field <field>=<name>; or drop --strict-fields to keep it as metadata`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErr(t, tt.file, tt.data, tt.opts)
			if got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestProblemsAreCapped(t *testing.T) {
	var b strings.Builder
	for range 60 {
		b.WriteString("{\"user_input\": 1}\n")
	}
	got := parseErr(t, "golden.jsonl", b.String(), dataset.Options{})
	lines := strings.Split(got, "\n")
	if len(lines) != dataset.MaxProblems+1 {
		t.Fatalf("%d lines; want %d problems and a count", len(lines), dataset.MaxProblems)
	}
	if lines[49] != `golden.jsonl:50:16: user_input: given as a number; write a JSON string, e.g. "1"` {
		t.Errorf("problem 50: %s", lines[49])
	}
	if last := lines[len(lines)-1]; last != "and 10 more problems" {
		t.Errorf("last line %q; want %q", last, "and 10 more problems")
	}
	_, err := dataset.Parse("golden.jsonl", []byte(b.String()), dataset.Options{})
	var de *dataset.Error
	if !errors.As(err, &de) || len(de.Problems) != 50 || de.More != 10 {
		t.Errorf("Error %+v; want 50 problems and More 10", de)
	}
	b.WriteString("{\"user_input\": 2}\n")
	if got := parseErr(t, "golden.jsonl", b.String(), dataset.Options{}); !strings.HasSuffix(got, "\nand 11 more problems") {
		t.Errorf("error ends %q", got[len(got)-30:])
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    dataset.Problem
		want string
	}{
		{dataset.Problem{File: "f.jsonl", Line: 3, Col: 7, Field: "response", Msg: "bad"}, "f.jsonl:3:7: response: bad"},
		{dataset.Problem{File: "f.jsonl", Line: 3, Msg: "bad"}, "f.jsonl:3: bad"},
		{dataset.Problem{File: "f.jsonl", Col: 7, Msg: "bad"}, "f.jsonl: bad"},
		{dataset.Problem{Field: "id", Msg: "bad"}, "id: bad"},
		{dataset.Problem{Msg: "bad"}, "bad"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v: %q; want %q", tt.p, got, tt.want)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "golden.jsonl")
	_, err := dataset.Load(path, dataset.Options{})
	var de *dataset.Error
	if !errors.As(err, &de) {
		t.Fatalf("error %T %v; want *dataset.Error", err, err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error does not wrap fs.ErrNotExist: %v", err)
	}
	if want := path + ": cannot read the file: no such file or directory; check the path"; err.Error() != want {
		t.Errorf("error %q; want %q", err, want)
	}
}
