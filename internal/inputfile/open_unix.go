//go:build unix

package inputfile

import "syscall"

// openFlags: a file replaced by a named pipe after the check opens
// without waiting for a writer, and is then refused.
const openFlags = syscall.O_NONBLOCK
