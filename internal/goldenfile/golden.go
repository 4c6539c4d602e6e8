// Package goldenfile is the test support for golden files: it compares what a
// test produced with a file kept under testdata, and rewrites the files
// when the test binary runs with -update (go test ./internal/x -update).
// It owns the one -update flag of raggate's tests. Only tests import it.
package goldenfile

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (and transcripts) in testdata with the output of this build")

// Update reports whether the tests run with -update: a test that builds a
// fixture rather than comparing text regenerates it then.
func Update() bool { return *update }

// Check compares got with the golden file at path (relative to the
// package's directory).
//
//   - With -update, it writes got to path (creating its directory) when they
//     differ, and the test passes.
//   - When they are equal, it removes a stale path+".got".
//   - Otherwise it writes got to path+".got", next to the golden file, and
//     fails the test with the first lines that differ and how to accept
//     the change.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err == nil && bytes.Equal(got, want) {
		os.Remove(path + ".got")
		return
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(path + ".got")
		return
	}
	if werr := os.WriteFile(path+".got", got, 0o644); werr != nil {
		t.Errorf("writing %s.got: %v", path, werr)
	}
	if err != nil {
		t.Errorf("%v: the output is in %s.got (go test -update writes the golden file)", err, path)
		return
	}
	t.Errorf("%s: the output differs from the golden file; the actual one is in %s.got\n"+
		"(go test -update accepts it after checking the change)\n%s", path, path, Diff(string(want), string(got)))
}

// Diff shows the first lines (at most five) where want and got differ.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a == c {
			continue
		}
		fmt.Fprintf(&b, "line %d:\n  want %q\n  got  %q\n", i+1, a, c)
		if shown++; shown == 5 {
			b.WriteString("  ...\n")
			break
		}
	}
	return b.String()
}
