//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A character device is written in place, never replaced by a renamed
// file: `--out /dev/null` run as root used to turn /dev/null into a
// regular file. The test makes its own null device where it may (root).
func TestCharDeviceIsWrittenInPlace(t *testing.T) {
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Skipf("cannot make a device node here (%v): needs root", err)
	}
	if err := WriteFile(dev, []byte("results"), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dev)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("after the write %s is %v (%v), want the character device it was", dev, fi.Mode(), err)
	}
}

// A named pipe or a directory is refused with a message that names it,
// and stays what it was.
func TestNamedPipeAndDirectoryAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for path, want := range map[string]string{fifo: "a named pipe", dir: "a directory"} {
		err := WriteFile(path, []byte("x"), 0o644)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("write %s: %v, want an error naming %s", path, err, want)
		}
	}
	if fi, err := os.Stat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the fifo is %v (%v) after the refused write", fi.Mode(), err)
	}
}
