package results

import (
	"reflect"
	"strings"
	"testing"
)

func TestMetadataRoundTripAndMerge(t *testing.T) {
	f := sampleFile()
	f.Samples[0].Metadata = map[string]string{"topic": "billing", "source": "faq"}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	// Written per sample, and left out where a sample has none.
	if strings.Count(s, `"metadata"`) != 1 || !strings.Contains(s, `"metadata": {`) {
		t.Errorf("metadata not written once:\n%s", s)
	}
	got, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Samples[0].Metadata, f.Samples[0].Metadata) || got.Samples[1].Metadata != nil {
		t.Errorf("read back %v and %v", got.Samples[0].Metadata, got.Samples[1].Metadata)
	}

	// Merging shards keeps each sample's metadata.
	a, c := *got, *got
	a.Shard, c.Shard = "1/2", "2/2"
	a.Samples, c.Samples = got.Samples[:1], got.Samples[1:]
	m, err := Merge([]*File{&c, &a})
	if err != nil {
		t.Fatal(err)
	}
	if m.Samples[0].ID != "q-001" || !reflect.DeepEqual(m.Samples[0].Metadata, f.Samples[0].Metadata) {
		t.Errorf("merged sample %+v", m.Samples[0])
	}
}

// A v1 file written before metadata existed still reads, and a file with
// metadata still has the v1 schema, so older readers (which ignore unknown
// keys) read it too.
func TestMetadataIsAdditive(t *testing.T) {
	old := `{"schema":"raggate.results/v1","samples":[{"id":"a","scores":{"faithfulness":1}}]}`
	f, err := Parse([]byte(old))
	if err != nil || f.Samples[0].Metadata != nil {
		t.Fatalf("old file: %v, metadata %v", err, f.Samples[0].Metadata)
	}
	f.Samples[0].Metadata = map[string]string{"topic": "x"}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"schema": "raggate.results/v1"`) {
		t.Errorf("schema changed:\n%s", b)
	}
}
