package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/raggate/raggate/internal/suggest"
	"github.com/raggate/raggate/metrics"
)

// ThresholdsVersion is the only supported version of the thresholds file.
const ThresholdsVersion = 1

// Level says what a breached rule does to the gate.
type Level string

// The levels of a metric rule.
const (
	// LevelFail fails the gate (the default).
	LevelFail Level = "fail"
	// LevelWarn turns a failing verdict into a warning.
	LevelWarn Level = "warn"
)

// Correction is the multiple-comparison correction across metrics.
type Correction string

// The supported corrections.
const (
	// CorrectionHolm is Holm's step-down adjustment (the default).
	CorrectionHolm Correction = "holm"
	// CorrectionNone uses the raw p-values.
	CorrectionNone Correction = "none"
)

// Action is what the gate does in a special situation.
type Action string

// The actions. on_missing_baseline accepts pass and fail; on_judge_change
// accepts fail and warn.
const (
	ActionPass Action = "pass"
	ActionWarn Action = "warn"
	ActionFail Action = "fail"
)

// Defaults are the settings that apply to every metric unless the metric's
// own entry overrides them.
type Defaults struct {
	// Tolerance is the smallest drop of a mean that may fail the gate.
	Tolerance float64 `json:"tolerance"`
	// Alpha is the one-sided significance level of the paired test.
	Alpha float64 `json:"alpha"`
	// Correction is the multiple-comparison correction across metrics.
	Correction Correction `json:"correction"`
	// MinSamples: with fewer paired samples a metric is reported, never failed.
	MinSamples int `json:"min_samples"`
	// OnMissingBaseline is ActionPass or ActionFail (floors apply either way).
	OnMissingBaseline Action `json:"on_missing_baseline"`
	// OnJudgeChange is ActionFail or ActionWarn.
	OnJudgeChange Action `json:"on_judge_change"`
	// SegmentLevel is what a segment's regression does: "" fails the gate
	// (the default; "fail" in the file), LevelWarn warns. A metric's own
	// level: warn also applies to its segments.
	SegmentLevel Level `json:"segment_level,omitempty"`
}

// MetricConfig is one metric's entry in the thresholds file. Nil pointers
// and an empty level mean "use the default".
type MetricConfig struct {
	Min       *float64 `json:"min,omitempty"`
	Max       *float64 `json:"max,omitempty"`
	Tolerance *float64 `json:"tolerance,omitempty"`
	Alpha     *float64 `json:"alpha,omitempty"`
	Level     Level    `json:"level,omitempty"`
}

// Thresholds is a parsed thresholds file. Start from DefaultThresholds (or
// ParseThresholds) rather than the zero value.
type Thresholds struct {
	Version int `json:"version"`
	// Source names the file the thresholds came from ("" for the defaults).
	Source   string   `json:"source,omitempty"`
	Defaults Defaults `json:"defaults"`
	// Metrics is keyed by canonical metric name (aliases are normalised).
	Metrics map[string]MetricConfig `json:"metrics,omitempty"`
	// Gate lists the metrics that may fail the gate besides those with a
	// rule in Metrics; nil means CoreMetrics. ReportOnly lists metrics that
	// never fail the gate. See Gated.
	Gate       []string `json:"gate,omitempty"`
	ReportOnly []string `json:"report_only,omitempty"`
	// Segments are metadata keys (dataset columns, case kept) whose values
	// split the paired samples into segments, each compared on its own
	// (README "Segments"). The CLI adds --segment-by keys: see WithSegments.
	Segments []string `json:"segments,omitempty"`
}

// WithSegments returns t with keys added to its segment keys (the union,
// in order, without duplicates or blank keys).
func (t Thresholds) WithSegments(keys ...string) Thresholds {
	var out []string
	seen := map[string]bool{}
	for _, k := range append(append([]string(nil), t.Segments...), keys...) {
		if strings.TrimSpace(k) == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
	}
	t.Segments = out
	return t
}

// CoreMetrics are the metrics gated by default: the core judge metrics.
var CoreMetrics = []string{
	metrics.ContextPrecisionName, metrics.ContextRecallName, metrics.FaithfulnessName,
	metrics.AnswerRelevancyName, metrics.FactualCorrectnessName,
}

// Gated reports whether a metric (name or alias) belongs to the gated
// family: it is listed in Gate (CoreMetrics when Gate is nil) or has a
// rule in Metrics, and is not in ReportOnly. Only gated metrics can fail
// the gate, and the multiple-comparison correction runs over them alone;
// the others are report-only: compared, shown with their p-values
// (corrected among themselves), never failing.
func (t Thresholds) Gated(metric string) bool {
	name := CanonicalMetric(metric)
	has := func(list []string) bool {
		for _, m := range list {
			if CanonicalMetric(m) == name {
				return true
			}
		}
		return false
	}
	if has(t.ReportOnly) {
		return false
	}
	gate := t.Gate
	if gate == nil {
		gate = CoreMetrics
	}
	if has(gate) {
		return true
	}
	for k := range t.Metrics {
		if CanonicalMetric(k) == name {
			return true
		}
	}
	return false
}

// MetricRule is the resolved rule of one metric: its own settings where the
// thresholds file has them, else the defaults.
type MetricRule struct {
	Metric    string  `json:"metric"`
	Tolerance float64 `json:"tolerance"`
	Alpha     float64 `json:"alpha"`
	// Min and Max are the floor and the ceiling of the head mean; nil when
	// not set.
	Min   *float64 `json:"min,omitempty"`
	Max   *float64 `json:"max,omitempty"`
	Level Level    `json:"level"`
}

// DefaultThresholds returns the built-in thresholds: the documented defaults
// and no per-metric floors. Each call returns a fresh value; callers may
// modify their copy.
func DefaultThresholds() Thresholds {
	return Thresholds{
		Version: ThresholdsVersion,
		Defaults: Defaults{
			Tolerance:         0.02,
			Alpha:             0.05,
			Correction:        CorrectionHolm,
			MinSamples:        10,
			OnMissingBaseline: ActionPass,
			OnJudgeChange:     ActionFail,
		},
		Metrics: map[string]MetricConfig{},
	}
}

// CanonicalMetric returns the catalogue name of a metric name or alias, and
// the lower-cased trimmed name for metrics outside the catalogue.
func CanonicalMetric(name string) string {
	if m, ok := metrics.Lookup(name); ok {
		return m.Name
	}
	return strings.ToLower(strings.TrimSpace(name))
}

// For returns the resolved rule of a metric (name or alias): its own
// settings where the thresholds have them, else the defaults. Invalid
// settings (possible only in thresholds built in code) fall back to
// DefaultThresholds' values, and a zero Thresholds behaves like the
// defaults.
func (t Thresholds) For(metric string) MetricRule {
	d := t.resolvedDefaults()
	name := CanonicalMetric(metric)
	r := MetricRule{Metric: name, Tolerance: d.Tolerance, Alpha: d.Alpha, Level: LevelFail}
	mc, ok := t.Metrics[name]
	if !ok {
		// Programmatic thresholds may key by alias or in another case.
		for k, v := range t.Metrics {
			if CanonicalMetric(k) == name {
				mc, ok = v, true
				break
			}
		}
	}
	if !ok {
		return r
	}
	if mc.Tolerance != nil && *mc.Tolerance >= 0 && !math.IsInf(*mc.Tolerance, 0) {
		r.Tolerance = *mc.Tolerance
	}
	if mc.Alpha != nil && *mc.Alpha > 0 && *mc.Alpha < 1 {
		r.Alpha = *mc.Alpha
	}
	if mc.Min != nil && !math.IsNaN(*mc.Min) {
		v := *mc.Min
		r.Min = &v
	}
	if mc.Max != nil && !math.IsNaN(*mc.Max) {
		v := *mc.Max
		r.Max = &v
	}
	if mc.Level == LevelWarn {
		r.Level = LevelWarn
	}
	return r
}

// resolvedDefaults returns t's defaults with invalid or empty values
// replaced by the built-in ones; zero defaults are the built-in ones.
func (t Thresholds) resolvedDefaults() Defaults {
	def := DefaultThresholds().Defaults
	d := t.Defaults
	if d == (Defaults{}) {
		return def
	}
	if !(d.Tolerance >= 0) || math.IsInf(d.Tolerance, 0) {
		d.Tolerance = def.Tolerance
	}
	if !(d.Alpha > 0 && d.Alpha < 1) {
		d.Alpha = def.Alpha
	}
	if d.Correction != CorrectionHolm && d.Correction != CorrectionNone {
		d.Correction = def.Correction
	}
	if d.MinSamples < 1 {
		d.MinSamples = def.MinSamples
	}
	if d.OnMissingBaseline != ActionPass && d.OnMissingBaseline != ActionFail {
		d.OnMissingBaseline = def.OnMissingBaseline
	}
	if d.OnJudgeChange != ActionFail && d.OnJudgeChange != ActionWarn {
		d.OnJudgeChange = def.OnJudgeChange
	}
	if d.SegmentLevel != LevelWarn {
		d.SegmentLevel = "" // fail
	}
	return d
}

// Problem is one thing wrong with a thresholds file.
type Problem struct {
	// Line and Column are 1-based; 0 when unknown.
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Msg    string `json:"message"`
}

// ThresholdsError reports every problem found in a thresholds file. It is
// a usage / config error: the CLI maps it to exit code 2.
type ThresholdsError struct {
	File     string
	Problems []Problem
	// Err is the underlying read error, if the file could not be read.
	Err error
}

// ErrThresholds is matched by errors.Is for every *ThresholdsError.
var ErrThresholds = errors.New("invalid thresholds")

func (e *ThresholdsError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("thresholds %s: %v", e.File, e.Err)
	}
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", p.Line, p.Column)
		}
		b.WriteString(": ")
		b.WriteString(p.Msg)
	}
	return b.String()
}

// Unwrap returns the read error, if any.
func (e *ThresholdsError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrThresholds) true.
func (e *ThresholdsError) Is(target error) bool { return target == ErrThresholds }

// LoadThresholds reads and parses a thresholds file. Every error is a
// *ThresholdsError.
func LoadThresholds(path string) (Thresholds, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Thresholds{}, &ThresholdsError{File: path, Err: fmt.Errorf("%w (copy thresholds.example.yaml to start one)", err)}
	}
	return ParseThresholds(path, data)
}

var (
	topKeys      = []string{"version", "defaults", "metrics", "gate", "report_only", "segments"}
	defaultsKeys = []string{"tolerance", "alpha", "correction", "min_samples", "on_missing_baseline", "on_judge_change", "segment_level"}
	metricKeys   = []string{"min", "max", "tolerance", "alpha", "level"}
)

// ParseThresholds parses a thresholds file; name is used in error messages.
// Parsing is strict: unknown keys and metric names, values out of range and
// a wrong version are all reported, each with its line and column, in one
// *ThresholdsError.
func ParseThresholds(name string, data []byte) (th Thresholds, err error) {
	p := &thParser{}
	defer func() {
		if r := recover(); r != nil {
			th = Thresholds{}
			err = &ThresholdsError{File: name, Problems: []Problem{{Msg: fmt.Sprintf("invalid YAML: %v", r)}}}
		}
	}()
	th = DefaultThresholds()
	th.Source = name
	th.Version = 0
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if yerr := dec.Decode(&doc); yerr != nil && yerr != io.EOF {
		return Thresholds{}, &ThresholdsError{File: name, Problems: []Problem{yamlProblem(yerr)}}
	}
	// A second document ("---") would be silently ignored: refuse it.
	var extra yaml.Node
	if yerr := dec.Decode(&extra); yerr == nil {
		p.add(&extra, "a second YAML document; the thresholds file holds one (remove the \"---\" line)")
		return Thresholds{}, p.err(name)
	} else if yerr != io.EOF {
		return Thresholds{}, &ThresholdsError{File: name, Problems: []Problem{yamlProblem(yerr)}}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 || isNull(doc.Content[0]) {
		p.add(nil, "the thresholds file is empty; it needs at least \"version: 1\"")
		return Thresholds{}, p.err(name)
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		p.add(root, "expected a mapping with keys %s, got %s", strings.Join(topKeys, ", "), describe(root))
		return Thresholds{}, p.err(name)
	}
	var sawVersion bool
	var gateNodes, reportNodes map[string]*yaml.Node
	metricNodes := map[string]*yaml.Node{}
	p.mapping(root, "at top level", topKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
			sawVersion = true
			n, ok := p.integer(v, "version")
			if ok && n != ThresholdsVersion {
				p.add(v, "version: %s is not supported; this gate reads version %d", v.Value, ThresholdsVersion)
			}
			th.Version = ThresholdsVersion
		case "defaults":
			p.defaults(v, &th.Defaults)
		case "metrics":
			p.metrics(v, th.Metrics, metricNodes)
		case "gate":
			th.Gate, gateNodes = p.metricList(v, key)
		case "report_only":
			th.ReportOnly, reportNodes = p.metricList(v, key)
		case "segments":
			th.Segments = p.segmentList(v)
		}
	})
	p.checkFamily(reportNodes, gateNodes, metricNodes)
	if !sawVersion {
		p.add(root, "missing \"version: 1\"")
	}
	if len(p.problems) > 0 {
		return Thresholds{}, p.err(name)
	}
	return th, nil
}

type thParser struct {
	problems []Problem
}

func (p *thParser) add(n *yaml.Node, format string, args ...any) {
	pr := Problem{Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		pr.Line, pr.Column = n.Line, n.Column
	}
	p.problems = append(p.problems, pr)
}

func (p *thParser) err(name string) error {
	sort.SliceStable(p.problems, func(i, j int) bool {
		a, b := p.problems[i], p.problems[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return &ThresholdsError{File: name, Problems: p.problems}
}

// mapping walks a mapping node, reporting non-scalar, unknown and duplicate
// keys; where is "at top level" or "in defaults" and so on. valid == nil
// accepts any key (the caller checks it).
func (p *thParser) mapping(n *yaml.Node, where string, valid []string, f func(key string, k, v *yaml.Node)) {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || isNull(k) {
			p.add(k, "keys %s must be plain names, got %s", where, describe(k))
			continue
		}
		key := k.Value
		if valid != nil && !contains(valid, key) {
			p.add(k, "unknown key %q %s; %s", key, where, suggestion(key, valid, "valid keys"))
			continue
		}
		if prev, dup := seen[key]; dup && valid != nil {
			p.add(k, "duplicate key %q %s (first at line %d)", key, where, prev.Line)
			continue
		}
		seen[key] = k
		f(key, k, v)
	}
}

func (p *thParser) defaults(n *yaml.Node, d *Defaults) {
	if !p.isMapping(n, "defaults", "{tolerance: 0.02, alpha: 0.05}") {
		return
	}
	p.mapping(n, "in defaults", defaultsKeys, func(key string, k, v *yaml.Node) {
		field := "defaults." + key
		switch key {
		case "tolerance":
			if x, ok := p.number(v, field); ok && p.checkTolerance(v, field, x) {
				d.Tolerance = x
			}
		case "alpha":
			if x, ok := p.number(v, field); ok && p.checkAlpha(v, field, x) {
				d.Alpha = x
			}
		case "correction":
			if s, ok := p.enum(v, field, "holm", "none"); ok {
				d.Correction = Correction(s)
			}
		case "min_samples":
			if x, ok := p.integer(v, field); ok {
				if x < 1 {
					p.add(v, "%s: %s must be at least 1", field, v.Value)
				} else {
					d.MinSamples = x
				}
			}
		case "on_missing_baseline":
			if s, ok := p.enum(v, field, "pass", "fail"); ok {
				d.OnMissingBaseline = Action(s)
			}
		case "on_judge_change":
			if s, ok := p.enum(v, field, "fail", "warn"); ok {
				d.OnJudgeChange = Action(s)
			}
		case "segment_level":
			if s, ok := p.enum(v, field, "fail", "warn"); ok && s == "warn" {
				d.SegmentLevel = LevelWarn // "" is fail, the default
			}
		}
	})
}

// metricList parses gate: or report_only:, a list of metric names; it
// returns the canonical names and, for each, the node that named it.
func (p *thParser) metricList(n *yaml.Node, key string) ([]string, map[string]*yaml.Node) {
	nodes := map[string]*yaml.Node{}
	if isNull(n) {
		return nil, nodes
	}
	if n.Kind != yaml.SequenceNode {
		p.add(n, "%s: expected a list of metric names, such as [faithfulness, context_recall], got %s", key, describe(n))
		return nil, nodes
	}
	out := []string{}
	for _, item := range n.Content {
		item = deref(item)
		if item.Kind != yaml.ScalarNode || isNull(item) {
			p.add(item, "%s: expected a metric name, got %s", key, describe(item))
			continue
		}
		m, ok := metrics.Lookup(item.Value)
		if !ok {
			p.add(item, "unknown metric %q in %s; %s", item.Value, key, suggestion(item.Value, metrics.Names(), "known metrics"))
			continue
		}
		if prev, dup := nodes[m.Name]; dup {
			p.add(item, "duplicate metric %q in %s, first at line %d", item.Value, key, prev.Line)
			continue
		}
		nodes[m.Name] = item
		out = append(out, m.Name)
	}
	return out, nodes
}

// segmentList parses segments:, a list of metadata keys (dataset column
// names as written: case and inner spaces kept).
func (p *thParser) segmentList(n *yaml.Node) []string {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.add(n, "segments: expected a list of dataset column names, such as [topic, language], got %s", describe(n))
		return nil
	}
	var out []string
	seen := map[string]*yaml.Node{}
	for _, item := range n.Content {
		item = deref(item)
		if item.Kind != yaml.ScalarNode || isNull(item) || strings.TrimSpace(item.Value) == "" {
			p.add(item, "segments: expected a dataset column name, got %s", describe(item))
			continue
		}
		if prev, dup := seen[item.Value]; dup {
			p.add(item, "duplicate segment key %q in segments, first at line %d", item.Value, prev.Line)
			continue
		}
		seen[item.Value] = item
		out = append(out, item.Value)
	}
	if len(out) > MaxSegmentKeys {
		p.add(n, "segments: %d keys, at most %d (each key multiplies the tests in the family)", len(out), MaxSegmentKeys)
	}
	return out
}

// checkFamily refuses a report-only metric that is also gated explicitly,
// by gate: or by a rule under metrics:.
func (p *thParser) checkFamily(reportOnly, gate, rules map[string]*yaml.Node) {
	for m, n := range reportOnly {
		if g, ok := gate[m]; ok {
			p.add(n, "%s is both in report_only and in gate (line %d); keep it in one", m, g.Line)
		}
		if r, ok := rules[m]; ok {
			p.add(n, "%s is in report_only but has a rule under metrics (line %d), and a report-only metric never fails the gate; remove one (or use level: warn)", m, r.Line)
		}
	}
}

// isMapping reports whether n is a mapping to read: false for null, and
// for anything else than a mapping, which is a problem ("field: expected a
// mapping such as example, got ..."). example starts with "{" or is the
// rest of the sentence.
func (p *thParser) isMapping(n *yaml.Node, field, example string) bool {
	if isNull(n) {
		return false
	}
	if n.Kind != yaml.MappingNode {
		if strings.HasPrefix(example, "{") {
			example = "such as " + example
		}
		p.add(n, "%s: expected a mapping %s, got %s", field, example, describe(n))
		return false
	}
	return true
}

func (p *thParser) metrics(n *yaml.Node, out map[string]MetricConfig, seen map[string]*yaml.Node) {
	if !p.isMapping(n, "metrics", "of metric names to rules, such as {faithfulness: {min: 0.85}}") {
		return
	}
	p.mapping(n, "in metrics", nil, func(key string, k, v *yaml.Node) {
		m, ok := metrics.Lookup(key)
		if !ok {
			p.add(k, "unknown metric %q in metrics; %s", key, suggestion(key, metrics.Names(), "known metrics"))
			return
		}
		if prev, dup := seen[m.Name]; dup {
			same := ""
			if prev.Value != key {
				same = fmt.Sprintf(" (%q is the same metric)", prev.Value)
			}
			p.add(k, "duplicate metric %q in metrics%s, first at line %d", key, same, prev.Line)
			return
		}
		seen[m.Name] = k
		if mc, ok := p.metric(m.Name, v); ok {
			out[m.Name] = mc
		}
	})
}

func (p *thParser) metric(name string, n *yaml.Node) (MetricConfig, bool) {
	var mc MetricConfig
	prefix := "metrics." + name
	if isNull(n) {
		return mc, true
	}
	if n.Kind != yaml.MappingNode {
		p.add(n, "%s: expected a mapping such as {min: 0.8, tolerance: 0.03}, got %s", prefix, describe(n))
		return mc, false
	}
	before := len(p.problems)
	var minNode, maxNode *yaml.Node
	p.mapping(n, "in "+prefix, metricKeys, func(key string, k, v *yaml.Node) {
		field := prefix + "." + key
		switch key {
		case "min", "max":
			x, ok := p.number(v, field)
			if !ok {
				return
			}
			if x < 0 || x > 1 {
				p.add(v, "%s: %s is outside [0, 1]", field, v.Value)
				return
			}
			if key == "min" {
				mc.Min, minNode = &x, v
			} else {
				mc.Max, maxNode = &x, v
			}
		case "tolerance":
			if x, ok := p.number(v, field); ok && p.checkTolerance(v, field, x) {
				mc.Tolerance = &x
			}
		case "alpha":
			if x, ok := p.number(v, field); ok && p.checkAlpha(v, field, x) {
				mc.Alpha = &x
			}
		case "level":
			if s, ok := p.enum(v, field, "fail", "warn"); ok {
				mc.Level = Level(s)
			}
		}
	})
	if mc.Min != nil && mc.Max != nil && *mc.Min > *mc.Max {
		p.add(maxNode, "%s: min %s is greater than max %s", prefix, minNode.Value, maxNode.Value)
	}
	return mc, len(p.problems) == before
}

func (p *thParser) checkTolerance(v *yaml.Node, field string, x float64) bool {
	if x < 0 || x > 1 {
		p.add(v, "%s: %s is outside [0, 1]", field, v.Value)
		return false
	}
	return true
}

func (p *thParser) checkAlpha(v *yaml.Node, field string, x float64) bool {
	if x <= 0 || x >= 1 {
		p.add(v, "%s: %s is outside (0, 1); 0.05 is the usual choice", field, v.Value)
		return false
	}
	return true
}

func (p *thParser) number(v *yaml.Node, field string) (float64, bool) {
	if v.Kind != yaml.ScalarNode || isNull(v) {
		p.add(v, "%s: expected a number, got %s", field, describe(v))
		return 0, false
	}
	tag := v.ShortTag()
	if tag != "!!int" && tag != "!!float" {
		p.add(v, "%s: %s is not a number", field, shown(v))
		return 0, false
	}
	var x float64
	if err := v.Decode(&x); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		p.add(v, "%s: %s is not a finite number", field, shown(v))
		return 0, false
	}
	return x, true
}

func (p *thParser) integer(v *yaml.Node, field string) (int, bool) {
	if v.Kind != yaml.ScalarNode || isNull(v) {
		p.add(v, "%s: expected an integer, got %s", field, describe(v))
		return 0, false
	}
	if v.ShortTag() != "!!int" {
		p.add(v, "%s: %s is not an integer", field, shown(v))
		return 0, false
	}
	var x int
	if err := v.Decode(&x); err != nil {
		p.add(v, "%s: %s is out of range", field, v.Value)
		return 0, false
	}
	return x, true
}

func (p *thParser) enum(v *yaml.Node, field string, allowed ...string) (string, bool) {
	if v.Kind != yaml.ScalarNode || isNull(v) {
		p.add(v, "%s: expected one of %s, got %s", field, strings.Join(allowed, " | "), describe(v))
		return "", false
	}
	if !contains(allowed, v.Value) {
		msg := fmt.Sprintf("%s: %q is not one of %s", field, v.Value, strings.Join(allowed, " | "))
		if s := closest(v.Value, allowed); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		p.add(v, "%s", msg)
		return "", false
	}
	return v.Value, true
}

// deref follows YAML aliases (*anchor) to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

func describe(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.ScalarNode:
		return shown(n)
	}
	return "an alias"
}

// shown is a scalar as written: numbers bare, strings quoted.
func shown(v *yaml.Node) string {
	if v.ShortTag() == "!!str" {
		return strconv.Quote(v.Value)
	}
	return v.Value
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

func yamlProblem(err error) Problem {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Problem{Line: line, Column: 1, Msg: "invalid YAML: " + m[2]}
	}
	return Problem{Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// suggestion returns `did you mean "x"?` for a close candidate, else the
// list of candidates introduced by what.
func suggestion(s string, candidates []string, what string) string {
	if c := closest(s, candidates); c != "" {
		return fmt.Sprintf("did you mean %q?", c)
	}
	return what + ": " + strings.Join(candidates, ", ")
}

// closest returns the candidate nearest to s by edit distance (case-
// insensitive), or "" when none is close enough to be a likely typo.
func closest(s string, candidates []string) string {
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
