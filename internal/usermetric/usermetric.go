// Package usermetric reads the metrics file: the user-defined metrics of a
// run (critic, rubric, numeric; see metrics.Definition). Parsing is strict,
// like the thresholds file's and with the same reader (package yamlcheck):
// unknown keys, keys of another kind, duplicate names, names of built-in
// metrics, an even number of votes and an empty rubric are all reported
// together, each with its line and column. Pure: no I/O but LoadFile.
package usermetric

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/suggest"
	"github.com/raggate/raggate/internal/yamlcheck"
	"github.com/raggate/raggate/metrics"
)

// Version is the only supported version of the metrics file.
const Version = 1

// MaxVotes is the most votes a critic may ask for.
const MaxVotes = 15

// ErrMetricsFile is matched by errors.Is for every *Error.
var ErrMetricsFile = errors.New("invalid metrics file")

// Error reports every problem of a metrics file. It is a usage error: the
// CLI maps it to exit code 2.
type Error struct {
	File     string
	Problems []yamlcheck.Problem
	// Err is the read error, if the file could not be read.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("metrics file %s: %v", e.File, e.Err)
	}
	return yamlcheck.Format(e.File, e.Problems)
}

// Unwrap returns the read error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrMetricsFile) true.
func (e *Error) Is(target error) bool { return target == ErrMetricsFile }

// LoadFile reads and parses a metrics file. Every error is an *Error.
func LoadFile(path string) ([]metrics.Definition, error) {
	data, err := inputfile.ReadFile(path, inputfile.ConfigLimit())
	if err != nil {
		return nil, &Error{File: path, Err: fmt.Errorf("%w (copy metrics.example.yaml to start one)", err)}
	}
	return Parse(path, data)
}

var (
	topKeys = []string{"version", "metrics"}
	// keysOf lists the keys each kind accepts.
	keysOf = map[metrics.Kind][]string{
		metrics.KindCritic:  {"kind", "description", "reads", "direction", "definition", "votes"},
		metrics.KindRubric:  {"kind", "description", "reads", "direction", "definition", "rubric", "rubric_column"},
		metrics.KindNumeric: {"kind", "description", "reads", "direction", "transform"},
	}
	allKeys = []string{"kind", "description", "reads", "direction", "definition", "votes", "rubric", "rubric_column", "transform"}
	nameRE  = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	// oldNames are the Ragas < 0.2 field names, refused in reads with the
	// canonical name.
	oldNames = map[string]metrics.Field{"question": metrics.UserInput, "answer": metrics.Response, "contexts": metrics.RetrievedContexts, "ground_truth": metrics.Reference, "ground_truths": metrics.Reference}
)

// Parse parses a metrics file; name is used in messages. The definitions
// come back in file order.
func Parse(name string, data []byte) ([]metrics.Definition, error) {
	p := &parser{}
	root := p.Document(data, "the metrics file", topKeys)
	if root == nil {
		return nil, p.err(name)
	}
	var (
		defs       []metrics.Definition
		sawVersion bool
	)
	p.Mapping(root, "at top level", topKeys, func(key string, _, v *yaml.Node) {
		switch key {
		case "version":
			sawVersion = true
			if n, ok := p.Integer(v, "version"); ok && n != Version {
				p.Add(v, "version: %s is not supported; this gate reads version %d", v.Value, Version)
			}
		case "metrics":
			defs = p.definitions(v)
		}
	})
	if !sawVersion {
		p.Add(root, "missing \"version: 1\"")
	}
	if len(p.Problems) > 0 {
		return nil, p.err(name)
	}
	return defs, nil
}

type parser struct {
	yamlcheck.Parser
}

func (p *parser) err(name string) error { return &Error{File: name, Problems: p.Sorted()} }

func (p *parser) definitions(n *yaml.Node) []metrics.Definition {
	if !p.IsMapping(n, "metrics", "of metric names to definitions, such as {cites_policy: {kind: critic, ...}}") {
		return nil
	}
	var out []metrics.Definition
	seen := map[string]*yaml.Node{}
	p.Mapping(n, "in metrics", nil, func(name string, k, v *yaml.Node) {
		if prev, dup := seen[name]; dup {
			p.Add(k, "duplicate metric %q, first at line %d", name, prev.Line)
			return
		}
		seen[name] = k
		if !p.checkName(name, k) {
			return
		}
		if d, ok := p.definition(name, k, v); ok {
			out = append(out, d)
		}
	})
	return out
}

// checkName refuses names that are not plain lower-case identifiers or
// that are a built-in metric's name or alias.
func (p *parser) checkName(name string, k *yaml.Node) bool {
	if m, ok := metrics.Lookup(name); ok {
		p.Add(k, "metric %q is a built-in metric (%s); give yours another name", name, m.Name)
		return false
	}
	if !nameRE.MatchString(name) {
		p.Add(k, "metric name %q: use lower-case letters, digits and _ (starting with a letter, at most 64), such as cites_policy", name)
		return false
	}
	return true
}

// definition parses one metric's definition; the kind decides which keys
// it may have.
func (p *parser) definition(name string, k, n *yaml.Node) (metrics.Definition, bool) {
	d := metrics.Definition{Name: name}
	prefix := "metrics." + name
	if !p.IsMapping(n, prefix, "{kind: critic, description: ..., reads: [response], definition: ...}") {
		if yamlcheck.IsNull(n) {
			p.Add(k, "%s: empty definition; it needs at least kind, description and reads", prefix)
		}
		return d, false
	}
	before := len(p.Problems)
	kind, ok := p.kindOf(n, prefix)
	if !ok {
		return d, false
	}
	d.Kind = kind
	seen := map[string]*yaml.Node{}
	p.Mapping(n, "in "+prefix, allKeys, func(key string, kn, v *yaml.Node) {
		seen[key] = kn
		if !slices.Contains(keysOf[kind], key) {
			p.Add(kn, "%s.%s: %s applies to %s metrics, not to %s ones", prefix, key, key, kindsWith(key), kind)
			return
		}
		p.field(&d, prefix, key, v)
	})
	p.required(&d, n, prefix, seen)
	return d, len(p.Problems) == before
}

// kindOf reads the kind key first, since it decides the other keys.
func (p *parser) kindOf(n *yaml.Node, prefix string) (metrics.Kind, bool) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := yamlcheck.Deref(n.Content[i]); k.Kind == yaml.ScalarNode && k.Value == "kind" {
			s, ok := p.Enum(yamlcheck.Deref(n.Content[i+1]), prefix+".kind", kindNames()...)
			return metrics.Kind(s), ok
		}
	}
	p.Add(n, "%s: missing kind (one of %s)", prefix, strings.Join(kindNames(), " | "))
	return "", false
}

func kindNames() []string {
	out := make([]string, len(metrics.Kinds))
	for i, k := range metrics.Kinds {
		out[i] = string(k)
	}
	return out
}

// kindsWith names the kinds that accept key.
func kindsWith(key string) string {
	var out []string
	for _, k := range metrics.Kinds {
		if slices.Contains(keysOf[k], key) {
			out = append(out, string(k))
		}
	}
	return strings.Join(out, " and ")
}

// field reads one key of a definition into d.
func (p *parser) field(d *metrics.Definition, prefix, key string, v *yaml.Node) {
	field := prefix + "." + key
	switch key {
	case "description":
		d.Description, _ = p.Text(v, field)
	case "definition":
		d.Definition, _ = p.Text(v, field)
	case "reads":
		d.Reads = p.reads(v, field)
	case "direction":
		if s, ok := p.Enum(v, field, "higher", "lower"); ok {
			_ = d.Direction.UnmarshalText([]byte(s))
		}
	case "votes":
		if x, ok := p.Integer(v, field); ok {
			if x < 1 || x > MaxVotes || x%2 == 0 {
				p.Add(v, "%s: %s; want an odd number from 1 to %d, so that the majority is always decided", field, v.Value, MaxVotes)
			} else {
				d.Votes = x
			}
		}
	case "rubric":
		d.Rubric = p.rubric(v, field)
	case "rubric_column":
		d.RubricColumn, _ = p.Text(v, field)
	case "transform":
		if s, ok := p.Enum(v, field, string(metrics.TransformNone), string(metrics.TransformLog)); ok {
			d.Transform = metrics.Transform(s)
		}
	}
}

// required checks what each kind needs once every key is read.
func (p *parser) required(d *metrics.Definition, n *yaml.Node, prefix string, seen map[string]*yaml.Node) {
	need := func(key, what string) {
		if seen[key] == nil {
			p.Add(n, "%s: missing %s (%s)", prefix, key, what)
		}
	}
	need("description", "a sentence saying what the metric measures, shown in reports")
	need("reads", "the fields and columns the metric reads, such as [user_input, response]")
	switch d.Kind {
	case metrics.KindCritic:
		need("definition", "the yes/no criterion the judge applies")
	case metrics.KindRubric:
		need("definition", "what the rubric scores, such as \"the tone of the response\"")
		if seen["rubric"] == nil && seen["rubric_column"] == nil {
			p.Add(n, "%s: missing rubric (the levels, such as {1: \"rude\", 2: \"neutral\", 3: \"warm\"}), or a rubric_column with one per sample", prefix)
		}
	case metrics.KindNumeric:
		need("direction", "higher or lower: which way is better; for latency, tokens and cost it is lower")
		if r := seen["reads"]; r != nil && len(d.Reads) > 0 {
			if len(d.Reads) != 1 {
				p.Add(r, "%s.reads: a numeric metric reads exactly one column, got %d", prefix, len(d.Reads))
			} else if _, isField := metrics.FieldNamed(d.Reads[0]); isField {
				p.Add(r, "%s.reads: %s is a text field; a numeric metric reads a column of numbers the pipeline reports, such as latency_ms", prefix, d.Reads[0])
			}
		}
		if d.Transform == "" {
			d.Transform = metrics.TransformNone
		}
	}
}

// reads parses the list of fields and columns a metric reads.
func (p *parser) reads(n *yaml.Node, field string) []string {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.Add(n, "%s: expected a non-empty list such as [user_input, response], got %s", field, yamlcheck.Describe(n))
		return nil
	}
	var names []string
	for _, f := range metrics.Fields {
		names = append(names, string(f))
	}
	var out []string
	seen := map[string]*yaml.Node{}
	for _, item := range n.Content {
		item = yamlcheck.Deref(item)
		s, ok := p.Text(item, field)
		if !ok {
			continue
		}
		if prev, dup := seen[s]; dup {
			p.Add(item, "%s: %q is listed twice (first at line %d)", field, s, prev.Line)
			continue
		}
		seen[s] = item
		if f, old := oldNames[s]; old {
			p.Add(item, "%s: %q is the old name of %s; write %s", field, s, f, f)
			continue
		}
		if _, isField := metrics.FieldNamed(s); !isField {
			if m := suggest.Misspelling(s, names); m != "" {
				p.Add(item, "%s: unknown field %q: did you mean %q? (any other name is read as a dataset column)", field, s, m)
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// rubric parses the levels: a mapping of integer scores to descriptions,
// at least two, returned by ascending score.
func (p *parser) rubric(n *yaml.Node, field string) []metrics.RubricLevel {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.Add(n, "%s: expected at least two levels, such as {1: \"off-topic\", 2: \"partly answers\", 3: \"answers fully\"}, got %s", field, describeEmpty(n))
		return nil
	}
	var out []metrics.RubricLevel
	seen := map[int]*yaml.Node{}
	before := len(p.Problems)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := yamlcheck.Deref(n.Content[i]), yamlcheck.Deref(n.Content[i+1])
		score, ok := p.Integer(k, field+" level")
		if !ok {
			continue
		}
		if !levelInRange(score) {
			p.Add(k, "%s level: %s is out of range (%s)", field, k.Value, levelRange)
			continue
		}
		if prev, dup := seen[score]; dup {
			p.Add(k, "%s: level %d is listed twice (first at line %d)", field, score, prev.Line)
			continue
		}
		seen[score] = k
		desc, ok := p.Text(v, field+"."+strconv.Itoa(score))
		if !ok {
			continue
		}
		out = append(out, metrics.RubricLevel{Score: score, Description: desc})
	}
	if len(out) == 1 && len(p.Problems) == before {
		p.Add(n, "%s: one level; a rubric needs at least two", field)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Score < out[j].Score })
	return out
}

func describeEmpty(n *yaml.Node) string {
	if n.Kind == yaml.MappingNode {
		return "an empty mapping"
	}
	return yamlcheck.Describe(n)
}

// MaxRubricLevel bounds the levels of a rubric (from -MaxRubricLevel to
// MaxRubricLevel): far-apart levels would overflow the normalisation.
const MaxRubricLevel = 1_000_000

// levelRange says the bound in messages.
var levelRange = fmt.Sprintf("levels are integers from %d to %d", -MaxRubricLevel, MaxRubricLevel)

func levelInRange(score int) bool { return score >= -MaxRubricLevel && score <= MaxRubricLevel }

// ParseRubric reads a per-sample rubric from a dataset column: a JSON
// object of integer scores to descriptions, at least two levels, each
// level once (" 1" and "01" are level 1) and within MaxRubricLevel.
func ParseRubric(text string) ([]metrics.RubricLevel, error) {
	var raw map[string]string
	if err := json.Unmarshal([]byte(text), &raw); err != nil || len(raw) < 2 {
		return nil, fmt.Errorf("want a JSON object of at least two levels, such as {\"1\": \"wrong\", \"2\": \"right\"}")
	}
	var out []metrics.RubricLevel
	seen := map[int]string{}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		v := raw[k]
		score, err := strconv.Atoi(strings.TrimSpace(k))
		if err != nil || strings.TrimSpace(v) == "" {
			return nil, fmt.Errorf("level %q: want an integer score with a description", k)
		}
		if !levelInRange(score) {
			return nil, fmt.Errorf("level %q is out of range (%s)", k, levelRange)
		}
		if prev, dup := seen[score]; dup {
			return nil, fmt.Errorf("level %d is listed twice (%q and %q)", score, prev, k)
		}
		seen[score] = k
		out = append(out, metrics.RubricLevel{Score: score, Description: strings.TrimSpace(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Score < out[j].Score })
	return out, nil
}

// Metrics returns the catalogue entries of the definitions.
func Metrics(defs []metrics.Definition) []metrics.Metric {
	out := make([]metrics.Metric, len(defs))
	for i := range defs {
		out[i] = defs[i].Metric()
	}
	return out
}
