package app

import (
	"bytes"
	"context"
	"fmt"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/compare"
	_ "github.com/raggate/raggate/internal/htmlreport" // registers the html report format
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// HTMLSides are the two sides of a report that shows texts (html): the
// comparison's tables (every sample's scores by columns), the head file's
// path, and a way to read the base again keeping only some samples (nil
// without a base).
type HTMLSides struct {
	// Base and Head are the comparison's sides by columns, redacted
	// (Base nil: no baseline).
	Base, Head *results.Table
	HeadPath   string
	// HeadWhole, when set, is the head with its texts, in memory (a file
	// imported from another evaluator): read instead of HeadPath.
	HeadWhole *results.File
	// Reread reads the base again keeping only the samples keep selects,
	// texts included (results.ReadOptions.Only); a base held whole in
	// memory may be returned whole.
	Reread func(ctx context.Context, keep func(id string) bool) (*results.File, error)
}

// RereadFrom returns a Reread that reads the baseline of key from store
// again, keeping only the samples keep selects, with their texts.
func RereadFrom(store baseline.Store, key baseline.Key) func(context.Context, func(string) bool) (*results.File, error) {
	return func(ctx context.Context, keep func(string) bool) (*results.File, error) {
		f, _, err := only(store, keep).Get(ctx, key)
		return f, err
	}
}

// RenderReport renders rep in format f. A format that shows sample texts
// (html) takes a second pass: the comparison held the sides by columns,
// so the samples the format lists are picked from those columns, and only
// those samples are read again, texts included: memory holds at most
// limit samples of each side, whatever the number of samples. sides is
// unused by the other formats.
func RenderReport(ctx context.Context, env Env, rep *compare.Report, f report.Format, sides HTMLSides, limit int, opts report.Options) ([]byte, error) {
	in := report.Input{Report: rep, Options: opts, SampleLimit: limit}
	if f.Samples != nil {
		keep := idSet(f.Samples(rep, sides.Base, sides.Head, limit))
		head := sides.HeadWhole
		if head == nil {
			var err error
			if head, err = results.ReadWith(sides.HeadPath, results.ReadOptions{Texts: keep, Only: true}); err != nil {
				return nil, asUsage(fmt.Errorf("%s report: %w", f.Name, err))
			}
		}
		var base *results.File
		if sides.Base != nil && sides.Reread != nil {
			var err error
			if base, err = sides.Reread(ctx, keep); err != nil {
				return nil, fmt.Errorf("%s report: read the baseline again: %w", f.Name, err)
			}
		}
		redactResults(env.Red, base)
		redactResults(env.Red, head)
		in.Base, in.Head = sides.Base, sides.Head
		in.BaseSamples, in.HeadSamples = base, head
	}
	var buf bytes.Buffer
	if err := f.Render(&buf, in); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// idSet returns a membership test of ids.
func idSet(ids []string) func(string) bool {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return func(id string) bool { return set[id] }
}

// only returns a copy of store that reads only the samples keep selects,
// texts included (the stores that read results files; others are
// returned as they are, and read whole).
func only(store baseline.Store, keep func(string) bool) baseline.Store {
	if k, ok := store.(baseline.TextKeeper); ok {
		return k.KeepingTexts(results.ReadOptions{Texts: keep, Only: true})
	}
	return store
}
