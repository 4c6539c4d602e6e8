package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// calibrateCmd is an A/A run: it judges the same data k times and reports
// the judge noise per metric with a suggested tolerance.
func calibrateCmd(ctx context.Context, env Env, args []string) error {
	o := defaultOptions()
	o.Out = "calibration.json"
	o.repeatsRange = &app.CalibrateRepeats
	fs := newFlagSet("calibrate", env, "--dataset FILE [--repeats 3] [judge flags] [--out calibration.json]")
	o.bindDataset(fs)
	o.bindJudge(fs)
	o.bindOut(fs)
	floatVar(fs, &o.Alpha, "alpha", app.AlphaWant, app.CheckAlpha, "significance `level` used for the minimum detectable effect, more than 0 and less than 1")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "repeats" })
	if !set {
		o.Repeats = 3
	}
	if err := o.validate(env, "calibrate"); err != nil {
		return err
	}
	if err := o.loadUserMetrics(env); err != nil {
		return err
	}
	c, err := app.Calibrate(ctx, env.app(), o.RunConfig, o.Alpha)
	if err != nil {
		return err
	}
	if c.Estimate != nil {
		printEstimate(env, c.Estimate)
		return nil
	}
	f, cs := c.File, c.Noise
	w := env.Stdout
	if len(cs) == 0 {
		// Only numeric metrics (or none): no judge noise to measure.
		verb := " are"
		if len(c.OwnScale) == 1 {
			verb = " is"
		}
		fmt.Fprintf(w, "Nothing to calibrate: %s numeric (read from the data, not judged), so there is no judge noise to measure. "+
			"Set a numeric metric's tolerance from the change you would act on: with transform: log, tolerance: 0.1 is about 10%% worse; without, a value in its unit.\n",
			strings.Join(c.OwnScale, ", ")+verb)
		return nil
	}
	fmt.Fprintf(w, "Judge noise over %d samples, %d runs each (judge %s %s):\n\n", len(f.Samples), f.Config.Repeats, f.Judge.Provider, f.Judge.Model)
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("metric", "samples", "noise per sample (sd)", "A/A noise of the mean (sd)", "MDE from judge noise", "suggested tolerance")
	for _, c := range cs {
		if err := t.Append(c.Metric, fmt.Sprint(c.N), report.FormatScore(c.SampleNoise), report.FormatScore(c.MeanNoise), report.FormatScore(c.MDE), report.FormatScore(results.Score(c.Tolerance))); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprint(w, "\nA/A noise of the mean: how far two runs of an unchanged pipeline drift apart on average.\n")
	fmt.Fprint(w, "Suggested tolerance: the 95% band of that drift (at least 0.01). For your thresholds file:\n\nmetrics:\n")
	for _, c := range cs {
		fmt.Fprintf(w, "  %s: {tolerance: %s}\n", c.Metric, report.FormatScore(results.Score(c.Tolerance)))
	}
	for _, m := range c.OwnScale {
		fmt.Fprintf(w, "\n%s is numeric: read from the data, not judged, so there is no judge noise to measure, and it is scored on its own scale "+
			"(its unit, or the natural log of it with transform: log), where a judge metric's tolerance means nothing. "+
			"Set its tolerance from the change you would act on: with transform: log, tolerance: 0.1 is about 10%% worse; without, a value in its unit.\n", m)
	}
	if c.Deterministic {
		fmt.Fprint(w, "\nThe offline judge is deterministic: it has no judge noise to measure. Calibrate with the LLM judge you gate with.\n")
	}
	return nil
}
