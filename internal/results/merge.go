package results

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// Merge combines the results of the shards of one run (`gate run --shard
// i/n` for every i) into one results file. The shards must come from the
// same dataset, judge and metric list, cover 1..n exactly once and hold
// disjoint samples. The summary and usage are recomputed; samples are in
// shard order.
func Merge(files []*File) (*File, error) {
	tables := make([]*Table, len(files))
	for i, f := range files {
		tables[i] = TableOf(f)
	}
	out, err := MergeTables(tables)
	if err != nil {
		return nil, err
	}
	return out, out.Load()
}

// MergeTables is Merge over the shards' tables (ReadTable): the merged
// file's samples stay in the shards' files, each read back whole (texts
// included) when the merged file is written or read, so that merging
// holds a few bytes a sample whatever the shards' sizes.
func MergeTables(tables []*Table) (*File, error) {
	if len(tables) == 0 {
		return nil, fmt.Errorf("merge: no results files given")
	}
	// Shard order, not argument order, decides the sample order.
	tables = append([]*Table(nil), tables...)
	sort.SliceStable(tables, func(a, b int) bool {
		i, _, _ := ParseShard(tables[a].File.Shard)
		j, _, _ := ParseShard(tables[b].File.Shard)
		return i < j
	})
	first := tables[0].File
	_, n, err := ParseShard(first.Shard)
	if err != nil {
		return nil, fmt.Errorf("merge: file 1 is not a shard (%q); merge takes the files of `gate run --shard i/n`", first.Shard)
	}
	seenShard := make(map[int]bool, n)
	seenID := map[string]int{}
	out := *first
	out.Shard = ""
	out.Samples = nil
	out.Warnings = nil
	out.Usage = Usage{}
	var incomplete []string
	for k, t := range tables {
		f := t.File
		i, m, err := ParseShard(f.Shard)
		if err != nil {
			return nil, fmt.Errorf("merge: file %d is not a shard: %w", k+1, err)
		}
		switch {
		case m != n:
			return nil, fmt.Errorf("merge: file %d is shard %s but file 1 is of %d shards", k+1, f.Shard, n)
		case seenShard[i]:
			return nil, fmt.Errorf("merge: shard %d/%d given twice", i, n)
		case f.Judge.Fingerprint != first.Judge.Fingerprint:
			return nil, fmt.Errorf("merge: shard %s was judged by another judge (fingerprint %s, shard %s has %s): re-run it with the same judge settings", f.Shard, f.Judge.Fingerprint, first.Shard, first.Judge.Fingerprint)
		case f.Dataset.SHA256 != first.Dataset.SHA256:
			return nil, fmt.Errorf("merge: shard %s is of another dataset (sha256 %.12s, shard %s has %.12s)", f.Shard, f.Dataset.SHA256, first.Shard, first.Dataset.SHA256)
		case strings.Join(f.Config.Metrics, ",") != strings.Join(first.Config.Metrics, ","):
			return nil, fmt.Errorf("merge: shard %s computed other metrics (%v vs %v)", f.Shard, f.Config.Metrics, first.Config.Metrics)
		}
		seenShard[i] = true
		for j := range t.Len() {
			id := t.ID(j)
			if prev, dup := seenID[id]; dup {
				return nil, fmt.Errorf("merge: sample %q is in shard %s and in file %d", id, f.Shard, prev)
			}
			seenID[id] = k + 1
		}
		out.Usage = addUsage(out.Usage, f.Usage)
		out.Warnings = append(out.Warnings, f.Warnings...)
		if f.Incomplete != "" {
			incomplete = append(incomplete, "shard "+f.Shard+": "+f.Incomplete)
		}
		if f.CreatedAt.After(out.CreatedAt) {
			out.CreatedAt = f.CreatedAt
		}
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if !seenShard[i] {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: shards %s are missing; give every shard's results file", strings.Join(missing, ", "))
	}
	out.Incomplete = strings.Join(incomplete, "; ")
	out.Summary = summarizeTables(out.Config.Metrics, tables)
	out.SetSampleSource(newTablesSource(tables...))
	return &out, nil
}

// summarizeTables is Summarize over the samples of tables, read from
// their columns: a sample counts for a metric when its scores have it
// (defined, or null).
func summarizeTables(names []string, tables []*Table) map[string]Sum {
	sum := make(map[string]Sum, len(names))
	for _, name := range names {
		var xs []float64
		for _, t := range tables {
			k := t.Key(name)
			if k == nil || !k.InScores {
				continue
			}
			for i := range t.Len() {
				v := k.Scores.At(i)
				if math.IsNaN(v) {
					if e, ok := t.Undefined(k, i); !ok || !e.InScores {
						continue // not in the sample's scores
					}
				}
				xs = append(xs, v)
			}
		}
		sum[name] = SumOf(xs)
	}
	return sum
}

// tablesSource gives the samples of tables one after the other, whole.
type tablesSource struct {
	tables []*Table
	start  []int // the position of each table's first sample
	n      int
}

func newTablesSource(tables ...*Table) *tablesSource {
	src := &tablesSource{tables: tables}
	for _, t := range tables {
		src.start = append(src.start, src.n)
		src.n += t.Len()
	}
	return src
}

func (s *tablesSource) Len() int { return s.n }

func (s *tablesSource) Sample(i int) (Sample, error) {
	k := sort.Search(len(s.start), func(k int) bool { return s.start[k] > i }) - 1
	return s.tables[k].Whole(i - s.start[k])
}

// Summarize recomputes the per-metric summary from the samples.
func Summarize(names []string, samples []Sample) map[string]Sum {
	sum := make(map[string]Sum, len(names))
	for _, n := range names {
		xs := make([]float64, 0, len(samples))
		for _, s := range samples {
			if v, ok := s.Scores[n]; ok {
				xs = append(xs, float64(v))
			}
		}
		sum[n] = SumOf(xs)
	}
	return sum
}

// SumOf summarizes one metric's scores (NaN: undefined), one per sample
// that has the metric.
func SumOf(xs []float64) Sum {
	m := metrics.Summarize(xs)
	return Sum{Mean: Score(m.Mean), N: m.N, Undefined: m.Undefined, Std: Score(m.Std), P10: Score(m.P10), P50: Score(m.P50), P90: Score(m.P90)}
}

func addUsage(a, b Usage) Usage {
	out := Usage{
		ChatCalls: a.ChatCalls + b.ChatCalls, CachedCalls: a.CachedCalls + b.CachedCalls,
		PromptTokens: a.PromptTokens + b.PromptTokens, CompletionTokens: a.CompletionTokens + b.CompletionTokens,
		EmbeddingTokens: a.EmbeddingTokens + b.EmbeddingTokens, EmbeddingCalls: a.EmbeddingCalls + b.EmbeddingCalls,
		EstimatedCostUSD: a.EstimatedCostUSD + b.EstimatedCostUSD,
	}
	if len(a.PerMetric)+len(b.PerMetric) > 0 {
		out.PerMetric = map[string]Usage{}
		keys := map[string]bool{}
		for k := range a.PerMetric {
			keys[k] = true
		}
		for k := range b.PerMetric {
			keys[k] = true
		}
		ks := make([]string, 0, len(keys))
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			out.PerMetric[k] = addUsage(a.PerMetric[k], b.PerMetric[k])
		}
	}
	return out
}
