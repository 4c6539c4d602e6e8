package app

import (
	"context"
	"fmt"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// Merge is the merge use case: it combines the results files of sharded
// runs (paths) into one, written to out. The merged file is returned
// with an error when some shard is incomplete.
func Merge(env Env, paths []string, out string) (*results.File, error) {
	var tables []*results.Table
	for _, p := range paths {
		t, err := results.ReadTable(env.abs(p), results.ReadOptions{})
		if err != nil {
			return nil, asUsage(InputErr("merge input", err))
		}
		tables = append(tables, t)
	}
	// The merged samples are read back from the shards' files one at a
	// time as the file is written.
	merged, err := results.MergeTables(tables)
	if err != nil {
		return nil, asUsage(err)
	}
	if err := results.Write(env.abs(out), merged); err != nil {
		return nil, err
	}
	if merged.Incomplete != "" {
		return merged, fmt.Errorf("some shards are incomplete: %s", merged.Incomplete)
	}
	return merged, nil
}

// Calibration is the outcome of an A/A run: the results judged k times
// and the judge noise per metric.
type Calibration struct {
	File  *results.File
	Noise []compare.Calibration
	// Deterministic is set when the judge has no noise to measure.
	Deterministic bool
	// OwnScale names the metrics left out of Noise: numeric ones, read
	// from the data on their own scale (compare.OwnScale).
	OwnScale []string
	// Estimate is set instead after a dry run.
	Estimate *Estimate
}

// Calibrate is the calibrate use case: it judges the samples cfg.Repeats
// times and measures the judge noise at significance level alpha.
func Calibrate(ctx context.Context, env Env, cfg RunConfig, alpha float64) (*Calibration, error) {
	res, err := Run(ctx, env, cfg)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	if res.File == nil {
		return &Calibration{Estimate: res.Estimate}, nil
	}
	f := res.File
	return &Calibration{File: f, Noise: compare.Calibrate(f, alpha), Deterministic: backendOf(f.Judge.Provider).deterministic(),
		OwnScale: compare.OwnScale(f)}, nil
}
