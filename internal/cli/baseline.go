package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/results"
)

// baselineFlags are the flags of `gate baseline get|put`.
type baselineFlags struct {
	store, path, ref, repo, branch, sha, name, storeBranch, results, thresholds, out string
	scoresFormat                                                                     string
	limits                                                                           app.UnscoredLimits
}

func (b *baselineFlags) bind(fs *flag.FlagSet, put bool) {
	b.store = "branch"
	enumVar(fs, &b.store, "store", &baselineStores, "baseline `store`: branch (GitHub API), git (git show, read-only) or file")
	fs.StringVar(&b.path, "path", "", "results `file` of the file store, or path in the repository for the git store")
	fs.StringVar(&b.ref, "ref", "", "git store: the only `ref` to read (default: --sha, then origin/BRANCH, then BRANCH)")
	fs.StringVar(&b.repo, "repo", "", "branch store: `owner/name` (default $GITHUB_REPOSITORY)")
	fs.StringVar(&b.branch, "branch", "main", "the `branch` the baseline belongs to")
	fs.StringVar(&b.sha, "sha", "", "the `commit` (get: start from it and walk its ancestors; put: the commit the results are for)")
	fs.StringVar(&b.name, "name", "", "gate `name`, for several baseline series in one repository")
	fs.StringVar(&b.storeBranch, "store-branch", baseline.DefaultBranch, "branch store: the `branch` holding baselines")
	if put {
		fs.StringVar(&b.results, "results", "", "results `file` to store (required), or another evaluator's scores file (Ragas, promptfoo, DeepEval, table), imported")
		enumVar(fs, &b.scoresFormat, "scores-format", &app.ScoresFormats, "force the `format` of a scores file: ragas, promptfoo, deepeval or table (default: sniffed)")
		fs.StringVar(&b.thresholds, "thresholds", "", "thresholds `file` of the checks that will use the baseline: it must score a metric they gate; default: built-in defaults")
		b.limits = app.DefaultUnscoredLimits()
		shareVar(fs, &b.limits.MaxUndefined, "max-undefined", "an imported scores file: refuse it when a metric is undefined on more than this `share` of its samples (0 to 1; a results file keeps its run's limit)")
		shareVar(fs, &b.limits.MaxTargetFailures, "max-target-failures", "an imported scores file: refuse it when the target call failed for more than this `share` of its samples (0 to 1; a results file keeps its run's limit)")
	} else {
		fs.StringVar(&b.out, "out", "", "write the baseline to this `file` (default stdout)")
	}
}

// baselineStores are the values of --store.
var baselineStores = app.Enum{Values: []string{"branch", "git", "file"}, Want: "branch, git or file"}

// baselineCmd reads or writes a stored baseline: `gate baseline get` and
// `gate baseline put`.
func baselineCmd(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || (args[0] != "get" && args[0] != "put") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprintln(env.Stderr, "Usage: gate baseline get|put [flags]; see 'gate baseline get -h'")
			return flag.ErrHelp
		}
		return usageErr("baseline: want a subcommand, get or put, e.g. gate baseline get --store branch --branch main --out base.json")
	}
	put := args[0] == "put"
	var b baselineFlags
	fs := newFlagSet("baseline "+args[0], env, "[--store branch|git|file] [flags]")
	b.bind(fs, put)
	if err := parseFlags(env, fs, args[1:]); err != nil {
		return err
	}
	if err := b.validate(env, put); err != nil {
		return err
	}
	sc, err := b.storeConfig(env)
	if err != nil {
		return err
	}
	key := baseline.Key{Branch: b.branch, SHA: b.sha, Name: b.name}
	if put {
		key, err := app.PutBaseline(ctx, env.app(), sc, key, b.results, b.scoresFormat, b.thresholds, b.limits, "baseline put")
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "stored the baseline of %s\n", app.At(key.Branch, key.SHA))
		return nil
	}
	f, src, err := app.GetBaseline(ctx, env.app(), sc, key)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "baseline: %s\n", src)
	data, err := results.Marshal(f)
	if err != nil {
		return err
	}
	return writeOut(env, b.out, data)
}

// writeOut writes data to the file path atomically, or to stdout when path
// is empty.
func writeOut(env Env, path string, data []byte) error {
	if path == "" {
		_, err := env.Stdout.Write(data)
		return err
	}
	return results.WriteFileAtomic(env.abs(path), data, 0o644)
}

// validate checks the flags before any store is opened: put needs
// --results, and get's --out must be writable and must not be the file
// store's own file.
func (b *baselineFlags) validate(env Env, put bool) error {
	if put {
		if b.results == "" {
			return usageErr("baseline put: --results is required")
		}
		return nil
	}
	if b.out == "" {
		return nil
	}
	var in []app.NamedPath
	if b.store == "file" && b.path != "" {
		in = append(in, app.NamedPath{Key: "path", Path: b.path})
	}
	return app.JoinProblems(app.OutputProblems(env.app(), in, []app.NamedPath{{Key: "out", Path: b.out}}), app.FlagNames)
}

// storeConfig checks the store flags and names the store they ask for:
// every store reads the samples' texts (a baseline is copied whole).
func (b *baselineFlags) storeConfig(env Env) (app.StoreConfig, error) {
	c := app.StoreConfig{Kind: b.store, Path: b.path, Ref: b.ref, Branch: b.storeBranch, Texts: results.AllTexts}
	switch b.store {
	case "file":
		if b.path == "" {
			return c, usageErr("--store file needs --path")
		}
	case "git":
		if b.path == "" {
			return c, usageErr("--store git needs --path (the results file in the repository)")
		}
	case "branch":
		repo := b.repo
		if repo == "" {
			repo = env.getenv("GITHUB_REPOSITORY")
		}
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || owner == "" || name == "" {
			return c, usageErr("--store branch needs --repo owner/name (or $GITHUB_REPOSITORY)")
		}
		c.Owner, c.Repo = owner, name
		c.Token, c.APIURL = env.getenv("GITHUB_TOKEN"), env.getenv("GITHUB_API_URL")
		if c.Token == "" {
			return c, usageErr("--store branch needs a token in $GITHUB_TOKEN")
		}
	}
	return c, nil
}
