package dataset

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/raggate/raggate/internal/inputfile"
)

// Limits bound what loading reads, so that a wrong file (a device, a
// binary, a huge dump) is refused quickly instead of filling memory.
type Limits struct {
	// MaxLineBytes bounds a line of a JSON Lines file (one sample); 0 means
	// DefaultMaxLineBytes, a negative value no limit. JSON arrays, streams
	// of pretty-printed objects and CSV files are bounded by MaxBytes only.
	MaxLineBytes int
	// MaxBytes bounds the size of a file; 0 means DefaultMaxBytes, a
	// negative value no limit.
	MaxBytes int64
}

// The default limits.
const (
	DefaultMaxLineBytes = 16 << 20
	DefaultMaxBytes     = 1 << 30
)

func (l Limits) line() int {
	switch {
	case l.MaxLineBytes == 0:
		return DefaultMaxLineBytes
	case l.MaxLineBytes < 0:
		return -1
	}
	return l.MaxLineBytes
}

func (l Limits) total() int64 {
	switch {
	case l.MaxBytes == 0:
		return DefaultMaxBytes
	case l.MaxBytes < 0:
		return -1
	}
	return l.MaxBytes
}

// Size formats a byte count for messages: "16 MiB", "1 GiB", "512 bytes".
func Size(n int64) string { return inputfile.Size(n) }

// source reads a file with bounded memory: a line at a time or whole,
// hashing what it reads, refusing files over the size limit and lines over
// the line limit, and stopping when the context ends (also during a read
// that blocks, such as from a pipe).
type source struct {
	ctx   context.Context
	name  string
	lim   Limits
	br    *bufio.Reader
	hash  hash.Hash
	read  int64 // bytes read from the file
	lines int   // lines returned by line
	// responses: the file is the --responses file (named in messages).
	responses bool
	buf       []byte
}

// newSource reads r, named name in messages.
func newSource(ctx context.Context, name string, r io.Reader, lim Limits) *source {
	s := &source{ctx: ctx, name: name, lim: lim, hash: sha256.New()}
	s.br = bufio.NewReaderSize(&countingReader{s: s, r: r}, 64<<10)
	return s
}

// openSource opens the file at path; close releases it.
func openSource(ctx context.Context, path string, lim Limits) (s *source, close func(), err error) {
	f, err := openCancellable(ctx, path)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, nil, fmt.Errorf("opening %s: %w", path, err)
		}
		return nil, nil, readError(path, err)
	}
	// Unblock a read waiting for a pipe or a device when ctx ends; regular
	// files do not block and ignore the deadline.
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Now()) })
	return newSource(ctx, path, f, lim), func() { stop(); f.Close() }, nil
}

// openCancellable opens path for reading, returning ctx's error when ctx
// ends first: opening a named pipe waits for a writer, and a run must
// still end on SIGINT or SIGTERM. The open left waiting closes the file
// if it ever completes.
func openCancellable(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// countingReader counts, hashes and limits what the source reads.
type countingReader struct {
	s *source
	r io.Reader
}

func (c *countingReader) Read(p []byte) (int, error) {
	s := c.s
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	s.hash.Write(p[:n])
	s.read += int64(n)
	if max := s.lim.total(); max >= 0 && s.read > max {
		if s.responses {
			return n, responsesTooLarge(s.name, max)
		}
		return n, tooLarge(s.name, max)
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) && s.ctx.Err() != nil {
		return n, s.ctx.Err()
	}
	return n, err
}

// sum is the hex SHA-256 of the bytes read so far.
func (s *source) sum() string { return hex.EncodeToString(s.hash.Sum(nil)) }

// line returns the next line with its "\n" (if any), valid until the next
// call, or io.EOF after the last one.
func (s *source) line() ([]byte, error) {
	s.buf = s.buf[:0]
	max := s.lim.line()
	for {
		frag, err := s.br.ReadSlice('\n')
		s.buf = append(s.buf, frag...)
		if max >= 0 && contentLen(s.buf, err == nil) > max {
			return nil, &Error{Problems: []Problem{{File: s.name, Line: s.lines + 1, Msg: fmt.Sprintf(
				"the line is longer than %s; each line of a JSON Lines file holds one sample: is this the right file? For longer samples raise --max-line-size",
				Size(int64(max)))}}}
		}
		switch {
		case err == nil:
			s.lines++
			return s.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(s.buf) > 0:
			s.lines++
			return s.buf, nil
		case err == io.EOF:
			return nil, io.EOF
		}
		return nil, s.fail(err)
	}
}

// contentLen is the length of a line without its line break: "\n" or
// "\r\n" when the line is complete, a possible "\r" (before a "\n" still
// to come) when not.
func contentLen(line []byte, complete bool) int {
	n := len(line)
	if complete && n > 0 && line[n-1] == '\n' {
		n--
	}
	if n > 0 && line[n-1] == '\r' {
		n--
	}
	return n
}

// rest returns everything not read yet, after prefix.
func (s *source) rest(prefix []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Write(prefix)
	if _, err := b.ReadFrom(s.br); err != nil {
		return nil, s.fail(err)
	}
	return b.Bytes(), nil
}

// fail turns a read error into the error loading returns: the context's
// error, an *Error already made, or an *Error saying the file cannot be
// read.
func (s *source) fail(err error) error {
	var de *Error
	switch {
	case s.ctx.Err() != nil && (errors.Is(err, s.ctx.Err()) || errors.Is(err, os.ErrDeadlineExceeded)):
		return fmt.Errorf("reading %s: %w", s.name, s.ctx.Err())
	case errors.As(err, &de):
		return err
	}
	return readError(s.name, err)
}

// openError reports a file refused by inputfile.Open: too large (as the
// source words it) or not a regular file.
func openError(path string, err error) error {
	var ie *inputfile.Error
	switch {
	case errors.As(err, &ie) && errors.Is(err, inputfile.ErrTooLarge):
		return responsesTooLarge(path, ie.Limit)
	case errors.As(err, &ie):
		return &Error{Problems: []Problem{{File: path, Msg: "--responses names " + ie.Kind + ", not a regular file; give the path of a responses file"}}, err: err}
	}
	return readError(path, err)
}

// tooLarge reports a file over the size limit max.
func tooLarge(path string, max int64) error {
	return &Error{Problems: []Problem{{File: path, Msg: fmt.Sprintf(
		"the file is larger than %s; is it the right file? To load a larger dataset raise --max-dataset-size (0: no limit)", Size(max))}}}
}

// responsesTooLarge reports a --responses file over the size limit max.
func responsesTooLarge(path string, max int64) error {
	return &Error{Problems: []Problem{{File: path, Msg: fmt.Sprintf(
		"the --responses file is larger than %s; is it the right file? To load a larger responses file raise --max-dataset-size (0: no limit)", Size(max))}}}
}

// readError reports a file that cannot be opened or read.
func readError(path string, err error) error {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return &Error{
		Problems: []Problem{{File: path, Msg: "cannot read the file: " + msg + "; check the path"}},
		err:      err,
	}
}

// head reads what detect needs to choose the format: the leading
// whitespace and the first byte after it, or the whole first line when
// that decides between JSON Lines and pretty-printed objects.
func (s *source) head(f Format) ([]byte, error) {
	if detect(s.name, nil, f) == kindCSV {
		return nil, nil
	}
	var prefix []byte
	for {
		c, err := s.br.ReadByte()
		if err == io.EOF {
			return prefix, nil
		}
		if err != nil {
			return nil, s.fail(err)
		}
		prefix = append(prefix, c)
		if isSpace(c) {
			continue
		}
		if c != '{' || detect(s.name, prefix, f) == kindLines {
			return prefix, nil
		}
		s.lines = bytes.Count(prefix, []byte("\n"))
		line, err := s.line()
		s.lines = 0
		if err != nil && err != io.EOF {
			return nil, err
		}
		return append(prefix, line...), nil
	}
}
