package dataset_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/metrics"
)

const datasets = "../../testdata/datasets/"

func load(t *testing.T, path string, opts dataset.Options) *dataset.Dataset {
	t.Helper()
	d, err := dataset.Load(path, opts)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	checkDataset(t, d)
	return d
}

func parse(t *testing.T, name, data string, opts dataset.Options) *dataset.Dataset {
	t.Helper()
	d, err := dataset.Parse(name, []byte(data), opts)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	checkDataset(t, d)
	return d
}

// checkDataset checks the invariants every loaded dataset keeps.
func checkDataset(t *testing.T, d *dataset.Dataset) {
	t.Helper()
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
			t.Fatalf("lines %v decreasing or below 1", d.Lines)
		}
		for f, ok := range s.Present {
			if !ok || !slices.Contains(metrics.Fields, f) {
				t.Fatalf("sample %d: Present[%q] = %v", i, f, ok)
			}
			fields[f] = true
			if f.IsList() && s.List(f) == nil {
				t.Fatalf("sample %d: %s present but nil", i, f)
			}
		}
	}
	if !reflect.DeepEqual(fields, d.Fields) {
		t.Fatalf("Fields %v; samples have %v", d.Fields, fields)
	}
	if len(d.SHA256) != 64 {
		t.Fatalf("SHA256 %q", d.SHA256)
	}
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func TestAmnestyOldAndNewVocabulariesGiveIdenticalSamples(t *testing.T) {
	v2 := load(t, datasets+"amnesty_qa/amnesty_qa_eval.english_v2.fbf1aec.jsonl", dataset.Options{})
	v3 := load(t, datasets+"amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl", dataset.Options{})
	if len(v2.Samples) != 20 {
		t.Fatalf("v2: %d samples; want 20", len(v2.Samples))
	}
	if !reflect.DeepEqual(v2.Samples, v3.Samples) {
		for i := range v2.Samples {
			if !reflect.DeepEqual(v2.Samples[i], v3.Samples[i]) {
				t.Fatalf("sample %d differs:\nv2 %+v\nv3 %+v", i, v2.Samples[i], v3.Samples[i])
			}
		}
		t.Fatal("samples differ")
	}
	if !reflect.DeepEqual(v2.Lines, v3.Lines) || !reflect.DeepEqual(v2.Fields, v3.Fields) {
		t.Errorf("lines or fields differ: %v %v / %v %v", v2.Lines, v2.Fields, v3.Lines, v3.Fields)
	}
	want := map[metrics.Field]bool{metrics.UserInput: true, metrics.RetrievedContexts: true, metrics.Response: true, metrics.Reference: true}
	if !reflect.DeepEqual(v3.Fields, want) {
		t.Errorf("Fields %v; want %v", v3.Fields, want)
	}
	for i, s := range v3.Samples {
		if len(s.RetrievedContexts) != 3 {
			t.Errorf("sample %d: %d contexts; want 3", i, len(s.RetrievedContexts))
		}
		if s.ID != dataset.DeriveID(s.UserInput) {
			t.Errorf("sample %d: id %q; want the derived id", i, s.ID)
		}
		if d := v3.Lines[i]; d != i+1 {
			t.Errorf("sample %d on line %d", i, d)
		}
	}
	if s := v3.Samples[0]; s.UserInput != "What are the global implications of the USA Supreme Court ruling on abortion?" ||
		!strings.HasPrefix(s.Reference, "The global implications of the USA Supreme Court ruling on abortion are significant.") {
		t.Errorf("first sample: %q / %q", s.UserInput, s.Reference[:40])
	}
	data, err := os.ReadFile(datasets + "amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if v3.SHA256 != sha(data) || v3.SHA256 == v2.SHA256 {
		t.Errorf("SHA256 %s; want the file's %s", v3.SHA256, sha(data))
	}
}

func TestFiqaReferenceListIsJoined(t *testing.T) {
	path := datasets + "fiqa/fiqa.jsonl"
	d := load(t, path, dataset.Options{})
	if len(d.Samples) != 30 {
		t.Fatalf("%d samples; want 30", len(d.Samples))
	}
	// Check against an independent reading of the file.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(rows) != 30 {
		t.Fatalf("%d rows in the file", len(rows))
	}
	for i, s := range d.Samples {
		var row struct {
			UserInput string   `json:"user_input"`
			Reference []string `json:"reference"`
			Response  string   `json:"response"`
			Contexts  []string `json:"retrieved_contexts"`
		}
		unmarshal(t, rows[i], &row)
		if s.Reference != strings.Join(row.Reference, "\n") {
			t.Errorf("sample %d: reference not the list joined with newlines", i)
		}
		if s.UserInput != row.UserInput || s.Response != row.Response || !slices.Equal(s.RetrievedContexts, row.Contexts) {
			t.Errorf("sample %d differs from the file", i)
		}
		if !strings.HasPrefix(s.Response, "\n") {
			t.Errorf("sample %d: leading newline of the response not kept: %q", i, s.Response[:10])
		}
	}
	if s := d.Samples[0]; s.UserInput != "How to deposit a cheque issued to an associate in my business into my business account?" {
		t.Errorf("first question %q", s.UserInput)
	}
	if d.Samples[0].ID != "q-"+sha([]byte(d.Samples[0].UserInput))[:12] {
		t.Errorf("id %q is not derived from the user_input", d.Samples[0].ID)
	}
}

// sample builds a sample through Set and SetList, as a loader should.
func sample(id string, kv ...any) metrics.Sample {
	s := metrics.Sample{ID: id}
	for i := 0; i < len(kv); i += 2 {
		f := kv[i].(metrics.Field)
		switch v := kv[i+1].(type) {
		case string:
			s.Set(f, v)
		case []string:
			s.SetList(f, v)
		}
	}
	return s
}

func TestFormatsGiveTheSameSamples(t *testing.T) {
	want := []metrics.Sample{
		sample("a1", metrics.UserInput, "What is X?", metrics.RetrievedContexts, []string{"X is Y.", "Z"},
			metrics.Response, "X is Y", metrics.Reference, "Y"),
		sample(dataset.DeriveID("Why?"), metrics.UserInput, "Why?", metrics.RetrievedContexts, []string{},
			metrics.Response, ""),
		sample("7", metrics.UserInput, "  spaced \t", metrics.Reference, "r1\nr2",
			metrics.RetrievedContextIDs, []string{"d1"}, metrics.ReferenceContextIDs, []string{"d1", "d2"},
			metrics.ReferenceContexts, []string{"ctx, with comma", "line\nbreak \"quoted\""}),
	}
	// Extra keys are kept as metadata, nested values as compact JSON.
	want[0].Metadata = map[string]string{"metadata": `{"k":1}`}
	jsonl := `{"id": "a1", "user_input": "What is X?", "retrieved_contexts": ["X is Y.", "Z"], "response": "X is Y", "reference": "Y", "metadata": {"k": 1}}
{"question": "Why?", "contexts": [], "answer": "", "ground_truth": null}
{"id": 7, "user_input": "  spaced \t", "ground_truths": ["r1", "r2"], "retrieved_context_ids": ["d1"], "reference_context_ids": ["d1", "d2"], "reference_contexts": ["ctx, with comma", "line\nbreak \"quoted\""]}
`
	array := `[
  {"id": "a1", "user_input": "What is X?", "retrieved_contexts": ["X is Y.", "Z"], "response": "X is Y", "reference": "Y", "metadata": {"k": 1}},
  {"question": "Why?", "contexts": [], "answer": ""},
  {
    "id": 7,
    "user_input": "  spaced \t",
    "reference": ["r1", "r2"],
    "retrieved_context_ids": ["d1"],
    "reference_context_ids": ["d1", "d2"],
    "reference_contexts": ["ctx, with comma", "line\nbreak \"quoted\""]
  }
]`
	stream := `{"id": "a1", "user_input": "What is X?",
 "retrieved_contexts": ["X is Y.", "Z"], "response": "X is Y", "reference": "Y", "metadata": {"k":1}}
{"question": "Why?", "contexts": [], "answer": ""}
{
  "id": 7, "user_input": "  spaced \t", "ground_truths": ["r1", "r2"], "retrieved_context_ids": ["d1"],
  "reference_context_ids": ["d1", "d2"], "reference_contexts": ["ctx, with comma", "line\nbreak \"quoted\""]
}`
	csv := "id,user_input,retrieved_contexts,response,reference,reference_contexts,retrieved_context_ids,reference_context_ids,metadata\n" +
		`a1,What is X?,"[""X is Y."", ""Z""]",X is Y,Y,,,,"{""k"":1}"` + "\n" +
		`,Why?,[],"",,,,,` + "\n" +
		`7,"  spaced ` + "\t" + `",,,"r1` + "\n" + `r2","[""ctx, with comma"", ""line\nbreak \""quoted\""""]","[""d1""]","[""d1"",""d2""]",` + "\n"
	// In CSV an empty cell is an absent field, so the second sample has no response there.
	wantCSV := slices.Clone(want)
	wantCSV[1] = sample(dataset.DeriveID("Why?"), metrics.UserInput, "Why?", metrics.RetrievedContexts, []string{})

	tests := []struct {
		name, file, data string
		format           dataset.Format
		want             []metrics.Sample
		lines            []int
	}{
		{"jsonl", "golden.jsonl", jsonl, "", want, []int{1, 2, 3}},
		{"ndjson", "golden.ndjson", jsonl, "", want, []int{1, 2, 3}},
		{"json lines in a .json file", "golden.json", jsonl, "", want, []int{1, 2, 3}},
		{"jsonl without extension", "golden", jsonl, "", want, []int{1, 2, 3}},
		{"array", "golden.json", array, "", want, []int{2, 3, 4}},
		{"array in a .jsonl file", "golden.jsonl", array, "", want, []int{2, 3, 4}},
		{"array without extension", "-", array, "", want, []int{2, 3, 4}},
		{"pretty-printed objects", "golden.json", stream, "", want, []int{1, 3, 4}},
		{"csv", "golden.csv", csv, "", wantCSV, []int{2, 3, 4}},
		{"csv sniffed", "golden.txt", csv, "", wantCSV, []int{2, 3, 4}},
		{"csv forced", "golden.data", csv, dataset.FormatCSV, wantCSV, []int{2, 3, 4}},
		{"jsonl forced", "golden.csv", jsonl, dataset.FormatJSONL, want, []int{1, 2, 3}},
		{"json forced", "golden.csv", stream, dataset.FormatJSON, want, []int{1, 3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parse(t, tt.file, tt.data, dataset.Options{Format: tt.format})
			if !reflect.DeepEqual(d.Samples, tt.want) {
				t.Errorf("samples:\n%#v\nwant:\n%#v", d.Samples, tt.want)
			}
			if !reflect.DeepEqual(d.Lines, tt.lines) {
				t.Errorf("lines %v; want %v", d.Lines, tt.lines)
			}
			if d.Path != tt.file || d.SHA256 != sha([]byte(tt.data)) || len(d.Warnings) != 0 {
				t.Errorf("path %q sha %s warnings %q", d.Path, d.SHA256, d.Warnings)
			}
		})
	}
}

func TestMinifiedJSON(t *testing.T) {
	d := parse(t, "g.json", `[{"user_input":"a"},{"user_input":"b"}]`, dataset.Options{})
	if !reflect.DeepEqual(d.Lines, []int{1, 1}) {
		t.Errorf("lines %v", d.Lines)
	}
	got := parseErr(t, "g.json", `[{"user_input":"a"},{"user_input":"b","response":1}]`, dataset.Options{})
	if want := `g.json:1:50: response: given as a number; write a JSON string, e.g. "1"`; got != want {
		t.Errorf("error %q; want %q", got, want)
	}
	d = parse(t, "g.json", `{"user_input":"a"}{"user_input":"b"}`, dataset.Options{})
	if !reflect.DeepEqual(d.Lines, []int{1, 1}) {
		t.Errorf("lines %v", d.Lines)
	}
}

func TestCSVMultiLineCellsGiveRecordLines(t *testing.T) {
	data := "user_input,response\r\n" +
		"\"first\r\nquestion\",r1\r\n" +
		"\r\n" +
		"second,\"a\r\n\r\nlong\r\nanswer\"\r\n" +
		"third,r3\r\n"
	d := parse(t, "golden.csv", data, dataset.Options{})
	if !reflect.DeepEqual(d.Lines, []int{2, 5, 9}) {
		t.Errorf("lines %v; want [2 5 9]", d.Lines)
	}
	// encoding/csv turns CRLF inside quoted cells into LF.
	if got := d.Samples[0].UserInput; got != "first\nquestion" {
		t.Errorf("user_input %q", got)
	}
	if got := d.Samples[1].Response; got != "a\n\nlong\nanswer" {
		t.Errorf("response %q", got)
	}
	if got := d.Samples[2].Response; got != "r3" {
		t.Errorf("response %q", got)
	}
}

func TestCSVBlankRowsAreSkipped(t *testing.T) {
	d := parse(t, "g.csv", "user_input,response\n\na,b\n  \n,\n\nc,\n,,\n", dataset.Options{})
	if len(d.Samples) != 2 || !reflect.DeepEqual(d.Lines, []int{3, 7}) {
		t.Errorf("%d samples on lines %v; want lines [3 7]", len(d.Samples), d.Lines)
	}
	// A row of empty cells is blank whatever its width.
	d = parse(t, "g.csv", "user_input,response\na,b\n,,\n", dataset.Options{})
	if len(d.Samples) != 1 {
		t.Errorf("%d samples; want 1", len(d.Samples))
	}
	// A single-column file keeps a line of spaces as a value.
	d = parse(t, "g.csv", "user_input\na\n  \n", dataset.Options{})
	if len(d.Samples) != 2 || d.Samples[1].UserInput != "  " {
		t.Errorf("samples %#v", d.Samples)
	}
}

func TestBOMAndCRLF(t *testing.T) {
	want := []metrics.Sample{
		sample(dataset.DeriveID("a"), metrics.UserInput, "a", metrics.Response, "x "),
		sample(dataset.DeriveID("b"), metrics.UserInput, "b", metrics.RetrievedContexts, []string{"c\r\n"}),
	}
	tests := []struct{ name, file, data string }{
		{"jsonl", "g.jsonl", "\ufeff{\"user_input\":\"a\",\"response\":\"x \"}\r\n\r\n{\"user_input\":\"b\",\"retrieved_contexts\":[\"c\\r\\n\"]}\r\n"},
		{"json", "g.json", "\ufeff[\r\n{\"user_input\":\"a\",\"response\":\"x \"},\r\n{\"user_input\":\"b\",\"retrieved_contexts\":[\"c\\r\\n\"]}\r\n]\r\n"},
		{"csv", "g.csv", "\ufeffuser_input,response,retrieved_contexts\r\na,x ,\r\nb,,\"[\"\"c\\r\\n\"\"]\"\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parse(t, tt.file, tt.data, dataset.Options{})
			if !reflect.DeepEqual(d.Samples, want) {
				t.Errorf("samples:\n%#v\nwant:\n%#v", d.Samples, want)
			}
			if d.SHA256 != sha([]byte(tt.data)) {
				t.Errorf("SHA256 is not of the bytes as given (BOM included)")
			}
		})
	}
	// Columns on the first line do not count the BOM.
	got := parseErr(t, "g.jsonl", "\ufeff{\"user_input\":1}", dataset.Options{})
	if want := `g.jsonl:1:15: user_input: given as a number; write a JSON string, e.g. "1"`; got != want {
		t.Errorf("error %q; want %q", got, want)
	}
}

func TestLongLines(t *testing.T) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 3<<20/44+1) // over 3 MB
	data := `{"user_input":"short"}` + "\n" +
		`{"user_input":"long","retrieved_contexts":["` + long + `"],"response":"` + long + `"}` + "\n" +
		`{"user_input":"after"}` + "\n"
	if len(data) < 6<<20 {
		t.Fatalf("test data only %d bytes", len(data))
	}
	d := parse(t, "golden.jsonl", data, dataset.Options{})
	if len(d.Samples) != 3 || d.Samples[1].Response != long || d.Samples[1].RetrievedContexts[0] != long {
		t.Fatalf("long line not read whole")
	}
	if d.Samples[2].UserInput != "after" || !reflect.DeepEqual(d.Lines, []int{1, 2, 3}) {
		t.Errorf("line after the long one: %q %v", d.Samples[2].UserInput, d.Lines)
	}
	// A problem after the long value is located by column.
	bad := `{"user_input":"long","response":"` + long + `","reference":1}`
	got := parseErr(t, "golden.jsonl", bad, dataset.Options{})
	col := len(bad) - 1
	if want := "golden.jsonl:1:" + strconv.Itoa(col) + `: reference: given as a number; write a JSON string, e.g. "1"`; got != want {
		t.Errorf("error %q; want %q", got, want)
	}
	// And in CSV.
	csv := "user_input,response\nlong,\"" + long + "\"\nafter,x\n"
	d = parse(t, "golden.csv", csv, dataset.Options{})
	if d.Samples[0].Response != long || d.Samples[1].UserInput != "after" {
		t.Errorf("long CSV cell not read whole")
	}
}

func unmarshal(t *testing.T, data string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(data), v); err != nil {
		t.Fatal(err)
	}
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestWhitespaceIsKept(t *testing.T) {
	values := []string{" leading", "trailing ", "\ttabs\t", "\n\nnewlines\n", "   ", ""}
	for _, v := range values {
		t.Run(strings.ReplaceAll(v, "\n", `\n`), func(t *testing.T) {
			data := `{"user_input":"q","response":` + quote(v) + `,"reference":` + quote(v) + `,"retrieved_contexts":[` + quote(v) + `]}`
			d := parse(t, "g.jsonl", data, dataset.Options{})
			s := d.Samples[0]
			if s.Response != v || s.Reference != v || s.RetrievedContexts[0] != v {
				t.Errorf("got %q %q %q; want %q", s.Response, s.Reference, s.RetrievedContexts[0], v)
			}
			if !s.Has(metrics.Response) {
				t.Errorf("response not present")
			}
			if v == "" {
				return // an empty CSV cell is an absent field
			}
			csv := "user_input,response,retrieved_contexts\nq,\"" + strings.ReplaceAll(v, `"`, `""`) + "\",\"[" + strings.ReplaceAll(quote(v), `"`, `""`) + "]\"\n"
			d = parse(t, "g.csv", csv, dataset.Options{})
			s = d.Samples[0]
			if s.Response != v || s.RetrievedContexts[0] != v {
				t.Errorf("CSV: got %q %q; want %q", s.Response, s.RetrievedContexts[0], v)
			}
		})
	}
}

func TestAbsentAndEmptyFields(t *testing.T) {
	d := parse(t, "g.jsonl", `{"user_input":"q","response":null,"reference":"","retrieved_contexts":[],"reference_contexts":null}`, dataset.Options{})
	s := d.Samples[0]
	if s.Has(metrics.Response) || s.Has(metrics.ReferenceContexts) {
		t.Errorf("null fields are present: %v", s.Present)
	}
	if !s.Has(metrics.Reference) || !s.Has(metrics.RetrievedContexts) || s.RetrievedContexts == nil {
		t.Errorf("empty fields are absent: %v", s.Present)
	}
	want := map[metrics.Field]bool{metrics.UserInput: true, metrics.Reference: true, metrics.RetrievedContexts: true}
	if !reflect.DeepEqual(d.Fields, want) {
		t.Errorf("Fields %v; want %v", d.Fields, want)
	}
}

func TestIDs(t *testing.T) {
	// The derived id is documented: "q-" and 12 hex digits of SHA-256(user_input).
	if got, want := dataset.DeriveID("What is X?"), "q-"+sha([]byte("What is X?"))[:12]; got != want {
		t.Errorf("DeriveID = %q; want %q", got, want)
	}
	if got := dataset.DeriveID(""); got != "q-e3b0c44298fc" {
		t.Errorf("DeriveID(\"\") = %q", got)
	}
	data := `{"user_input":"What is X?"}
{"user_input":"What is X? "}
{"user_input":"What is X?","id":"x2"}
{"user_input":"n","id":12}
{"user_input":"n","id":1.50}
{"user_input":"n","id":-3e2}
{"id":"only-id"}
`
	d := parse(t, "g.jsonl", data, dataset.Options{})
	var ids []string
	for _, s := range d.Samples {
		ids = append(ids, s.ID)
	}
	want := []string{dataset.DeriveID("What is X?"), dataset.DeriveID("What is X? "), "x2", "12", "1.50", "-3e2", "only-id"}
	if !slices.Equal(ids, want) {
		t.Errorf("ids %q; want %q", ids, want)
	}
	// Stable across loads and formats.
	d2 := parse(t, "g.csv", "user_input\nWhat is X?\n", dataset.Options{})
	if d2.Samples[0].ID != ids[0] {
		t.Errorf("CSV id %q; JSONL id %q", d2.Samples[0].ID, ids[0])
	}
}

func TestRagasKeysAreMetadata(t *testing.T) {
	data := `{"user_input":"q","metadata":{"a":[1]},"episode_done":true,"evolution_type":"simple","synthesizer_name":"x","multi_responses":["a"],"rubrics":{"1":"bad"},"persona_name":"p","query_style":"s","query_length":"l","source":"wiki"}`
	meta := map[string]string{
		"metadata": `{"a":[1]}`, "episode_done": "true", "evolution_type": "simple", "synthesizer_name": "x",
		"multi_responses": `["a"]`, "rubrics": `{"1":"bad"}`, "persona_name": "p", "query_style": "s", "query_length": "l",
	}
	// Ragas keys are accepted even with strict fields; "source" is not.
	got := parseErr(t, "g.jsonl", data, dataset.Options{StrictFields: true})
	if !strings.HasPrefix(got, `g.jsonl:1:211: unknown field "source"`) || strings.Contains(got, "\n") {
		t.Errorf("strict error %q; want only the one about source", got)
	}
	d := parse(t, "g.jsonl", data, dataset.Options{Ignore: []string{"source"}, StrictFields: true})
	want := sample(dataset.DeriveID("q"), metrics.UserInput, "q")
	want.Metadata = meta
	if !reflect.DeepEqual(d.Samples, []metrics.Sample{want}) {
		t.Errorf("samples %#v", d.Samples)
	}
	// Without Ignore, source is kept too.
	d = parse(t, "g.jsonl", data, dataset.Options{})
	if len(d.Samples[0].Metadata) != len(meta)+1 || d.Samples[0].Metadata["source"] != "wiki" {
		t.Errorf("metadata %v; want source kept too", d.Samples[0].Metadata)
	}
	// A CSV column can be ignored too.
	d = parse(t, "g.csv", "user_input,source,metadata\nq,wiki,{}\n", dataset.Options{Ignore: []string{"source"}})
	if got := d.Samples[0].Metadata; !reflect.DeepEqual(got, map[string]string{"metadata": "{}"}) {
		t.Errorf("CSV metadata %v", got)
	}
	// reference_context (singular) is not metadata: it is a likely typo.
	got = parseErr(t, "g.jsonl", `{"user_input":"q","reference_context":["c"]}`, dataset.Options{})
	if want := `g.jsonl:1:19: unknown field "reference_context": did you mean "reference_contexts"? (if it is a column of its own, rename it in the file; no option keeps it)`; got != want {
		t.Errorf("error %q; want %q", got, want)
	}
}

func TestTwoNamesForOneFieldWithTheSameValue(t *testing.T) {
	d := parse(t, "g.jsonl", `{"question":"q","user_input":"q","ground_truth":"a\nb","ground_truths":["a","b"],"reference":"a\nb"}`, dataset.Options{})
	want := []metrics.Sample{sample(dataset.DeriveID("q"), metrics.UserInput, "q", metrics.Reference, "a\nb")}
	if !reflect.DeepEqual(d.Samples, want) {
		t.Errorf("samples %#v", d.Samples)
	}
}

func TestMapping(t *testing.T) {
	opts := dataset.Options{Mapping: map[string]string{
		"id":                 "qid",
		"user_input":         "query",
		"response":           "answer_text",
		"retrieved_contexts": "context",
		"reference":          "answer", // the file's "answer" is the gold answer
	}}
	tests := []struct{ name, file, data string }{
		{"jsonl", "g.jsonl", `{"qid":"1","query":"q","answer_text":"r","context":"one chunk","answer":"gold"}
{"qid":2,"query":"q2","answer_text":"r2","context":["c1","c2"],"answer":["g1","g2"]}
`},
		{"csv", "g.csv", "qid,query,answer_text,context,answer\n1,q,r,one chunk,gold\n2,q2,r2,\"[\"\"c1\"\",\"\"c2\"\"]\",\"g1\ng2\"\n"},
	}
	want := []metrics.Sample{
		sample("1", metrics.UserInput, "q", metrics.Response, "r", metrics.RetrievedContexts, []string{"one chunk"}, metrics.Reference, "gold"),
		sample("2", metrics.UserInput, "q2", metrics.Response, "r2", metrics.RetrievedContexts, []string{"c1", "c2"}, metrics.Reference, "g1\ng2"),
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parse(t, tt.file, tt.data, opts)
			if !reflect.DeepEqual(d.Samples, want) {
				t.Errorf("samples:\n%#v\nwant:\n%#v", d.Samples, want)
			}
			if len(d.Warnings) != 0 {
				t.Errorf("warnings %q", d.Warnings)
			}
		})
	}
	// The canonical names still work beside mapped ones.
	d := parse(t, "g.jsonl", `{"user_input":"q","response":"r"}`, dataset.Options{Mapping: map[string]string{"reference": "gold"}})
	if d.Samples[0].Response != "r" {
		t.Errorf("response %q", d.Samples[0].Response)
	}
	// A mapping that matches nothing is a warning.
	if want := []string{`field mapping reference=gold: no row of g.jsonl has a field "gold", so the mapping does nothing`}; !slices.Equal(d.Warnings, want) {
		t.Errorf("warnings %q; want %q", d.Warnings, want)
	}
	// Unmapped, "answer" is the old name of response again.
	d = parse(t, "g.jsonl", `{"query":"q","answer":"a"}`, dataset.Options{Mapping: map[string]string{"user_input": "query"}})
	if d.Samples[0].Response != "a" || d.Samples[0].Has(metrics.Reference) {
		t.Errorf("sample %#v", d.Samples[0])
	}
	// Mapped list fields still reject numbers.
	got := parseErr(t, "g.jsonl", `{"user_input":"q","context":3}`, opts)
	if want := `g.jsonl:1:29: context: given as a number; write a JSON array of strings, e.g. ["..."]`; got != want {
		t.Errorf("error %q; want %q", got, want)
	}
}

func TestLoadWithoutResponses(t *testing.T) {
	d := load(t, "../../testdata/demo/golden.jsonl", dataset.Options{})
	if len(d.Samples) != 20 || d.Samples[0].ID != "k2-001" || d.ResponsesPath != "" {
		t.Fatalf("%d samples, first %q", len(d.Samples), d.Samples[0].ID)
	}
	for _, f := range metrics.Fields {
		if !d.Fields[f] {
			t.Errorf("field %s missing", f)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(datasets + "fiqa/fiqa.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := dataset.Parse("fiqa.jsonl", data, dataset.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
