//go:build unix

package inputfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "z.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ path, kind string }{
		{dir, "a directory"},
		{fifo, "a named pipe (FIFO)"},
		{"/dev/zero", "a device"},
		{link, "a device"},
	}
	for _, tt := range tests {
		_, err := ReadFile(tt.path, -1)
		if !errors.Is(err, ErrNotRegular) || errors.Is(err, ErrTooLarge) {
			t.Errorf("ReadFile(%s): %v, want ErrNotRegular", tt.path, err)
			continue
		}
		if want := tt.path + " is " + tt.kind + ", not a regular file"; !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%s): %q, want it to say %q", tt.path, err, want)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.json"), -1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
}
