// Package ghactiontest reads what a GitHub Action leaves for the runner
// the way the runner reads it: the outputs file (GITHUB_OUTPUT). It is the
// one reader of that file in raggate's tests; only tests import it.
package ghactiontest

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// Outputs is an outputs file as the runner reads it.
type Outputs struct {
	// Values holds each output's value: the last one written.
	Values map[string]string
	// Counts is how many times each output was written.
	Counts map[string]int
	// Delimiters are the heredoc delimiters (name<<DELIMITER), in order.
	Delimiters []string
	// Plain names the outputs written as name=value lines, in order.
	Plain []string
}

// Repeated lists the outputs written more than once, sorted.
func (o Outputs) Repeated() []string {
	var names []string
	for name, n := range o.Counts {
		if n > 1 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// ParseOutputs parses the contents of an outputs file as the runner does:
// empty lines are skipped; a line is name=value when its first "=" comes
// before any "<<", else a heredoc name<<DELIMITER whose value is the lines
// up to the line that is exactly DELIMITER. A line that is neither, an
// empty name or delimiter, or a heredoc without its closing line is an
// error, as it fails the step on a real runner.
func ParseOutputs(data string) (Outputs, error) {
	o := Outputs{Values: map[string]string{}, Counts: map[string]int{}}
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq, hd := strings.Index(line, "="), strings.Index(line, "<<")
		if eq >= 0 && (hd < 0 || eq < hd) {
			if eq == 0 {
				return o, fmt.Errorf("line %d: %q: empty output name", i+1, line)
			}
			o.set(line[:eq], line[eq+1:])
			o.Plain = append(o.Plain, line[:eq])
			continue
		}
		if hd <= 0 || hd+2 == len(line) {
			return o, fmt.Errorf("line %d: %q is neither name=value nor name<<delimiter", i+1, line)
		}
		name, delim := line[:hd], line[hd+2:]
		start := i + 1
		for i++; i < len(lines) && lines[i] != delim; i++ {
		}
		if i == len(lines) {
			return o, fmt.Errorf("output %q: heredoc not closed by %q", name, delim)
		}
		o.Delimiters = append(o.Delimiters, delim)
		o.set(name, strings.Join(lines[start:i], "\n"))
	}
	return o, nil
}

func (o *Outputs) set(name, value string) {
	o.Values[name] = value
	o.Counts[name]++
}

// ReadOutputs reads and parses the outputs file at path; a file that does
// not exist reads as no outputs (a run that stopped before writing any).
// A file the runner would reject fails the test.
func ReadOutputs(t testing.TB, path string) Outputs {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	o, err := ParseOutputs(string(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return o
}
