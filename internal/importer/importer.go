// Package importer reads the per-sample scores written by other
// evaluators (Ragas, promptfoo, DeepEval, or a plain table) into raggate
// results files, so that raggate's comparison, comment and baselines gate
// them as they gate its own runs.
package importer

import (
	"errors"
	"fmt"

	"github.com/raggate/raggate/internal/results"
)

// stubRead and stubSniff, set by a temporary stub, stand in for the
// readers until they land.
var (
	stubRead  func(path string, opt Options) (*results.File, Format, error)
	stubSniff func(data []byte) (Format, bool)
)

// Format names an evaluator's output format.
type Format string

// The formats Read knows. Auto sniffs the format from the content.
const (
	Auto      Format = ""
	Ragas     Format = "ragas"
	Promptfoo Format = "promptfoo"
	DeepEval  Format = "deepeval"
	Table     Format = "table"
)

// Formats lists the formats a user may force, in the order help shows them.
var Formats = []Format{Ragas, Promptfoo, DeepEval, Table}

// Options tunes Read.
type Options struct {
	// Format forces a format; Auto sniffs it.
	Format Format
	// MaxSize bounds the file's size in bytes (0: the package default).
	MaxSize int64
}

// ErrInput is matched (errors.Is) by every error that is the file's
// fault: a front end reports it as bad input (exit 2).
var ErrInput = errors.New("importer: bad input")

// Error is a problem with the file, at a line (or row) where one applies.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem is the whole file
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Is makes errors.Is(err, ErrInput) true.
func (e *Error) Is(target error) bool { return target == ErrInput }

// Read reads the scores file at path into a results file: one sample per
// scored row, each metric's scores, and the judge identity saying which
// tool (and version, and evaluation model, when the file says) scored it.
// The format comes from opt.Format, or is sniffed when Auto.
func Read(path string, opt Options) (*results.File, Format, error) {
	if stubRead != nil {
		return stubRead(path, opt)
	}
	return nil, "", &Error{File: path, Msg: "reading other evaluators' scores is not implemented yet"}
}

// Sniff reports the format of data, the start of a file (ok false: no
// known shape). A raggate results file is not a format of this package:
// callers check for it first.
func Sniff(data []byte) (f Format, ok bool) {
	if stubSniff != nil {
		return stubSniff(data)
	}
	return Auto, false
}
