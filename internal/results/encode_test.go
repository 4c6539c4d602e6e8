package results

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// Encode writes the same bytes as Marshal, whatever the samples.
func TestEncodeIsMarshal(t *testing.T) {
	withTail := sampleFile()
	withTail.Warnings = []string{"a <warning> & \"quotes\"\nover two lines"}
	withTail.Incomplete = "cancelled: 2 of 3 samples judged"
	withTail.Shard = "1/2"
	withTail.Samples[1].Question = "Why \"samples\": null?\n  \"samples\": null"
	withTail.Samples[1].Reasons = map[string]string{"faithfulness": "low <because>"}
	one := sampleFile()
	one.Samples = one.Samples[:1]
	empty := sampleFile()
	empty.Samples = []Sample{}
	none := sampleFile()
	none.Samples = nil
	for _, tt := range []struct {
		name string
		f    *File
	}{{"two samples", sampleFile()}, {"fields after the samples", withTail}, {"one sample", one}, {"empty", empty}, {"nil", none}} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := Marshal(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := Encode(&got, tt.f); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("Encode wrote\n%s\nMarshal\n%s", got.Bytes(), want)
			}
		})
	}
}

// Write does not build the encoded file in memory: it hands the file
// pieces of a sample or so, however many samples there are.
func TestWriteStreams(t *testing.T) {
	f := manySamples(10000)
	var w maxWrite
	if err := Encode(&w, f); err != nil {
		t.Fatal(err)
	}
	if w.total < 1<<20 || w.max > 4<<10 {
		t.Errorf("Encode wrote %d bytes in writes of up to %d bytes; want writes of a sample at most", w.total, w.max)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	f = manySamples(3000)
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Marshal(f)
	if !bytes.Equal(got, want) {
		t.Error("Write wrote other bytes than Marshal")
	}
}

// maxWrite records the largest write.
type maxWrite struct{ max, total int }

func (w *maxWrite) Write(p []byte) (int, error) {
	w.max = max(w.max, len(p))
	w.total += len(p)
	return len(p), nil
}

// manySamples is a results file of n typical samples.
func manySamples(n int) *File {
	f := sampleFile()
	f.Samples = make([]Sample, n)
	for i := range f.Samples {
		f.Samples[i] = Sample{
			ID: fmt.Sprintf("s-%06d", i), Question: "How much energy can the Kestrel K2 store?",
			Scores:    map[string]Score{"faithfulness": 0.8, "context_recall": NaN(), "answer_relevancy": 0.61},
			Undefined: map[string]string{"context_recall": "no statements in reference"},
			Reasons:   map[string]string{"faithfulness": "not supported: The K2 stores 14 kWh."},
			InputHash: "0123456789abcdef",
		}
	}
	return f
}

func BenchmarkWrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "r.json")
	for _, n := range []int{1000, 10000} {
		f := manySamples(n)
		b.Run(fmt.Sprintf("samples=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Write(path, f); err != nil {
					b.Fatal(err)
				}
			}
			st, _ := os.Stat(path)
			b.ReportMetric(float64(st.Size())/float64(n), "file-B/sample")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/sample")
		})
	}
}

// Equal reasons read from a file share their bytes.
func TestParseSharesReasons(t *testing.T) {
	f := manySamples(3)
	for i := range f.Samples {
		f.Samples[i].Reasons["context_recall"] = "not supported: The K2 stores 14 kWh."
	}
	b, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	first := unsafe.StringData(g.Samples[0].Reasons["faithfulness"])
	for _, s := range g.Samples {
		for _, r := range []string{s.Reasons["faithfulness"], s.Reasons["context_recall"]} {
			if unsafe.StringData(r) != first {
				t.Fatalf("sample %s: equal reasons are held twice", s.ID)
			}
		}
		if unsafe.StringData(s.Undefined["context_recall"]) != unsafe.StringData(g.Samples[0].Undefined["context_recall"]) {
			t.Fatalf("sample %s: equal undefined reasons are held twice", s.ID)
		}
	}
}
