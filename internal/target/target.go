package target

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/raggate/raggate/metrics"
)

// Target answers one sample. Call must be safe for concurrent use; Run
// bounds the calls in flight. Close releases what the target holds (the
// processes of a command target).
type Target interface {
	Call(ctx context.Context, s *metrics.Sample) (Reply, error)
	Close() error
}

var (
	_ Target = (*HTTP)(nil)
	_ Target = (*Command)(nil)
	_ Target = Func(nil)
)

// Func is a Target made of a function, with nothing to close: the fake
// for tests of what drives a target.
type Func func(ctx context.Context, s *metrics.Sample) (Reply, error)

// Call calls f.
func (f Func) Call(ctx context.Context, s *metrics.Sample) (Reply, error) { return f(ctx, s) }

// Close does nothing.
func (Func) Close() error { return nil }

// CallError is a failed call. Transient failures (a 5xx or 429 status, a
// refused or reset connection, a timeout, a process that died) are
// retried; the others (a 4xx status, a reply that does not match the
// paths) are not.
type CallError struct {
	Reason    string
	Transient bool
	// Code is the HTTP status, or the exit code of a process; 0 if none.
	Code int
	// RetryAfter is the wait the server asked for (Retry-After), if any.
	RetryAfter time.Duration
	// exited marks a command target's process that died.
	exited bool
	// wrapped is the cause, for errors.Is.
	wrapped error
}

func (e *CallError) Error() string { return e.Reason }

func (e *CallError) Unwrap() error { return e.wrapped }

func transient(code int, format string, args ...any) *CallError {
	return &CallError{Reason: fmt.Sprintf(format, args...), Transient: true, Code: code}
}

func permanent(code int, format string, args ...any) *CallError {
	return &CallError{Reason: fmt.Sprintf(format, args...), Code: code}
}

// IsTransient reports whether err is worth retrying.
func IsTransient(err error) bool {
	var ce *CallError
	return errors.As(err, &ce) && ce.Transient
}
