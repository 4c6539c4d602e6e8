package dataset_test

import (
	"bytes"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/raggate/raggate/internal/dataset"
	_ "github.com/raggate/raggate/internal/dataset/parquetfile"
	"github.com/raggate/raggate/internal/goldenfile"
	"github.com/raggate/raggate/metrics"
)

// ragasRow is a row shaped like the Ragas sample sets on the Hugging Face
// Hub: list<string> contexts, strings, an optional reference, and extra
// columns.
type ragasRow struct {
	UserInput         string   `parquet:"user_input"`
	RetrievedContexts []string `parquet:"retrieved_contexts,list"`
	Response          string   `parquet:"response"`
	Reference         *string  `parquet:"reference,optional"`
	Topic             string   `parquet:"topic"`
	Score             float64  `parquet:"score"`
	Tags              []string `parquet:"tags,list"`
	Reviewed          *bool    `parquet:"reviewed,optional"`
}

func ptr[T any](v T) *T { return &v }

var ragasRows = []ragasRow{
	{UserInput: "What is the refund window?", RetrievedContexts: []string{"Refunds within 30 days.", "Keep the receipt."},
		Response: "30 days.", Reference: ptr("30 days after purchase."), Topic: "billing", Score: 0.5, Tags: []string{"faq", "money"}, Reviewed: ptr(true)},
	{UserInput: "Do you ship abroad?", RetrievedContexts: []string{}, Response: "Yes.", Reference: nil, Topic: "shipping", Score: 1},
}

// ragasSamples are the samples ragasRows must load as.
func ragasSamples() []metrics.Sample {
	a := sample(dataset.DeriveID("What is the refund window?"), metrics.UserInput, "What is the refund window?",
		metrics.RetrievedContexts, []string{"Refunds within 30 days.", "Keep the receipt."}, metrics.Response, "30 days.",
		metrics.Reference, "30 days after purchase.")
	a.Metadata = map[string]string{"topic": "billing", "score": "0.5", "tags": `["faq","money"]`, "reviewed": "true"}
	b := sample(dataset.DeriveID("Do you ship abroad?"), metrics.UserInput, "Do you ship abroad?",
		metrics.RetrievedContexts, []string{}, metrics.Response, "Yes.")
	b.Metadata = map[string]string{"topic": "shipping", "score": "1", "tags": `[]`}
	return []metrics.Sample{a, b}
}

func writeParquet[T any](t *testing.T, rows []T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := parquet.Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestParquet(t *testing.T) {
	data := writeParquet(t, ragasRows)
	for _, name := range []string{"golden.parquet", "golden.PARQUET", "golden.bin"} {
		d := parse(t, name, string(data), dataset.Options{})
		if !reflect.DeepEqual(d.Samples, ragasSamples()) {
			t.Errorf("%s: samples\n%#v\nwant\n%#v", name, d.Samples, ragasSamples())
		}
		if !reflect.DeepEqual(d.Lines, []int{1, 2}) {
			t.Errorf("%s: rows %v", name, d.Lines)
		}
	}
	// Forced by format, whatever the name.
	if _, err := dataset.Parse("golden.csv", data, dataset.Options{Format: dataset.FormatParquet}); err != nil {
		t.Errorf("forced: %v", err)
	}
}

// TestParquetFixture reads testdata/golden.parquet; -update regenerates it:
//
//	go test ./internal/dataset/ -run TestParquetFixture -update
func TestParquetFixture(t *testing.T) {
	const path = "testdata/golden.parquet"
	if goldenfile.Update() {
		if err := os.WriteFile(path, writeParquet(t, ragasRows), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := load(t, path, dataset.Options{})
	if !reflect.DeepEqual(d.Samples, ragasSamples()) {
		t.Errorf("samples\n%#v\nwant\n%#v", d.Samples, ragasSamples())
	}
}

type mappedRow struct {
	ID       int64   `parquet:"qid"`
	Query    string  `parquet:"query"`
	Context  string  `parquet:"context"`
	Answer   *string `parquet:"answer,optional"`
	Language string  `parquet:"language"`
}

func TestParquetMapping(t *testing.T) {
	data := writeParquet(t, []mappedRow{{ID: 7, Query: "q", Context: "one context", Answer: ptr("a"), Language: "de"}})
	d := parse(t, "g.parquet", string(data), dataset.Options{Mapping: map[string]string{
		"id": "qid", "user_input": "query", "retrieved_contexts": "context",
	}})
	want := sample("7", metrics.UserInput, "q", metrics.RetrievedContexts, []string{"one context"}, metrics.Response, "a")
	want.Metadata = map[string]string{"language": "de"}
	if !reflect.DeepEqual(d.Samples, []metrics.Sample{want}) {
		t.Errorf("samples %#v", d.Samples)
	}
}

type badRow struct {
	UserInput string    `parquet:"user_input"`
	Contexts  []*string `parquet:"retrieved_contexts,list"`
	Response  int64     `parquet:"response"`
}

type typoRow struct {
	UserInput string   `parquet:"user_input"`
	Contexts  []string `parquet:"retreived_contexts,list"`
	Source    string   `parquet:"source"`
}

type noFieldRow struct {
	Prompt string `parquet:"prompt"`
	Output string `parquet:"output"`
}

func TestParquetErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		opts dataset.Options
		want string
	}{
		{"row problems name the row",
			writeParquet(t, []badRow{{UserInput: "ok", Contexts: []*string{ptr("c")}, Response: 1}, {UserInput: "q", Contexts: []*string{ptr("c"), nil}, Response: 2}}),
			dataset.Options{},
			"g.parquet: row 1: response: given as a number; write a JSON string, e.g. \"1\"\n" +
				"g.parquet: row 2: retrieved_contexts: item 2 is null; write every item as a JSON string\n" +
				"g.parquet: row 2: response: given as a number; write a JSON string, e.g. \"2\""},
		{"misspelled column",
			writeParquet(t, []typoRow{{UserInput: "q", Contexts: []string{"c"}, Source: "wiki"}}),
			dataset.Options{},
			`g.parquet: unknown field "retreived_contexts": did you mean "retrieved_contexts"? (if it is a column of its own, rename it in the file; no option keeps it)`},
		{"strict fields",
			writeParquet(t, []typoRow{{UserInput: "q", Contexts: []string{"c"}, Source: "wiki"}}),
			dataset.Options{Mapping: map[string]string{"retrieved_contexts": "retreived_contexts"}, StrictFields: true},
			`g.parquet: unknown field "source"; rename it to one of id, user_input, retrieved_contexts, response, reference, reference_contexts, retrieved_context_ids, reference_context_ids, or map it with --field <field>=<name>; or drop --strict-fields to keep it as metadata`},
		{"no known column",
			writeParquet(t, []noFieldRow{{Prompt: "p", Output: "o"}}),
			dataset.Options{},
			`g.parquet: no column is a known field (the columns are prompt, output); name them user_input, retrieved_contexts, response, reference, or map them with --field <field>=<column>`},
		{"duplicate ids name rows",
			writeParquet(t, []ragasRow{ragasRows[0], ragasRows[0]}),
			dataset.Options{},
			`g.parquet: row 2: user_input: same user_input as the sample on row 1, so both get the id "q-` + dataset.DeriveID(ragasRows[0].UserInput)[2:] + `"; add an "id" field to each sample to tell them apart`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseErr(t, "g.parquet", string(tt.data), tt.opts); got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestCorruptParquet(t *testing.T) {
	good := writeParquet(t, ragasRows)
	tests := map[string][]byte{
		"not parquet":    []byte("user_input\nq\n"),
		"magic only":     []byte("PAR1"),
		"truncated":      good[:len(good)/2],
		"damaged footer": append(append([]byte{}, good[:len(good)-12]...), []byte("\xff\xff\xff\x7fPAR1PAR1")...),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got := parseErr(t, "g.parquet", string(data), dataset.Options{})
			runtime.ReadMemStats(&after)
			// A damaged footer length must not make the reader allocate
			// what it claims (2 GiB here).
			if mib := (after.TotalAlloc - before.TotalAlloc) >> 20; mib > 64 {
				t.Errorf("%d MiB allocated for a %d-byte file", mib, len(data))
			}
			if !strings.HasPrefix(got, "g.parquet: not a readable Parquet file (") ||
				!strings.HasSuffix(got, "); check that the file is complete, or export it again") {
				t.Errorf("error %q", got)
			}
		})
	}
}

// BenchmarkParseParquet parses fiqa (30 samples with long contexts) written
// as Parquet; compare with BenchmarkParse, the same data as JSON Lines.
func BenchmarkParseParquet(b *testing.B) {
	d, err := dataset.Load(datasets+"fiqa/fiqa.jsonl", dataset.Options{})
	if err != nil {
		b.Fatal(err)
	}
	type row struct {
		UserInput         string   `parquet:"user_input"`
		RetrievedContexts []string `parquet:"retrieved_contexts,list"`
		Response          string   `parquet:"response"`
		Reference         string   `parquet:"reference"`
	}
	rows := make([]row, len(d.Samples))
	for i, s := range d.Samples {
		rows[i] = row{s.UserInput, s.RetrievedContexts, s.Response, s.Reference}
	}
	var buf bytes.Buffer
	if err := parquet.Write(&buf, rows); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := dataset.Parse("fiqa.parquet", data, dataset.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParquetGoldenWithResponses(t *testing.T) {
	d := parse(t, "g.parquet", string(writeParquet(t, ragasRows)), dataset.Options{})
	id := d.Samples[0].ID
	responses := `{"id":"` + id + `","response":"new","latency_ms":12}`
	if err := dataset.ParseResponses(d, "r.jsonl", []byte(responses), dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	if d.Samples[0].Response != "new" || d.Samples[0].Metadata["latency_ms"] != "12" || d.Samples[0].Metadata["topic"] != "billing" {
		t.Errorf("joined sample %+v", d.Samples[0])
	}
	want := `g.parquet: 1 of 2 samples have no row in r.jsonl, so they keep only the golden file's fields: "` + d.Samples[1].ID + `" (row 2)`
	if !slices.Contains(d.Warnings, want) {
		t.Errorf("warnings %q; want %q", d.Warnings, want)
	}
	err := dataset.ParseResponses(d, "r.jsonl", []byte(`{"id":"`+id+`","user_input":"other","response":"x"}`), dataset.Options{})
	if err == nil || !strings.Contains(err.Error(), "(g.parquet row 1)") {
		t.Errorf("error %v; want it to name g.parquet row 1", err)
	}
}

// A list column reads as the same metadata text from Parquet as from JSON
// Lines: compact JSON, without HTML escapes (\u003c for <, \u0026 for &).
func TestParquetListMetadataLikeJSONLines(t *testing.T) {
	type row struct {
		UserInput string   `parquet:"user_input"`
		Response  string   `parquet:"response"`
		Tags      []string `parquet:"tags,list"`
	}
	pq := parse(t, "g.parquet", string(writeParquet(t, []row{{UserInput: "q", Response: "r", Tags: []string{"<b>", "R&D", "a>b"}}})), dataset.Options{})
	jl := parse(t, "g.jsonl", `{"user_input": "q", "response": "r", "tags": ["<b>", "R&D", "a>b"]}`+"\n", dataset.Options{})
	want := `["<b>","R&D","a>b"]`
	if got := jl.Samples[0].Metadata["tags"]; got != want {
		t.Fatalf("JSON Lines tags %q, want %q", got, want)
	}
	if got := pq.Samples[0].Metadata["tags"]; got != want {
		t.Errorf("Parquet tags %q, want %q as from JSON Lines", got, want)
	}
}
