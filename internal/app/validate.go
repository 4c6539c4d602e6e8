package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/usermetric"
	"github.com/raggate/raggate/metrics"
)

// Valid ranges of the numeric options (README "Commands" lists them).
const (
	maxConcurrency      = 1000
	maxStrictness       = 10
	maxRepeats          = 100
	maxMaxRetries       = 20
	maxRequestTimeout   = time.Hour
	maxCompletionTokens = 1_000_000
)

// Problem is one invalid option. The message names options by their key
// (the flag name without dashes); render turns keys into what the user
// typed: "--concurrency" on the command line, `input "concurrency"` in
// the action.
type Problem struct {
	keys  []string
	value string // the bad value, formatted, if the message shows one
	msg   func(names []string) string
}

// BadValue is a value out of its valid range: "NAME VALUE: want WANT".
func BadValue(key string, value any, want string) Problem {
	return Problem{[]string{key}, fmt.Sprint(value), func(n []string) string { return fmt.Sprintf("%s: want %s", n[0], want) }}
}

// BadText is BadValue for a text value, quoted.
func BadText(key, value, want string) Problem {
	return BadValue(key, strconv.Quote(value), want)
}

// Conflict is two options that cannot be given together.
func Conflict(a, b, fix string) Problem {
	return Problem{[]string{a, b}, "", func(n []string) string { return fmt.Sprintf("%s and %s: %s", n[0], n[1], fix) }}
}

// Wrapped is an error about one option: "NAME: ERR".
func Wrapped(key string, err error) Problem {
	return Problem{[]string{key}, "", func(n []string) string { return fmt.Sprintf("%s: %v", n[0], err) }}
}

// Plain is a message that names its option itself.
func Plain(key, format string) Problem {
	return Problem{[]string{key}, "", func(n []string) string { return fmt.Sprintf(format, n[0]) }}
}

// Namer renders option keys as the user gave them.
type Namer struct {
	Name     func(key string) string
	ValueSep string // between the name and a bad value
}

// FlagNames names command-line flags: --concurrency -3.
var FlagNames = Namer{func(key string) string { return "--" + key }, " "}

// Render words p with the names n gives the settings.
func (p Problem) Render(n Namer) string {
	names := make([]string, len(p.keys))
	for i, k := range p.keys {
		names[i] = n.Name(k)
	}
	if p.value != "" {
		names[0] += n.ValueSep + p.value
	}
	return p.msg(names)
}

// JoinProblems renders every Problem into one usage error (nil if none).
func JoinProblems(ps []Problem, name Namer) error {
	if len(ps) == 0 {
		return nil
	}
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Render(name)
	}
	return usageErr("%s", strings.Join(msgs, "; "))
}

// Validate checks the settings of command cmd before any work: first
// every value and combination (no I/O), then the output paths (never one
// of the inputs, and writable). Every problem is a usage error naming the
// setting as n names it.
func (o *Settings) Validate(env Env, cmd string, n Namer) error {
	if err := JoinProblems(o.Problems(cmd), n); err != nil {
		return err
	}
	return JoinProblems(o.PathProblems(env, cmd, nil), n)
}

// Problems checks values, ranges and combinations; it reads no file.
// cmd is run, check, calibrate, compare, merge or action (whose required
// inputs are checked by the action itself).
func (o *Settings) Problems(cmd string) []Problem {
	var ps []Problem
	ps = append(ps, o.requiredProblems(cmd)...)
	switch cmd {
	case "run", "check", "calibrate", "action":
		ps = append(ps, o.datasetProblems()...)
		ps = append(ps, o.judgeProblems()...)
		ps = append(ps, o.limitProblems(cmd)...)
	}
	switch cmd {
	case "run", "check", "action":
		ps = append(ps, o.targetProblems()...)
	}
	switch cmd {
	case "check", "compare", "action":
		ps = append(ps, o.segmentProblems()...)
	}
	switch cmd {
	case "check", "compare":
		if _, ok := report.Lookup(o.Format); !ok {
			ps = append(ps, BadText("format", o.Format, FormatsWant()))
		}
		if o.HTMLSamples < 1 {
			ps = append(ps, BadValue("html-samples", o.HTMLSamples, "at least 1 (default 2000)"))
		}
	}
	if cmd == "check" {
		ps = append(ps, o.baselineProblems()...)
	}
	if cmd == "calibrate" {
		if p := CheckAlpha(o.Alpha); p != nil {
			ps = append(ps, *p)
		}
	}
	return ps
}

// The checks of one value of a text setting, shared by Problems and the
// CLI's flag types (which report a bad value as it is parsed): nil when
// the value is good.

// AlphaWant words the valid values of --alpha.
const AlphaWant = "more than 0 and less than 1 (default 0.05)"

// CheckAlpha checks calibrate's significance level: more than 0 and less
// than 1 (NaN is not).
func CheckAlpha(a float64) *Problem {
	if a > 0 && a < 1 {
		return nil
	}
	p := BadValue("alpha", a, AlphaWant)
	return &p
}

// SplitField splits a --field value, canonical=name-in-file (spaces
// trimmed); ok is false when either side is empty.
func SplitField(kv string) (canonical, name string, ok bool) {
	k, v, found := strings.Cut(kv, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	return k, v, found && k != "" && v != ""
}

// CheckField checks one --field value.
func CheckField(kv string) *Problem {
	if _, _, ok := SplitField(kv); ok {
		return nil
	}
	p := BadText("field", kv, "canonical=name-in-file, e.g. response=answer")
	return &p
}

// CheckShard checks a --shard value, i/n.
func CheckShard(s string) *Problem {
	if _, _, err := results.ParseShard(s); err != nil {
		p := Wrapped("shard", err)
		return &p
	}
	return nil
}

// CheckMetrics checks the --metrics names against the built-in metrics
// and, in a target run, the target metrics (the user-defined ones are
// known once the metrics file is read).
func CheckMetrics(names []string, targetRun bool) *Problem {
	var user []metrics.Metric
	if targetRun {
		user = usermetric.Metrics(targetDefinitions())
	}
	if _, err := resolveMetrics(names, user); err != nil {
		p := Wrapped("metrics", err)
		return &p
	}
	return nil
}

// CheckBaselineRef checks a --baseline-ref value, REF:PATH.
func CheckBaselineRef(s string) *Problem {
	if ref, path, ok := strings.Cut(s, ":"); ok && ref != "" && path != "" {
		return nil
	}
	p := BadText("baseline-ref", s, "REF:PATH, e.g. origin/main:eval/results.json")
	return &p
}

// CheckTargetHeader checks one --target-header value, NAME=VALUE.
func CheckTargetHeader(kv string) *Problem {
	if k, _, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) != "" {
		return nil
	}
	p := BadText("target-header", kv, "NAME=VALUE, e.g. Authorization=Bearer ${RAG_TOKEN}")
	return &p
}

// CheckHeader checks the i-th (from 1) --header value, NAME=VALUE. The
// problem names the header, never shows its value (usually a key).
func CheckHeader(i int, kv string) *Problem {
	sep := strings.IndexAny(kv, "=:")
	var msg func(name string) string
	switch {
	case sep < 0:
		msg = func(n string) string {
			return fmt.Sprintf("%s (number %d): no \"=\" between the name and the value; want NAME=VALUE, e.g. %s X-Api-Key=VALUE", n, i, n)
		}
	case kv[sep] == ':':
		name := strings.TrimSpace(kv[:sep])
		msg = func(n string) string {
			return fmt.Sprintf("%s %q: the name and the value are separated by \"=\", not \":\"; want NAME=VALUE, e.g. %s %s=VALUE (the value is not shown)", n, name, n, name)
		}
	case strings.TrimSpace(kv[:sep]) == "":
		msg = func(n string) string { return fmt.Sprintf("%s (number %d): the name is empty; want NAME=VALUE", n, i) }
	default:
		return nil
	}
	return &Problem{[]string{"header"}, "", func(n []string) string { return msg(n[0]) }}
}

func (o *Settings) requiredProblems(cmd string) []Problem {
	var ps []Problem
	switch {
	case (cmd == "check" || cmd == "action") && o.Scores != "":
		if o.Dataset != "" {
			ps = append(ps, Conflict("scores", "dataset", "give one: scores checks the scores another evaluator made, dataset judges the dataset"))
		}
		if o.ScoresFormat != "" {
			if p := CheckEnum("scores-format", o.ScoresFormat, &ScoresFormats); p != nil {
				ps = append(ps, *p)
			}
		}
		return ps // nothing to run, and --out is written only when given
	case cmd == "check" && o.Dataset == "":
		ps = append(ps, Problem{[]string{"dataset", "scores"}, "", func(n []string) string {
			return fmt.Sprintf("%s is required: the golden dataset (JSONL, JSON or CSV), e.g. %s testdata/demo/golden.jsonl; or check the scores of another evaluator with %s FILE", n[0], n[0], n[1])
		}})
	}
	switch cmd {
	case "run", "calibrate":
		if o.Dataset == "" {
			ps = append(ps, Plain("dataset", "%s is required: the golden dataset (JSONL, JSON or CSV), e.g. --dataset testdata/demo/golden.jsonl"))
		}
	case "compare":
		if o.Head == "" {
			ps = append(ps, Plain("head", "%s is required: the results file of the change, written by `gate run`"))
		}
	}
	switch cmd {
	case "run", "check", "calibrate", "merge":
		if o.Out == "" {
			ps = append(ps, Plain("out", "%s is empty: name the results file to write, e.g. results.json"))
		}
	}
	return ps
}

// datasetProblems checks --field, --metrics and --shard.
func (o *Settings) datasetProblems() []Problem {
	var ps []Problem
	add := func(p *Problem) {
		if p != nil {
			ps = append(ps, *p)
		}
	}
	for _, kv := range o.Fields {
		add(CheckField(kv))
	}
	// With a metrics file, names may be user-defined: they are resolved
	// once it is read (still before any judge call).
	if names := o.metricNames(); len(names) > 0 && o.MetricsFile == "" {
		add(CheckMetrics(names, o.Target.configured()))
	}
	if o.Shard != "" {
		add(CheckShard(o.Shard))
	}
	return ps
}

// judgeProblems checks the judge's enumerations and combinations.
func (o *Settings) judgeProblems() []Problem {
	var ps []Problem
	for _, e := range []struct{ key, v string }{{"judge", o.Judge}, {"claims-atomicity", o.ClaimsAtomicity},
		{"claims-coverage", o.ClaimsCoverage}, {"response-format", o.ResponseFormat}} {
		if p := CheckEnum(e.key, e.v, nil); p != nil {
			ps = append(ps, *p)
		}
	}
	for i, kv := range o.Headers {
		if p := CheckHeader(i+1, kv); p != nil {
			ps = append(ps, *p)
		}
	}
	if o.BaseURL != "" && o.Azure.Endpoint != "" {
		ps = append(ps, Conflict("base-url", "azure-endpoint", "give one, not both (Azure OpenAI uses the endpoint; every other server the base URL)"))
	}
	return ps
}

// limitProblems checks every numeric option against its range.
func (o *Settings) limitProblems(cmd string) []Problem {
	var ps []Problem
	add := func(p *Problem) {
		if p != nil {
			ps = append(ps, *p)
		}
	}
	add(CheckInt("concurrency", o.Concurrency, nil))
	add(CheckInt("strictness", o.Strictness, nil))
	if cmd == "calibrate" {
		add(CheckInt("repeats", o.Repeats, &CalibrateRepeats))
	} else {
		add(CheckInt("repeats", o.Repeats, nil))
	}
	add(CheckInt("max-retries", o.MaxRetries, nil))
	add(CheckInt("max-completion-tokens", o.MaxTokens, nil))
	add(CheckInt("rpm", o.RPM, nil))
	add(CheckInt("tpm", o.TPM, nil))
	add(CheckDuration("max-duration", o.MaxDuration))
	add(CheckDuration("request-timeout", o.RequestTimeout))
	add(CheckInt("max-contexts", o.Limits.MaxContexts, nil))
	add(CheckShare("max-undefined", o.MaxUndefined))
	return ps
}

// segmentProblems checks the --segment-by keys: none empty, at most
// compare.MaxSegmentKeys distinct keys after trimming spaces (a key
// repeated counts once).
func (o *Settings) segmentProblems() []Problem {
	var ps []Problem
	for _, k := range o.SegmentBy {
		if strings.TrimSpace(k) == "" {
			ps = append(ps, Plain("segment-by", "%s has an empty key: name a dataset column, e.g. topic (several: topic,language)"))
			break
		}
	}
	distinct := map[string]bool{}
	for _, k := range o.SegmentBy {
		if k = strings.TrimSpace(k); k != "" {
			distinct[k] = true
		}
	}
	if n := len(distinct); n > compare.MaxSegmentKeys {
		ps = append(ps, Plain("segment-by", fmt.Sprintf("%%s: %d keys, at most %d (each key adds its segments' tests to the Holm family)", n, compare.MaxSegmentKeys)))
	}
	return ps
}

// WithSegments adds the --segment-by keys to the thresholds' segments: the
// union (a key named in both counts once) is at most
// compare.MaxSegmentKeys, else exit 2.
func WithSegments(th compare.Thresholds, keys []string) (compare.Thresholds, error) {
	out := th.WithSegments(keys...)
	if n := len(out.Segments); n > compare.MaxSegmentKeys && len(keys) > 0 {
		return out, usageErr("--segment-by: %d segment keys with the thresholds' (%s), at most %d (each key adds its segments' tests to the Holm family)",
			n, strings.Join(out.Segments, ", "), compare.MaxSegmentKeys)
	}
	return out, nil
}

func (o *Settings) baselineProblems() []Problem {
	var ps []Problem
	if o.Baseline != "" && o.BaselineRef != "" {
		ps = append(ps, Conflict("baseline", "baseline-ref", "give one, not both"))
	}
	if o.BaselineRef != "" {
		if p := CheckBaselineRef(o.BaselineRef); p != nil {
			ps = append(ps, *p)
		}
	}
	return ps
}

// NamedPath is a path with the key of the option that gave it.
type NamedPath struct{ Key, Path string }

// ioPaths lists the files command cmd reads and writes.
func (o *Settings) ioPaths(cmd string) (in, out []NamedPath) {
	add := func(list *[]NamedPath, key, p string) {
		if p != "" {
			*list = append(*list, NamedPath{key, p})
		}
	}
	switch cmd {
	case "run", "check", "calibrate", "action":
		add(&in, "dataset", o.Dataset)
		add(&in, "responses", o.Responses)
		add(&in, "prices", o.Prices)
		add(&in, "metrics-file", o.MetricsFile)
		add(&in, "target-config", o.Target.Config)
		add(&out, "out", o.Out)
		add(&out, "save-responses", o.Target.SaveResponses)
	case "compare":
		add(&in, "head", o.Head)
		add(&in, "base", o.Base)
		add(&out, "out", o.Out)
	}
	switch cmd {
	case "check", "compare", "action":
		add(&in, "thresholds", o.Thresholds)
	}
	switch cmd {
	case "check", "action":
		add(&in, "scores", o.Scores)
		add(&in, "baseline", o.Baseline)
		add(&out, "report", o.Report)
	}
	return in, out
}

// PathProblems checks that no output of cmd is one of its inputs (or
// another output), whatever path reaches it, and that each output can be
// written. extraIn are further inputs (merge's positional arguments).
func (o *Settings) PathProblems(env Env, cmd string, extraIn []NamedPath) []Problem {
	in, out := o.ioPaths(cmd)
	in = append(in, extraIn...)
	if ps := OutputProblems(env, in, out); len(ps) > 0 {
		return ps
	}
	return o.derivedProblems(env, cmd, append(in, out...))
}

// derivedProblems checks the files written beside an output like the
// outputs: they must not be one of the files the command reads or
// writes. A stopped target run without --save-responses saves its answers
// beside --out (stoppedResponsesPath); the action records the pull request
// beside its report (metaPath).
func (o *Settings) derivedProblems(env Env, cmd string, files []NamedPath) []Problem {
	type derived struct{ path, what, from, fromPath, fix string }
	var ds []derived
	switch cmd {
	case "run", "check", "action":
		if o.Target.configured() && o.Target.SaveResponses == "" && o.Out != "" {
			ds = append(ds, derived{stoppedResponsesPath(o.Out), "where a stopped target run saves its answers", "out", o.Out, "save-responses"})
		}
	}
	if cmd == "action" && o.Report != "" {
		ds = append(ds, derived{MetaPath(o.Report), "where the pull request of the report is recorded", "report", o.Report, "report"})
	}
	var ps []Problem
	for _, d := range ds {
		for _, f := range files {
			if samePath(env.abs(d.path), env.abs(f.Path)) {
				ps = append(ps, Problem{[]string{d.from, f.Key, d.fix}, "", func(n []string) string {
					return fmt.Sprintf("%s, %s (beside %s %s), would overwrite %s %s: give %s another file",
						d.path, d.what, n[0], d.fromPath, n[1], f.Path, n[2])
				}})
			}
		}
	}
	return ps
}

// OutputProblems checks outputs against inputs and earlier outputs, then
// whether each can be written.
func OutputProblems(env Env, in, out []NamedPath) []Problem {
	var ps []Problem
	for i, w := range out {
		for _, r := range append(append([]NamedPath(nil), in...), out[:i]...) {
			if samePath(env.abs(w.Path), env.abs(r.Path)) {
				ps = append(ps, Problem{[]string{w.Key, r.Key}, "", func(n []string) string {
					return fmt.Sprintf("%s %s would overwrite %s %s: write it to another file", n[0], w.Path, n[1], r.Path)
				}})
			}
		}
	}
	if len(ps) > 0 {
		return ps
	}
	for _, w := range out {
		if err := checkWritable(env.abs(w.Path)); err != nil {
			ps = append(ps, Wrapped(w.Key, err))
		}
	}
	return ps
}

// samePath reports whether a and b name the same file: equal once cleaned
// and made absolute, or the same file through links when both exist.
func samePath(a, b string) bool {
	if ca, err := filepath.Abs(a); err == nil {
		a = ca
	}
	if cb, err := filepath.Abs(b); err == nil {
		b = cb
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// checkWritable tells whether path can be written the way the atomic
// writer does it: a temporary file in the directory (created if missing)
// renamed over path. It creates a probe file and removes it.
func checkWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory: name a file in it", path)
	}
	dir := filepath.Dir(path)
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot write %s: %w", path, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent // created by the writer; probe the nearest existing ancestor
	}
	f, err := os.CreateTemp(dir, ".raggate-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("cannot write %s: remove the probe file: %w", path, err)
	}
	return nil
}

// MetaPath is where the action records, beside its report, the pull
// request the results are for (read by the comment mode).
func MetaPath(reportPath string) string {
	return strings.TrimSuffix(reportPath, filepath.Ext(reportPath)) + ".pr.json"
}

// FormatsWant lists the report formats for an error message: "text,
// markdown, json or html".
func FormatsWant() string {
	names := report.Names()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
