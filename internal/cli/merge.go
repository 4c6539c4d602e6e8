package cli

import (
	"context"
	"fmt"

	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// mergeCmd combines the results of `gate run --shard i/n` jobs (e.g. a
// GitHub Actions matrix) into one results file.
func mergeCmd(_ context.Context, env Env, args []string) error {
	o := defaultOptions()
	fs := newFlagSet("merge", env, "--out results.json SHARD.json...")
	fs.StringVar(&o.Out, "out", o.Out, "merged results `file` to write")
	fs.BoolVar(&o.Quiet, "quiet", false, "no table on stdout")
	if err := fs.Parse(args); err != nil {
		return withCode(ExitUsage, err)
	}
	if fs.NArg() == 0 {
		return usageErr("merge: give the results files of every shard, e.g. gate merge --out results.json shard-*.json")
	}
	if err := joinProblems(o.problems("merge"), flagName); err != nil {
		return err
	}
	var shards []namedPath
	for _, p := range fs.Args() {
		shards = append(shards, namedPath{"input", p})
	}
	if err := joinProblems(outputProblems(env, shards, []namedPath{{"out", o.Out}}), mergeName); err != nil {
		return err
	}
	var files []*results.File
	for _, p := range fs.Args() {
		f, err := results.Read(env.abs(p))
		if err != nil {
			return withCode(ExitUsage, inputErr("merge input", err))
		}
		files = append(files, f)
	}
	merged, err := results.Merge(files)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if err := results.Write(env.abs(o.Out), merged); err != nil {
		return err
	}
	if !o.Quiet {
		if err := report.RunTable(env.Stdout, merged); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stderr, "merged %d shards, %d samples, into %s\n", len(files), len(merged.Samples), o.Out)
	if merged.Incomplete != "" {
		return fmt.Errorf("some shards are incomplete: %s", merged.Incomplete)
	}
	return nil
}

// mergeName names merge's options: its inputs are arguments, not flags.
var mergeName = namer{func(key string) string {
	if key == "input" {
		return "the input"
	}
	return flagName.name(key)
}, " "}
