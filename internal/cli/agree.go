package cli

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/raggate/raggate/internal/agree"
	"github.com/raggate/raggate/internal/app"
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
	mins      []agree.Min
}

// The values of agree's --kind, --threshold, --show and --format.
var (
	agreeKinds   = app.Enum{Values: []string{"", "binary", "graded", "pairwise"}, Want: "binary, graded or pairwise"}
	agreeShow    = app.IntRange{Lo: 0, Hi: 100, What: "rows (default 3)"}
	agreeFormats = app.Enum{Values: agree.FormatNames(), Want: "text, markdown or json"}
)

// checkThreshold checks --threshold: a finite number.
func checkThreshold(x float64) *app.Problem {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		p := app.BadValue("threshold", x, thresholdWant)
		return &p
	}
	return nil
}

const thresholdWant = "a number, e.g. 0.5 (the default)"

// minsFlag collects --min, each parsed as it is given.
type minsFlag struct {
	lastProblem
	p    *[]agree.Min
	text []string
}

func (f *minsFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(f.text, ",")
}

func (f *minsFlag) Set(v string) error {
	m, err := agree.ParseMin(v)
	if err != nil {
		p := app.Wrapped("min", err)
		return problemOf(&f.bad, &p)
	}
	*f.p = append(*f.p, m)
	f.text = append(f.text, v)
	return nil
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
	enumVar(fs, &a.kind, "kind", &agreeKinds, "label `kind`: binary, graded or pairwise (default: pairwise with --pair-by, binary with --positive or 0/1 labels, else graded)")
	floatVar(fs, &a.threshold, "threshold", thresholdWant, checkThreshold, "binary labels: a score at or above this `value` predicts a good answer (at or below, for a lower-is-better metric)")
	fs.StringVar(&a.pairBy, "pair-by", "", "dataset `column` grouping the two candidates of a pair; the higher label (or the --positive one) marks the better")
	intVar(fs, &a.show, "show", &agreeShow, "list this many `rows` where judge and label disagree most, per metric (0 to 100; default 3)")
	fs.Var(&minsFlag{p: &a.mins}, "min", "exit 1 when a figure is below a minimum, `FIGURE=V` or METRIC:FIGURE=V, e.g. auc=0.8 (repeatable; figures: auc, balanced_accuracy, kappa, best_balanced_accuracy, best_kappa, spearman, kendall_tau_b, pairwise_accuracy)")
	enumVar(fs, &o.Format, "format", &agreeFormats, "report `format` on stdout: text, markdown or json")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	spec, mins, err := a.check(&o)
	if err != nil {
		return err
	}
	if a.results == "" {
		if err := o.validate(env, "run"); err != nil {
			return err
		}
		if err := o.loadUserMetrics(env); err != nil {
			return err
		}
	}
	res, err := app.Agree(ctx, env.app(), app.AgreeConfig{Run: o.RunConfig, Results: a.results, Spec: spec, Mins: mins})
	if err != nil {
		return err
	}
	if res.Estimate != nil {
		printEstimate(env, res.Estimate)
		return nil
	}
	if err := renderAgree(env, res.Report, o.Format, res.Header); err != nil {
		return err
	}
	if len(res.Below) > 0 {
		fmt.Fprintf(env.Stderr, "gate agree: below the minimum: %s\n", strings.Join(res.Below, "; "))
		return errFailed
	}
	return nil
}

// check validates the agree flags (and, when judging, the run flags)
// before any file is read; it returns the label spec and the minimums.
func (a agreeOptions) check(o *Options) (agree.Spec, []agree.Min, error) {
	var ps []app.Problem
	if a.label == "" {
		ps = append(ps, app.Plain("label", "%s is required: the dataset column holding the human labels, e.g. --label human"))
	}
	switch {
	case a.results != "" && o.Dataset != "":
		ps = append(ps, app.Conflict("results", "dataset", "give one: --results reads scores judged before, --dataset judges now"))
	case a.results == "" && o.Dataset == "":
		ps = append(ps, app.Plain("dataset", "%s or --results is required: the labelled dataset to judge, or the results file of a run over it"))
	}
	if err := app.JoinProblems(ps, app.FlagNames); err != nil {
		return agree.Spec{}, nil, err
	}
	spec := agree.Spec{Label: a.label, Positive: a.positive, Kind: agree.Kind(a.kind), Threshold: a.threshold,
		PairBy: a.pairBy, Show: a.show, Options: agree.Options{Seed: agreeSeed}}
	return spec, a.mins, nil
}

func renderAgree(env Env, rep *agree.Report, format string, h agree.Header) error {
	render, ok := agree.LookupFormat(format)
	if !ok { // refused as parsed
		return app.JoinProblems([]app.Problem{app.BadText("format", format, agreeFormats.Want)}, app.FlagNames)
	}
	return render(rep, env.Stdout, h)
}
