package app

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// GetBaseline is the baseline get use case: it reads the baseline of key
// from the store c names and says where it came from.
func GetBaseline(ctx context.Context, env Env, c StoreConfig, key baseline.Key) (*results.File, string, error) {
	store, err := OpenStore(env, c)
	if err != nil {
		return nil, "", err
	}
	f, src, err := store.Get(ctx, key)
	if err != nil {
		return nil, "", BaselineErr("read the baseline", err)
	}
	return f, src.String(), nil
}

// PutBaseline is the baseline put use case: it stores the results file
// path (or another evaluator's scores file, imported: see ReadScores,
// format forcing its format) as the baseline of key (its commit, when key
// has none, from the file) in the store c names, if it can stand for a
// branch under the thresholds file thresholds ("" = the built-in ones; see
// Storable) and, for an imported file, the limits given (a results file
// keeps its run's own). cmd names the command in errors. It returns the
// key stored.
func PutBaseline(ctx context.Context, env Env, c StoreConfig, key baseline.Key, path, format, thresholds string, limits UnscoredLimits, cmd string) (baseline.Key, error) {
	// A results file is read by columns: its samples, texts included, are
	// read back one at a time as the store writes them.
	t, f, got, err := ReadScoresTable(env, path, format, "--results")
	if err != nil {
		return key, err
	}
	if f == nil {
		f = t.WholeFile()
	}
	if got != "" {
		limits.Record(f)
	}
	g := BaselineGate{Flag: "--thresholds"}
	if g.Thresholds, err = LoadThresholds(env, thresholds, filesMetrics(f)...); err != nil {
		return key, err
	}
	if thresholds != "" {
		g.From = "thresholds " + thresholds
	}
	// Refused before the store is opened: no call for a file that cannot
	// be stored.
	if err := Storable(cmd, f, path, g); err != nil {
		return key, err
	}
	store, err := OpenStore(env, c)
	if err != nil {
		return key, err
	}
	return PutResults(ctx, store, key, f, g, path, cmd)
}

// UnscoredLimits are the shares of samples a run may leave unscored: by failed
// target calls (--max-target-failures) and by the judge
// (--max-undefined). An imported scores file records the limits given
// with it, as a run records its own, so that a baseline is held to them.
type UnscoredLimits struct {
	MaxTargetFailures, MaxUndefined float64
}

// DefaultUnscoredLimits are gate run's defaults.
func DefaultUnscoredLimits() UnscoredLimits {
	def := DefaultRunConfig()
	return UnscoredLimits{MaxTargetFailures: def.Target.MaxFailures, MaxUndefined: def.MaxUndefined}
}

// Record writes the limits into f's configuration.
func (l UnscoredLimits) Record(f *results.File) {
	target, undef := l.MaxTargetFailures, l.MaxUndefined
	f.Config.MaxTargetFailures, f.Config.MaxUndefined = &target, &undef
}

// BaselineGate is what a baseline is held to besides its own run: the
// thresholds of the checks that will compare with it.
type BaselineGate struct {
	Thresholds compare.Thresholds
	// From names the thresholds in messages ("thresholds t.yaml"); ""
	// for the built-in ones.
	From string
	// Flag is how the user gives thresholds: "--thresholds", "the
	// thresholds input".
	Flag string
}

// PutResults is PutBaseline with the store opened and the results in
// hand (the action stores the run it just made): f, read from path, is
// stored as the baseline of key if it can stand for a branch (Storable).
func PutResults(ctx context.Context, store baseline.Store, key baseline.Key, f *results.File, g BaselineGate, path, cmd string) (baseline.Key, error) {
	if err := Storable(cmd, f, path, g); err != nil {
		return key, err
	}
	if key.SHA == "" && f.Git != nil {
		key.SHA = f.Git.SHA
	}
	if err := store.Put(ctx, key, f); err != nil {
		return key, fmt.Errorf("store the baseline: %w", err)
	}
	return key, nil
}

// History is the history use case: the trend of the newest last stored
// baselines of key's branch, from the store c names.
func History(ctx context.Context, env Env, c StoreConfig, key baseline.Key, last int) (*report.History, error) {
	h, err := OpenHistorian(env, c)
	if err != nil {
		return nil, err
	}
	entries, err := h.History(ctx, key, last)
	if err != nil {
		return nil, BaselineErr("read the history", err)
	}
	return HistoryOf(key.Branch, entries), nil
}

// Storable refuses results that cannot stand for a branch (a usage
// error): an incomplete run, one shard, no scored sample or value, a
// value of none of the metrics g gates (every later check would compare
// nothing that can fail), or more samples unscored than the run's own
// limits allow. cmd names the command.
func Storable(cmd string, f *results.File, path string, g BaselineGate) error {
	const fix = "re-run `gate run` to completion and store that file"
	switch {
	case f.Incomplete != "":
		return usageErr("%s: %s is an incomplete run (%s); a baseline must be complete: %s", cmd, path, f.Incomplete, fix)
	case f.Len() == 0:
		return usageErr("%s: %s has no scored samples; %s", cmd, path, fix)
	case f.Shard != "":
		return usageErr("%s: %s holds only shard %s; merge the shards with `gate merge` and store the merged file", cmd, path, f.Shard)
	case f.Config.Sequential != nil && f.Config.Sequential.Judged < f.Config.Sequential.Total:
		q := f.Config.Sequential
		return usageErr("%s: %s is a sequential check that judged %d of its %d samples; a baseline must be complete: %s", cmd, path, q.Judged, q.Total, fix)
	}
	if n, top := f.Scored(); n == 0 {
		why := ""
		if top != "" {
			why = " (most often: " + top + ")"
		}
		return usageErr("%s: %s has no scored value: every score of its %d samples is undefined%s; "+
			"a baseline with nothing to compare would let every change pass: fix what failed (target, judge or dataset) and store a run that scored", cmd, path, f.Len(), why)
	}
	if msg := nothingGated(f, g); msg != "" {
		return usageErr("%s: %s %s", cmd, path, msg)
	}
	if msg := beyondLimits(f); msg != "" {
		return usageErr("%s: %s: %s; a baseline is held to its run's own limits: fix what failed and store a run within them", cmd, path, msg)
	}
	return nil
}

// nothingGated says how f scores none of the metrics g gates, "" when it
// scores one (or g gates nothing: then no baseline could fail the gate).
func nothingGated(f *results.File, g BaselineGate) string {
	gated := g.Thresholds.GatedNames()
	if len(gated) == 0 {
		return ""
	}
	scored := map[string]bool{}
	gates := false
	err := f.Each(func(_ int, s *results.Sample) error {
		for m, v := range s.Scores {
			if !v.IsNaN() {
				scored[compare.CanonicalMetric(m)] = true
				// A user-defined metric is gated too (as a comparison
				// gates it), unless report_only lists it.
				if cm, known := f.Metric(m); g.Thresholds.GatedMetric(compare.CanonicalMetric(m), cm, known) {
					gates = true
					return errStop
				}
			}
		}
		return nil
	})
	if gates || (err != nil && err != errStop) {
		return "" // a sample that cannot be read back: the store's write says so
	}
	names := make([]string, 0, len(scored))
	for m := range scored {
		names = append(names, m)
	}
	sort.Strings(names)
	from := g.From
	if from == "" {
		from = "the built-in thresholds"
	}
	return fmt.Sprintf("scores none of the metrics the gate checks (%s; %s): it scores only %s; "+
		"a baseline without them would let every change pass: store a run that scores them (gate run --metrics), "+
		"or give the thresholds that gate its metrics with %s", strings.Join(gated, ", "), from, strings.Join(names, ", "), g.Flag)
}

// errStop ends a File.Each early.
var errStop = errors.New("stop")

// beyondLimits says how f left more samples unscored than its run allowed
// (the limits it records; the defaults of gate run for a file that
// records none): by failed target calls, or by the judge. "" when within.
func beyondLimits(f *results.File) string {
	def := DefaultRunConfig()
	maxTarget, maxUndefined := def.Target.MaxFailures, def.MaxUndefined
	if f.Config.MaxTargetFailures != nil {
		maxTarget = *f.Config.MaxTargetFailures
	}
	if f.Config.MaxUndefined != nil {
		maxUndefined = *f.Config.MaxUndefined
	}
	if msg := tooManyTargetFailures(f, maxTarget); msg != "" {
		return msg
	}
	if msg := scoredByJudge(f, backendOf(f.Judge.Provider)).TooManyUndefined(maxUndefined); msg != "" {
		return fmt.Sprintf("%s; the run's --max-undefined was %g", msg, maxUndefined)
	}
	return ""
}

// At names a branch's commit, "main@1a2b3c4", or the branch alone when the
// commit is unknown.
func At(branch, sha string) string {
	if sha == "" {
		return branch
	}
	return branch + "@" + Short(sha)
}

// Short is a commit's short form.
func Short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
