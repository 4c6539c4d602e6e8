package cli

import (
	"bytes"
	"context"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/report"
)

// historyCmd prints the trend of a branch's stored baselines: `gate
// history`.
func historyCmd(ctx context.Context, env Env, args []string) error {
	var b baselineFlags
	var last int
	var format string
	fs := newFlagSet("history", env, "[--store branch|git|file] [--branch main] [--last 30] [--format text|markdown|json|csv]")
	b.bind(fs, false)
	last, format = baseline.DefaultHistory, "text"
	intVar(fs, &last, "last", &historyLast, "how many stored baselines to read, newest `n`")
	enumVar(fs, &format, "format", &historyFormats, "output `format`: text, markdown, json or csv")
	if err := parseFlags(env, fs, args); err != nil {
		return err
	}
	if err := b.validate(env, false); err != nil {
		return err
	}
	sc, err := historyStore(env, &b)
	if err != nil {
		return err
	}
	h, err := app.History(ctx, env.app(), sc, baseline.Key{Branch: b.branch, SHA: b.sha, Name: b.name}, last)
	if err != nil {
		return err
	}
	render, _ := report.LookupHistory(format) // validated
	var out bytes.Buffer
	if err := render(&out, h); err != nil {
		return err
	}
	return writeOut(env, b.out, out.Bytes())
}

// historyLast and historyFormats are the values --last and --format of
// gate history take.
var (
	historyLast    = app.IntRange{Lo: 1, Hi: 1000}
	historyFormats = app.Enum{Values: report.HistoryNames(), Want: "text, markdown, json or csv"}
)

// historyStore names the store of b for reading history: the file store
// reads a directory of results files.
func historyStore(env Env, b *baselineFlags) (app.StoreConfig, error) {
	if b.store == "file" {
		if b.path == "" {
			return app.StoreConfig{}, usageErr("--store file needs --path (a directory of results files)")
		}
		return app.StoreConfig{Kind: app.StoreDir, Path: b.path}, nil
	}
	return b.storeConfig(env)
}
