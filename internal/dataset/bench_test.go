package dataset_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
)

// typical writes n typical samples as JSON Lines: a question, 5 retrieved
// contexts of a few hundred characters, a response, a reference and an id.
func typical(b *testing.B, n int) string {
	b.Helper()
	words := strings.Fields("battery inverter panel charge grid storage capacity warranty install roof current voltage module system backup outage meter tariff")
	text := func(i, k int) string {
		var s strings.Builder
		fmt.Fprintf(&s, "Sample %d", i)
		for j := range k {
			s.WriteString(" " + words[(i*7+j*13)%len(words)])
		}
		return s.String()
	}
	var s strings.Builder
	for i := range n {
		fmt.Fprintf(&s, `{"id": "s-%06d", "user_input": "%s?", "retrieved_contexts": [`, i, text(i, 12))
		for c := range 5 {
			if c > 0 {
				s.WriteString(", ")
			}
			fmt.Fprintf(&s, `"%s."`, text(i+c, 55))
		}
		fmt.Fprintf(&s, `], "response": "%s.", "reference": "%s."}`+"\n", text(i+1, 45), text(i+2, 35))
	}
	path := filepath.Join(b.TempDir(), "golden.jsonl")
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkLoad loads a JSON Lines dataset of typical samples. It reports
// the live heap after loading per sample and per byte of file (the file
// is read a line at a time, so memory holds the samples, not the file).
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		path := typical(b, n)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("samples=%d", n), func(b *testing.B) {
			benchLoad(b, path, st.Size(), n, false)
		})
		// Spooled, as a run loads: memory holds each sample's id, fields
		// and metadata, and where its texts are in the spool.
		b.Run(fmt.Sprintf("spooled/samples=%d", n), func(b *testing.B) {
			benchLoad(b, path, st.Size(), n, true)
		})
	}
}

// benchLoad loads the n samples of path (size bytes), with a spool of
// their own when spooled.
func benchLoad(b *testing.B, path string, size int64, n int, spooled bool) {
	load := func() (*dataset.Dataset, error) {
		opts := dataset.Options{}
		if spooled {
			sp, err := dataset.NewSpool(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { sp.Close() })
			opts.Spool = sp
		}
		return dataset.Load(path, opts)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := load(); err != nil {
			b.Fatal(err)
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := load()
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	runtime.KeepAlive(d)
	b.ReportMetric(live/float64(n), "live-B/sample")
	b.ReportMetric(live/float64(size), "live-B/file-B")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/sample")
}
