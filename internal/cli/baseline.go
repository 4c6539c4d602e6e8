package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
)

// baselineFlags are the flags of `gate baseline get|put`.
type baselineFlags struct {
	store, path, ref, repo, branch, sha, name, storeBranch, results, out string
}

func (b *baselineFlags) bind(fs *flag.FlagSet, put bool) {
	fs.StringVar(&b.store, "store", "branch", "baseline `store`: branch (GitHub API), git (git show, read-only) or file")
	fs.StringVar(&b.path, "path", "", "results `file` of the file store, or path in the repository for the git store")
	fs.StringVar(&b.ref, "ref", "", "git store: the only `ref` to read (default: --sha, then origin/BRANCH, then BRANCH)")
	fs.StringVar(&b.repo, "repo", "", "branch store: `owner/name` (default $GITHUB_REPOSITORY)")
	fs.StringVar(&b.branch, "branch", "main", "the `branch` the baseline belongs to")
	fs.StringVar(&b.sha, "sha", "", "the `commit` (get: start from it and walk its ancestors; put: the commit the results are for)")
	fs.StringVar(&b.name, "name", "", "gate `name`, for several baseline series in one repository")
	fs.StringVar(&b.storeBranch, "store-branch", baseline.DefaultBranch, "branch store: the `branch` holding baselines")
	if put {
		fs.StringVar(&b.results, "results", "", "results `file` to store (required)")
	} else {
		fs.StringVar(&b.out, "out", "", "write the baseline to this `file` (default stdout)")
	}
}

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
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if err := b.validate(env, put); err != nil {
		return err
	}
	store, err := b.open(env)
	if err != nil {
		return err
	}
	key := baseline.Key{Branch: b.branch, SHA: b.sha, Name: b.name}
	if put {
		f, err := results.Read(env.abs(b.results))
		if err != nil {
			return withCode(ExitUsage, inputErr("--results", err))
		}
		if err := storable("baseline put", f, b.results); err != nil {
			return err
		}
		if key.SHA == "" && f.Git != nil {
			key.SHA = f.Git.SHA
		}
		if err := store.Put(ctx, key, f); err != nil {
			return fmt.Errorf("store the baseline: %w", err)
		}
		fmt.Fprintf(env.Stderr, "stored the baseline of %s\n", at(key.Branch, key.SHA))
		return nil
	}
	f, src, err := store.Get(ctx, key)
	if err != nil {
		return baselineErr("read the baseline", err)
	}
	fmt.Fprintf(env.Stderr, "baseline: %s\n", src.String())
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
	var in []namedPath
	if b.store == "file" && b.path != "" {
		in = append(in, namedPath{"path", b.path})
	}
	return joinProblems(outputProblems(env, in, []namedPath{{"out", b.out}}), flagName)
}

// storable refuses results that cannot stand for a branch (exit 2): an
// incomplete run, one shard, no scored sample or value, or more samples
// unscored than the run's own limits allow. cmd names the command.
func storable(cmd string, f *results.File, path string) error {
	const fix = "re-run `gate run` to completion and store that file"
	switch {
	case f.Incomplete != "":
		return usageErr("%s: %s is an incomplete run (%s); a baseline must be complete: %s", cmd, path, f.Incomplete, fix)
	case len(f.Samples) == 0:
		return usageErr("%s: %s has no scored samples; %s", cmd, path, fix)
	case f.Shard != "":
		return usageErr("%s: %s holds only shard %s; merge the shards with `gate merge` and store the merged file", cmd, path, f.Shard)
	}
	if n, top := f.Scored(); n == 0 {
		return usageErr("%s: %s has no scored value: every score of its %d samples is undefined (most often: %s); "+
			"a baseline with nothing to compare would let every change pass: fix what failed (target, judge or dataset) and store a run that scored", cmd, path, len(f.Samples), top)
	}
	if msg := beyondLimits(f); msg != "" {
		return usageErr("%s: %s: %s; a baseline is held to its run's own limits: fix what failed and store a run within them", cmd, path, msg)
	}
	return nil
}

// beyondLimits says how f left more samples unscored than its run allowed
// (the limits it records; the defaults of gate run for a file that
// records none): by failed target calls, or by the judge. "" when within.
func beyondLimits(f *results.File) string {
	def := defaultOptions()
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
	if msg := scoredByJudge(f, judge.Info{Provider: f.Judge.Provider}).TooManyUndefined(maxUndefined); msg != "" {
		return fmt.Sprintf("%s; the run's --max-undefined was %g", msg, maxUndefined)
	}
	return ""
}

func (b *baselineFlags) open(env Env) (baseline.Store, error) {
	switch b.store {
	case "file":
		if b.path == "" {
			return nil, usageErr("--store file needs --path")
		}
		return &baseline.FileStore{Path: env.abs(b.path), Texts: results.AllTexts}, nil
	case "git":
		if b.path == "" {
			return nil, usageErr("--store git needs --path (the results file in the repository)")
		}
		return &baseline.GitStore{Dir: env.Dir, Path: b.path, Ref: b.ref, Texts: results.AllTexts}, nil
	case "branch":
		repo := b.repo
		if repo == "" {
			repo = env.getenv("GITHUB_REPOSITORY")
		}
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || owner == "" || name == "" {
			return nil, usageErr("--store branch needs --repo owner/name (or $GITHUB_REPOSITORY)")
		}
		token := env.getenv("GITHUB_TOKEN")
		if token == "" {
			return nil, usageErr("--store branch needs a token in $GITHUB_TOKEN")
		}
		c, err := ghapi.NewClient(token, env.getenv("GITHUB_API_URL"), nil, env.githubOptions()...)
		if err != nil {
			return nil, withCode(ExitUsage, err)
		}
		return &baseline.BranchStore{Client: c, Owner: owner, Repo: name, Branch: b.storeBranch, Texts: results.AllTexts, Logf: env.logf}, nil
	}
	return nil, usageErr("--store %q: want branch, git or file", b.store)
}
