package dataset

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxProblems is the number of problems an *Error keeps; further problems
// are only counted.
const MaxProblems = 50

// Problem is one thing wrong with a dataset file or the options.
type Problem struct {
	File string // file name as given; "" for problems with the options
	Line int    // 1-based; 0 when the problem is about the whole file
	Col  int    // 1-based byte column; 0 when unknown
	// Row is the 1-based row of a Parquet file, which has no lines; 0
	// otherwise.
	Row int
	// Field is the key as written in the file ("contexts", "answer", ...),
	// or "" when the problem is not about one field.
	Field string
	Msg   string // what is wrong; how to fix it
}

// String formats the problem as "file:line:col: field: msg" (or "file: row
// N: field: msg" for a Parquet row), leaving out the parts that are empty.
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Row > 0 {
			b.WriteString(": row ")
			b.WriteString(strconv.Itoa(p.Row))
		} else if p.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Line))
			if p.Col > 0 {
				b.WriteByte(':')
				b.WriteString(strconv.Itoa(p.Col))
			}
		}
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Error is the error returned for invalid datasets, responses files and
// options. Callers map it to the "dataset error" exit code with errors.As.
type Error struct {
	Problems []Problem // at most MaxProblems, in the order found
	More     int       // problems found beyond Problems
	err      error     // underlying error, e.g. from reading the file
}

// Error prints one problem per line, then "and N more problems" if some
// were left out.
func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\nand %d more %s", e.More, plural(e.More, "problem", "problems"))
	}
	return b.String()
}

// Unwrap returns the underlying error (such as a *fs.PathError when the file
// could not be read), or nil.
func (e *Error) Unwrap() error { return e.err }

// problems collects problems up to MaxProblems.
type problems struct {
	list []Problem
	more int
}

func (ps *problems) add(p Problem) {
	if len(ps.list) < MaxProblems {
		ps.list = append(ps.list, p)
		return
	}
	ps.more++
}

func (ps *problems) count() int { return len(ps.list) + ps.more }

func (ps *problems) err() error {
	if ps.count() == 0 {
		return nil
	}
	return &Error{Problems: ps.list, More: ps.more}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
