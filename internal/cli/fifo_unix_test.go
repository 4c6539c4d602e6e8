//go:build unix

package cli

import "syscall"

// mkfifo creates a named pipe (for endless-stream tests).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
