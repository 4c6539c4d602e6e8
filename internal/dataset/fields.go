package dataset

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/raggate/raggate/internal/suggest"
	"github.com/raggate/raggate/metrics"
)

// idKey is the name of the optional id field.
const idKey = "id"

// oldNames are the Ragas < 0.2 field names.
var oldNames = map[string]metrics.Field{
	"question":      metrics.UserInput,
	"contexts":      metrics.RetrievedContexts,
	"answer":        metrics.Response,
	"ground_truth":  metrics.Reference,
	"ground_truths": metrics.Reference,
}

// oldOrder lists oldNames in a fixed order for suggestions.
var oldOrder = []string{"question", "contexts", "answer", "ground_truth", "ground_truths"}

// ragasNames are metadata keys written by Ragas and its test-set
// generators. They are kept as metadata like any extra column, and are
// accepted even with Options.StrictFields.
var ragasNames = []string{
	"metadata", "episode_done", "evolution_type", "synthesizer_name",
	"multi_responses", "rubrics", "persona_name", "query_style", "query_length",
}

// synonyms are names other tools commonly use for our fields. They are not
// accepted as such (their meaning varies), but an unknown key that is one
// of them gets a mapping suggestion.
var synonyms = map[string]metrics.Field{
	"query": metrics.UserInput, "input": metrics.UserInput, "prompt": metrics.UserInput,
	"user_query": metrics.UserInput, "questions": metrics.UserInput,
	"context": metrics.RetrievedContexts, "documents": metrics.RetrievedContexts,
	"docs": metrics.RetrievedContexts, "passages": metrics.RetrievedContexts,
	"chunks": metrics.RetrievedContexts, "retrieved_context": metrics.RetrievedContexts,
	"retrieved_docs": metrics.RetrievedContexts, "sources": metrics.RetrievedContexts,
	"output": metrics.Response, "actual_output": metrics.Response, "generated_answer": metrics.Response,
	"prediction": metrics.Response, "completion": metrics.Response, "answers": metrics.Response,
	"expected_output": metrics.Reference, "expected_answer": metrics.Reference,
	"gold_answer": metrics.Reference, "golden_answer": metrics.Reference,
	"target": metrics.Reference, "label": metrics.Reference, "ideal": metrics.Reference,
	"reference_answer": metrics.Reference, "gold": metrics.Reference, "gt_answer": metrics.Reference,
}

// responseFields are the fields a responses file may give besides the join
// keys id and user_input: the outputs of the pipeline.
var responseFields = []metrics.Field{metrics.Response, metrics.RetrievedContexts, metrics.RetrievedContextIDs}

func isResponseField(f metrics.Field) bool {
	return f == metrics.UserInput || slices.Contains(responseFields, f)
}

type targetKind int

const (
	tUnknown targetKind = iota
	tField
	tID
	tIgnored
	tMeta // kept as metadata
)

// target is what a key in a file stands for.
type target struct {
	kind   targetKind
	field  metrics.Field
	mapped bool   // named through Options.Mapping
	msg    string // tUnknown: what is wrong and how to fix it
}

// resolver maps the keys found in files to fields.
type resolver struct {
	names   map[string]target
	mapping [][2]string // validated mapping, sorted: canonical, file name
	strict  bool        // Options.StrictFields
}

func isCanonical(name string) bool {
	return name == idKey || slices.Contains(metrics.Fields, metrics.Field(name))
}

func canonicalNames() []string {
	out := []string{idKey}
	for _, f := range metrics.Fields {
		out = append(out, string(f))
	}
	return out
}

// newResolver validates the options (format and mapping) and builds the
// key table.
func newResolver(opts Options, ps *problems) *resolver {
	r := &resolver{names: make(map[string]target), strict: opts.StrictFields}
	r.names[idKey] = target{kind: tID}
	for _, f := range metrics.Fields {
		r.names[string(f)] = target{kind: tField, field: f}
	}
	for name, f := range oldNames {
		r.names[name] = target{kind: tField, field: f}
	}
	for _, name := range ragasNames {
		r.names[name] = target{kind: tMeta}
	}
	for _, name := range opts.Ignore {
		r.names[name] = target{kind: tIgnored}
	}

	switch opts.Format {
	case FormatAuto, FormatJSONL, FormatJSON, FormatCSV, FormatParquet:
	default:
		ps.add(Problem{Msg: fmt.Sprintf("unknown format %s; use %s, %s, %s or %s (or leave it empty to choose by extension)",
			short(string(opts.Format)), FormatJSONL, FormatJSON, FormatCSV, FormatParquet)})
	}

	keys := make([]string, 0, len(opts.Mapping))
	for k := range opts.Mapping {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	usedBy := make(map[string]string)
	for _, k := range keys {
		v := opts.Mapping[k]
		spec := k + "=" + v
		switch {
		case !isCanonical(k):
			var msg string
			if f, ok := oldNames[k]; ok {
				msg = fmt.Sprintf("field mapping %s: %q is an old field name; map the canonical name instead: %s=%s", spec, k, f, v)
			} else if s := suggest.Closest(k, canonicalNames()); s != "" {
				msg = fmt.Sprintf("field mapping %s: unknown field %q: did you mean %q?", spec, k, s)
			} else {
				msg = fmt.Sprintf("field mapping %s: unknown field %q; the fields are %s", spec, k, strings.Join(canonicalNames(), ", "))
			}
			ps.add(Problem{Msg: msg})
			continue
		case v == "":
			ps.add(Problem{Msg: fmt.Sprintf("field mapping %s: give the name the file uses for %s, e.g. %s=my_%s", spec, k, k, k)})
			continue
		case usedBy[v] != "":
			ps.add(Problem{Msg: fmt.Sprintf("field mapping %s: %q is already mapped to %s; a file field can feed only one field", spec, v, usedBy[v])})
			continue
		}
		usedBy[v] = k
		r.mapping = append(r.mapping, [2]string{k, v})
	}
	for _, m := range r.mapping {
		if m[0] == idKey {
			r.names[m[1]] = target{kind: tID, mapped: true}
		} else {
			r.names[m[1]] = target{kind: tField, field: metrics.Field(m[0]), mapped: true}
		}
	}
	return r
}

// short quotes s for a message, cut to a readable length.
func short(s string) string {
	const limit = 60
	if utf8.RuneCountInString(s) <= limit {
		return strconv.Quote(s)
	}
	r := []rune(s)
	return strconv.Quote(string(r[:limit])) + "..."
}

// resolve returns what key stands for. A key that is not a field, an id or
// ignored is metadata, unless it looks like a misspelling of a field name
// or a mapped name, or the fields are strict: then it is unknown (tUnknown,
// an error).
func (r *resolver) resolve(key string) target {
	if t, ok := r.names[key]; ok {
		return t
	}
	t := target{kind: tMeta}
	if r.strict || r.misspelling(key) != "" {
		t = target{kind: tUnknown, msg: r.unknownMsg(key)}
	}
	r.names[key] = t // files repeat their keys: decide once
	return t
}

// misspelling returns the field name or mapped name that key likely
// misspells, or "". Names other tools use for our fields (context, query)
// are not misspellings: they are kept as metadata, with a warning.
func (r *resolver) misspelling(key string) string {
	if _, ok := synonyms[strings.ToLower(key)]; ok {
		return ""
	}
	candidates := append(canonicalNames(), oldOrder...)
	for _, m := range r.mapping {
		candidates = append(candidates, m[1])
	}
	return suggest.Misspelling(key, candidates)
}

// ownColumnHint ends a "did you mean" of a column name: how to keep a
// column that is not a typo.
const ownColumnHint = " (if it is a column of its own, rename it in the file; no option keeps it)"

// unknownMsg explains an unknown key and how to fix it.
func (r *resolver) unknownMsg(key string) string {
	if s := r.misspelling(key); s != "" {
		if f := canonicalOf(s); f != "" && strings.EqualFold(key, s) {
			return fmt.Sprintf("unknown field %s: names are case-sensitive: rename it %q, or map it with --field %s=%s", short(key), s, f, key)
		}
		return fmt.Sprintf("unknown field %s: did you mean %q?%s", short(key), s, ownColumnHint)
	}
	strict := "; or drop --strict-fields to keep it as metadata"
	if f, ok := synonyms[strings.ToLower(key)]; ok {
		return fmt.Sprintf("unknown field %s: if it holds %s, rename it %q or map it with --field %s=%s%s", short(key), f, f, f, key, strict)
	}
	candidates := append(canonicalNames(), oldOrder...)
	if s := suggest.Closest(key, candidates); s != "" {
		return fmt.Sprintf("unknown field %s: did you mean %q?%s", short(key), s, strict)
	}
	return fmt.Sprintf("unknown field %s; rename it to one of %s, or map it with --field <field>=<name>%s",
		short(key), strings.Join(canonicalNames(), ", "), strict)
}

// canonicalOf returns the canonical name of a field or old name, or "".
func canonicalOf(name string) string {
	if f, ok := oldNames[name]; ok {
		return string(f)
	}
	if isCanonical(name) {
		return name
	}
	return ""
}

// synonymWarnings warns about metadata keys that other tools use for a
// field the samples lack (context for retrieved_contexts, say): they are
// probably meant to be mapped.
func synonymWarnings(file string, keys map[string]bool, res *resolver, have map[metrics.Field]bool) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		f, ok := synonyms[strings.ToLower(k)]
		if !ok || have[f] || res.resolve(k).kind != tMeta {
			continue
		}
		out = append(out, fmt.Sprintf("%s: the column %s is kept as metadata; if it holds %s, map it with --field %s=%s",
			file, short(k), f, f, k))
	}
	return out
}
