package dataset_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/metrics"
)

// The files under testdata are shaped like public RAG-evaluation exports
// (our own rows): a RAGFlow export, a leaderboard dump, the WikiEval schema
// and a CSV with capitalised headers.
func TestRealWorldExtraColumnsAreMetadata(t *testing.T) {
	tests := []struct {
		file    string
		mapping map[string]string
		fields  []metrics.Field // fields every sample has
		meta    map[string]string
		warning string // a warning that must be given, if any
	}{
		{
			file:   "ragflow_export.jsonl",
			fields: []metrics.Field{metrics.UserInput, metrics.Response, metrics.RetrievedContexts, metrics.Reference},
			meta:   map[string]string{"status": "success", "timestamp": "2025-03-04T09:12:44Z"},
		},
		{
			file:   "leaderboard_dump.jsonl",
			fields: []metrics.Field{metrics.UserInput, metrics.Response},
			meta: map[string]string{
				"model": "small-rag-v2", "dataset": "support-faq", "answer_bert_score": "0.912", "answer_rouge_l": "0.41",
				"is_correct": "true", "context": "Customers may ask for a refund within 30 days of purchase.", "gt_answer": "30 days after purchase.",
			},
			warning: `testdata/leaderboard_dump.jsonl: the column "context" is kept as metadata; if it holds retrieved_contexts, map it with --field retrieved_contexts=context`,
		},
		{
			file:    "leaderboard_dump.jsonl",
			mapping: map[string]string{"retrieved_contexts": "context", "reference": "gt_answer"},
			fields:  []metrics.Field{metrics.UserInput, metrics.Response, metrics.RetrievedContexts, metrics.Reference},
			meta:    map[string]string{"model": "small-rag-v2", "dataset": "support-faq", "answer_bert_score": "0.912", "answer_rouge_l": "0.41", "is_correct": "true"},
		},
		{
			file:   "wikieval.json",
			fields: []metrics.Field{metrics.UserInput, metrics.Response},
			meta: map[string]string{
				"context_v1":        `["The north cape lighthouse was first lit in 1871 and automated in 1988."]`,
				"context_v2":        `["The north cape lighthouse was first lit in 1871.","It is 32 metres tall."]`,
				"ungrounded_answer": "It was first lit in 1905 by the navy.",
				"poor_answer":       "It is a lighthouse.",
				"source":            "North Cape Lighthouse",
			},
		},
		{
			file:    "halueval.csv",
			mapping: map[string]string{"id": "sample_id", "user_input": "Question", "retrieved_contexts": "Context", "response": "Answer"},
			fields:  []metrics.Field{metrics.UserInput, metrics.Response, metrics.RetrievedContexts},
			meta:    map[string]string{"Retreival Setting": "top-3", "Label": "PASS"},
			warning: `testdata/halueval.csv: the column "Label" is kept as metadata; if it holds reference, map it with --field reference=Label`,
		},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.file, tt.mapping), func(t *testing.T) {
			path := "testdata/" + tt.file
			d := load(t, path, dataset.Options{Mapping: tt.mapping})
			for _, s := range d.Samples {
				for _, f := range tt.fields {
					if !s.Has(f) {
						t.Errorf("sample %s has no %s", s.ID, f)
					}
				}
			}
			if got := d.Samples[0].Metadata; !reflect.DeepEqual(got, tt.meta) {
				t.Errorf("metadata of the first sample:\n%q\nwant:\n%q", got, tt.meta)
			}
			if tt.warning != "" && !slices.Contains(d.Warnings, tt.warning) {
				t.Errorf("warnings %q; want %q", d.Warnings, tt.warning)
			}
			if tt.warning == "" && len(d.Warnings) != 0 {
				t.Errorf("warnings %q; want none", d.Warnings)
			}

			// --strict-fields: every extra column is an error.
			_, err := dataset.Load(path, dataset.Options{Mapping: tt.mapping, StrictFields: true})
			if err == nil || !strings.Contains(err.Error(), "unknown field") {
				t.Errorf("strict: error %v; want unknown fields", err)
			}
		})
	}
}

func TestRealDatasetsKeepLoading(t *testing.T) {
	for _, path := range []string{
		datasets + "amnesty_qa/amnesty_qa_eval.english_v2.fbf1aec.jsonl",
		datasets + "amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl",
		datasets + "fiqa/fiqa.jsonl",
	} {
		// They carry no extra column: nothing to keep, and strict fields
		// accept them.
		d := load(t, path, dataset.Options{StrictFields: true})
		for _, s := range d.Samples {
			if s.Metadata != nil {
				t.Errorf("%s: sample %s has metadata %v", path, s.ID, s.Metadata)
			}
		}
		if len(d.Warnings) != 0 {
			t.Errorf("%s: warnings %q", path, d.Warnings)
		}
	}
}

func TestMisspelledColumnsStillFail(t *testing.T) {
	tests := []struct{ file, data, want string }{
		{"r.jsonl", `{"question":"q","retreived_contexts":["c"],"status":"success"}`,
			`r.jsonl:1:17: unknown field "retreived_contexts": did you mean "retrieved_contexts"? (if it is a column of its own, rename it in the file; no option keeps it)`},
		{"h.csv", "sample_id,Retreival Setting,Question,Context,Answer,Label\nh-1,top-3,q,c,a,PASS\n",
			`h.csv:1:29: unknown field "Question": names are case-sensitive: rename it "question", or map it with --field user_input=Question` + "\n" +
				`h.csv:1:46: unknown field "Answer": names are case-sensitive: rename it "answer", or map it with --field response=Answer`},
		{"w.json", `[{"question":"q","answr":"a","context_v1":["c"]}]`,
			`w.json:1:18: unknown field "answr": did you mean "answer"? (if it is a column of its own, rename it in the file; no option keeps it)`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			if got := parseErr(t, tt.file, tt.data, dataset.Options{}); got != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestMetadataValues(t *testing.T) {
	big := strings.Repeat("é", dataset.MaxMetadataValue) // 2 bytes each
	data := fmt.Sprintf(`{"user_input":"q","n":7.50,"b":false,"s":" kept as is ","nested":{"a": [1, "x"], "b": null},"none":null,"empty":"","big":%q}`, big)
	d := parse(t, "g.jsonl", data, dataset.Options{})
	m := d.Samples[0].Metadata
	want := map[string]string{"n": "7.50", "b": "false", "s": " kept as is ", "nested": `{"a":[1,"x"],"b":null}`, "empty": ""}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q; want %q", k, m[k], v)
		}
	}
	if _, ok := m["none"]; ok {
		t.Errorf("a null gave a value %q", m["none"])
	}
	if got := m["big"]; len(got) > dataset.MaxMetadataValue+len(dataset.TruncatedMark) ||
		!strings.HasSuffix(got, dataset.TruncatedMark) || !strings.HasPrefix(big, strings.TrimSuffix(got, dataset.TruncatedMark)) {
		t.Errorf("big value not cut to %d bytes with the mark: %d bytes", dataset.MaxMetadataValue, len(got))
	}
	if want := `g.jsonl: metadata values longer than 1024 bytes are cut (columns "big")`; !slices.Contains(d.Warnings, want) {
		t.Errorf("warnings %q; want %q", d.Warnings, want)
	}

	// An empty CSV cell gives no value; text is kept as written.
	d = parse(t, "g.csv", "user_input,topic,score\nq1,billing,0.5\nq2,,\n", dataset.Options{})
	if got := d.Samples[0].Metadata; !reflect.DeepEqual(got, map[string]string{"topic": "billing", "score": "0.5"}) {
		t.Errorf("CSV metadata %q", got)
	}
	if got := d.Samples[1].Metadata; got != nil {
		t.Errorf("empty cells gave metadata %q", got)
	}
}

func TestMetadataKeyLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"user_input":"q"`)
	for i := range dataset.MaxMetadataKeys + 2 {
		fmt.Fprintf(&b, `,"k%02d":%d`, i, i)
	}
	b.WriteString("}")
	d := parse(t, "g.jsonl", b.String(), dataset.Options{})
	m := d.Samples[0].Metadata
	if len(m) != dataset.MaxMetadataKeys || m["k00"] != "0" || m["k31"] != "31" {
		t.Errorf("%d keys kept (%q); want the first %d", len(m), m, dataset.MaxMetadataKeys)
	}
	if want := `g.jsonl: a sample keeps at most 32 metadata columns; not kept: "k32", "k33"`; !slices.Contains(d.Warnings, want) {
		t.Errorf("warnings %q; want %q", d.Warnings, want)
	}
}

func TestResponsesMetadata(t *testing.T) {
	d := parse(t, "g.jsonl", `{"id":"a","user_input":"qa","topic":"billing","source":"faq"}
{"id":"b","user_input":"qb","topic":"shipping"}
`, dataset.Options{})
	responses := `{"id":"a","response":"ra","latency_ms":120,"source":"kb-v2"}
{"id":"b","response":"rb"}
`
	if err := dataset.ParseResponses(d, "r.jsonl", []byte(responses), dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	// The row's metadata joins the sample's; its values win.
	if got, want := d.Samples[0].Metadata, map[string]string{"topic": "billing", "source": "kb-v2", "latency_ms": "120"}; !reflect.DeepEqual(got, want) {
		t.Errorf("metadata %q; want %q", got, want)
	}
	if got, want := d.Samples[1].Metadata, map[string]string{"topic": "shipping"}; !reflect.DeepEqual(got, want) {
		t.Errorf("metadata %q; want %q", got, want)
	}

	// A misspelled output is still an error, and strict fields reject
	// extra columns in the responses file too.
	d = goldenDataset(t)
	err := dataset.ParseResponses(d, "r.jsonl", []byte(`{"id":"a","respones":"x"}`), dataset.Options{})
	if err == nil || err.Error() != `r.jsonl:1:11: unknown field "respones": did you mean "response"? (if it is a column of its own, rename it in the file; no option keeps it)` {
		t.Errorf("error %v", err)
	}
	err = dataset.ParseResponses(d, "r.jsonl", []byte(`{"id":"a","response":"x","latency_ms":1}`), dataset.Options{StrictFields: true})
	if err == nil || !strings.HasPrefix(err.Error(), `r.jsonl:1:26: unknown field "latency_ms"`) {
		t.Errorf("strict error %v", err)
	}
}

// A responses file is read whole, but its lines are held to the line
// limit of a dataset (--max-line-size), with file:line.
func TestResponsesLineLimit(t *testing.T) {
	d := parse(t, "g.jsonl", `{"id":"a","user_input":"qa"}
{"id":"b","user_input":"qb"}
`, dataset.Options{})
	long := `{"id":"b","response":"` + strings.Repeat("x", 200) + `"}`
	err := dataset.ParseResponses(d, "r.jsonl", []byte(`{"id":"a","response":"ra"}`+"\n"+long+"\n"), dataset.Options{Limits: dataset.Limits{MaxLineBytes: 100}})
	if err == nil || !strings.Contains(err.Error(), "r.jsonl:2") || !strings.Contains(err.Error(), "longer than 100 bytes") {
		t.Fatalf("err = %v, want r.jsonl:2 longer than 100 bytes", err)
	}
	if err := dataset.ParseResponses(d, "r.jsonl", []byte(long+"\n"), dataset.Options{Limits: dataset.Limits{MaxLineBytes: 300}}); err != nil {
		t.Errorf("a line within the limit: %v", err)
	}
}
