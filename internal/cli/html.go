package cli

import (
	"bytes"
	"context"
	"fmt"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/htmlreport"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// htmlSides are the two results files of an HTML report: their scores in
// memory (no texts), the head file's path and a way to read the base
// again keeping the texts of some samples (nil without a base).
type htmlSides struct {
	base, head *results.File
	headPath   string
	reread     func(ctx context.Context, keep func(id string) bool) (*results.File, error)
}

// emit writes the report in format to path ("" = stdout).
func emit(ctx context.Context, env Env, rep *compare.Report, sides htmlSides, o *Options, format, path string, opts report.Options, hopts htmlreport.Options) error {
	if format == "html" {
		return writeHTML(ctx, env, rep, sides, o, path, hopts)
	}
	return emitReport(env, rep, format, path, opts)
}

// writeHTML renders the HTML report to path ("" = stdout). The comparison
// read the scores only; this second pass picks the samples the page lists
// and reads the texts of those alone, so memory holds at most
// o.HTMLSamples samples' texts.
func writeHTML(ctx context.Context, env Env, rep *compare.Report, sides htmlSides, o *Options, path string, opts htmlreport.Options) error {
	ids, _ := htmlreport.Select(rep, sides.base, sides.head, o.HTMLSamples)
	keep := idSet(ids)
	head, err := results.ReadWith(sides.headPath, results.ReadOptions{Texts: keep})
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("html report: %w", err))
	}
	var base *results.File
	if sides.base != nil && sides.reread != nil {
		if base, err = sides.reread(ctx, keep); err != nil {
			return fmt.Errorf("html report: read the baseline again: %w", err)
		}
	}
	redactResults(env.red, base)
	redactResults(env.red, head)
	opts.Limit = o.HTMLSamples
	var buf bytes.Buffer
	if err := htmlreport.Render(&buf, rep, base, head, opts); err != nil {
		return err
	}
	if path == "" {
		_, err = env.Stdout.Write(buf.Bytes())
		return err
	}
	return results.WriteFileAtomic(env.abs(path), buf.Bytes(), 0o644)
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
	switch s := store.(type) {
	case *baseline.FileStore:
		c := *s
		c.Texts = keep
		return &c
	case *baseline.GitStore:
		c := *s
		c.Texts = keep
		return &c
	case *baseline.RefStore:
		c := *s
		c.Texts = keep
		return &c
	case *baseline.BranchStore:
		c := *s
		c.Texts = keep
		return &c
	}
	return store
}
