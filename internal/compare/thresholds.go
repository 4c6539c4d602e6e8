package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/yamlcheck"
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
	// Direction is "higher" or "lower" (is better), "" for the metric's
	// own: it sets the direction of a user-defined or imported metric; a
	// catalogue metric's direction is fixed.
	Direction string `json:"direction,omitempty"`
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
	// Sequential, when set, makes a check sequential (gate check
	// --sequential): `sequential: true`, or `sequential: {batch: 50}`.
	Sequential *SequentialRule `json:"sequential,omitempty"`
}

// SequentialRule is the thresholds file's sequential: key.
type SequentialRule struct {
	// Batch is the number of samples judged between two looks (0: the
	// default, see DefaultBatch).
	Batch int `json:"batch,omitempty"`
}

// WithSegments returns t with keys added to its segment keys (the union,
// in order, without duplicates or blank keys).
func (t Thresholds) WithSegments(keys ...string) Thresholds {
	var out []string
	seen := map[string]bool{}
	for _, k := range append(append([]string(nil), t.Segments...), keys...) {
		k = strings.TrimSpace(k)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
	}
	t.Segments = out
	return t
}

// CoreMetrics are the metrics gated by default: the core judge metrics,
// those the catalogue declares Gated.
var CoreMetrics = metrics.GatedByDefault()

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

// GatedMetric reports whether metric m, which cm describes (known false:
// no description), is in the gated family: the thresholds gate it
// (Gated), or it is a user-defined metric, defined to be gated on (not one
// a run added by itself, Definition.Reported), that report_only does not
// list.
func (t Thresholds) GatedMetric(m string, cm metrics.Metric, known bool) bool {
	if t.Gated(m) {
		return true
	}
	return known && cm.User != nil && !cm.User.Reported && !slices.Contains(t.ReportOnly, m)
}

// GatedNames lists the metrics the thresholds name as gated (see Gated),
// canonical, each once: those of Gate (CoreMetrics when Gate is nil) in
// order, then those with a rule, sorted, without those in ReportOnly.
func (t Thresholds) GatedNames() []string {
	gate := t.Gate
	if gate == nil {
		gate = CoreMetrics
	}
	var ruled []string
	for k := range t.Metrics {
		ruled = append(ruled, k)
	}
	sort.Strings(ruled)
	var out []string
	seen := map[string]bool{}
	for _, m := range append(append([]string(nil), gate...), ruled...) {
		if name := CanonicalMetric(m); !seen[name] && t.Gated(name) {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// DirectionOf is the direction of metric m, which cm describes (known
// false: no description): a catalogue metric's own; else the thresholds'
// direction for it, when they give one; else its definition's; else
// higher is better.
func (t Thresholds) DirectionOf(m string, cm metrics.Metric, known bool) metrics.Direction {
	if known && cm.User == nil {
		return cm.Direction
	}
	switch t.ruleOf(m).Direction {
	case "lower":
		return metrics.LowerIsBetter
	case "higher":
		return metrics.HigherIsBetter
	}
	if known {
		return cm.Direction
	}
	return metrics.HigherIsBetter
}

// ruleOf is the thresholds' own entry of a metric (name or alias; zero
// when none).
func (t Thresholds) ruleOf(metric string) MetricConfig {
	name := CanonicalMetric(metric)
	if mc, ok := t.Metrics[name]; ok {
		return mc
	}
	// Programmatic thresholds may key by alias or in another case.
	for k, v := range t.Metrics {
		if CanonicalMetric(k) == name {
			return v
		}
	}
	return MetricConfig{}
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
type Problem = yamlcheck.Problem

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
	return yamlcheck.Format(e.File, e.Problems)
}

// Unwrap returns the read error, if any.
func (e *ThresholdsError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrThresholds) true.
func (e *ThresholdsError) Is(target error) bool { return target == ErrThresholds }

// LoadThresholds reads and parses a thresholds file. Every error is a
// *ThresholdsError.
func LoadThresholds(path string) (Thresholds, error) { return LoadThresholdsFor(path, nil) }

// LoadThresholdsFor is LoadThresholds with user-defined metrics (see
// ParseThresholdsFor).
func LoadThresholdsFor(path string, user []metrics.Metric) (Thresholds, error) {
	data, err := inputfile.ReadFile(path, inputfile.ConfigLimit())
	if err != nil {
		return Thresholds{}, &ThresholdsError{File: path, Err: fmt.Errorf("%w (copy thresholds.example.yaml to start one)", err)}
	}
	return ParseThresholdsFor(path, data, user)
}

var (
	topKeys      = []string{"version", "defaults", "metrics", "gate", "report_only", "segments", "sequential"}
	defaultsKeys = []string{"tolerance", "alpha", "correction", "min_samples", "on_missing_baseline", "on_judge_change", "segment_level"}
	metricKeys   = []string{"min", "max", "tolerance", "alpha", "level", "direction"}
)

// ParseThresholds parses a thresholds file; name is used in error messages.
// Parsing is strict: unknown keys and metric names, values out of range and
// a wrong version are all reported, each with its line and column, in one
// *ThresholdsError.
func ParseThresholds(name string, data []byte) (Thresholds, error) {
	return ParseThresholdsFor(name, data, nil)
}

// ParseThresholdsFor is ParseThresholds for a run that also has the
// user-defined metrics user (package usermetric): the file may name them
// like built-in metrics. A numeric metric's floors and tolerance are in
// its own units, so they are not bound to [0, 1].
func ParseThresholdsFor(name string, data []byte, user []metrics.Metric) (Thresholds, error) {
	p := &thParser{user: map[string]metrics.Metric{}}
	for _, m := range user {
		p.user[m.Name] = m
	}
	th := DefaultThresholds()
	th.Source = name
	th.Version = 0
	root := p.Document(data, "the thresholds file", topKeys)
	if root == nil {
		return Thresholds{}, p.err(name)
	}
	var sawVersion bool
	var gateNodes, reportNodes map[string]*yaml.Node
	metricNodes := map[string]*yaml.Node{}
	p.Mapping(root, "at top level", topKeys, func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
			sawVersion = true
			n, ok := p.Integer(v, "version")
			if ok && n != ThresholdsVersion {
				p.Add(v, "version: %s is not supported; this gate reads version %d", v.Value, ThresholdsVersion)
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
		case "sequential":
			th.Sequential = p.sequential(v)
		}
	})
	p.checkFamily(reportNodes, gateNodes, metricNodes)
	if !sawVersion {
		p.Add(root, "missing \"version: 1\"")
	}
	if len(p.Problems) > 0 {
		return Thresholds{}, p.err(name)
	}
	return th, nil
}

type thParser struct {
	yamlcheck.Parser
	// user holds the user-defined metrics the file may name, by name.
	user map[string]metrics.Metric
}

// lookup finds a built-in metric (name or alias) or a user-defined one.
func (p *thParser) lookup(name string) (metrics.Metric, bool) {
	if m, ok := metrics.Lookup(name); ok {
		return m, true
	}
	m, ok := p.user[name]
	return m, ok
}

// names lists the metrics the file may name.
func (p *thParser) names() []string {
	out := metrics.Names()
	for n := range p.user {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (p *thParser) err(name string) error {
	return &ThresholdsError{File: name, Problems: p.Sorted()}
}

// closest is the "did you mean" of the thresholds' messages.
func closest(s string, candidates []string) string { return yamlcheck.Closest(s, candidates) }

func (p *thParser) defaults(n *yaml.Node, d *Defaults) {
	if !p.IsMapping(n, "defaults", "{tolerance: 0.02, alpha: 0.05}") {
		return
	}
	p.Mapping(n, "in defaults", defaultsKeys, func(key string, k, v *yaml.Node) {
		field := "defaults." + key
		switch key {
		case "tolerance":
			if x, ok := p.Number(v, field); ok && p.checkTolerance(v, field, x) {
				d.Tolerance = x
			}
		case "alpha":
			if x, ok := p.Number(v, field); ok && p.checkAlpha(v, field, x) {
				d.Alpha = x
			}
		case "correction":
			if s, ok := p.Enum(v, field, "holm", "none"); ok {
				d.Correction = Correction(s)
			}
		case "min_samples":
			if x, ok := p.Integer(v, field); ok {
				if x < 1 {
					p.Add(v, "%s: %s must be at least 1", field, v.Value)
				} else {
					d.MinSamples = x
				}
			}
		case "on_missing_baseline":
			if s, ok := p.Enum(v, field, "pass", "fail"); ok {
				d.OnMissingBaseline = Action(s)
			}
		case "on_judge_change":
			if s, ok := p.Enum(v, field, "fail", "warn"); ok {
				d.OnJudgeChange = Action(s)
			}
		case "segment_level":
			if s, ok := p.Enum(v, field, "fail", "warn"); ok && s == "warn" {
				d.SegmentLevel = LevelWarn // "" is fail, the default
			}
		}
	})
}

// metricList parses gate: or report_only:, a list of metric names; it
// returns the canonical names and, for each, the node that named it.
func (p *thParser) metricList(n *yaml.Node, key string) ([]string, map[string]*yaml.Node) {
	nodes := map[string]*yaml.Node{}
	if yamlcheck.IsNull(n) {
		return nil, nodes
	}
	if n.Kind != yaml.SequenceNode {
		p.Add(n, "%s: expected a list of metric names, such as [faithfulness, context_recall], got %s", key, yamlcheck.Describe(n))
		return nil, nodes
	}
	out := []string{}
	for _, item := range n.Content {
		item = yamlcheck.Deref(item)
		if item.Kind != yaml.ScalarNode || yamlcheck.IsNull(item) {
			p.Add(item, "%s: expected a metric name, got %s", key, yamlcheck.Describe(item))
			continue
		}
		m, ok := p.lookup(item.Value)
		if !ok {
			p.Add(item, "unknown metric %q in %s; %s", item.Value, key, yamlcheck.Suggestion(item.Value, p.names(), "known metrics"))
			continue
		}
		if prev, dup := nodes[m.Name]; dup {
			p.Add(item, "duplicate metric %q in %s, first at line %d", item.Value, key, prev.Line)
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
	if yamlcheck.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.Add(n, "segments: expected a list of dataset column names, such as [topic, language], got %s", yamlcheck.Describe(n))
		return nil
	}
	var out []string
	seen := map[string]*yaml.Node{}
	for _, item := range n.Content {
		item = yamlcheck.Deref(item)
		if item.Kind != yaml.ScalarNode || yamlcheck.IsNull(item) || strings.TrimSpace(item.Value) == "" {
			p.Add(item, "segments: expected a dataset column name, got %s", yamlcheck.Describe(item))
			continue
		}
		if prev, dup := seen[item.Value]; dup {
			p.Add(item, "duplicate segment key %q in segments, first at line %d", item.Value, prev.Line)
			continue
		}
		seen[item.Value] = item
		out = append(out, item.Value)
	}
	if len(out) > MaxSegmentKeys {
		p.Add(n, "segments: %d keys, at most %d (each key multiplies the tests in the family)", len(out), MaxSegmentKeys)
	}
	return out
}

// checkFamily refuses a report-only metric that is also gated explicitly,
// by gate: or by a rule under metrics:.
func (p *thParser) checkFamily(reportOnly, gate, rules map[string]*yaml.Node) {
	for m, n := range reportOnly {
		if g, ok := gate[m]; ok {
			p.Add(n, "%s is both in report_only and in gate (line %d); keep it in one", m, g.Line)
		}
		if r, ok := rules[m]; ok {
			p.Add(n, "%s is in report_only but has a rule under metrics (line %d), and a report-only metric never fails the gate; remove one (or use level: warn)", m, r.Line)
		}
	}
}

func (p *thParser) metrics(n *yaml.Node, out map[string]MetricConfig, seen map[string]*yaml.Node) {
	if !p.IsMapping(n, "metrics", "of metric names to rules, such as {faithfulness: {min: 0.85}}") {
		return
	}
	p.Mapping(n, "in metrics", nil, func(key string, k, v *yaml.Node) {
		m, ok := p.lookup(key)
		if !ok {
			p.Add(k, "unknown metric %q in metrics; %s", key, yamlcheck.Suggestion(key, p.names(), "known metrics"))
			return
		}
		if prev, dup := seen[m.Name]; dup {
			same := ""
			if prev.Value != key {
				same = fmt.Sprintf(" (%q is the same metric)", prev.Value)
			}
			p.Add(k, "duplicate metric %q in metrics%s, first at line %d", key, same, prev.Line)
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
	if yamlcheck.IsNull(n) {
		return mc, true
	}
	if n.Kind != yaml.MappingNode {
		p.Add(n, "%s: expected a mapping such as {min: 0.8, tolerance: 0.03}, got %s", prefix, yamlcheck.Describe(n))
		return mc, false
	}
	before := len(p.Problems)
	var minNode, maxNode *yaml.Node
	// A numeric user metric is in its own units: any floor, any tolerance.
	_, hi := p.user[name].ScoreRange()
	ownUnits := math.IsInf(hi, 1)
	p.Mapping(n, "in "+prefix, metricKeys, func(key string, k, v *yaml.Node) {
		field := prefix + "." + key
		switch key {
		case "min", "max":
			x, ok := p.Number(v, field)
			if !ok {
				return
			}
			if !ownUnits && (x < 0 || x > 1) {
				p.Add(v, "%s: %s is outside [0, 1]", field, v.Value)
				return
			}
			if key == "min" {
				mc.Min, minNode = &x, v
			} else {
				mc.Max, maxNode = &x, v
			}
		case "tolerance":
			x, ok := p.Number(v, field)
			if ok && ownUnits && x < 0 {
				p.Add(v, "%s: %s is negative; a tolerance is the smallest change that matters, in the metric's own units", field, v.Value)
			} else if ok && (ownUnits || p.checkTolerance(v, field, x)) {
				mc.Tolerance = &x
			}
		case "alpha":
			if x, ok := p.Number(v, field); ok && p.checkAlpha(v, field, x) {
				mc.Alpha = &x
			}
		case "level":
			if s, ok := p.Enum(v, field, "fail", "warn"); ok {
				mc.Level = Level(s)
			}
		case "direction":
			if s, ok := p.Enum(v, field, "higher", "lower"); ok && p.checkDirection(v, name, field, s) {
				mc.Direction = s
			}
		}
	})
	if mc.Min != nil && mc.Max != nil && *mc.Min > *mc.Max {
		p.Add(maxNode, "%s: min %s is greater than max %s", prefix, minNode.Value, maxNode.Value)
	}
	return mc, len(p.Problems) == before
}

// checkDirection refuses a direction contrary to a catalogue metric's: its
// scores mean what the catalogue says, whatever file they come from.
func (p *thParser) checkDirection(v *yaml.Node, name, field, dir string) bool {
	m, ok := metrics.Lookup(name)
	if !ok || m.User != nil || m.Direction.String() == dir {
		return true
	}
	p.Add(v, "%s: %s is a catalogue metric whose direction is fixed (%s is better); remove direction, or import the scores under another name to gate them as a metric of your own",
		field, name, m.Direction)
	return false
}

func (p *thParser) checkTolerance(v *yaml.Node, field string, x float64) bool {
	if x < 0 || x > 1 {
		p.Add(v, "%s: %s is outside [0, 1]", field, v.Value)
		return false
	}
	return true
}

func (p *thParser) checkAlpha(v *yaml.Node, field string, x float64) bool {
	if x <= 0 || x >= 1 {
		p.Add(v, "%s: %s is outside (0, 1); 0.05 is the usual choice", field, v.Value)
		return false
	}
	return true
}

// sequential parses sequential:, true, false or a mapping {batch: N}.
func (p *thParser) sequential(n *yaml.Node) *SequentialRule {
	if n.Kind == yaml.ScalarNode {
		v, ok := p.Enum(n, "sequential", "true", "false")
		if !ok || v == "false" {
			return nil
		}
		return &SequentialRule{}
	}
	if !p.IsMapping(n, "sequential", "{batch: 50}") {
		return nil
	}
	r := &SequentialRule{}
	p.Mapping(n, "in sequential", []string{"batch"}, func(key string, k, v *yaml.Node) {
		if x, ok := p.Integer(v, "sequential.batch"); ok {
			if x < 1 {
				p.Add(v, "sequential.batch: %s must be at least 1", v.Value)
			} else {
				r.Batch = x
			}
		}
	})
	return r
}
