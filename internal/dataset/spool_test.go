package dataset

import (
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
	if len(spooled.Samples) != len(plain.Samples) || spooled.SHA256 != plain.SHA256 || !reflect.DeepEqual(spooled.Fields, plain.Fields) {
		t.Fatalf("spooled load differs: %d samples, sha %s, fields %v", len(spooled.Samples), spooled.SHA256, spooled.Fields)
	}
	for i, light := range spooled.Samples {
		want := plain.Samples[i]
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
