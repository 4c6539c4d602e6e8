package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/importer"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// CompareConfig is the configuration of the compare use case.
type CompareConfig struct {
	Base       string   // base results file ("" = none: floors only)
	Head       string   // head results file
	Thresholds string   // thresholds file ("" = built-in defaults)
	SegmentBy  []string // segment keys added to the thresholds'
	History    string   // directory of earlier results files for the trend
	// ScoresFormat forces the format of Base and Head when they are other
	// evaluators' scores files ("" sniffs each; see ReadScores).
	ScoresFormat string
}

// Comparison is the outcome of a comparison: the report (findings
// worded), the two sides (by columns: scores only), the trend and where
// the baseline came from.
type Comparison struct {
	Report *compare.Report
	// Base is nil without a baseline.
	Base, Head *results.Table
	Trend      *report.History
	Source     string
	// HTML are the sides of an HTML report of this comparison.
	HTML HTMLSides
	// Estimate is set instead of a report after a dry run (check).
	Estimate *Estimate
}

// Compare is the compare use case: it reads two results files and the
// thresholds and compares them.
func Compare(ctx context.Context, env Env, c CompareConfig) (*Comparison, error) {
	head, headWhole, headFormat, err := ReadScoresTable(env, c.Head, c.ScoresFormat, "--head")
	if err != nil {
		return nil, err
	}
	var base *results.Table
	var baseWhole *results.File
	var baseFormat importer.Format
	if c.Base != "" {
		if base, baseWhole, baseFormat, err = ReadScoresTable(env, c.Base, c.ScoresFormat, "--base"); err != nil {
			return nil, err
		}
		if err := refusePartialBase(base.File, c.Base); err != nil {
			return nil, err
		}
	}
	// The thresholds may name the user-defined metrics the results files
	// were judged with.
	th, err := LoadThresholds(env, c.Thresholds, filesMetrics(head.File, headerOf(base))...)
	if err != nil {
		return nil, err
	}
	trend, err := ReadTrend(ctx, env, c.History)
	if err != nil {
		return nil, err
	}
	if th, err = WithSegments(th, c.SegmentBy); err != nil {
		return nil, err
	}
	rep, err := CompareTablesRedacted(env, base, head, th)
	if err != nil {
		return nil, err
	}
	out := &Comparison{Report: rep, Base: base, Head: head, Trend: trend}
	out.HTML = HTMLSides{Base: base, Head: head, HeadPath: env.abs(c.Head)}
	if headFormat != "" {
		out.HTML.HeadWhole = headWhole // imported: its texts are in memory
	}
	if c.Base != "" {
		out.HTML.Reread = func(_ context.Context, keep func(string) bool) (*results.File, error) {
			if baseFormat != "" {
				return baseWhole, nil // imported whole
			}
			return results.ReadWith(env.abs(c.Base), results.ReadOptions{Texts: keep, Only: true})
		}
	}
	return out, nil
}

// headerOf is t's header (nil for a nil table).
func headerOf(t *results.Table) *results.File {
	if t == nil {
		return nil
	}
	return t.File
}

// CheckConfig is the configuration of the check use case: a run, then a
// comparison with the baseline.
type CheckConfig struct {
	Run        RunConfig
	Thresholds string
	SegmentBy  []string
	History    string
	// Store is the baseline store (nil: no baseline, floors only).
	Store *StoreConfig
	// Key is the baseline's key in the store (zero: the store's own).
	Key baseline.Key
	// Sources read the thresholds, the store and the baseline a front
	// end's own way (the action reads them at a change's base commit).
	Sources CheckSources
	// Sequential, when set, judges in batches and stops once every gated
	// metric is decided (gate check --sequential, or sequential: in the
	// thresholds file). Without a baseline every sample is judged.
	Sequential *SequentialConfig
	// Scores, when set, are the head: checked as they are, with no
	// dataset, judge or run; Run.Out, when set, receives them as a
	// results file.
	Scores *Scores
}

// Scores are the scores of a file read by ReadScores.
type Scores struct {
	File *results.File
	Path string
	// Format is the format imported ("" for a raggate results file).
	Format importer.Format
	// Model is the evaluation model given for scores files that name
	// none (--model): a baseline that is a scores file is read with it.
	Model string
}

// head returns the scores' file (nil without scores).
func (s *Scores) head() *results.File {
	if s == nil {
		return nil
	}
	return s.File
}

// CheckSources are a front end's readers of the inputs of a check; each
// nil field keeps the default.
type CheckSources struct {
	// Thresholds reads the thresholds instead of the file Thresholds.
	Thresholds func(ctx context.Context) (compare.Thresholds, error)
	// Store opens the baseline store instead of Store (nil store: none).
	Store func() (baseline.Store, error)
	// Baseline reads the baseline of key from store, by columns (see
	// baseline.GetTable), and says where it came from; a nil table is no
	// baseline (floors only). It is called twice when there is one
	// (before judging, to check it, and for the comparison), once when
	// there is none.
	Baseline func(ctx context.Context, store baseline.Store, key baseline.Key) (*results.Table, string, error)
}

// Check is the check use case: it reads the thresholds and the baseline
// (before any judge call: a broken baseline is cheaper to learn about
// first), runs, and compares the run with the baseline. After a dry run
// the result holds the estimate only.
func Check(ctx context.Context, env Env, c CheckConfig) (*Comparison, error) {
	th, err := c.thresholds(ctx, env)
	if err != nil {
		return nil, err
	}
	store, err := c.store(env)
	if err != nil {
		return nil, err
	}
	if th, err = WithSegments(th, c.SegmentBy); err != nil {
		return nil, err
	}
	if c.Scores == nil {
		c.Run.SegmentKeys = th.Segments
	}
	get := c.Sources.Baseline
	if get == nil {
		get = func(ctx context.Context, store baseline.Store, key baseline.Key) (*results.Table, string, error) {
			return getBaseline(ctx, env, store, key)
		}
	}
	seq, err := sequentialOf(c, th)
	if err != nil {
		return nil, err
	}
	if seq != nil {
		if err := checkSequential(c.Run); err != nil {
			return nil, err
		}
		return checkSequentially(ctx, env, c, th, store, get, *seq)
	}
	// Read the baseline, then let go of it while judging and read it
	// again for the comparison.
	reread, src, err := probeBaseline(ctx, get, store, c.Key)
	if err != nil {
		return nil, err
	}
	trend, err := ReadTrend(ctx, env, c.History)
	if err != nil {
		return nil, err
	}
	var head *results.File
	var headPath string
	if c.Scores != nil {
		head, headPath = c.Scores.File, c.Scores.Path
		imported := c.Scores.Format != ""
		if imported {
			// As a run records its limits, so that baseline put holds the
			// file to them.
			limit, undef := c.Run.Target.MaxFailures, c.Run.MaxUndefined
			head.Config.MaxTargetFailures, head.Config.MaxUndefined = &limit, &undef
		}
		if c.Run.Out != "" {
			if err := results.Write(env.abs(c.Run.Out), head); err != nil {
				return nil, fmt.Errorf("write %s: %w", c.Run.Out, err)
			}
			headPath = c.Run.Out
		}
		if imported {
			if err := scoresTargetFailures(head, c.Run); err != nil {
				return nil, err
			}
		}
	} else {
		// The run's samples stay on disk: the comparison reads their
		// scores by columns, and the few a report lists back.
		res, err := RunOnDisk(ctx, env, c.Run)
		if err != nil {
			return nil, err
		}
		defer res.Close()
		if res.File == nil {
			return &Comparison{Estimate: res.Estimate}, nil
		}
		head, headPath = res.File, c.Run.Out
	}
	var base *results.Table
	if reread {
		if base, src, err = get(ctx, store, c.Key); err != nil {
			return nil, err
		}
	}
	ht := results.TableOf(head)
	rep, err := CompareTablesRedacted(env, base, ht, th)
	if err != nil {
		return nil, err
	}
	out := &Comparison{Report: rep, Base: base, Head: ht, Trend: trend, Source: src}
	// The HTML pass reads the samples it lists from the results file
	// written (a run's samples on disk go with it: Close).
	out.HTML = HTMLSides{Base: base, Head: ht, HeadPath: env.abs(headPath)}
	if c.Scores != nil && c.Scores.Format != "" && headPath == c.Scores.Path {
		out.HTML.HeadWhole = head // imported whole, texts in memory
	}
	if base != nil {
		out.HTML.Reread = RereadFrom(store, c.Key)
	}
	return out, nil
}

// scoresTargetFailures holds an imported file to the run's limits, as a
// run is: its undefined scores (kind judge) to --max-undefined, its
// failed pipeline calls (promptfoo's provider errors: kind target) to
// --max-target-failures; exit 3 over either.
func scoresTargetFailures(head *results.File, run RunConfig) error {
	saved := "nothing was compared"
	if run.Out != "" {
		saved = "the scores are saved in " + run.Out + ", nothing was compared"
	}
	// The evaluator's own failures (undefined scores of kind judge: NaN
	// cells, DeepEval errors) are held to --max-undefined, as a native
	// judge's are.
	if msg := head.TooManyUndefined(run.MaxUndefined); msg != "" {
		return asOperational(fmt.Errorf("%s; %s (the evaluator left these scores undefined: fix its run and evaluate again, or raise --max-undefined (the action's input max-undefined) to accept this)", msg, saved))
	}
	msg := tooManyTargetFailures(head, run.Target.MaxFailures)
	if msg == "" {
		return nil
	}
	return asOperational(fmt.Errorf("%s; %s (the failed calls' scores are undefined, kind target: fix the pipeline's calls and evaluate again, or raise --max-target-failures (the action's input max-target-failures) to accept this)", msg, saved))
}

// thresholds reads the thresholds of a check, which may name the
// user-defined metrics of the run or of the scores checked.
func (c *CheckConfig) thresholds(ctx context.Context, env Env) (compare.Thresholds, error) {
	if c.Sources.Thresholds != nil {
		return c.Sources.Thresholds(ctx)
	}
	return LoadThresholds(env, c.Thresholds, append(c.Run.UserMetrics(), filesMetrics(c.Scores.head())...)...)
}

// store opens the baseline store of a check (nil: none).
func (c *CheckConfig) store(env Env) (baseline.Store, error) {
	switch {
	case c.Sources.Store != nil:
		return c.Sources.Store()
	case c.Store != nil:
		st, err := OpenStore(env, *c.Store)
		if fs, ok := st.(*baseline.FileStore); ok && err == nil && isScoresFile(fs.Path) {
			model := ""
			if c.Scores != nil {
				model = c.Scores.Model
			}
			return &scoresStore{env: env, path: c.Store.Path, model: model}, nil
		}
		return st, err
	}
	return nil, nil
}

// scoresStore is a baseline file that is another evaluator's scores
// file: read by importing it, as compare --base and baseline put read
// one.
type scoresStore struct {
	env   Env
	path  string // as given
	model string // the evaluation model when the file names none
}

func (s *scoresStore) Get(ctx context.Context, key baseline.Key) (*results.File, baseline.Source, error) {
	if err := ctx.Err(); err != nil {
		return nil, baseline.Source{}, err
	}
	f, _, err := ReadScoresWith(s.env, s.path, "--baseline", ScoresOptions{Model: s.model, Read: results.ReadOptions{Texts: results.AllTexts}})
	if err != nil {
		return nil, baseline.Source{}, err
	}
	return f, baseline.Source{Store: "file", Location: s.env.abs(s.path), Requested: key.SHA}, nil
}

func (s *scoresStore) Put(context.Context, baseline.Key, *results.File) error {
	return usageErr("the baseline %s is another evaluator's scores file: store a baseline in a results file (.json) instead", s.path)
}

// probeBaseline reads the baseline with get to check it and reports
// whether there is one (and, when there is none, where it would have come
// from). It is a function of its own so that nothing of the file outlives
// the call: holding the first read in a local of Check, even one set to
// nil, kept a 40,000-sample baseline reachable from that frame for the
// whole run (measured: about 60 MB live at 40,000 samples). noinline keeps
// it so: inlined, the read would live in Check's frame again.
//
//go:noinline
func probeBaseline(ctx context.Context, get func(context.Context, baseline.Store, baseline.Key) (*results.Table, string, error),
	store baseline.Store, key baseline.Key) (bool, string, error) {
	base, src, err := get(ctx, store, key)
	if base != nil {
		return true, "", err
	}
	return false, src, err
}

// getBaseline reads the baseline by columns; none is not an error
// (floors only).
func getBaseline(ctx context.Context, env Env, store baseline.Store, key baseline.Key) (*results.Table, string, error) {
	if store == nil {
		env.logf("note: no baseline given (--baseline or --baseline-ref): checking floors only")
		return nil, "", nil
	}
	// A comparison says the head's reasons, never the base's: a store
	// that reads the baseline whole lets go of them, and of every other
	// part of the samples the table does not hold.
	t, src, err := baseline.GetTable(ctx, store, key)
	switch {
	case errors.Is(err, baseline.ErrNotFound):
		env.logf("note: %v: no baseline yet, checking floors only", err)
		return nil, "", nil
	case err != nil:
		if _, ok := store.(*scoresStore); ok {
			return nil, "", err // the import's usage error, naming --baseline
		}
		if _, ok := store.(*baseline.FileStore); ok && RefusedInput(err) != nil {
			return nil, "", InputErr("--baseline", err)
		}
		return nil, "", BaselineErr("baseline", err)
	}
	if err := refusePartialBase(t.File, src.String()); err != nil {
		return nil, "", err
	}
	return t, src.String(), nil
}

// LoadThresholds reads a thresholds file that may name the user-defined
// metrics user ("" = the built-in defaults).
func LoadThresholds(env Env, path string, user ...metrics.Metric) (compare.Thresholds, error) {
	if path == "" {
		return compare.DefaultThresholds(), nil
	}
	th, err := compare.LoadThresholdsFor(env.abs(path), user)
	if err != nil {
		return th, asUsage(InputErr("--thresholds", err))
	}
	return th, nil
}

// filesMetrics returns the user-defined metrics of results files (nil
// files skipped), each name once, the first file's definition first.
func filesMetrics(files ...*results.File) []metrics.Metric {
	var out []metrics.Metric
	seen := map[string]bool{}
	for _, f := range files {
		if f == nil {
			continue
		}
		for i := range f.UserMetrics {
			if d := &f.UserMetrics[i]; !seen[d.Name] {
				seen[d.Name] = true
				out = append(out, d.Metric())
			}
		}
	}
	return out
}

// ReadTrend reads the trend of a directory of results files; nil without
// one.
func ReadTrend(ctx context.Context, env Env, dir string) (*report.History, error) {
	if dir == "" {
		return nil, nil
	}
	h, err := OpenHistorian(env, StoreConfig{Kind: StoreDir, Path: dir})
	if err != nil {
		return nil, err
	}
	entries, err := h.History(ctx, baseline.Key{}, baseline.DefaultHistory)
	if err != nil {
		return nil, BaselineErr("--history", err)
	}
	return HistoryOf(dir, entries), nil
}

// HistoryOf computes the history of stored baselines.
func HistoryOf(branch string, entries []baseline.Entry) *report.History {
	files := make([]report.HistoryFile, 0, len(entries))
	for _, e := range entries {
		if q := e.File.Config.Sequential; q != nil && q.Judged < q.Total {
			// A sequential check's mean over the samples it judged is no
			// point of the trend (those judged first are the unchanged).
			continue
		}
		files = append(files, report.HistoryFile{SHA: e.SHA, Date: e.Date, File: e.File})
	}
	return report.NewHistory(branch, files)
}
