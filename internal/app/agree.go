package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/agree"
	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// AgreeConfig is the configuration of the agree use case: the scores come
// from Results (a results file) or, when it is empty, from a run of Run
// over the labelled dataset.
type AgreeConfig struct {
	Run     RunConfig
	Results string
	Spec    agree.Spec
	Mins    []agree.Min
}

// Agreement is the outcome of the agree use case.
type Agreement struct {
	Report *agree.Report
	Header agree.Header
	// Below lists the figures under their minimum (the gate fails).
	Below []string
	// Estimate is set instead after a dry run.
	Estimate *Estimate
}

// Agree is the agree use case: it measures how well the judge's scores
// agree with the human labels kept as dataset columns.
func Agree(ctx context.Context, env Env, c AgreeConfig) (*Agreement, error) {
	spec := c.Spec
	f, source, est, err := agreeScores(ctx, env, &c, spec)
	if est != nil {
		return &Agreement{Estimate: est}, err
	}
	if f == nil {
		return nil, err
	}
	spec.Source = source
	rep, merr := agree.Measure(rowsOf(f), metricsOf(f), spec)
	if merr != nil {
		return nil, usageErr("%v", merr)
	}
	for _, w := range rep.Warnings {
		env.logf("warning: %s", w)
	}
	if err != nil {
		return nil, err // a run that stopped early: its results are saved
	}
	below, err := rep.Check(c.Mins)
	if err != nil {
		return nil, asUsage(err)
	}
	return &Agreement{Report: rep, Header: agree.Header{Judge: judgeName(f.Judge), Source: source}, Below: below}, nil
}

// agreeScores reads the results file, or judges the dataset as gate run
// does after checking its labels. It returns the scores and where they
// came from; on a run that stopped early, the partial results and the
// error.
func agreeScores(ctx context.Context, env Env, c *AgreeConfig, spec agree.Spec) (*results.File, string, *Estimate, error) {
	o := &c.Run
	if c.Results != "" {
		f, err := results.Read(env.abs(c.Results))
		if err != nil {
			return nil, "", nil, asUsage(fmt.Errorf("--results: %w", err))
		}
		if names := o.metricNames(); len(names) > 0 {
			if err := keepMetrics(f, names); err != nil {
				return nil, "", nil, err
			}
		}
		return f, c.Results, nil, nil
	}
	o.CheckDataset = func(ds *dataset.Dataset) error {
		rows := make([]agree.Row, ds.Len())
		for i, s := range ds.All() {
			rows[i] = agree.Row{ID: s.ID, Metadata: s.Metadata, Where: ds.Where(i)}
		}
		spec := spec
		spec.Source = o.Dataset
		_, err := agree.Measure(rows, nil, spec)
		return err
	}
	res, err := Run(ctx, env, *o)
	if err == nil {
		defer res.Close()
	}
	var f *results.File
	if res != nil {
		if res.Estimate != nil {
			return nil, "", res.Estimate, err
		}
		f = res.File
	}
	if f != nil && !o.Quiet {
		env.logf("wrote %s (%d samples, judge %s); gate agree --results %s reads it again without judging", o.Out, len(f.Samples), f.Judge.Provider, o.Out)
	}
	return f, o.Dataset, nil, err
}

// keepMetrics narrows f's metrics to names (--metrics with --results).
func keepMetrics(f *results.File, names []string) error {
	var keep []string
	for _, n := range names {
		m, ok := metrics.Lookup(n)
		if !ok || !slices.Contains(f.Config.Metrics, m.Name) {
			return usageErr("--metrics: %q is not a metric of the results file (it has %s)", n, strings.Join(f.Config.Metrics, ", "))
		}
		keep = append(keep, m.Name)
	}
	f.Config.Metrics = keep
	return nil
}

// rowsOf turns the samples of a results file into agreement rows.
func rowsOf(f *results.File) []agree.Row {
	rows := make([]agree.Row, len(f.Samples))
	for i, s := range f.Samples {
		sc := make(map[string]float64, len(s.Scores))
		for k, v := range s.Scores {
			sc[k] = v.Value()
		}
		rows[i] = agree.Row{ID: s.ID, Scores: sc, Metadata: s.Metadata}
	}
	return rows
}

// metricsOf lists the metrics of a results file with their directions.
func metricsOf(f *results.File) []agree.Metric {
	var ms []agree.Metric
	for _, name := range f.Config.Metrics {
		m, _ := f.Metric(name)
		lo, hi := m.ScoreRange()
		if m.User != nil && m.User.Kind == metrics.KindNumeric {
			lo, hi = observedRange(f, name) // a number in its own units
		}
		ms = append(ms, agree.Metric{Name: name, LowerIsBetter: m.Direction == metrics.LowerIsBetter, Lo: lo, Hi: hi, Declined: declined(f, name)})
	}
	return ms
}

// declined returns the judge's reason when it scored no sample of metric
// m and gave every one the same judge reason (a metric it declines), else
// "".
func declined(f *results.File, m string) string {
	reason := ""
	for i := range f.Samples {
		s := &f.Samples[i]
		if v, ok := s.Scores[m]; ok && !v.IsNaN() {
			return ""
		}
		r := s.Undefined[m]
		if r == "" || (reason != "" && r != reason) || s.KindOf(m) != results.KindJudge {
			return ""
		}
		reason = r
	}
	return reason
}

// observedRange returns the lowest and highest defined score of metric m
// in f (0, 0 when there is none).
func observedRange(f *results.File, m string) (lo, hi float64) {
	first := true
	for i := range f.Samples {
		v, ok := f.Samples[i].Scores[m]
		if !ok || v.IsNaN() {
			continue
		}
		x := v.Value()
		if first {
			lo, hi, first = x, x, false
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func judgeName(j results.Judge) string {
	if j.Model == "" {
		return j.Provider
	}
	return j.Provider + " " + j.Model
}
