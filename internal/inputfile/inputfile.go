// Package inputfile opens the files the gate reads as input (results
// files, baselines, thresholds, metrics and target configs, responses,
// price tables) through one bounded, regular-file-only opener: a named
// pipe, a device (/dev/zero), a socket or a directory is refused before it
// is opened, so opening never blocks and reading never grows without end,
// and a file over its limit is refused before it is read. It imports only
// the standard library, so that every package may use it.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
)

// The default limits: a results file (or baseline) of 2 GiB holds 100,000
// samples with their texts at up to about 20 KiB a sample (typical samples
// take 6 KiB); a config file (thresholds, metrics file, target config,
// price table) is a few KiB, so 4 MiB is far more than any needs.
const (
	DefaultResultsLimit int64 = 2 << 30
	DefaultConfigLimit  int64 = 4 << 20
)

var resultsLimit, configLimit atomic.Int64

func init() {
	resultsLimit.Store(DefaultResultsLimit)
	configLimit.Store(DefaultConfigLimit)
}

// ResultsLimit is the size limit of a results file.
func ResultsLimit() int64 { return resultsLimit.Load() }

// ConfigLimit is the size limit of a config file.
func ConfigLimit() int64 { return configLimit.Load() }

// SetLimits replaces the limits of results and config files until restore
// is called. It is a test hook: tests check the limits with small files
// rather than write gigabytes.
func SetLimits(results, config int64) (restore func()) {
	r, c := resultsLimit.Swap(results), configLimit.Swap(config)
	return func() { resultsLimit.Store(r); configLimit.Store(c) }
}

// ErrTooLarge and ErrNotRegular are what an *Error is (errors.Is).
var (
	ErrTooLarge   = errors.New("file too large")
	ErrNotRegular = errors.New("not a regular file")
)

// Error is a file refused by Open: not a regular file (Kind says what it
// is) or larger than Limit bytes.
type Error struct {
	Path  string
	Kind  string // "a directory", "a named pipe (FIFO)", ...; "" when too large
	Limit int64
}

func (e *Error) Error() string {
	if e.Kind != "" {
		return fmt.Sprintf("%s is %s, not a regular file; give the path of a file", e.Path, e.Kind)
	}
	return fmt.Sprintf("%s: the file is larger than %s, the limit for this input; is it the right file?", e.Path, Size(e.Limit))
}

// Is makes errors.Is(err, ErrTooLarge) or errors.Is(err, ErrNotRegular)
// true.
func (e *Error) Is(target error) bool {
	if e.Kind != "" {
		return target == ErrNotRegular
	}
	return target == ErrTooLarge
}

// File is an open input file; reading past its limit (a file that grew
// after it was opened) fails with an *Error.
type File struct {
	f     *os.File
	limit int64
	size  int64 // when opened
	read  int64
}

// Open opens path for reading when it is a regular file (symbolic links
// followed) of at most limit bytes (a negative limit: no limit). The type
// is checked before the file is opened, and again on the open file, so a
// named pipe never blocks the open. Errors are *Error, or the
// *fs.PathError of a file that does not exist or cannot be read.
func Open(path string, limit int64) (*File, error) {
	fi, err := os.Stat(path)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		pe.Op = "open" // as os.Open says it: "open x.json: no such file or directory"
	}
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	// The path may have been replaced between the two calls.
	if fi, err = f.Stat(); err == nil {
		err = check(path, fi, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, limit: limit, size: fi.Size()}, nil
}

// check refuses what is not a regular file, or is over limit.
func check(path string, fi fs.FileInfo, limit int64) error {
	if k := kind(fi.Mode()); k != "" {
		return &Error{Path: path, Kind: k}
	}
	if limit >= 0 && fi.Size() > limit {
		return &Error{Path: path, Limit: limit}
	}
	return nil
}

// kind says what a file that is not regular is ("" for a regular file).
func kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// Read reads from the file, failing once more than the limit was read.
func (f *File) Read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	f.read += int64(n)
	if f.limit >= 0 && f.read > f.limit {
		return n, &Error{Path: f.f.Name(), Limit: f.limit}
	}
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Name is the path the file was opened with.
func (f *File) Name() string { return f.f.Name() }

// ReadFile reads the whole file at path through Open.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, f.size+512)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// Size formats a byte count for messages: "16 MiB", "1 GiB", "512 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
