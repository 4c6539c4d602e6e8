package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	writers := map[string]func(path string, data []byte) error{
		"WriteFile":     func(p string, b []byte) error { return WriteFile(p, b, 0o644) },
		"WriteUnsynced": func(p string, b []byte) error { return WriteUnsynced(p, b, 0o644) },
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "new", "dir", "f.json")
			for _, data := range []string{"first", "second"} {
				if err := write(path, []byte(data)); err != nil {
					t.Fatal(err)
				}
				if got, err := os.ReadFile(path); err != nil || string(got) != data {
					t.Fatalf("read %q, %v; want %q", got, err, data)
				}
			}
			// Readable by others: the action writes as root, the runner reads.
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("mode %v, %v; want 0644", fi.Mode().Perm(), err)
			}
			noTemporary(t, filepath.Dir(path))
		})
	}
}

// A failed write names the path, leaves the old file as it was and no
// temporary file behind.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "write "+path) {
		t.Errorf("error %v, want boom naming %s", err, path)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("file holds %q after a failed write, want old", got)
	}
	noTemporary(t, dir)

	// The rename fails: the target is a non-empty directory.
	target := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteUnsynced(target, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "write "+target) {
		t.Errorf("error %v, want a write error naming %s", err, target)
	}
	noTemporary(t, dir)
}

func noTemporary(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
