package dataset_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/metrics"
)

const golden = `{"id":"a","user_input":"qa","retrieved_contexts":["ga"],"response":"old a","reference":"ra"}
{"id":"b","user_input":"qb","retrieved_contexts":["gb"],"reference":"rb"}
{"user_input":"qc","reference":"rc"}
{"id":"d1","user_input":"shared"}
{"id":"d2","user_input":"shared"}
`

func goldenDataset(t *testing.T) *dataset.Dataset {
	t.Helper()
	return parse(t, "golden.jsonl", golden, dataset.Options{})
}

func combined(goldenData, responsesData string) string {
	g := sha256.Sum256([]byte(goldenData))
	r := sha256.Sum256([]byte(responsesData))
	sum := sha256.Sum256(append(g[:], r[:]...))
	return hex.EncodeToString(sum[:])
}

func TestResponsesJoin(t *testing.T) {
	responses := `{"id":"a","response":"new a"}
{"id":"b","user_input":" qb ","response":"new b","retrieved_contexts":["nb1","nb2"],"retrieved_context_ids":["x"]}
{"user_input":"qc","answer":"new c","contexts":[]}
{"id":"d2","response":"new d2"}
`
	d := goldenDataset(t)
	if err := dataset.ParseResponses(d, "responses.jsonl", []byte(responses), dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d)
	want := []metrics.Sample{
		// A row replaces only the fields it gives.
		sample("a", metrics.UserInput, "qa", metrics.RetrievedContexts, []string{"ga"}, metrics.Response, "new a", metrics.Reference, "ra"),
		sample("b", metrics.UserInput, "qb", metrics.RetrievedContexts, []string{"nb1", "nb2"}, metrics.Response, "new b",
			metrics.Reference, "rb", metrics.RetrievedContextIDs, []string{"x"}),
		// Joined by user_input.
		sample(dataset.DeriveID("qc"), metrics.UserInput, "qc", metrics.RetrievedContexts, []string{}, metrics.Response, "new c", metrics.Reference, "rc"),
		sample("d1", metrics.UserInput, "shared"),
		sample("d2", metrics.UserInput, "shared", metrics.Response, "new d2"),
	}
	if !reflect.DeepEqual(d.Samples, want) {
		t.Errorf("samples:\n%#v\nwant:\n%#v", d.Samples, want)
	}
	wantWarnings := []string{`golden.jsonl: 1 of 5 samples have no row in responses.jsonl, so they keep only the golden file's fields: "d1" (line 4)`}
	if !slices.Equal(d.Warnings, wantWarnings) {
		t.Errorf("warnings %q; want %q", d.Warnings, wantWarnings)
	}
	if !d.Fields[metrics.RetrievedContextIDs] || d.ResponsesPath != "responses.jsonl" {
		t.Errorf("Fields %v, ResponsesPath %q", d.Fields, d.ResponsesPath)
	}
	if d.SHA256 != combined(golden, responses) {
		t.Errorf("SHA256 %s; want %s", d.SHA256, combined(golden, responses))
	}
	if !reflect.DeepEqual(d.Lines, []int{1, 2, 3, 4, 5}) {
		t.Errorf("lines %v", d.Lines)
	}
}

func TestResponsesDoNotAliasTheGoldenSamples(t *testing.T) {
	d := goldenDataset(t)
	before := slices.Clone(d.Samples)
	present := d.Samples[1].Present
	if err := dataset.ParseResponses(d, "r.jsonl", []byte(`{"id":"b","response":"x"}`), dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	if present[metrics.Response] || before[1].Has(metrics.Response) {
		t.Errorf("the golden sample's Present map was changed")
	}
}

func TestResponsesUnmatched(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":"a","response":"x"}` + "\n")
	for i := range 12 {
		b.WriteString(`{"id":"zz` + string(rune('a'+i)) + `","response":"x"}` + "\n")
	}
	b.WriteString(`{"user_input":"not a golden question","response":"x"}` + "\n")
	d := goldenDataset(t)
	if err := dataset.ParseResponses(d, "r.jsonl", []byte(b.String()), dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`r.jsonl: 13 rows match no golden sample and are ignored: line 2 (id "zza"), line 3 (id "zzb"), line 4 (id "zzc"), line 5 (id "zzd"), line 6 (id "zze"), line 7 (id "zzf"), line 8 (id "zzg"), line 9 (id "zzh"), line 10 (id "zzi"), line 11 (id "zzj"), and 3 more`,
		`golden.jsonl: 4 of 5 samples have no row in r.jsonl, so they keep only the golden file's fields: "b" (line 2), "` + dataset.DeriveID("qc") + `" (line 3), "d1" (line 4), "d2" (line 5)`,
	}
	if !slices.Equal(d.Warnings, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(d.Warnings, "\n"), strings.Join(want, "\n"))
	}
	if d.Samples[1].Has(metrics.Response) || d.Samples[0].Response != "x" {
		t.Errorf("samples %#v", d.Samples[:2])
	}

	d = goldenDataset(t)
	if err := dataset.ParseResponses(d, "r.jsonl", []byte(`{"user_input":"elsewhere","response":"x"}`), dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 2 || d.Warnings[0] != `r.jsonl: 1 row matches no golden sample and is ignored: line 1 (user_input "elsewhere")` {
		t.Errorf("warnings %q", d.Warnings)
	}
}

func TestResponsesErrors(t *testing.T) {
	tests := []struct {
		name, file, data string
		opts             dataset.Options
		want             string
	}{
		{
			name: "golden-only fields, reported once",
			file: "r.jsonl",
			data: `{"id":"a","response":"x","reference":"y","ground_truth":"y"}
{"id":"b","response":"x","reference":"y"}
`,
			want: `r.jsonl:1:26: reference: reference is not an output of the pipeline; a responses file gives id or user_input and response, retrieved_contexts or retrieved_context_ids; put reference in the golden file
r.jsonl:1:42: ground_truth: reference is not an output of the pipeline; a responses file gives id or user_input and response, retrieved_contexts or retrieved_context_ids; put reference in the golden file`,
		},
		{
			name: "user_input differs from the golden sample with the same id",
			file: "r.jsonl",
			data: `{"id":"a","user_input":"qa2","response":"x"}`,
			want: `r.jsonl:1:1: user_input: differs from the user_input of the golden sample with id "a" (golden.jsonl:1); regenerate the responses from the current golden file`,
		},
		{
			name: "user_input shared by several samples",
			file: "r.jsonl",
			data: `{"user_input":"shared","response":"x"}`,
			want: `r.jsonl:1:1: user_input: matches 2 golden samples (golden.jsonl lines 4 and 5); add the "id" of the right sample to this row`,
		},
		{
			name: "no join key",
			file: "r.jsonl",
			data: `{"response":"x"}`,
			want: `r.jsonl:1:1: no "id" and no "user_input"; give each row the "id" of its golden sample (or its user_input)`,
		},
		{
			name: "no outputs",
			file: "r.jsonl",
			data: `{"id":"a"}`,
			want: `r.jsonl:1:1: no output fields; give response, retrieved_contexts or retrieved_context_ids`,
		},
		{
			name: "two rows for one sample",
			file: "r.jsonl",
			data: `{"id":"a","response":"x"}
{"user_input":"qa","response":"y"}
`,
			want: `r.jsonl:2:1: a second row for the sample "a" (the first is on line 1); keep one`,
		},
		{
			name: "empty",
			file: "r.jsonl",
			data: "\n",
			want: `r.jsonl: no rows; each line must be a JSON object like {"id": "...", "response": "...", "retrieved_contexts": ["..."]}`,
		},
		{
			name: "empty CSV",
			file: "r.csv",
			data: "id,response\n",
			want: `r.csv: no rows; the first row must be a header naming the fields (e.g. id,response) and each further row gives one sample's outputs`,
		},
		{
			name: "CSV with a golden-only column",
			file: "r.csv",
			data: "id,response,reference_contexts\na,x,\nb,y,\"[]\"\n",
			want: `r.csv:1:13: reference_contexts: reference_contexts is not an output of the pipeline; a responses file gives id or user_input and response, retrieved_contexts or retrieved_context_ids; put reference_contexts in the golden file`,
		},
		{
			name: "wrong types",
			file: "r.jsonl",
			data: `{"id":"a","response":1,"retrieved_contexts":"x"}`,
			want: `r.jsonl:1:22: response: given as a number; write a JSON string, e.g. "1"
r.jsonl:1:45: retrieved_contexts: given as a string; write a JSON array of strings, e.g. ["..."]`,
		},
		{
			name: "bad mapping",
			file: "r.jsonl",
			data: `{"id":"a","response":"x"}`,
			opts: dataset.Options{Mapping: map[string]string{"answer": "x"}},
			want: `field mapping answer=x: "answer" is an old field name; map the canonical name instead: response=x`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := goldenDataset(t)
			before := *d
			before.Samples = slices.Clone(d.Samples)
			err := dataset.ParseResponses(d, tt.file, []byte(tt.data), tt.opts)
			var de *dataset.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v; want *dataset.Error", err, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
			}
			if !reflect.DeepEqual(*d, before) {
				t.Errorf("dataset changed by a failed join")
			}
		})
	}
}

func TestResponsesMappingAndCSV(t *testing.T) {
	opts := dataset.Options{Mapping: map[string]string{"response": "output", "retrieved_contexts": "context"}}
	d := parse(t, "golden.jsonl", golden, opts)
	// Parse sees only the golden file, where the mapped names do not occur
	// (Load looks at both files before warning).
	if len(d.Warnings) != 2 || !strings.HasPrefix(d.Warnings[0], "field mapping response=output: no row of golden.jsonl") {
		t.Errorf("warnings %q", d.Warnings)
	}
	responses := "id,output,context\na,new a,the chunk\nb,new b,\"[\"\"c1\"\",\"\"c2\"\"]\"\n"
	if err := dataset.ParseResponses(d, "r.csv", []byte(responses), opts); err != nil {
		t.Fatal(err)
	}
	if s := d.Samples[0]; s.Response != "new a" || !slices.Equal(s.RetrievedContexts, []string{"the chunk"}) {
		t.Errorf("sample a %#v", s)
	}
	if s := d.Samples[1]; s.Response != "new b" || !slices.Equal(s.RetrievedContexts, []string{"c1", "c2"}) {
		t.Errorf("sample b %#v", s)
	}
}

func TestLoadWithResponses(t *testing.T) {
	goldenPath := "../../testdata/demo/golden.jsonl"
	responsesPath := "../../testdata/demo/responses-degraded.jsonl"
	plain := load(t, goldenPath, dataset.Options{})
	d := load(t, goldenPath, dataset.Options{ResponsesPath: responsesPath})
	if len(d.Samples) != 20 || len(d.Warnings) != 0 || d.ResponsesPath != responsesPath {
		t.Fatalf("%d samples, warnings %q, responses %q", len(d.Samples), d.Warnings, d.ResponsesPath)
	}
	gdata, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	rdata, err := os.ReadFile(responsesPath)
	if err != nil {
		t.Fatal(err)
	}
	if d.SHA256 != combined(string(gdata), string(rdata)) {
		t.Errorf("SHA256 %s", d.SHA256)
	}
	rows := make(map[string]string)
	for _, line := range strings.Split(strings.TrimSpace(string(rdata)), "\n") {
		var row struct{ ID, Response string }
		unmarshal(t, line, &row)
		rows[row.ID] = row.Response
	}
	if len(rows) != 20 {
		t.Fatalf("%d rows in %s", len(rows), responsesPath)
	}
	for i, s := range d.Samples {
		p := plain.Samples[i]
		if s.ID != p.ID || s.UserInput != p.UserInput || s.Reference != p.Reference || !slices.Equal(s.RetrievedContexts, p.RetrievedContexts) {
			t.Errorf("sample %s: fields other than response changed", s.ID)
		}
		if s.Response != rows[s.ID] {
			t.Errorf("sample %s: response %q; want the responses file's %q", s.ID, s.Response, rows[s.ID])
		}
	}
	if d.Samples[0].Response != "The Kestrel K2 stores 20 kWh of usable energy and can run a whole house for a week." {
		t.Errorf("response not replaced: %q", d.Samples[0].Response)
	}

	// LoadResponses is the same join.
	d2 := load(t, goldenPath, dataset.Options{})
	if err := dataset.LoadResponses(d2, responsesPath, dataset.Options{}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d, d2) {
		t.Errorf("Load with ResponsesPath and LoadResponses differ")
	}

	// A missing responses file.
	missing := filepath.Join(t.TempDir(), "r.jsonl")
	_, err = dataset.Load(goldenPath, dataset.Options{ResponsesPath: missing})
	var de *dataset.Error
	if !errors.As(err, &de) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("error %v", err)
	}
	if err := dataset.LoadResponses(d2, missing, dataset.Options{}); !errors.As(err, &de) {
		t.Errorf("LoadResponses error %v", err)
	}
}

func TestLoadMappingWarningCoversBothFiles(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.jsonl")
	r := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(g, []byte(`{"id":"a","user_input":"q"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r, []byte(`{"id":"a","output":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := dataset.Options{ResponsesPath: r, Mapping: map[string]string{"response": "output", "reference": "gold"}}
	d := load(t, g, opts)
	want := []string{`field mapping reference=gold: no row of ` + g + ` or ` + r + ` has a field "gold", so the mapping does nothing`}
	if !slices.Equal(d.Warnings, want) || d.Samples[0].Response != "x" {
		t.Errorf("warnings %q; want %q", d.Warnings, want)
	}
}
