// Package cli implements the gate command: flags, validation, help, exit
// codes and printing. The work is done by the use cases of package app;
// `gate action` hands over to package action, the GitHub Action front end.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/redact"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/suggest"
)

// Env is the process environment, injected so tests run in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Clock, when set, replaces real time in the waits between retries of
	// judge and GitHub API calls (tests make the waits instant).
	Clock  Clock
	Getenv func(string) string
	// Environ lists the process environment (nil: os.Environ), which a
	// command target starts from, without the gate's secrets.
	Environ func() []string
	// Dir is the working directory relative paths resolve against ("" = process cwd).
	Dir string

	// newSpill, when set, replaces results.NewSpill (tests make the
	// texts file fail, as a full temporary directory does).
	newSpill func(dir string) (*results.Spill, error)

	// red removes the configured secrets from everything the process
	// writes (set by Main; see withRedaction).
	red *redact.Redactor

	// helpAll makes a command's help list every flag (gate help CMD --all).
	helpAll bool
	// onFlags, when set, sees each command's flags once they are defined
	// (the generated flag reference).
	onFlags func(name string, fs *flag.FlagSet)
}

// app is the environment of the use cases: their log is standard error.
func (e Env) app() app.Env {
	return app.Env{Version: version(), Log: e.Stderr, Getenv: e.Getenv, Environ: e.Environ, Dir: e.Dir,
		Clock: e.Clock, Red: e.red, NewSpill: e.newSpill}
}

// Clock is the time of the waits between retries (see app.Clock).
type Clock = app.Clock

// withRedaction returns env with stdout and stderr redacted, knowing the
// secrets the environment holds before any flag is read. Secrets never
// leave the process: each use case adds the secrets of its configuration
// (app.Env.Protect) before it uses them.
func withRedaction(env Env) Env {
	if env.red != nil {
		return env
	}
	env.red = redact.New(env.getenv("GITHUB_TOKEN"), env.getenv(app.DefaultRunConfig().APIKeyEnv))
	env.Stdout = env.red.Writer(env.Stdout)
	// No line of stderr, which quotes text the gate does not control,
	// can start a workflow command.
	env.Stderr = env.red.Writer(commandGuard(env.Stderr))
	return env
}

// rawStdout is stdout without redaction, for the ::add-mask:: commands
// that tell the runner what to hide.
func (e Env) rawStdout() io.Writer {
	if w, ok := e.Stdout.(*redact.Writer); ok {
		return w.W
	}
	return e.Stdout
}

func (e Env) abs(p string) string { return e.app().Abs(p) }

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

type command struct {
	name  string
	short string
	run   func(ctx context.Context, env Env, args []string) error
}

func commands() []command {
	return []command{
		{"run", "judge a dataset and write a results file", runCmd},
		{"compare", "compare base and head results; exit 1 on regression", compareCmd},
		{"check", "run + compare against a baseline (the main CI job)", checkCmd},
		{"calibrate", "A/A run: judge the same data k times, report judge noise, suggest tolerances", calibrateCmd},
		{"agree", "measure how well the judge agrees with human labels kept in the dataset", agreeCmd},
		{"merge", "combine the results of sharded runs (gate run --shard i/n) into one file", mergeCmd},
		{"import", "convert another evaluator's scores (Ragas, promptfoo, DeepEval, table) into a results file", importCmd},
		{"baseline", "get or put a stored baseline (file, git ref, or baseline branch via the GitHub API)", baselineCmd},
		{"history", "print the trend of a branch's stored baselines, per metric (text, markdown, json, csv)", historyCmd},
		{"action", "GitHub Action entrypoint: inputs from INPUT_* (see action.yml)", actionCmd},
		{"version", "print the version", versionCmd},
		{"help", "show help for a command", nil},
	}
}

// Main runs the gate command with args (without the program name) and
// returns the process exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	env = withRedaction(env)
	if len(args) == 0 {
		usage(env.Stderr)
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			env.helpAll = slices.Contains(rest[1:], "--all") || slices.Contains(rest[1:], "-all")
			args := []string{rest[0], "-h"}
			if rest[0] == "baseline" && len(rest) > 1 && (rest[1] == "get" || rest[1] == "put") {
				args = []string{rest[0], rest[1], "-h"}
			}
			return Main(ctx, args, env)
		}
		usage(env.Stdout)
		return ExitPass
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			err := c.run(ctx, env, rest)
			return exitCode(ctx, env, err)
		}
	}
	fmt.Fprintf(env.Stderr, "gate: unknown command %q\n", name)
	if s := suggest.Closest(name, commandNames()); s != "" {
		fmt.Fprintf(env.Stderr, "Did you mean %q?\n", s)
	}
	fmt.Fprintln(env.Stderr, "Run 'gate help' for the list of commands.")
	return ExitUsage
}

func commandNames() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return out
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "gate: a CI gate for RAG quality (raggate %s)\n\nUsage:\n  gate <command> [flags]\n\nCommands:\n", version())
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.short)
	}
	fmt.Fprint(w, `
Run 'gate help <command>' for a command's flags.

`+exitCodesHelp()+"\n")
}

func newFlagSet(name string, env Env, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet("gate "+name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: gate %s %s\n\nFlags:\n", name, synopsis)
		printFlags(env.Stderr, fs, name, env.helpAll)
	}
	if env.onFlags != nil {
		// Once the command has defined its flags: the first parse.
		fs.Usage = func() {}
		env.onFlags(name, fs)
	}
	return fs
}

// shortHelp are the flags `gate help CMD` shows of a command with more
// than maxShortHelp flags: those most runs use. `gate help CMD --all`
// lists the rest (the judge's fine settings, the target's details, the
// limits), as docs/flags.md does.
var shortHelp = map[string]bool{
	"dataset": true, "responses": true, "field": true, "metrics": true, "metrics-file": true,
	"judge": true, "judge-config": true, "model": true, "base-url": true,
	"concurrency": true, "max-duration": true, "dry-run": true,
	"out": true, "quiet": true, "target": true, "target-cmd": true, "target-config": true,
	"shard": true, "alpha": true,
	"thresholds": true, "baseline": true, "baseline-ref": true, "report": true, "format": true, "segment-by": true,
	"sequential": true, "scores": true,
	"label": true, "results": true, "positive": true, "min": true, "pair-by": true,
}

const maxShortHelp = 25

// printFlags lists the flags of fs as flag.PrintDefaults does: every one
// when all is set or they are few, else the shortHelp ones and how to see
// the rest.
func printFlags(w io.Writer, fs *flag.FlagSet, name string, all bool) {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if all || n <= maxShortHelp {
		fs.PrintDefaults()
		return
	}
	short := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	short.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if shortHelp[f.Name] {
			short.Var(f.Value, f.Name, f.Usage)
			short.Lookup(f.Name).DefValue = f.DefValue
		}
	})
	short.PrintDefaults()
	fmt.Fprintf(w, "\n%d more flags (the judge's fine settings, also accepted from --judge-config; the target's details; limits):\n  gate help %s --all\n", n-countFlags(short), name)
}

func countFlags(fs *flag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n
}

// parseFlags parses the command line, fills the judge flags not given
// from --judge-config and turns flag errors into usage errors (exit 2).
// Checked flags (flagtypes.go) refuse bad values as they are parsed:
// parsing goes on past them, and every bad value is reported together.
func parseFlags(env Env, fs *flag.FlagSet, args []string) error {
	if err := parseFlagsArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("%s: unexpected argument %q (flags go before nothing else; see 'gate help %s')", fs.Name(), fs.Arg(0), strings.TrimPrefix(fs.Name(), "gate "))
	}
	if path := judgeConfigOf(fs); path != "" {
		return applyJudgeConfig(env, fs, path)
	}
	return nil
}

// parseFlagsArgs is parseFlags for a command that takes arguments after
// its flags (fs.Args()); it applies no judge config.
func parseFlagsArgs(fs *flag.FlagSet, args []string) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard) // the messages are ours
	var bad []app.Problem
	err := fs.Parse(args)
	for ; err != nil; err = fs.Parse(fs.Args()) {
		ps := takeProblems(fs)
		if len(ps) == 0 {
			break
		}
		bad = append(bad, ps...)
	}
	if err == nil {
		bad = append(bad, laterProblems(fs)...)
	}
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return err
	case err != nil:
		fmt.Fprintln(out, err)
		usage()
		return app.WithKind(app.KindUsage, err)
	case len(bad) > 0:
		return app.JoinProblems(bad, app.FlagNames)
	}
	return nil
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
