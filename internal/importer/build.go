package importer

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// record is one scored row of a tool's file, in raggate's terms.
type record struct {
	line  int    // where the row starts (1-based), for messages
	where string // "row 3", "results[2]": what the user looks for at line

	id    string // the tool's id, or the key raggate derived
	idWhy string // how id was made, for the duplicate message
	idFix string // what to do about a duplicate ("": the format's advice)

	sample metrics.Sample // texts, present fields and metadata

	scores []score
	// target is the reason the pipeline call failed (promptfoo's provider
	// errors): every score of the row is undefined, kind target.
	target string
}

// score is one metric's value on a record.
type score struct {
	metric string  // the tool's name, as written
	v      float64 // NaN: undefined
	raw    string  // the cell as written, when the file holds text
	reason string  // why undefined (when v is NaN), or the tool's explanation
	kind   results.UndefinedKind
}

// column is what the builder knows of a metric of the file.
type column struct {
	raw       string // the tool's name
	name      string // raggate's
	known     bool   // a catalogue metric
	direction metrics.Direction
	reported  bool // raggate adds it (latency, cost): gated only when the thresholds say
	what      string
}

// source is what a reader learned of the file besides its rows.
type source struct {
	format  Format
	version string   // the tool's version, when the file says
	models  []string // evaluation models the file names
	name    string   // a name for the data (the file's when empty)
	// columns declares metrics with their direction (promptfoo's latency
	// and cost); other metrics are declared by their first score.
	columns []column
	// warnings are what the user should know of the reading: a column
	// taken as metadata although it holds numbers, ids derived from the
	// inputs although some rows name theirs.
	warnings []string
}

// build makes the results file of the records read from path.
func build(path string, src source, recs []record, opt Options) (*results.File, error) {
	if len(recs) == 0 {
		return nil, &Error{File: path, Msg: fmt.Sprintf("no scored rows: the file reads as %s output but holds no %s", src.format, rowNoun(src.format))}
	}
	cols, order, err := declare(path, src, recs)
	if err != nil {
		return nil, err
	}
	f := &results.File{
		Schema:    results.Schema,
		Tool:      results.Tool{Name: "raggate", Version: opt.Version},
		CreatedAt: opt.now().UTC().Truncate(time.Second),
		Config:    results.Config{Metrics: order, Repeats: 1},
	}
	seen := map[string]*record{}
	for i := range recs {
		r := &recs[i]
		r.id = integralID(r.id)
		if prev, dup := seen[r.id]; dup {
			return nil, &Error{File: path, Line: r.line, Msg: fmt.Sprintf("%s has the same sample id %q as %s (line %d); %s. %s",
				r.where, r.id, prev.where, prev.line, r.idWhy, cmp.Or(r.idFix, uniqueIDAdvice(src.format)))}
		}
		seen[r.id] = r
		s, err := sampleOf(path, src.format, r, cols)
		if err != nil {
			return nil, err
		}
		f.Samples = append(f.Samples, s)
	}
	for _, name := range order {
		c := cols[name]
		if c.known {
			continue
		}
		f.UserMetrics = append(f.UserMetrics, userDefinition(c, f.Samples))
	}
	f.Summary = results.Summarize(order, f.Samples)
	f.Dataset = datasetOf(path, src, recs)
	f.Judge = judgeOf(src, opt)
	f.Warnings = src.warnings
	return f, nil
}

// uniqueIDAdvice says how to give each sample of a format its own id.
func uniqueIDAdvice(f Format) string {
	switch f {
	case Promptfoo:
		return "Give each test a distinct description, or remove the duplicate"
	case DeepEval:
		return "Give each test case a distinct name (LLMTestCase(name=...)), or remove the duplicate"
	}
	return "Give each sample a unique id column (id or sample_id), or remove the duplicate"
}

func rowNoun(f Format) string {
	switch f {
	case Promptfoo:
		return "results"
	case DeepEval:
		return "test cases"
	}
	return "rows"
}

// declare names every metric of the file, in the file's order (that of
// their first scores), and checks that two of the tool's names do not become
// one of raggate's.
func declare(path string, src source, recs []record) (map[string]column, []string, error) {
	cols := map[string]column{}
	var order []string
	add := func(c column) error {
		if prev, ok := cols[c.name]; ok {
			if prev.raw != c.raw {
				return &Error{File: path, Msg: fmt.Sprintf("metrics %q and %q are both %s to raggate; keep one of them", prev.raw, c.raw, c.name)}
			}
			return nil
		}
		cols[c.name] = c
		order = append(order, c.name)
		return nil
	}
	declared := map[string]column{}
	for _, c := range src.columns {
		declared[c.raw] = c
	}
	for i := range recs {
		for _, s := range recs[i].scores {
			if c, ok := declared[s.metric]; ok {
				if err := add(c); err != nil {
					return nil, nil, err
				}
				continue
			}
			name, known := metricName(s.metric)
			if name == "" {
				return nil, nil, &Error{File: path, Line: recs[i].line, Msg: fmt.Sprintf("metric %q has no letter or digit to name it by; rename it", s.metric)}
			}
			c := column{raw: s.metric, name: name, known: known}
			if !known {
				c.direction = metrics.HigherIsBetter
				if lowerIsBetter[name] {
					c.direction = metrics.LowerIsBetter
				}
				c.what = fmt.Sprintf("%s's %q, read by gate import", src.format, s.metric)
				if m, ok := measured[name]; ok {
					c.direction, c.reported = metrics.LowerIsBetter, true
					c.what = fmt.Sprintf("%s's %q, read by gate import: the %s, lower is better, report-only unless the thresholds gate it", src.format, s.metric, m)
				}
			}
			if err := add(c); err != nil {
				return nil, nil, err
			}
		}
	}
	return cols, order, nil
}

// sampleOf makes the results sample of a record, checking each score
// against its metric's range.
func sampleOf(path string, format Format, r *record, cols map[string]column) (results.Sample, error) {
	s := results.Sample{ID: r.id, Question: r.sample.UserInput, Scores: map[string]results.Score{}}
	s.InputHash = testCaseHash(r.id, &r.sample)
	if len(r.sample.Metadata) > 0 {
		s.Metadata = r.sample.Metadata
	}
	s.Response = r.sample.Response
	s.Contexts = r.sample.RetrievedContexts
	s.ContextIDs = r.sample.RetrievedContextIDs
	for _, sc := range r.scores {
		name, _ := metricName(sc.metric)
		c := cols[name]
		v := sc.v
		if r.target != "" {
			v = math.NaN()
			sc.reason, sc.kind = r.target, results.KindTarget
		}
		if math.IsNaN(v) {
			s.Scores[name] = results.NaN()
			setUndefined(&s, name, sc.reason, sc.kind)
			continue
		}
		if math.IsInf(v, 0) || math.Abs(v) > metrics.MaxNumeric {
			what := fmt.Sprint(v)
			if sc.raw != "" {
				what = clip(sc.raw, 40)
			}
			return s, &Error{File: path, Line: r.line, Msg: fmt.Sprintf("%s: %s is %s; a score is a finite number of at most %g in size (leave the cell empty for no score)", r.where, sc.metric, what, metrics.MaxNumeric)}
		}
		if c.known {
			m, _ := metrics.Lookup(name)
			lo, hi := m.ScoreRange()
			if v < lo-1e-9 || v > hi+1e-9 {
				return s, &Error{File: path, Line: r.line, Msg: fmt.Sprintf("%s: %s is %v, outside [%v, %v], the range of raggate's %s; is the column another metric of the same name? Rename it to import it as a user metric",
					r.where, sc.metric, v, lo, hi, name)}
			}
		}
		s.Scores[name] = results.Score(v)
		if sc.reason != "" {
			if s.Reasons == nil {
				s.Reasons = map[string]string{}
			}
			s.Reasons[name] = results.ClipReason(sc.reason)
		}
	}
	for name := range cols {
		if _, ok := s.Scores[name]; !ok {
			// The row names no score of the metric: its test did not ask
			// for it (a promptfoo assertion on some tests, a DeepEval
			// metric of conversational cases only). Not applicable, as a
			// metric missing a field is: not the evaluator failing. A row
			// with no score at all was not scored: the evaluator failed.
			reason, kind := notAsked(format), results.KindData
			switch {
			case r.target != "":
				reason, kind = r.target, results.KindTarget
			case len(r.scores) == 0:
				reason, kind = "the file has no score for this sample", results.KindJudge
			}
			s.Scores[name] = results.NaN()
			setUndefined(&s, name, reason, kind)
		}
	}
	return s, nil
}

// notAsked is the reason of a metric a test did not ask for.
func notAsked(f Format) string {
	switch f {
	case Promptfoo:
		return "not applicable: the test has no assertion of this metric"
	case DeepEval:
		return "not applicable: the test case did not ask for this metric"
	}
	return "not applicable: the row has no score of this metric"
}

func setUndefined(s *results.Sample, metric, reason string, kind results.UndefinedKind) {
	if reason == "" {
		reason = "the file has no score"
	}
	if kind == "" {
		kind = results.KindJudge
	}
	if s.Undefined == nil {
		s.Undefined = map[string]string{}
		s.UndefinedKind = map[string]results.UndefinedKind{}
	}
	s.Undefined[metric] = results.ClipReason(reason)
	s.UndefinedKind[metric] = kind
}

// userDefinition declares a metric outside the catalogue as a numeric
// user metric: any finite number, in the direction the tool gives it.
func userDefinition(c column, samples []results.Sample) metrics.Definition {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range samples {
		if v, ok := samples[i].Scores[c.name]; ok && !v.IsNaN() {
			lo, hi = min(lo, v.Value()), max(hi, v.Value())
		}
	}
	desc := c.what
	if lo <= hi {
		desc += fmt.Sprintf(" (scores from %s to %s in this file)", fmtNum(lo), fmtNum(hi))
	}
	return metrics.Definition{
		Name: c.name, Kind: metrics.KindNumeric, Description: desc,
		Reads: []string{c.raw}, Direction: c.direction, Reported: c.reported,
	}
}

func fmtNum(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}

// judgeOf records the tool as the judge: its name as the provider, the
// evaluation model as the model, and the tool and its version as the
// prompts, so that scores of another tool, model or version show as a
// judge change.
func judgeOf(src source, opt Options) results.Judge {
	models := slices.Clone(src.models)
	if len(models) == 0 && opt.Model != "" {
		models = []string{opt.Model}
	}
	slices.Sort(models)
	models = slices.Compact(models)
	info := judge.Info{Provider: string(src.format), Model: strings.Join(models, ", "), Prompts: string(src.format)}
	if src.version != "" {
		info.Prompts += " " + src.version
	}
	return results.Judge{Provider: info.Provider, Model: info.Model, Prompts: info.Prompts, Fingerprint: fingerprint(info)}
}

// fingerprint hashes a judge's identity as a run's results file does.
func fingerprint(info judge.Info) string {
	b, _ := json.Marshal(info)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// testCaseHash identifies a sample's inputs: the test case (question,
// reference, reference contexts, metadata), hashed as a run's results
// file hashes a sample, without what the pipeline under test returned
// (response, retrieved contexts and their ids), which changes with every
// change of the pipeline and is missing when its call failed.
func testCaseHash(id string, s *metrics.Sample) string {
	in := *s
	in.ID = id
	in.Response, in.RetrievedContexts, in.RetrievedContextIDs = "", nil, nil
	if len(in.Present) > 0 {
		in.Present = maps.Clone(in.Present)
		delete(in.Present, metrics.Response)
		delete(in.Present, metrics.RetrievedContexts)
		delete(in.Present, metrics.RetrievedContextIDs)
	}
	return inputHash(&in)
}

// inputHash hashes a sample as a run's results file does.
func inputHash(s *metrics.Sample) string {
	b, _ := json.Marshal(s)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// datasetOf names the data: the name the file gives, else the file's
// name; its hash is that of the golden part of the samples (ids,
// questions, references, reference contexts) in the order of their ids,
// not of the file's bytes,
// which change with every score: two imports of the same golden data
// show the same dataset.
func datasetOf(path string, src source, recs []record) results.Dataset {
	lines := make([]string, len(recs))
	for i := range recs {
		s := &recs[i].sample
		b, _ := json.Marshal([]any{recs[i].id, s.UserInput, s.Reference, s.ReferenceContexts, s.ReferenceContextIDs})
		lines[i] = string(b)
	}
	// The ids are unique, so sorting the lines sorts the samples by id:
	// the order of the rows does not change the hash.
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	name := src.name
	if name == "" {
		name = filepath.Base(path)
	}
	return results.Dataset{Path: name, SHA256: hex.EncodeToString(h.Sum(nil)), Samples: len(recs)}
}

// deriveID is the id of a sample without one: as golden datasets derive
// it from user_input.
func deriveID(userInput string) string { return dataset.DeriveID(userInput) }

// integralFloat is an integer written as a float: 1.0, -3.00.
var integralFloat = regexp.MustCompile(`^-?[0-9]+\.0+$`)

// integralID puts an id that is an integer written as a float (pandas
// writes 1.0 for the ids of a column that has a NaN) in its integer form,
// so that it pairs with the 1 of another file.
func integralID(id string) string {
	if integralFloat.MatchString(id) {
		return id[:strings.IndexByte(id, '.')]
	}
	return id
}
