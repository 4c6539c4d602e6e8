package compare

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// Every comparison of files in memory in this package's tests (hundreds:
// every situation, finding and statistic they set up) is run again on the
// same files written out and read back by columns (results.ParseTable,
// the reader of gate compare), and with the base detached (a baseline
// read whole from a store), and the reports must be the same JSON.
// Files a read refuses (duplicate ids, scores out of range, infinities,
// which only code builds) are left out.

var tablesChecked, tablesSkipped, tableSeen atomic.Int64

// tableMismatch records the first report that differed (the hook has no
// *testing.T).
var tableMismatch atomic.Pointer[string]

func init() {
	tableCheck = func(c Config, base, head *results.File, th Thresholds, want *Report) {
		n := len(head.Samples) + sizeOf(base)
		if n > 5000 {
			return // the scale tests: too slow to run twice
		}
		if tableSeen.Add(1) > 1500 && tableSeen.Load()%25 != 0 {
			// The simulations compare thousands of similar files: after
			// the first 1,500 comparisons, one in 25 is enough, and keeps
			// the race detector's run of the package short.
			return
		}
		ht, ok := reread(head)
		var bt *results.Table
		if ok && base != nil {
			bt, ok = reread(base)
		}
		if !ok {
			tablesSkipped.Add(1)
			return
		}
		got := c.CompareTables(bt, ht, th)
		if g, w := reportJSON(got), reportJSON(want); g != w {
			msg := "tables: " + g + "\nfiles:  " + w
			tableMismatch.CompareAndSwap(nil, &msg)
		}
		if base != nil {
			// A baseline read whole from a store is detached: the
			// comparison reads its questions only.
			detached := results.TableOf(base)
			detached.Detach()
			got := c.CompareTables(detached, results.TableOf(head), th)
			if g, w := reportJSON(got), reportJSON(want); g != w {
				msg := "detached base: " + g + "\nfiles:  " + w
				tableMismatch.CompareAndSwap(nil, &msg)
			}
		}
		tablesChecked.Add(1)
	}
}

func sizeOf(f *results.File) int {
	if f == nil {
		return 0
	}
	return len(f.Samples)
}

// reread writes f and reads it back by columns; ok false when the read
// refuses it or the file cannot be written as it is.
func reread(f *results.File) (*results.Table, bool) {
	for _, s := range f.Samples {
		for _, v := range s.Scores {
			if math.IsInf(v.Value(), 0) {
				return nil, false
			}
		}
		for _, rs := range s.Runs {
			for _, v := range rs {
				if math.IsInf(v.Value(), 0) {
					return nil, false
				}
			}
		}
	}
	cp := *f
	data, err := results.Marshal(&cp)
	if err != nil {
		return nil, false
	}
	t, err := results.ParseTable(data)
	return t, err == nil
}

func reportJSON(r *Report) string {
	b, err := json.Marshal(r)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// TestTablesMatchFiles compares the demo results file of the repository
// with a changed copy, both read whole and by columns from disk.
func TestTablesMatchFiles(t *testing.T) {
	demo := filepath.Join("..", "..", "testdata", "demo", "baseline.json")
	base, err := results.ReadWith(demo, results.ScoresOnly)
	if err != nil {
		t.Fatal(err)
	}
	head, err := results.ReadWith(demo, results.ScoresOnly)
	if err != nil {
		t.Fatal(err)
	}
	// A head that lost some samples and changed others.
	head.Samples = head.Samples[1:]
	for i := range head.Samples {
		if i%3 == 0 {
			for k, v := range head.Samples[i].Scores {
				if !v.IsNaN() {
					head.Samples[i].Scores[k] = results.Score(v.Value() * 0.5)
				}
			}
		}
	}
	dir := t.TempDir()
	for name, f := range map[string]*results.File{"base.json": base, "head.json": head} {
		if err := results.Write(filepath.Join(dir, name), f); err != nil {
			t.Fatal(err)
		}
	}
	bt, err := results.ReadTable(filepath.Join(dir, "base.json"), results.ScoresOnly)
	if err != nil {
		t.Fatal(err)
	}
	ht, err := results.ReadTable(filepath.Join(dir, "head.json"), results.ScoresOnly)
	if err != nil {
		t.Fatal(err)
	}
	th := DefaultThresholds()
	want := Compare(base, head, th)
	got := Config{}.CompareTables(bt, ht, th)
	if g, w := reportJSON(got), reportJSON(want); g != w {
		t.Errorf("demo: tables %s\nfiles %s", g, w)
	}
	if err := ht.Err(); err != nil {
		t.Error(err)
	}
}

// TestMain checks, after the tests of the package, that every comparison
// the hook saw gave the same report both ways (RAGGATE_TABLE_COUNTS=1
// says how many it saw).
func TestMain(m *testing.M) {
	code := m.Run()
	if msg := tableMismatch.Load(); msg != nil {
		println("a comparison of tables differs from the comparison of the files in memory:\n" + *msg)
		code = 1
	}
	if os.Getenv("RAGGATE_TABLE_COUNTS") != "" {
		println("comparisons checked by tables:", tablesChecked.Load(), "skipped:", tablesSkipped.Load())
	}
	os.Exit(code)
}
