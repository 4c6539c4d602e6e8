package app

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/suggest"
	"github.com/raggate/raggate/internal/usermetric"
	"github.com/raggate/raggate/metrics"
)

// LoadUserMetrics reads the metrics file (--metrics-file) from the checkout, before the
// dataset and any judge call: a bad definition is exit 2 with its line.
func LoadUserMetrics(env Env, path string) ([]metrics.Definition, error) {
	if path == "" {
		return nil, nil
	}
	defs, err := usermetric.LoadFile(env.abs(path))
	if err != nil {
		return nil, asUsage(InputErr("--metrics-file", err))
	}
	return defs, nil
}

// UserMetrics returns the catalogue entries of the loaded definitions.
// With a target, the target metrics are among them (userDefinitions).
func (c *RunConfig) UserMetrics() []metrics.Metric { return usermetric.Metrics(c.userDefinitions()) }

func (c *RunConfig) userMetrics() []metrics.Metric { return c.UserMetrics() }

// definitionsOf returns the definitions of the user-defined metrics of ms.
func definitionsOf(ms []metrics.Metric) []metrics.Definition {
	var out []metrics.Definition
	for _, m := range ms {
		if m.User != nil {
			out = append(out, *m.User)
		}
	}
	return out
}

// invalidRubrics warns, before any judge call, of the samples whose
// rubric_column value is not a valid rubric (a level out of range or
// listed twice, not a JSON object of levels): the metric is undefined on
// them (kind data, the reason naming the column and the value), and a
// count is the only way to notice a few among many.
// The run's n samples are sample(i), as memory keeps them.
func invalidRubrics(n int, sample func(i int) metrics.Sample, ms []metrics.Metric) []string {
	var out []string
	for _, m := range ms {
		d := m.User
		if d == nil || d.Kind != metrics.KindRubric || d.RubricColumn == "" {
			continue
		}
		bad, first := 0, ""
		for i := range n {
			s := sample(i)
			text, ok := s.Metadata[d.RubricColumn]
			if !ok {
				continue
			}
			if _, err := usermetric.ParseRubric(text); err != nil {
				if bad == 0 {
					first = fmt.Sprintf("sample %q: %s", s.ID, usermetric.InvalidRubricReason(d.RubricColumn, text, err))
				}
				bad++
			}
		}
		if bad > 0 {
			out = append(out, fmt.Sprintf("metric %s: %d of %d samples have an invalid rubric in column %s, so the metric is undefined on them (kind data); first: %s; write each as a JSON object of at least two levels, each an integer in range listed once, such as {\"1\": \"wrong\", \"2\": \"right\"}",
				m.Name, bad, n, d.RubricColumn, first))
		}
	}
	return out
}

// checkUserColumns fails, before any judge call, when a user-defined metric
// reads a column that no sample of the dataset has: a misspelt column would
// otherwise leave the metric undefined on every sample after a paid run.
// added are the columns the run itself adds (a target's figures).
func checkUserColumns(ds *dataset.Dataset, ms []metrics.Metric, added ...string) error {
	var problems []string
	for _, m := range ms {
		if m.User == nil {
			continue
		}
		cols := slices.DeleteFunc(slices.Clone(m.User.Columns()), func(c string) bool { return slices.Contains(added, c) })
		for _, col := range missingColumns(ds, cols) {
			problems = append(problems, fmt.Sprintf("metric %s: %s", m.Name, col))
		}
	}
	if len(problems) > 0 {
		return usageErr("%s; user-defined metrics (--metrics-file) read dataset or responses columns kept as metadata, case as written", strings.Join(problems, "; "))
	}
	return nil
}

// missingColumns words each of keys that no sample of ds has as a
// metadata column, with the nearest column.
func missingColumns(ds *dataset.Dataset, keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, s := range ds.All() {
		for k := range s.Metadata {
			have[k] = true
		}
	}
	var out []string
	for _, k := range keys {
		if have[k] {
			continue
		}
		msg := fmt.Sprintf("%q is not a column of %s", k, ds.Path)
		if s := suggest.Closest(k, slices.Sorted(maps.Keys(have))); s != "" {
			msg += fmt.Sprintf(": did you mean %q?", s)
		} else if len(have) == 0 {
			msg += " (it has no columns besides the fields)"
		}
		out = append(out, msg)
	}
	return out
}
