package cli

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/agree"
	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// agreeOptions are the flags of gate agree beyond the run flags.
type agreeOptions struct {
	results   string
	label     string
	positive  []string
	kind      string
	threshold float64
	pairBy    string
	show      int
	mins      []string
}

// agreeSeed seeds the bootstrap of gate agree: fixed, so that the same
// scores and labels always give the same intervals.
const agreeSeed = 20261201

// agreeCmd measures the judge's scores against human labels kept as
// dataset columns: it judges the dataset as gate run does (or reads a
// results file) and reports the agreement of every metric.
func agreeCmd(ctx context.Context, env Env, args []string) error {
	o := defaultOptions()
	o.Out = "agree-results.json"
	a := agreeOptions{threshold: 0.5, show: 3}
	fs := newFlagSet("agree", env, "--label COLUMN (--dataset FILE [run flags] | --results FILE) [--positive V,V] [--threshold 0.5] [--pair-by COLUMN] [--min FIGURE=V] [--format text|markdown|json]")
	o.bindDataset(fs)
	o.bindJudge(fs)
	o.bindOut(fs)
	fs.StringVar(&a.results, "results", "", "read the scores from this results `file` (written by gate run or gate agree) instead of judging: no judge call")
	fs.StringVar(&a.label, "label", "", "dataset `column` holding each row's human label")
	fs.Var((*keysFlag)(&a.positive), "positive", "label `values` of a good answer (binary text labels, e.g. Yes or \"Not Hallucinated\"; comma-separated, case ignored)")
	fs.StringVar(&a.kind, "kind", "", "label `kind`: binary, graded or pairwise (default: pairwise with --pair-by, binary with --positive or 0/1 labels, else graded)")
	fs.Float64Var(&a.threshold, "threshold", a.threshold, "binary labels: a score at or above this `value` predicts a good answer (at or below, for a lower-is-better metric)")
	fs.StringVar(&a.pairBy, "pair-by", "", "dataset `column` grouping the two candidates of a pair; the higher label (or the --positive one) marks the better")
	fs.IntVar(&a.show, "show", a.show, "list this many `rows` where judge and label disagree most, per metric (0 to 100; default 3)")
	fs.Var((*listFlag)(&a.mins), "min", "exit 1 when a figure is below a minimum, `FIGURE=V` or METRIC:FIGURE=V, e.g. auc=0.8 (repeatable; figures: auc, balanced_accuracy, kappa, best_balanced_accuracy, best_kappa, spearman, kendall_tau_b, pairwise_accuracy)")
	fs.StringVar(&o.Format, "format", o.Format, "report `format` on stdout: text, markdown or json")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	spec, mins, err := a.check(&o)
	if err != nil {
		return err
	}
	f, source, err := agreeScores(ctx, env, &o, a, spec)
	if f == nil {
		return err
	}
	spec.Source = source
	rep, merr := agree.Measure(rowsOf(f), metricsOf(f), spec)
	if merr != nil {
		return usageErr("%v", merr)
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	if err != nil {
		return err // a run that stopped early: its results are saved
	}
	below, err := rep.Check(mins)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if err := renderAgree(env, rep, o.Format, agree.Header{Judge: judgeName(f.Judge), Source: source}); err != nil {
		return err
	}
	if len(below) > 0 {
		fmt.Fprintf(env.Stderr, "gate agree: below the minimum: %s\n", strings.Join(below, "; "))
		return errFailed
	}
	return nil
}

// check validates the agree flags (and, when judging, the run flags)
// before any file is read; it returns the label spec and the minimums.
func (a agreeOptions) check(o *Options) (agree.Spec, []agree.Min, error) {
	var ps []problem
	if a.label == "" {
		ps = append(ps, plain("label", "%s is required: the dataset column holding the human labels, e.g. --label human"))
	}
	switch {
	case a.results != "" && o.Dataset != "":
		ps = append(ps, conflict("results", "dataset", "give one: --results reads scores judged before, --dataset judges now"))
	case a.results == "" && o.Dataset == "":
		ps = append(ps, plain("dataset", "%s or --results is required: the labelled dataset to judge, or the results file of a run over it"))
	}
	switch a.kind {
	case "", "binary", "graded", "pairwise":
	default:
		ps = append(ps, badText("kind", a.kind, "binary, graded or pairwise"))
	}
	if math.IsNaN(a.threshold) || math.IsInf(a.threshold, 0) {
		ps = append(ps, bad("threshold", a.threshold, "a number, e.g. 0.5 (the default)"))
	}
	if a.show < 0 || a.show > 100 {
		ps = append(ps, bad("show", a.show, "0 to 100 rows (default 3)"))
	}
	if f := o.Format; f != "text" && f != "markdown" && f != "json" {
		ps = append(ps, badText("format", f, "text, markdown or json"))
	}
	var mins []agree.Min
	for _, s := range a.mins {
		m, err := agree.ParseMin(s)
		if err != nil {
			ps = append(ps, wrapped("min", err))
			continue
		}
		mins = append(mins, m)
	}
	if err := joinProblems(ps, flagName); err != nil {
		return agree.Spec{}, nil, err
	}
	spec := agree.Spec{Label: a.label, Positive: a.positive, Kind: agree.Kind(a.kind), Threshold: a.threshold,
		PairBy: a.pairBy, Show: a.show, Options: agree.Options{Seed: agreeSeed}}
	return spec, mins, nil
}

// agreeScores reads the results file, or judges the dataset as gate run
// does after checking its labels. It returns the scores and where they
// came from; on a run that stopped early, the partial results and the
// error.
func agreeScores(ctx context.Context, env Env, o *Options, a agreeOptions, spec agree.Spec) (*results.File, string, error) {
	if a.results != "" {
		f, err := results.Read(env.abs(a.results))
		if err != nil {
			return nil, "", withCode(ExitUsage, fmt.Errorf("--results: %w", err))
		}
		if names := o.metricNames(); len(names) > 0 {
			if err := keepMetrics(f, names); err != nil {
				return nil, "", err
			}
		}
		return f, a.results, nil
	}
	if err := o.validate(env, "run"); err != nil {
		return nil, "", err
	}
	if err := o.loadUserMetrics(env); err != nil {
		return nil, "", err
	}
	o.checkDataset = func(ds *dataset.Dataset) error {
		rows := make([]agree.Row, len(ds.Samples))
		for i, s := range ds.Samples {
			rows[i] = agree.Row{ID: s.ID, Metadata: s.Metadata, Where: ds.Where(i)}
		}
		spec := spec
		spec.Source = o.Dataset
		_, err := agree.Measure(rows, nil, spec)
		return err
	}
	defer o.closeTexts()
	f, err := execRun(ctx, env, o)
	if f != nil && !o.Quiet {
		fmt.Fprintf(env.Stderr, "wrote %s (%d samples, judge %s); gate agree --results %s reads it again without judging\n", o.Out, len(f.Samples), f.Judge.Provider, o.Out)
	}
	return f, o.Dataset, err
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
		ms = append(ms, agree.Metric{Name: name, LowerIsBetter: m.Direction == metrics.LowerIsBetter, Lo: lo, Hi: hi})
	}
	return ms
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

func renderAgree(env Env, rep *agree.Report, format string, h agree.Header) error {
	switch format {
	case "markdown":
		return rep.Markdown(env.Stdout, h)
	case "json":
		return rep.JSON(env.Stdout, h)
	}
	return rep.Text(env.Stdout, h)
}
