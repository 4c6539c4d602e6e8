package goldenfile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps the failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func read(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	return string(b), err == nil
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// A difference fails, names the first differing line and leaves the
	// output next to the golden file.
	r := &recorder{TB: t}
	Check(r, path, []byte("a\nB\nc\n"))
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], `line 2:`) || !strings.Contains(r.errs[0], `got  "B"`) || !strings.Contains(r.errs[0], "-update") {
		t.Fatalf("failures %q", r.errs)
	}
	if got, ok := read(t, path+".got"); !ok || got != "a\nB\nc\n" {
		t.Fatalf(".got = %q, %v", got, ok)
	}
	if got, _ := read(t, path); got != "a\nb\nc\n" {
		t.Fatalf("the golden file changed without -update: %q", got)
	}

	// Equal: passes and removes the stale .got.
	r = &recorder{TB: t}
	Check(r, path, []byte("a\nb\nc\n"))
	if len(r.errs) != 0 {
		t.Fatalf("failures %q", r.errs)
	}
	if _, ok := read(t, path+".got"); ok {
		t.Error("stale .got kept")
	}

	// A missing golden file fails and says how to write it.
	r = &recorder{TB: t}
	Check(r, filepath.Join(dir, "new.txt"), []byte("x"))
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "-update") {
		t.Fatalf("failures %q", r.errs)
	}
}

func TestCheckUpdate(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	path := filepath.Join(t.TempDir(), "sub", "new.txt")
	r := &recorder{TB: t}
	Check(r, path, []byte("fresh\n"))
	if len(r.errs) != 0 || !Update() {
		t.Fatalf("failures %q", r.errs)
	}
	if got, _ := read(t, path); got != "fresh\n" {
		t.Errorf("golden file %q, want it written", got)
	}
}

func TestDiffShowsAtMostFiveLines(t *testing.T) {
	d := Diff("1\n2\n3\n4\n5\n6\n7", "x\nx\nx\nx\nx\nx\nx")
	if strings.Count(d, "line ") != 5 || !strings.HasSuffix(d, "  ...\n") {
		t.Errorf("Diff:\n%s", d)
	}
	if Diff("same", "same") != "" {
		t.Error("Diff of equal texts is not empty")
	}
}
