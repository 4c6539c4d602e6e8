package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/ghaction"
	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/suggest"
	"github.com/raggate/raggate/internal/usermetric"
	"github.com/raggate/raggate/metrics"
)

// loadUserMetrics reads --metrics-file from the checkout, before the
// dataset and any judge call: a bad definition is exit 2 with its line.
func (o *Options) loadUserMetrics(env Env) error {
	if o.MetricsFile == "" {
		return nil
	}
	defs, err := usermetric.LoadFile(env.abs(o.MetricsFile))
	if err != nil {
		return withCode(ExitUsage, inputErr("--metrics-file", err))
	}
	o.userDefs = defs
	return nil
}

// userMetrics returns the catalogue entries of the loaded definitions.
// With a target, the target metrics are among them (userDefinitions).
func (o *Options) userMetrics() []metrics.Metric { return usermetric.Metrics(o.userDefinitions()) }

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
	for i := range ds.Samples {
		for k := range ds.Samples[i].Metadata {
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

// userMetricsAt reads the metrics file as it is at commit sha, through the
// API, like the thresholds: a change under review must not redefine the
// yardstick it is measured with. A file that does not exist there yet
// means no user-defined metrics, with a warning.
func (a *actionRun) userMetricsAt(ctx context.Context, sha string) error {
	c, err := a.github()
	if err != nil {
		return withCode(ExitUsage, err)
	}
	path := a.repoPath(a.o.MetricsFile)
	text, err := ghapi.ReadFileAt(ctx, c, a.gh.Owner, a.gh.Repo, sha, path)
	if errors.Is(err, ghapi.ErrNotFound) {
		a.act.Warning(fmt.Sprintf("metrics file %s does not exist on the base commit %s; no user-defined metrics until it lands there (the PR's own copy is not trusted)", path, short(sha)), ghaction.Annotation{Title: "raggate"})
		return nil
	}
	if err != nil {
		return fmt.Errorf("metrics file at the base commit: %w", err)
	}
	defs, err := usermetric.Parse(path+"@"+short(sha), text)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	a.o.userDefs = defs
	return nil
}

// userMetrics loads the action's metrics file: from the base commit for a
// change under review, else from the checkout.
func (a *actionRun) userMetrics(ctx context.Context) error {
	if a.o.MetricsFile == "" {
		return nil
	}
	if _, sha := a.gh.Base(); sha != "" {
		return a.userMetricsAt(ctx, sha)
	}
	return a.o.loadUserMetrics(a.env)
}
