package cli

import (
	"context"
	"fmt"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/report"
)

// mergeCmd combines the results of `gate run --shard i/n` jobs (e.g. a
// GitHub Actions matrix) into one results file.
func mergeCmd(_ context.Context, env Env, args []string) error {
	o := defaultOptions()
	fs := newFlagSet("merge", env, "--out results.json SHARD.json...")
	fs.StringVar(&o.Out, "out", o.Out, "merged results `file` to write")
	fs.BoolVar(&o.Quiet, "quiet", false, "no table on stdout")
	if err := parseFlagsArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErr("merge: give the results files of every shard, e.g. gate merge --out results.json shard-*.json")
	}
	if err := app.JoinProblems(o.Problems("merge"), app.FlagNames); err != nil {
		return err
	}
	var shards []app.NamedPath
	for _, p := range fs.Args() {
		shards = append(shards, app.NamedPath{Key: "input", Path: p})
	}
	if err := app.JoinProblems(app.OutputProblems(env.app(), shards, []app.NamedPath{{Key: "out", Path: o.Out}}), mergeName); err != nil {
		return err
	}
	merged, err := app.Merge(env.app(), fs.Args(), o.Out)
	if merged == nil {
		return err
	}
	if !o.Quiet {
		if err := report.RunTable(env.Stdout, merged); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stderr, "merged %d shards, %d samples, into %s\n", fs.NArg(), merged.Len(), o.Out)
	return err
}

// mergeName names merge's options: its inputs are arguments, not flags.
var mergeName = app.Namer{Name: func(key string) string {
	if key == "input" {
		return "the input"
	}
	return app.FlagNames.Name(key)
}, ValueSep: " "}
