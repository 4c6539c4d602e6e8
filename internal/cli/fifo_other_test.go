//go:build !unix

package cli

import "errors"

// mkfifo: no named pipes on this platform.
func mkfifo(string) error { return errors.ErrUnsupported }
