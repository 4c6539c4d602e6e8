package app

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/raggate/raggate/internal/inputfile"
)

// Kind is what an error of a use case asks of the user: a front end turns
// it into its exit code (package cli decides the numbers).
type Kind int

const (
	// KindOperational is a failure of something the gate depends on (the
	// judge, the target, GitHub, the disk): exit 3.
	KindOperational Kind = iota + 1
	// KindUsage is input to fix (a flag, a file, the dataset): exit 2.
	KindUsage
)

// Error is an error a use case classified itself. Errors of no Kind are
// classified by the front end from their typed causes.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrFailed is the error of a use case whose evaluation failed the gate
// (a regression, a floor, an agreement below its minimum); the report
// says why.
var ErrFailed = errors.New("gate failed")

// Usagef is an error of input to fix, worded by format.
func Usagef(format string, args ...any) error {
	return &Error{Kind: KindUsage, Err: fmt.Errorf(format, args...)}
}

// WithKind classifies err (nil stays nil).
func WithKind(kind Kind, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Err: err}
}

func usageErr(format string, args ...any) error { return Usagef(format, args...) }
func asUsage(err error) error                   { return WithKind(KindUsage, err) }
func asOperational(err error) error             { return WithKind(KindOperational, err) }

// InputErr is the error of an input file refused by its type or size
// (package inputfile) named by what (a flag or input), a usage error;
// other errors are returned as they are.
func InputErr(what string, err error) error {
	if ie := RefusedInput(err); ie != nil {
		return usageErr("%s: %w", what, ie)
	}
	return err
}

// RefusedInput returns the *inputfile.Error err wraps, or nil.
func RefusedInput(err error) *inputfile.Error {
	var ie *inputfile.Error
	if errors.As(err, &ie) {
		return ie
	}
	return nil
}

// BaselineErr wraps an error of reading a baseline (Store.Get) with op.
// The store's kinds decide the exit code; a baseline file that cannot be
// read at all (a directory, no permission) is a path to fix, a usage
// error. Every use case that reads baselines uses it, so that a corrupt
// baseline is exit 2 from `gate check`, `gate baseline get` and the
// action alike.
func BaselineErr(op string, err error) error {
	err = fmt.Errorf("%s: %w", op, err)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return asUsage(err)
	}
	return err
}
