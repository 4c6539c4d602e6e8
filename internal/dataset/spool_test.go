package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/raggate/raggate/metrics"
)

// A dataset loaded with a spool holds no texts in memory, and every
// sample read back from the spool is the sample a plain load gives.
func TestSpoolGivesBackEverySample(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "datasets", "amnesty_qa", "amnesty_qa_eval.english_v3.fef186d.jsonl")
	plain, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := NewSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	spooled, err := Load(path, Options{Spool: sp})
	if err != nil {
		t.Fatal(err)
	}
	if spooled.Spool() != sp || plain.Spool() != nil {
		t.Fatalf("Spool() = %v and %v, want the spool and nil", spooled.Spool(), plain.Spool())
	}
	if spooled.Len() != len(plain.Samples) || spooled.SHA256 != plain.SHA256 || !reflect.DeepEqual(spooled.Fields, plain.Fields) {
		t.Fatalf("spooled load differs: %d samples, sha %s, fields %v", spooled.Len(), spooled.SHA256, spooled.Fields)
	}
	if spooled.Samples != nil || spooled.Lines != nil {
		t.Fatalf("a spooled load keeps %d samples and %d lines in slices, want records only", len(spooled.Samples), len(spooled.Lines))
	}
	for i, light := range spooled.All() {
		want := plain.Samples[i]
		if spooled.ID(i) != want.ID || spooled.Line(i) != plain.Lines[i] || spooled.Where(i) != plain.Where(i) {
			t.Fatalf("sample %d: id %q at %s, want %q at %s", i, spooled.ID(i), spooled.Where(i), want.ID, plain.Where(i))
		}
		for _, f := range metrics.Fields {
			if spooled.Has(i, f) != want.Has(f) {
				t.Fatalf("sample %d: Has(%s) = %v, want %v", i, f, spooled.Has(i, f), want.Has(f))
			}
		}
		if !reflect.DeepEqual(light.Metadata, want.Metadata) {
			t.Fatalf("sample %d: metadata %v, want %v", i, light.Metadata, want.Metadata)
		}
		if light.UserInput != "" || light.Response != "" || light.RetrievedContexts != nil || light.Reference != "" {
			t.Fatalf("sample %d holds texts in memory: %+v", i, light)
		}
		if light.ID != want.ID || !reflect.DeepEqual(light.Present, want.Present) {
			t.Fatalf("sample %d: id %q present %v, want %q %v", i, light.ID, light.Present, want.ID, want.Present)
		}
		got, err := sp.Get(i)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("sample %d read back:\n%+v\nwant\n%+v", i, got, want)
		}
		if c := sp.MostContexts(i); c != max(len(want.RetrievedContexts), len(want.RetrievedContextIDs)) {
			t.Fatalf("MostContexts = %d, want %d", c, max(len(want.RetrievedContexts), len(want.RetrievedContextIDs)))
		}
	}
}

// Every field, empty strings, metadata and odd bytes survive the spool.
func TestSpoolRoundTrip(t *testing.T) {
	sp, err := NewSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := sp.f.Name()
	var s metrics.Sample
	s.ID = "a\x00b"
	s.Set(metrics.UserInput, "")
	s.Set(metrics.Response, "héllo\nworld")
	s.SetList(metrics.RetrievedContexts, []string{"one", "", "three"})
	s.SetList(metrics.ReferenceContextIDs, []string{"x"})
	s.Metadata = map[string]string{"topic": "tax", "b": ""}
	light, err := sp.Put(s)
	if err != nil {
		t.Fatal(err)
	}
	if light.Response != "" || light.ID != s.ID || !reflect.DeepEqual(light.Metadata, s.Metadata) {
		t.Fatalf("light sample %+v", light)
	}
	got, err := sp.Get(0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("read back %+v, want %+v", got, s)
	}
	for _, i := range []int{-1, 1, 3} {
		if _, err := sp.Get(i); err == nil {
			t.Fatalf("Get(%d) of an unknown position: no error", i)
		}
	}
	// Set puts a sample at any position (3 leaves 1 and 2 empty) and
	// replaces the one there.
	var u metrics.Sample
	u.ID = "u"
	u.Set(metrics.Response, "first")
	if err := sp.Set(3, u); err != nil {
		t.Fatal(err)
	}
	u.Set(metrics.Response, "second")
	if err := sp.Set(3, u); err != nil {
		t.Fatal(err)
	}
	if got, err := sp.Get(3); err != nil || !reflect.DeepEqual(got, u) {
		t.Fatalf("Get(3) = %+v, %v; want %+v", got, err, u)
	}
	if _, err := sp.Get(2); err == nil || sp.Len() != 4 {
		t.Fatalf("Get(2) of a position never set: %v; Len %d, want 4", err, sp.Len())
	}
	if got, err := sp.Get(0); err != nil || !reflect.DeepEqual(got, s) {
		t.Fatalf("Get(0) after Set(3) = %+v, %v", got, err)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Fatalf("the spool file is left behind: %v", err)
	}
	if _, err := sp.Get(0); err == nil {
		t.Fatal("Get after Close: no error")
	}
}

// A responses row with the pipeline's contexts but no ids drops the
// golden file's ids: they named other contexts.
func TestResponsesContextsWithoutIDsDropGoldenIDs(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.jsonl")
	resp := filepath.Join(dir, "responses.jsonl")
	if err := os.WriteFile(golden, []byte(`{"id": "a", "user_input": "q", "retrieved_contexts": ["g"], "retrieved_context_ids": ["g1"]}
{"id": "b", "user_input": "r", "retrieved_contexts": ["g"], "retrieved_context_ids": ["g1"]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(resp, []byte(`{"id": "a", "response": "x", "retrieved_contexts": ["p"]}
{"id": "b", "response": "y"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(golden, Options{ResponsesPath: resp})
	if err != nil {
		t.Fatal(err)
	}
	if a := d.Samples[0]; a.Has(metrics.RetrievedContextIDs) || a.RetrievedContextIDs != nil {
		t.Errorf("sample a keeps the golden ids %v with the pipeline's contexts %v", a.RetrievedContextIDs, a.RetrievedContexts)
	}
	if b := d.Samples[1]; !b.Has(metrics.RetrievedContextIDs) || b.RetrievedContexts[0] != "g" {
		t.Errorf("sample b, answered without contexts, lost its golden contexts or ids: %+v", b)
	}
}

// A spooled load keeps the fields present as an index into at most 256
// sets: metrics.Fields must not outgrow 8 fields without widening it.
func TestLightPatternsFit(t *testing.T) {
	if len(metrics.Fields) > 8 {
		t.Fatalf("%d fields: light.pats (uint8) cannot index every set of them", len(metrics.Fields))
	}
}

// A spooled load gives each sample its metadata and its line (shared
// among equal maps), and reports duplicate ids with the same lines as a
// plain load.
func TestSpooledMetadataAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(golden, []byte(`{"id": "a", "user_input": "q", "topic": "x"}

{"id": "b", "user_input": "r", "topic": "y", "lang": "en"}
{"user_input": "s", "topic": "x"}
{"id": "d", "user_input": "t", "response": "u"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(path string) (*Dataset, error) {
		sp, err := NewSpool(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sp.Close() })
		return Load(path, Options{Spool: sp})
	}
	plain, err := Load(golden, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := load(golden)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 4 {
		t.Fatalf("Len = %d, want 4", d.Len())
	}
	mat := d.Materialize()
	for i := range d.Len() {
		want := plain.Samples[i]
		got := d.Light(i)
		if got.ID != want.ID || !reflect.DeepEqual(got.Present, want.Present) || !reflect.DeepEqual(got.Metadata, want.Metadata) || got.UserInput != "" {
			t.Errorf("Light(%d) = %+v, want the id, fields and metadata of %+v", i, got, want)
		}
		if !reflect.DeepEqual(mat[i], got) {
			t.Errorf("Materialize()[%d] = %+v, want %+v", i, mat[i], got)
		}
		if d.Where(i) != plain.Where(i) {
			t.Errorf("Where(%d) = %q, want %q", i, d.Where(i), plain.Where(i))
		}
	}
	if d.Where(4) != "" || d.Line(-1) != 0 {
		t.Errorf("Where(4) = %q, Line(-1) = %d, want nothing", d.Where(4), d.Line(-1))
	}
	if !reflect.DeepEqual(d.Fields, plain.Fields) {
		t.Errorf("Fields = %v, want %v", d.Fields, plain.Fields)
	}
	d.Release()
	if d.Len() != 0 || d.Where(0) != "" {
		t.Errorf("after Release: Len %d, Where(0) %q", d.Len(), d.Where(0))
	}

	dup := filepath.Join(dir, "dup.jsonl")
	if err := os.WriteFile(dup, []byte(`{"id": "a", "user_input": "q"}
{"user_input": "r"}
{"id": "a", "user_input": "s"}
{"user_input": "r"}
{"id": "`+DeriveID("r")+`", "user_input": "t"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, perr := Load(dup, Options{})
	_, serr := load(dup)
	if perr == nil || serr == nil || perr.Error() != serr.Error() {
		t.Fatalf("duplicate ids: spooled %v, plain %v", serr, perr)
	}
}

// A responses file joined to a spooled dataset gives the samples, fields,
// warnings, sum and errors of the join in memory: by id, by user_input,
// context ids dropped with new contexts, metadata merged, in JSON Lines
// (read a line at a time) and CSV.
func TestSpooledResponsesJoin(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	golden := write("golden.jsonl", `{"id":"a","user_input":"qa","retrieved_contexts":["ga"],"retrieved_context_ids":["ia"],"response":"old a","reference":"ra","topic":"x"}
{"id":"b","user_input":"qb","retrieved_contexts":["gb"],"reference":"rb"}
{"user_input":"qc","reference":"rc","topic":"x"}
{"id":"d1","user_input":"shared"}
{"id":"d2","user_input":"shared","topic":"y"}
{"id":"e","user_input":"qe","retrieved_context_ids":["ie"]}
`)
	load := func(responses string, spooled bool) (*Dataset, error) {
		opts := Options{ResponsesPath: responses}
		if spooled {
			sp, err := NewSpool(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sp.Close() })
			opts.Spool = sp
		}
		return Load(golden, opts)
	}
	cases := map[string]string{
		"lines.jsonl": `{"id":"a","response":"new a","retrieved_contexts":["na"],"lang":"en"}
{"id":"b","user_input":" qb ","response":"new b","retrieved_contexts":["nb1","nb2"],"retrieved_context_ids":["x"]}
{"user_input":"qc","answer":"new c","contexts":[],"topic":"z"}
{"id":"d2","response":"new d2"}
{"id":"zz","response":"nobody's"}
`,
		"rows.csv": "id,user_input,response\na,,csv a\n,qc,csv c\ne,qe,csv e\n",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			path := write(name, data)
			plain, err := load(path, false)
			if err != nil {
				t.Fatal(err)
			}
			d, err := load(path, true)
			if err != nil {
				t.Fatal(err)
			}
			if d.Spool() == nil || d.Samples != nil {
				t.Fatalf("the join kept the samples in memory (spool %v, %d samples)", d.Spool(), len(d.Samples))
			}
			if d.Len() != len(plain.Samples) || d.SHA256 != plain.SHA256 || d.ResponsesPath != plain.ResponsesPath {
				t.Fatalf("Len %d, sum %s, responses %q; want %d, %s, %q", d.Len(), d.SHA256, d.ResponsesPath, len(plain.Samples), plain.SHA256, plain.ResponsesPath)
			}
			if !reflect.DeepEqual(d.Fields, plain.Fields) {
				t.Errorf("Fields %v, want %v", d.Fields, plain.Fields)
			}
			if !reflect.DeepEqual(d.Warnings, plain.Warnings) {
				t.Errorf("warnings\n%q\nwant\n%q", d.Warnings, plain.Warnings)
			}
			for i := range d.Len() {
				want := plain.Samples[i]
				got, err := d.Spool().Get(i)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("sample %d read back:\n%#v\nwant\n%#v", i, got, want)
				}
				light := d.Light(i)
				if light.ID != want.ID || !reflect.DeepEqual(light.Present, want.Present) || !reflect.DeepEqual(light.Metadata, want.Metadata) {
					t.Errorf("Light(%d) = %+v, want the id, fields and metadata of %+v", i, light, want)
				}
				if d.Spool().MostContexts(i) != max(len(want.RetrievedContexts), len(want.RetrievedContextIDs)) {
					t.Errorf("MostContexts(%d) = %d", i, d.Spool().MostContexts(i))
				}
			}
		})
	}
	// The join of the JSON Lines file replaced sample a's contexts and so
	// dropped its context ids: no sample but e has ids any more.
	d, err := load(filepath.Join(dir, "lines.jsonl"), true)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Fields[metrics.RetrievedContextIDs] || d.Has(0, metrics.RetrievedContextIDs) {
		t.Errorf("Fields %v, sample a has ids: %v", d.Fields, d.Has(0, metrics.RetrievedContextIDs))
	}

	errs := []string{
		`{"user_input":"shared","response":"x"}`,
		`{"id":"a","user_input":"other","response":"x"}`,
		"{\"id\":\"a\",\"response\":\"x\"}\n{\"id\":\"a\",\"response\":\"y\"}",
		`{"id":"a"}`,
		``,
	}
	for i, data := range errs {
		path := write(fmt.Sprintf("bad%d.jsonl", i), data)
		_, perr := load(path, false)
		_, serr := load(path, true)
		if perr == nil || serr == nil || perr.Error() != serr.Error() {
			t.Errorf("%s: errors\n%v\nand spooled\n%v", data, perr, serr)
		}
	}
}
