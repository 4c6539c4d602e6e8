// Package yamlcheck is the strict YAML reading shared by raggate's
// configuration files (the thresholds file, the metrics file): one
// document, a mapping at the top, unknown and duplicate keys reported with
// their line and column and a "did you mean", typed values (numbers,
// integers, enumerations) checked with the field named. Problems are
// collected, not returned one at a time, so a user fixes a file in one go.
package yamlcheck

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/raggate/raggate/internal/suggest"
)

// Problem is one thing wrong with a file.
type Problem struct {
	// Line and Column are 1-based; 0 when unknown.
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Msg    string `json:"message"`
}

// Format writes problems as "file:line:col: message" lines (no position
// when unknown).
func Format(file string, problems []Problem) string {
	var b strings.Builder
	for i, p := range problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(file)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
		}
		b.WriteString(": ")
		b.WriteString(p.Msg)
	}
	return b.String()
}

// Parser collects the problems of one file.
type Parser struct {
	Problems []Problem
}

// Add records a problem at node n (nil: no position).
func (p *Parser) Add(n *yaml.Node, format string, args ...any) {
	pr := Problem{Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		pr.Line, pr.Column = n.Line, n.Column
	}
	p.Problems = append(p.Problems, pr)
}

// Sorted returns the problems in file order.
func (p *Parser) Sorted() []Problem {
	sort.SliceStable(p.Problems, func(i, j int) bool {
		a, b := p.Problems[i], p.Problems[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return p.Problems
}

// Document decodes data as exactly one YAML document whose root is a
// mapping and returns the root. what names the file in messages ("the
// thresholds file"), keys lists the valid top-level keys. On failure the
// problems are recorded (a YAML syntax error is returned as one problem)
// and the root is nil.
func (p *Parser) Document(data []byte, what string, keys []string) (root *yaml.Node) {
	defer func() {
		if r := recover(); r != nil {
			root = nil
			p.Add(nil, "invalid YAML: %v", r)
		}
	}()
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		p.Problems = append(p.Problems, YAMLProblem(err))
		return nil
	}
	// A second document ("---") would be silently ignored: refuse it.
	if line, err := ExtraDocument(dec); err != nil {
		p.Problems = append(p.Problems, YAMLProblem(err))
		return nil
	} else if line > 0 {
		p.Problems = append(p.Problems, Problem{Line: line, Column: 1, Msg: fmt.Sprintf("a second YAML document; %s holds one (remove the \"---\" line)", what)})
		return nil
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || IsNull(doc.Content[0]) {
		p.Add(nil, "%s is empty; it needs at least \"version: 1\"", what)
		return nil
	}
	root = Deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		p.Add(root, "expected a mapping with keys %s, got %s", strings.Join(keys, ", "), Describe(root))
		return nil
	}
	return root
}

// ExtraDocument reads on after the first document of dec: it returns the
// line of a second document (its "---"), 0 at the end of the input, or the
// YAML error. Decoding one document ignores the rest: a config file calls
// this to refuse a second one, which would otherwise be silently dropped.
func ExtraDocument(dec *yaml.Decoder) (int, error) {
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == io.EOF:
		return 0, nil
	case err != nil:
		return 0, err
	}
	return max(extra.Line, 1), nil
}

// Mapping walks a mapping node, reporting non-scalar, unknown and duplicate
// keys; where is "at top level" or "in defaults" and so on. valid == nil
// accepts any key (the caller checks it).
func (p *Parser) Mapping(n *yaml.Node, where string, valid []string, f func(key string, k, v *yaml.Node)) {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Deref(n.Content[i]), Deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || IsNull(k) {
			p.Add(k, "keys %s must be plain names, got %s", where, Describe(k))
			continue
		}
		key := k.Value
		if valid != nil && !Contains(valid, key) {
			p.Add(k, "unknown key %q %s; %s", key, where, Suggestion(key, valid, "valid keys"))
			continue
		}
		if prev, dup := seen[key]; dup && valid != nil {
			p.Add(k, "duplicate key %q %s (first at line %d)", key, where, prev.Line)
			continue
		}
		seen[key] = k
		f(key, k, v)
	}
}

// IsMapping reports whether n is a mapping to read: false for null, and
// for anything else than a mapping, which is a problem ("field: expected a
// mapping such as example, got ..."). example starts with "{" or is the
// rest of the sentence.
func (p *Parser) IsMapping(n *yaml.Node, field, example string) bool {
	if IsNull(n) {
		return false
	}
	if n.Kind != yaml.MappingNode {
		if strings.HasPrefix(example, "{") {
			example = "such as " + example
		}
		p.Add(n, "%s: expected a mapping %s, got %s", field, example, Describe(n))
		return false
	}
	return true
}

// Number reads a finite number.
func (p *Parser) Number(v *yaml.Node, field string) (float64, bool) {
	if v.Kind != yaml.ScalarNode || IsNull(v) {
		p.Add(v, "%s: expected a number, got %s", field, Describe(v))
		return 0, false
	}
	tag := v.ShortTag()
	if tag != "!!int" && tag != "!!float" {
		p.Add(v, "%s: %s is not a number", field, Shown(v))
		return 0, false
	}
	var x float64
	if err := v.Decode(&x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		p.Add(v, "%s: %s is not a finite number", field, Shown(v))
		return 0, false
	}
	return x, true
}

// Integer reads an integer.
func (p *Parser) Integer(v *yaml.Node, field string) (int, bool) {
	if v.Kind != yaml.ScalarNode || IsNull(v) {
		p.Add(v, "%s: expected an integer, got %s", field, Describe(v))
		return 0, false
	}
	if v.ShortTag() != "!!int" {
		p.Add(v, "%s: %s is not an integer", field, Shown(v))
		return 0, false
	}
	var x int
	if err := v.Decode(&x); err != nil {
		p.Add(v, "%s: %s is out of range", field, v.Value)
		return 0, false
	}
	return x, true
}

// Enum reads one of the allowed words.
func (p *Parser) Enum(v *yaml.Node, field string, allowed ...string) (string, bool) {
	if v.Kind != yaml.ScalarNode || IsNull(v) {
		p.Add(v, "%s: expected one of %s, got %s", field, strings.Join(allowed, " | "), Describe(v))
		return "", false
	}
	if !Contains(allowed, v.Value) {
		msg := fmt.Sprintf("%s: %q is not one of %s", field, v.Value, strings.Join(allowed, " | "))
		if s := Closest(v.Value, allowed); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		p.Add(v, "%s", msg)
		return "", false
	}
	return v.Value, true
}

// Text reads a non-empty string (surrounding white space trimmed).
func (p *Parser) Text(v *yaml.Node, field string) (string, bool) {
	if v.Kind != yaml.ScalarNode || IsNull(v) {
		p.Add(v, "%s: expected text, got %s", field, Describe(v))
		return "", false
	}
	s := strings.TrimSpace(v.Value)
	if s == "" {
		p.Add(v, "%s: is empty", field)
		return "", false
	}
	return s, true
}

// Deref follows YAML aliases (*anchor) to the node they name.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// IsNull reports whether n is absent or null.
func IsNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// Describe names what a node is, for messages.
func Describe(n *yaml.Node) string {
	switch {
	case IsNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode:
		return Shown(n)
	}
	return "an alias"
}

// Shown is a scalar as written: numbers bare, strings quoted.
func Shown(v *yaml.Node) string {
	if v.ShortTag() == "!!str" {
		return strconv.Quote(v.Value)
	}
	return v.Value
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// YAMLProblem turns a YAML syntax error into a problem with its line.
func YAMLProblem(err error) Problem {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Problem{Line: line, Column: 1, Msg: "invalid YAML: " + m[2]}
	}
	return Problem{Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// Contains reports whether xs holds s.
func Contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// Suggestion returns `did you mean "x"?` for a close candidate, else the
// list of candidates introduced by what.
func Suggestion(s string, candidates []string, what string) string {
	if c := Closest(s, candidates); c != "" {
		return fmt.Sprintf("did you mean %q?", c)
	}
	return what + ": " + strings.Join(candidates, ", ")
}

// Closest returns the candidate nearest to s by edit distance (case-
// insensitive), or "" when none is close enough to be a likely typo.
func Closest(s string, candidates []string) string {
	if c := suggest.Closest(s, candidates); c != "" {
		return c
	}
	ls := strings.ToLower(strings.TrimSpace(s))
	// A unique candidate containing s ("recall" -> "context_recall") or
	// contained in it.
	found := ""
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if len(ls) >= 4 && (strings.Contains(lc, ls) || strings.Contains(ls, lc)) {
			if found != "" {
				return ""
			}
			found = c
		}
	}
	return found
}
