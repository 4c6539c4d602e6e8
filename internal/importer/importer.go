// Package importer reads the per-sample scores written by other
// evaluators (Ragas, promptfoo, DeepEval, or a plain table) into raggate
// results files, so that raggate's comparison, comment and baselines gate
// them as they gate its own runs.
package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/results"
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
	// MaxSize bounds the file's size in bytes (0: the package default,
	// the limit of results files).
	MaxSize int64
	// Version is raggate's version, recorded as the results file's tool.
	Version string
	// Model is the evaluation model, recorded in the judge identity when
	// the file does not name one (Ragas and table files never do).
	Model string
	// Now gives the time recorded as the file's created_at (nil: the
	// clock).
	Now func() time.Time
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// ErrInput is matched (errors.Is) by every error that is the file's
// fault: a front end reports it as bad input (exit 2).
var ErrInput = errors.New("importer: bad input")

// Error is a problem with the file, at a line (or row) where one applies.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem is the whole file
	Col  int // 1-based, in characters; 0 when not known
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 && e.Col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
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
	limit := opt.MaxSize
	if limit <= 0 {
		limit = inputfile.ResultsLimit()
	}
	data, err := inputfile.ReadFile(path, limit)
	if err != nil {
		var ie *inputfile.Error
		if errors.As(err, &ie) {
			return nil, "", &Error{File: path, Msg: strings.TrimPrefix(ie.Error(), path+": ")}
		}
		return nil, "", &Error{File: path, Msg: fmt.Sprintf("cannot read the scores file: %v", err)}
	}
	return Parse(path, data, opt)
}

// Parse is Read of data already read; name is the file's name in
// messages.
func Parse(name string, data []byte, opt Options) (*results.File, Format, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, opt.Format, &Error{File: name, Msg: "the file is empty: export the scores again (the evaluator may have failed before writing them)"}
	}
	out, f, err := parse(name, data, opt)
	var e *Error
	if err != nil && errors.As(err, &e) && semicolons(data) {
		sep := "; "
		if strings.Contains(e.Msg, "\n") {
			sep = "\n"
		}
		e.Msg += sep + "the first line is separated by semicolons: raggate reads comma-separated CSV (pandas: to_csv with the default sep=\",\" and decimal=\".\")"
	}
	return out, f, err
}

// semicolons reports whether the file's first line looks like a CSV
// header separated by semicolons (as some locales write CSV).
func semicolons(data []byte) bool {
	first, _, _ := bytes.Cut(data, []byte{'\n'})
	return bytes.Count(first, []byte{';'}) > 0 && !bytes.ContainsAny(first, ",{[")
}

func parse(name string, data []byte, opt Options) (*results.File, Format, error) {
	f := opt.Format
	if f == Auto {
		var ok bool
		if f, ok = Sniff(data); !ok {
			return nil, "", &Error{File: name, Msg: noShape(data)}
		}
	}
	var src source
	var recs []record
	var err error
	if t := bytes.TrimLeft(data, " \t\r\n"); f == Promptfoo && t[0] == '{' && isJSONLines(t) && json.Valid(firstLine(t)) {
		// promptfoo eval -o out.jsonl: one result a line.
		first := firstLine(t)
		if g, ok := sniffCaseKeys(topKeys(first)); !ok || g != Promptfoo {
			return nil, f, &Error{File: name, Msg: "promptfoo's JSON Lines output is not read: use -o out.json"}
		}
		data = linesArray(data)
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); (f == Promptfoo || f == DeepEval) && (t[0] == '{' || t[0] == '[') {
		if err := checkJSON(data); err != nil {
			return nil, f, asError(name, err)
		}
	}
	switch f {
	case Ragas, Table:
		src, recs, err = readTabular(name, data, f)
	case Promptfoo:
		src, recs, err = readPromptfoo(name, data)
	case DeepEval:
		src, recs, err = readDeepEval(name, data)
	default:
		return nil, "", &Error{File: name, Msg: fmt.Sprintf("unknown format %q; the formats are %s", f, formatList())}
	}
	if err != nil {
		var e *Error
		if g, ok := Sniff(data); ok && opt.Format != Auto && g != f && errors.As(err, &e) {
			e.Msg += fmt.Sprintf("; the file looks like %s output, not %s: force the format %s, or leave the format out to have it recognised", g, f, g)
		}
		return nil, f, err
	}
	out, err := build(name, src, recs, opt)
	return out, f, err
}

// firstLine is data up to its first line break.
func firstLine(data []byte) []byte {
	first, _, _ := bytes.Cut(data, []byte{'\n'})
	return first
}

// linesArray turns JSON Lines into one JSON array, each value on the line
// it had, so that messages keep the file's line numbers.
func linesArray(data []byte) []byte {
	lines := bytes.Split(data, []byte{'\n'})
	last := -1
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			last = i
		}
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(bytes.TrimRight(l, "\r"))
		if i < last && len(bytes.TrimSpace(l)) > 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte(']')
	return b.Bytes()
}

func formatList() string {
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// noShape words a file of no known shape: what each format expects.
func noShape(data []byte) string {
	if isResultsFile(data) {
		return "this is a raggate results file already; give it to gate compare or gate check as it is"
	}
	return "the file matches none of the formats gate import reads; each expects:\n" +
		"  ragas: a CSV, JSON or JSON Lines export of result.to_pandas() with a user_input (or question) column, or an id column, and one column per metric\n" +
		"  promptfoo: the JSON of promptfoo eval -o, with results.results[] (or a top-level results[]) of testIdx, promptIdx, vars, success, score\n" +
		"  deepeval: a DeepEval test run JSON with testCases[] (or testRunData.testCases[]) of input, actualOutput and metricsData[]\n" +
		"  table: a CSV or JSON Lines file with an id (or sample_id) column and one column of numbers per metric\n" +
		"if the file is one of them, force its format: gate import --format, --scores-format of gate check and gate compare, the action's input scores-format"
}
