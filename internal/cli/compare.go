package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

func (o *Options) bindCompare(fs *flag.FlagSet) {
	fs.StringVar(&o.Thresholds, "thresholds", o.Thresholds, "thresholds `file` (YAML; see thresholds.example.yaml); default: built-in defaults, no floors")
	enumVar(fs, &o.Format, "format", &reportFormats, "report `format` on stdout: text, markdown, json or html (one self-contained page)")
	intVar(fs, &o.HTMLSamples, "html-samples", &htmlSamples, "the HTML report lists this many `samples`, the worst (it says how many it leaves out)")
	fs.StringVar(&o.History, "history", "", "a `directory` of earlier results files (say, the base branch's stored baselines): the report adds their trend, the newest 30 judged like the head, with the head's means last")
	fs.Var((*keysFlag)(&o.SegmentBy), "segment-by", "also compare per value of this metadata `key` (a dataset column, case kept; repeatable or comma-separated), added to the thresholds' segments")
}

// reportFormats are the formats of compare's and check's report.
// htmlSamples is the range of --html-samples.
var htmlSamples = app.IntRange{Lo: 1, Hi: 1_000_000, What: "samples (default 2000)"}

var reportFormats = app.Enum{Values: report.Names(), Want: app.FormatsWant()}

// keysFlag is a repeatable flag whose values may also be comma-separated.
type keysFlag []string

func (l *keysFlag) String() string { return strings.Join(*l, ",") }
func (l *keysFlag) Set(v string) error {
	for k := range strings.SplitSeq(v, ",") {
		*l = append(*l, strings.TrimSpace(k))
	}
	return nil
}

func compareCmd(ctx context.Context, env Env, args []string) error {
	o := defaultOptions()
	o.Out = ""
	fs := newFlagSet("compare", env, "--base BASE.json --head HEAD.json [--thresholds T] [--segment-by KEY] [--format markdown|text|json] [--out F]")
	fs.StringVar(&o.Base, "base", "", "baseline results `file` (omit when there is none: floors only); or another evaluator's scores file, imported")
	fs.StringVar(&o.Head, "head", "", "head results `file`; or another evaluator's scores file (Ragas, promptfoo, DeepEval, table), imported")
	bindScoresFormat(fs, &o)
	fs.StringVar(&o.Out, "out", "", "write the report to this `file` instead of stdout")
	o.bindCompare(fs)
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if err := o.validate(env, "compare"); err != nil {
		return err
	}
	c, err := app.Compare(ctx, env.app(), app.CompareConfig{Base: o.Base, Head: o.Head, Thresholds: o.Thresholds, SegmentBy: o.SegmentBy, History: o.History,
		ScoresFormat: o.ScoresFormat})
	if err != nil {
		return err
	}
	if err := emit(ctx, env, c, &o, o.Format, o.Out, report.Options{Trend: c.Trend}); err != nil {
		return err
	}
	return verdictErr(c.Report)
}

func checkCmd(ctx context.Context, env Env, args []string) error {
	o := defaultOptions()
	fs := newFlagSet("check", env, "(--dataset FILE [run flags] | --scores FILE) [--baseline FILE | --baseline-ref REF:PATH] [--thresholds T] [--report F]")
	o.bindDataset(fs)
	o.bindJudge(fs)
	o.bindOut(fs)
	o.bindTarget(fs)
	o.bindCompare(fs)
	fs.StringVar(&o.Baseline, "baseline", "", "baseline results `file` (missing file: no baseline yet, floors only)")
	textVar(fs, &o.BaselineRef, "baseline-ref", app.CheckBaselineRef, "read the baseline from git, `REF:PATH`, e.g. origin/main:eval/results.json")
	fs.StringVar(&o.Report, "report", "", "also write the report to this `file` (.md markdown, .json JSON, .html HTML page, else text)")
	var seq sequentialFlags
	seq.bind(fs)
	fs.StringVar(&o.Scores, "scores", "", "check this scores `file` instead of running: another evaluator's (Ragas, promptfoo, DeepEval, table) or a results file; no dataset, no judge; --out only when given")
	bindScoresFormat(fs, &o)
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if o.Scores != "" && !flagGiven(fs, "out") {
		o.Out = "" // the scores are the results: written only when asked
	}
	if err := o.validate(env, "check"); err != nil {
		return err
	}
	o.Sequential = seq.config()
	if err := o.loadUserMetrics(env); err != nil {
		return err
	}
	store, err := checkStore(&o)
	if err != nil {
		return err
	}
	var scores *app.Scores
	if o.Scores != "" {
		model := ""
		if flagGiven(fs, "model") {
			model = o.Model // the evaluation model of scores files that name none
		}
		f, format, err := app.ReadScoresWith(env.app(), o.Scores, "--scores", app.ScoresOptions{Format: o.ScoresFormat, Model: model, Read: scoresTexts(&o)})
		if err != nil {
			return err
		}
		scores = &app.Scores{File: f, Path: o.Scores, Format: format, Model: model}
	}
	c, err := app.Check(ctx, env.app(), app.CheckConfig{Run: o.RunConfig, Thresholds: o.Thresholds, SegmentBy: o.SegmentBy, History: o.History, Store: store,
		Scores: scores, Sequential: o.Sequential})
	if err != nil {
		return err
	}
	if c.Estimate != nil {
		printEstimate(env, c.Estimate)
		return nil
	}
	opts := report.Options{BaselineSource: c.Source, Trend: c.Trend}
	if err := emit(ctx, env, c, &o, o.Format, "", opts); err != nil {
		return err
	}
	if o.Report != "" {
		if err := emit(ctx, env, c, &o, report.ByPath(o.Report).Name, o.Report, opts); err != nil {
			return err
		}
	}
	return verdictErr(c.Report)
}

// bindScoresFormat defines --scores-format, which forces the format of
// the scores files a command reads.
func bindScoresFormat(fs *flag.FlagSet, o *Options) {
	enumVar(fs, &o.ScoresFormat, "scores-format", &app.ScoresFormats, "force the `format` of other evaluators' scores files: ragas, promptfoo, deepeval or table (default: sniffed from each file)")
}

// scoresTexts is what check keeps of a results file given to --scores:
// its texts when they are written again (--out), else its scores only.
func scoresTexts(o *Options) results.ReadOptions {
	if o.Out != "" {
		return results.ReadOptions{Texts: results.AllTexts}
	}
	return results.ScoresOnly
}

// flagGiven reports whether the command line set the flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// checkStore is the baseline store the flags name (nil: no baseline).
func checkStore(o *Options) (*app.StoreConfig, error) {
	switch {
	case o.Baseline != "":
		return &app.StoreConfig{Kind: app.StoreFile, Path: o.Baseline}, nil
	case o.BaselineRef != "":
		ref, path, _ := strings.Cut(o.BaselineRef, ":") // checked as parsed
		return &app.StoreConfig{Kind: app.StoreGit, Ref: ref, Path: path}, nil
	}
	return nil, nil
}

// emit writes the report in the format called format to path ("" =
// stdout).
func emit(ctx context.Context, env Env, c *app.Comparison, o *Options, format, path string, opts report.Options) error {
	f, ok := report.Lookup(format)
	if !ok {
		return usageErr("--format %q: want %s", format, reportFormats.Want)
	}
	out, err := app.RenderReport(ctx, env.app(), c.Report, f, c.HTML, o.HTMLSamples, opts)
	if err != nil {
		return err
	}
	return writeOut(env, path, out)
}

// verdictErr turns a failed comparison into exit code 1.
func verdictErr(rep *compare.Report) error {
	if rep.Passed {
		return nil
	}
	return errFailed
}

// sequentialFlags are check's --sequential flags.
type sequentialFlags struct {
	on    bool
	batch int
	seed  *uint64
}

var seqBatch = app.IntRange{Lo: 1, Hi: 1_000_000, What: "samples"}

func (f *sequentialFlags) bind(fs *flag.FlagSet) {
	fs.BoolVar(&f.on, "sequential", false, "judge the samples in batches and stop once every gated metric is decided, with anytime-valid statistics (see docs/statistics.md); also sequential: in the thresholds file")
	intVar(fs, &f.batch, "sequential-batch", &seqBatch, "with --sequential, judge this many `samples` between two looks (default 5% of the samples, 20 to 500)")
	fs.Func("sequential-seed", "with --sequential, the `seed` (an unsigned integer) of the order of the samples whose inputs changed (default: drawn from the dataset's hash)", func(v string) error {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("want an unsigned integer, got %q", v)
		}
		f.seed = &n
		return nil
	})
}

// config is the sequential configuration the flags ask for (nil: none;
// the thresholds file may still ask for one). --sequential-batch and
// --sequential-seed alone tune the thresholds file's sequential: key.
func (f *sequentialFlags) config() *app.SequentialConfig {
	if !f.on && f.batch == 0 && f.seed == nil {
		return nil
	}
	return &app.SequentialConfig{On: f.on, Batch: f.batch, Seed: f.seed}
}
