package app

import (
	"bytes"
	"context"
	"fmt"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/htmlreport"
	"github.com/raggate/raggate/internal/results"
)

// HTMLSides are the two results files of an HTML report: their scores in
// memory (no texts), the head file's path and a way to read the base
// again keeping the texts of some samples (nil without a base).
type HTMLSides struct {
	Base, Head *results.File
	HeadPath   string
	Reread     func(ctx context.Context, keep func(id string) bool) (*results.File, error)
}

// RereadFrom returns a Reread that reads the baseline of key from store
// again, keeping the texts keep selects.
func RereadFrom(store baseline.Store, key baseline.Key) func(context.Context, func(string) bool) (*results.File, error) {
	return func(ctx context.Context, keep func(string) bool) (*results.File, error) {
		f, _, err := withTexts(store, keep).Get(ctx, key)
		return f, err
	}
}

// HTMLReport renders the HTML report of rep. The comparison read the
// scores only; this second pass picks the samples the page lists and
// reads the texts of those alone, so memory holds at most limit samples'
// texts.
func HTMLReport(ctx context.Context, env Env, rep *compare.Report, sides HTMLSides, limit int, opts htmlreport.Options) ([]byte, error) {
	ids, _ := htmlreport.Select(rep, sides.Base, sides.Head, limit)
	keep := idSet(ids)
	head, err := results.ReadWith(sides.HeadPath, results.ReadOptions{Texts: keep})
	if err != nil {
		return nil, asUsage(fmt.Errorf("html report: %w", err))
	}
	var base *results.File
	if sides.Base != nil && sides.Reread != nil {
		if base, err = sides.Reread(ctx, keep); err != nil {
			return nil, fmt.Errorf("html report: read the baseline again: %w", err)
		}
	}
	redactResults(env.Red, base)
	redactResults(env.Red, head)
	opts.Limit = limit
	var buf bytes.Buffer
	if err := htmlreport.Render(&buf, rep, base, head, opts); err != nil {
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
