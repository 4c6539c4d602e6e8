// Package ghaction is raggate's edge to the GitHub Actions runner, on top
// of github.com/sethvargo/go-githubactions: action inputs (INPUT_*
// variables, hyphens kept, as container actions get them), outputs
// (GITHUB_OUTPUT with a random heredoc delimiter per value), the job
// summary (GITHUB_STEP_SUMMARY), workflow commands (annotations, masks,
// groups) on stdout, and the typed run Context (GITHUB_* variables and
// the event payload).
//
// Nothing here exits the process or panics on I/O errors: outputs and the
// summary return errors, workflow commands written to a failing stdout are
// dropped. Outside GitHub Actions (GITHUB_OUTPUT or GITHUB_STEP_SUMMARY
// unset) outputs are printed to stdout and the summary is skipped, each
// with a one-time note.
package ghaction

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sethvargo/go-githubactions"
)

// MaxSummaryBytes is GitHub's limit on one step's job summary.
const MaxSummaryBytes = 1 << 20

var (
	// ErrDelimiterInValue is returned by SetOutput when the value (or name)
	// contains the heredoc delimiter chosen for it.
	ErrDelimiterInValue = errors.New("output contains its heredoc delimiter")
	// ErrSummaryTooLarge is returned by AddSummary when the step's summary
	// would exceed MaxSummaryBytes (GitHub then drops it).
	ErrSummaryTooLarge = errors.New("job summary too large")
)

// Action talks to the runner. Create it with New; it is safe for
// concurrent use.
type Action struct {
	getenv func(string) string
	out    *safeWriter
	gha    *githubactions.Action
	rand   io.Reader

	mu    sync.Mutex
	noted map[string]bool
	// fileMu serialises appends to the output and summary files.
	fileMu sync.Mutex
}

// New returns an Action that reads the environment through getenv
// (os.Getenv when nil) and writes workflow commands to stdout (os.Stdout
// when nil).
func New(getenv func(string) string, stdout io.Writer) *Action {
	getenv = orGetenv(getenv)
	if stdout == nil {
		stdout = os.Stdout
	}
	out := &safeWriter{w: stdout}
	return &Action{
		getenv: getenv,
		out:    out,
		gha:    githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(out)),
		rand:   rand.Reader,
		noted:  map[string]bool{},
	}
}

func orGetenv(getenv func(string) string) func(string) string {
	if getenv == nil {
		return os.Getenv
	}
	return getenv
}

// InActions reports whether the process runs in GitHub Actions
// (GITHUB_ACTIONS=true).
func (a *Action) InActions() bool { return a.getenv("GITHUB_ACTIONS") == "true" }

// Inputs returns the action's inputs.
func (a *Action) Inputs() Inputs { return Inputs{getenv: a.getenv} }

// Input returns the trimmed value of input name (env INPUT_<NAME>, hyphens
// kept), or "".
func (a *Action) Input(name string) string { return a.Inputs().Get(name) }

// Required reports every required input that is empty in one
// *MissingInputsError.
func (a *Action) Required(names ...string) error { return a.Inputs().Required(names...) }

// note prints a one-time explanation to stdout.
func (a *Action) note(key, msg string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.noted[key] {
		return
	}
	a.noted[key] = true
	fmt.Fprintln(a.out, msg)
}

// delimiter returns a fresh random heredoc delimiter.
func (a *Action) delimiter() (string, error) {
	var b [16]byte
	if _, err := io.ReadFull(a.rand, b[:]); err != nil {
		return "", fmt.Errorf("random output delimiter: %w", err)
	}
	return "ghadelimiter_" + hex.EncodeToString(b[:]), nil
}

// SetOutput sets step output name to value by appending
//
//	name<<DELIMITER
//	value
//	DELIMITER
//
// to the GITHUB_OUTPUT file, with a random delimiter per value (a fixed
// one would let a value end the heredoc early and inject outputs). A value
// containing its delimiter is rejected with ErrDelimiterInValue. Without
// GITHUB_OUTPUT the output is printed to stdout after a one-time note.
func (a *Action) SetOutput(name, value string) error {
	if name == "" || strings.ContainsAny(name, "\r\n=") || strings.Contains(name, "<<") {
		return fmt.Errorf("invalid output name %q", name)
	}
	path := a.getenv("GITHUB_OUTPUT")
	if path == "" {
		a.note("output", "raggate: GITHUB_OUTPUT is not set (not running in GitHub Actions?); printing outputs instead:")
		fmt.Fprintf(a.out, "output %s=%s\n", name, value)
		return nil
	}
	delim, err := a.delimiter()
	if err != nil {
		return err
	}
	if strings.Contains(name, delim) || strings.Contains(value, delim) {
		return fmt.Errorf("output %q: %w", name, ErrDelimiterInValue)
	}
	rec := name + "<<" + delim + "\n" + value + "\n" + delim + "\n"
	a.fileMu.Lock()
	defer a.fileMu.Unlock()
	if err := appendFile(path, []byte(rec)); err != nil {
		return fmt.Errorf("set output %q: %w", name, err)
	}
	return nil
}

// SetOutputs sets several outputs, stopping at the first error.
func (a *Action) SetOutputs(outputs map[string]string) error {
	names := make([]string, 0, len(outputs))
	for n := range outputs {
		names = append(names, n)
	}
	// Deterministic order for readable files and logs.
	slices.Sort(names)
	for _, n := range names {
		if err := a.SetOutput(n, outputs[n]); err != nil {
			return err
		}
	}
	return nil
}

// AddSummary appends markdown (and a newline) to the job summary file
// GITHUB_STEP_SUMMARY. Without it the summary is skipped after a one-time
// note. A summary that would exceed MaxSummaryBytes is not written and
// ErrSummaryTooLarge is returned.
func (a *Action) AddSummary(markdown string) error {
	path := a.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		a.note("summary", "raggate: GITHUB_STEP_SUMMARY is not set (not running in GitHub Actions?); job summary skipped")
		return nil
	}
	a.fileMu.Lock()
	defer a.fileMu.Unlock()
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	if !strings.HasSuffix(markdown, "\n") {
		markdown += "\n"
	}
	if size+int64(len(markdown)) > MaxSummaryBytes {
		return fmt.Errorf("%w: %d bytes, GitHub keeps at most %d per step", ErrSummaryTooLarge, size+int64(len(markdown)), MaxSummaryBytes)
	}
	if err := appendFile(path, []byte(markdown)); err != nil {
		return fmt.Errorf("write job summary: %w", err)
	}
	return nil
}

func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Annotation places a message on a file and line in the run's annotations
// and the pull request's diff. Zero fields are omitted.
type Annotation struct {
	Title     string
	File      string
	Line      int
	EndLine   int
	Col       int
	EndColumn int
}

func (at Annotation) fields() map[string]string {
	m := map[string]string{}
	set := func(k string, v int) {
		if v > 0 {
			m[k] = strconv.Itoa(v)
		}
	}
	if at.Title != "" {
		m["title"] = at.Title
	}
	if at.File != "" {
		m["file"] = at.File
	}
	set("line", at.Line)
	set("endLine", at.EndLine)
	set("col", at.Col)
	set("endColumn", at.EndColumn)
	return m
}

func (a *Action) with(at Annotation) *githubactions.Action {
	if f := at.fields(); len(f) > 0 {
		return a.gha.WithFieldsMap(f)
	}
	return a.gha
}

// Error writes an ::error:: annotation. The message and property values
// are escaped (%, CR, LF; and : , in properties).
func (a *Action) Error(msg string, at Annotation) { a.with(at).Errorf("%s", msg) }

// Warning writes a ::warning:: annotation.
func (a *Action) Warning(msg string, at Annotation) { a.with(at).Warningf("%s", msg) }

// Notice writes a ::notice:: annotation.
func (a *Action) Notice(msg string, at Annotation) { a.with(at).Noticef("%s", msg) }

// Debug writes a ::debug:: message (shown when step debug logging is on).
func (a *Action) Debug(msg string) { a.gha.Debugf("%s", msg) }

// Group starts a collapsible group in the log; end it with EndGroup.
func (a *Action) Group(title string) { a.gha.Group(title) }

// EndGroup ends the current log group.
func (a *Action) EndGroup() { a.gha.EndGroup() }

// Mask asks the runner to replace secret with *** in the log from now on.
// Multi-line secrets are masked line by line as well (the runner matches
// masks within single lines). Empty values are ignored.
func (a *Action) Mask(secret string) {
	if strings.TrimSpace(secret) == "" {
		return
	}
	a.gha.AddMask(secret)
	if strings.ContainsAny(secret, "\r\n") {
		for line := range strings.SplitSeq(strings.ReplaceAll(secret, "\r\n", "\n"), "\n") {
			if strings.TrimSpace(line) != "" {
				a.gha.AddMask(line)
			}
		}
	}
}

// safeWriter never fails, so that go-githubactions (which panics when a
// command cannot be written) never panics; the first error is kept.
type safeWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (s *safeWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		if _, err := s.w.Write(p); err != nil {
			s.err = err
		}
	}
	return len(p), nil
}

// Err returns the first error met writing workflow commands to stdout.
func (a *Action) Err() error {
	a.out.mu.Lock()
	defer a.out.mu.Unlock()
	return a.out.err
}
