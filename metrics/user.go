package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Kind is the kind of a user-defined metric.
type Kind string

// The kinds of user-defined metrics.
const (
	// KindCritic asks the judge a yes/no criterion: the score is 1 or 0
	// (the majority of Votes answers).
	KindCritic Kind = "critic"
	// KindRubric asks the judge for a level of a discrete scale, one
	// description per level; the score is the level normalised to [0, 1].
	KindRubric Kind = "rubric"
	// KindNumeric reads a number the pipeline reported about itself (a
	// dataset or responses column such as latency_ms); no judge call.
	KindNumeric Kind = "numeric"
)

// Kinds lists the kinds in documentation order.
var Kinds = []Kind{KindCritic, KindRubric, KindNumeric}

// LLM reports whether metrics of this kind need a judge (KindAsks).
func (k Kind) LLM() bool { return len(KindAsks[k]) > 0 }

// Transform is applied to a numeric metric's value before it is scored.
type Transform string

// The transforms of a numeric metric.
const (
	// TransformNone scores the value as it is.
	TransformNone Transform = "none"
	// TransformLog scores the natural logarithm of the value, so that a
	// difference of scores is a ratio of values (ln 1.1 = 0.0953 is 10%)
	// and a heavy-tailed quantity such as a latency compares sensibly.
	// The value must be positive.
	TransformLog Transform = "log"
)

// RubricLevel is one level of a rubric: a score and what earns it.
type RubricLevel struct {
	Score       int    `json:"score"`
	Description string `json:"description"`
}

// Definition is a user-defined metric, as a metrics file declares it (see
// the usermetric package of raggate for the file). Its JSON form is kept in
// results files, so that a comparison knows the metric's direction and
// range, and a changed definition is seen as such.
type Definition struct {
	Name        string `json:"name"`
	Kind        Kind   `json:"kind"`
	Description string `json:"description"`
	// Reads names what the metric reads: sample fields (user_input,
	// response, reference, retrieved_contexts, reference_contexts) and
	// metadata columns. A numeric metric reads exactly one column.
	Reads     []string  `json:"reads"`
	Direction Direction `json:"direction"`
	// Definition is the criterion (critic) or what the rubric scores.
	Definition string `json:"definition,omitempty"`
	// Votes is the number of judge answers a critic takes the majority of
	// (odd; 0 means 1).
	Votes int `json:"votes,omitempty"`
	// Rubric is the scale of a rubric metric, by ascending score.
	Rubric []RubricLevel `json:"rubric,omitempty"`
	// RubricColumn optionally names a column holding a per-sample rubric
	// (a JSON object of score to description) that replaces Rubric for
	// the samples that have it.
	RubricColumn string `json:"rubric_column,omitempty"`
	// Transform of a numeric metric ("" means none).
	Transform Transform `json:"transform,omitempty"`
	// Reported marks a metric the run added by itself rather than one a
	// metrics file defined (raggate's target metrics, latency and tokens
	// of the pipeline it called): it is compared and shown, but gated only
	// when the thresholds give it a rule or list it in gate. Metrics files
	// cannot set it.
	Reported bool `json:"reported,omitempty"`
}

// MarshalText writes "higher" or "lower".
func (d Direction) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "higher" or "lower".
func (d *Direction) UnmarshalText(b []byte) error {
	switch string(b) {
	case "higher":
		*d = HigherIsBetter
	case "lower":
		*d = LowerIsBetter
	default:
		return fmt.Errorf("direction %q: want higher or lower", b)
	}
	return nil
}

// VoteCount is the number of judge answers of a critic (at least 1).
func (d *Definition) VoteCount() int { return max(1, d.Votes) }

// Fields returns the sample fields among what the metric reads.
func (d *Definition) Fields() []Field {
	var out []Field
	for _, r := range d.Reads {
		if f, ok := FieldNamed(r); ok {
			out = append(out, f)
		}
	}
	return out
}

// Columns returns the metadata columns among what the metric reads, and
// the rubric column.
func (d *Definition) Columns() []string {
	var out []string
	for _, r := range d.Reads {
		if _, ok := FieldNamed(r); !ok {
			out = append(out, r)
		}
	}
	if d.RubricColumn != "" && !slices.Contains(out, d.RubricColumn) {
		out = append(out, d.RubricColumn)
	}
	return out
}

// FieldNamed returns the sample field of a canonical name.
func FieldNamed(name string) (Field, bool) {
	for _, f := range Fields {
		if string(f) == name {
			return f, true
		}
	}
	return "", false
}

// unbounded is the range of a numeric metric: any finite number.
var unbounded = [2]float64{math.Inf(-1), math.Inf(1)}

// Metric returns the catalogue-style entry of the definition: what the
// evaluator, the results reader and the comparison need. Needs lists the
// sample fields it reads (a missing one leaves the score undefined like
// for a built-in metric).
func (d *Definition) Metric() Metric {
	m := Metric{Name: d.Name, Needs: d.Fields(), Direction: d.Direction, Description: d.Description, User: d, Asks: KindAsks[d.Kind]}
	m.Steps = stepsOf(m.Asks)
	if d.Kind == KindNumeric {
		m.Range = unbounded
	}
	return m
}

// KindAsks declares, per kind of user-defined metric, the judge steps a
// metric of the kind asks of each sample (a numeric metric asks none).
var KindAsks = map[Kind][]Ask{
	KindCritic: {{Step: StepCritic, Calls: 1, How: "the criterion, answered yes or no: votes answers in one call, the majority wins"}},
	KindRubric: {{Step: StepRubric, Calls: 1, How: "the level of the rubric that fits the sample"}},
}

// SampleData is what a critic or rubric shows the judge of a sample: the
// fields and columns the metric reads, by name. missing names the first
// one the sample lacks ("" when it has them all).
func (d *Definition) SampleData(s *Sample) (data map[string]any, missing string) {
	data = make(map[string]any, len(d.Reads))
	for _, r := range d.Reads {
		if f, ok := FieldNamed(r); ok {
			if !s.Has(f) {
				return nil, r
			}
			if f.IsList() {
				data[r] = s.List(f)
			} else {
				data[r] = s.String(f)
			}
			continue
		}
		v, ok := s.Metadata[r]
		if !ok {
			return nil, r
		}
		data[r] = v
	}
	return data, ""
}

// Majority returns the score of a critic from its votes (each 0 or 1): 1
// when more than half are 1, else 0, and the index of the first vote that
// agrees with the result (whose reason is kept). It returns NaN and -1 for
// no votes.
func Majority(votes []int) (score float64, first int) {
	if len(votes) == 0 {
		return math.NaN(), -1
	}
	yes := 0
	for _, v := range votes {
		if v == 1 {
			yes++
		}
	}
	win := 0
	if 2*yes > len(votes) {
		win = 1
	}
	for i, v := range votes {
		if v == win {
			return float64(win), i
		}
	}
	return float64(win), 0
}

// RubricScore normalises a level of the rubric levels to [0, 1]: the
// lowest level scores 0, the highest 1, the others in proportion to their
// score. It returns NaN for a level that is not one of levels, or fewer
// than two levels.
func RubricScore(level int, levels []RubricLevel) float64 {
	if len(levels) < 2 {
		return math.NaN()
	}
	lo, hi, found := levels[0].Score, levels[0].Score, false
	for _, l := range levels {
		lo, hi = min(lo, l.Score), max(hi, l.Score)
		found = found || l.Score == level
	}
	if !found || hi == lo {
		return math.NaN()
	}
	return float64(level-lo) / float64(hi-lo)
}

// MaxNumeric bounds the size of a numeric metric's value: sums and sums of
// squares of a million such values stay finite, so means, deviations and
// tests do too.
const MaxNumeric = 1e150

// ErrNotNumber is wrapped by NumericValue for a value that is not a
// finite number.
var ErrNotNumber = errors.New("not a number")

// NumericValue parses a numeric metric's column value and applies the
// transform. It fails for text that is not a finite number, and for a
// value the transform is undefined at (the log of zero or less).
func NumericValue(text string, t Transform) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN(), fmt.Errorf("%q is %w", text, ErrNotNumber)
	}
	if math.Abs(x) > MaxNumeric {
		return math.NaN(), fmt.Errorf("%s is too large: numeric values are at most %g in size, so that their sums stay finite", strings.TrimSpace(text), MaxNumeric)
	}
	if t == TransformLog {
		if x <= 0 {
			return math.NaN(), fmt.Errorf("%v is not positive, and the log transform needs a positive value", x)
		}
		return math.Log(x), nil
	}
	return x, nil
}
