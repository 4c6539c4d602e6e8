package htmlreport

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden pages in testdata")

// The page of a small comparison, as a golden file: a change to the page
// shows as a diff to review (go test ./internal/htmlreport -update).
func TestGoldenPage(t *testing.T) {
	base, head := files(4, true)
	head.Samples[3].Response = "The K2 stores 13.5 kWh & powers <b>a</b> house."
	got := render(t, base, head, Options{Gate: "demo", BaselineSource: "file base.json"})
	path := filepath.Join("testdata", "small.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/htmlreport -update writes it)", err)
	}
	if got != string(want) {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("the page differs from %s; the new one is in %s.got (-update accepts it)", path, path)
	}
}
