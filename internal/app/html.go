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

// HTMLSides are the two results files of a report that shows texts
// (html): the head's scores when in memory (no texts; else read from
// HeadPath), the head file's path and a way to read the base again
// keeping the texts of some samples (nil without a base; keep nil: the
// scores only).
type HTMLSides struct {
	Head     *results.File
	HeadPath string
	// HeadWhole, when set, is the head with its texts, in memory (a file
	// imported from another evaluator): read instead of HeadPath.
	HeadWhole *results.File
	Reread    func(ctx context.Context, keep func(id string) bool) (*results.File, error)
}

// RereadFrom returns a Reread that reads the baseline of key from store
// again, keeping the texts keep selects.
func RereadFrom(store baseline.Store, key baseline.Key) func(context.Context, func(string) bool) (*results.File, error) {
	return func(ctx context.Context, keep func(string) bool) (*results.File, error) {
		f, _, err := withTexts(store, keep).Get(ctx, key)
		return f, err
	}
}

// RenderReport renders rep in format f. A format that shows sample texts
// (html) takes a second pass: the comparison read the scores only, so the
// samples the format lists are picked first and only their texts are read
// again, and memory holds at most limit samples' texts. sides is unused by
// the other formats.
func RenderReport(ctx context.Context, env Env, rep *compare.Report, f report.Format, sides HTMLSides, limit int, opts report.Options) ([]byte, error) {
	in := report.Input{Report: rep, Options: opts, SampleLimit: limit}
	if f.Samples != nil {
		// The comparison held the sides by columns: the samples the
		// format lists are picked from the scores read whole.
		scores := sides.Head
		if scores == nil {
			var err error
			if scores, err = results.ReadWith(sides.HeadPath, results.ScoresOnly); err != nil {
				return nil, asUsage(fmt.Errorf("%s report: %w", f.Name, err))
			}
		}
		var baseScores *results.File
		if sides.Reread != nil {
			var err error
			if baseScores, err = sides.Reread(ctx, nil); err != nil {
				return nil, fmt.Errorf("%s report: read the baseline again: %w", f.Name, err)
			}
		}
		redactResults(env.Red, baseScores)
		redactResults(env.Red, scores)
		keep := idSet(f.Samples(rep, baseScores, scores, limit))
		scores, baseScores = nil, nil
		head := sides.HeadWhole
		if head == nil {
			var err error
			if head, err = results.ReadWith(sides.HeadPath, results.ReadOptions{Texts: keep}); err != nil {
				return nil, asUsage(fmt.Errorf("%s report: %w", f.Name, err))
			}
		}
		var base *results.File
		if sides.Reread != nil {
			var err error
			if base, err = sides.Reread(ctx, keep); err != nil {
				return nil, fmt.Errorf("%s report: read the baseline again: %w", f.Name, err)
			}
		}
		redactResults(env.Red, base)
		redactResults(env.Red, head)
		in.Base, in.Head = base, head
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

// withTexts returns a copy of store that keeps the texts keep selects
// (the stores that read results files; others are returned as they are).
func withTexts(store baseline.Store, keep func(string) bool) baseline.Store {
	if k, ok := store.(baseline.TextKeeper); ok {
		return k.KeepingTexts(keep)
	}
	return store
}
