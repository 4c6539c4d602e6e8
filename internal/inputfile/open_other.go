//go:build !unix

package inputfile

// openFlags: no named pipes to guard against here.
const openFlags = 0
