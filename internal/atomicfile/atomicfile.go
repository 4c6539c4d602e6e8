// Package atomicfile writes files atomically: the contents go to a
// temporary file in the target's directory, which is then renamed over the
// target, so readers see the old file or the new one, never a part. It
// imports only the standard library, so that every package may use it
// (the results file, baselines and reports, the judge cache).
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes the contents written by write to path with permissions
// perm, creating path's directory if needed. The file and the directory
// are synced, so the new contents survive a crash once Write returns.
// Errors name path; on error no temporary file is left behind.
func Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	return writeFile(path, perm, true, write)
}

// WriteFile is Write with the contents data.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteUnsynced is WriteFile without the syncs: for caches, where a file
// lost in a crash is only a miss and a sync per entry would cost more than
// it saves.
func WriteUnsynced(path string, data []byte, perm os.FileMode) error {
	return writeFile(path, perm, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func writeFile(path string, perm os.FileMode, sync bool, write func(io.Writer) error) (err error) {
	if fi, statErr := os.Stat(path); statErr == nil && !fi.Mode().IsRegular() {
		return writeSpecial(path, fi, write)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = fill(tmp, perm, sync, write); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		syncDir(dir)
	}
	return nil
}

// fill writes the temporary file and closes it. CreateTemp makes 0600
// files: the permissions are set explicitly (in the action's container the
// files belong to root, and the runner's user must still read the judge
// cache to save it).
func fill(tmp *os.File, perm os.FileMode, sync bool, write func(io.Writer) error) error {
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	return tmp.Close()
}

// syncDir makes the rename durable (best effort: not every system can
// sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// writeSpecial writes to a path that exists and is no regular file. A
// character device (/dev/null, /dev/stdout) is written in place: renaming a
// file over it would replace the device (as root, /dev/null itself). A
// directory, a named pipe or a socket is refused: the contents would be
// lost or the write would wait for a reader.
func writeSpecial(path string, fi os.FileInfo, write func(io.Writer) error) error {
	if fi.Mode()&os.ModeCharDevice == 0 {
		return fmt.Errorf("write %s: not a regular file (%s); give a file path", path, kind(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// kind names a file mode's type for a message.
func kind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
