package usermetric

import (
	"fmt"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// DataError is why a sample cannot be asked about: a field or column the
// metric reads is missing, or its per-sample rubric is unusable. The
// score is undefined with Reason, of kind data.
type DataError struct{ Reason string }

func (e *DataError) Error() string { return e.Reason }

// Request builds the judge request of a critic or rubric metric for one
// sample: the definition text, the levels and the sample's fields and
// columns, all as data of the step's input. The evaluator and the cost
// estimate both use it, so they ask alike.
func Request(d *metrics.Definition, s *metrics.Sample) (judge.Request, error) {
	data, missing := d.SampleData(s)
	if missing != "" {
		return judge.Request{}, &DataError{Reason: "missing field " + missing}
	}
	switch d.Kind {
	case metrics.KindCritic:
		in := metrics.CriticInput{Criterion: d.Definition, Sample: data}
		return judge.Request{Step: metrics.StepCritic, Input: in, N: d.VoteCount(), Metric: d.Name}, nil
	case metrics.KindRubric:
		levels, err := Levels(d, s)
		if err != nil {
			return judge.Request{}, err
		}
		in := metrics.RubricInput{Criterion: d.Definition, Levels: levels, Sample: data}
		return judge.Request{Step: metrics.StepRubric, Input: in, Metric: d.Name}, nil
	}
	return judge.Request{}, fmt.Errorf("%s: a %s metric asks no judge", d.Name, d.Kind)
}

// Levels returns the rubric of a sample: its own from the rubric column
// when the definition has one and the sample gives it, else the
// definition's.
func Levels(d *metrics.Definition, s *metrics.Sample) ([]metrics.RubricLevel, error) {
	if d.RubricColumn != "" {
		if text, ok := s.Metadata[d.RubricColumn]; ok {
			levels, err := ParseRubric(text)
			if err != nil {
				return nil, &DataError{Reason: InvalidRubricReason(d.RubricColumn, text, err)}
			}
			return levels, nil
		}
		if len(d.Rubric) == 0 {
			return nil, &DataError{Reason: "missing field " + d.RubricColumn}
		}
	}
	return d.Rubric, nil
}

// InvalidRubricReason is the reason a metric is undefined on a sample
// whose rubric column holds no valid rubric: it names the column and the
// value (cut at 200 characters) and what is wrong with it.
func InvalidRubricReason(column, value string, err error) string {
	const limit = 200
	if r := []rune(value); len(r) > limit {
		value = string(r[:limit]) + "..."
	}
	return fmt.Sprintf("invalid rubric in column %s: %s (%v)", column, value, err)
}
