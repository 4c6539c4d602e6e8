package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"math"
	"time"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// Inputs is what a results file keeps of the samples once their texts are
// let go: the input hash and the metadata of each sample, by id.
type Inputs struct {
	Hash     map[string]string
	Metadata map[string]map[string]string // only the samples that have any
	// ContextIDs are the ids of the retrieved contexts, of the samples
	// that have any.
	ContextIDs map[string][]string
}

// InputsOf records the inputs of samples. Call it before Run releases
// their texts (Options.Release).
func InputsOf(samples []metrics.Sample) Inputs {
	in := Inputs{Hash: make(map[string]string, len(samples)), Metadata: map[string]map[string]string{}, ContextIDs: map[string][]string{}}
	for i := range samples {
		in.Hash[samples[i].ID] = InputHash(&samples[i])
		if len(samples[i].Metadata) > 0 {
			in.Metadata[samples[i].ID] = samples[i].Metadata
		}
		if ids := samples[i].RetrievedContextIDs; len(ids) > 0 {
			in.ContextIDs[samples[i].ID] = ids
		}
	}
	return in
}

// InputHash identifies a sample's inputs: equal on base and head when the
// sample did not change.
func InputHash(s *metrics.Sample) string {
	b, _ := json.Marshal(s)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Fingerprint hashes everything that makes a judge answer differently.
func Fingerprint(info judge.Info) string {
	b, _ := json.Marshal(info)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Provenance describes a run for its results file.
type Provenance struct {
	Version string          // the tool's version
	Dataset results.Dataset // path, hash, samples in the whole dataset, responses file
	Judge   judge.Info
	// UserMetrics are the run's user-defined metrics (Judge.UserMetrics
	// should be their judge.UserMetricsHash).
	UserMetrics []metrics.Definition
	Repeats     int          // 0 means 1
	Shard       string       // "i/n" or ""
	Git         *results.Git // nil outside CI
	// CreatedAt is the time of the run; zero means now.
	CreatedAt time.Time
}

// NewFile makes the results file of runs, the repeats of one run (at least
// one) over the samples recorded in in. A sample is kept when every repeat
// judged it (a stopped run keeps the samples it finished in all repeats);
// its score is the mean of the repeats, each kept in Runs when there are
// several. Usage is left to the caller (see UsageOf). NewFile consumes
// runs: each sample's scores are let go of once in the file, so that
// memory does not hold two copies of every sample's.
func NewFile(p Provenance, in Inputs, runs []*Result) *results.File {
	f := newHeader(p, runs[0].Metrics)
	perRun := make([]map[string]*SampleResult, len(runs))
	if len(runs) > 1 {
		for r, run := range runs {
			perRun[r] = byID(run)
		}
	}
	last := perRun[len(runs)-1]
	f.Samples = make([]results.Sample, 0, len(runs[0].Samples))
	for i := range runs[0].Samples {
		s := &runs[0].Samples[i]
		if len(runs) == 1 {
			perRun[0] = map[string]*SampleResult{s.ID: s}
		} else if last[s.ID] == nil {
			continue
		}
		rs := combine(s, perRun)
		for _, run := range perRun {
			if done := run[s.ID]; done != nil && done != s {
				*done = SampleResult{ID: done.ID}
			}
		}
		*s = SampleResult{ID: s.ID}
		rs.InputHash = in.Hash[s.ID]
		if md := in.Metadata[s.ID]; len(md) > 0 {
			rs.Metadata = md
		}
		rs.ContextIDs = in.ContextIDs[s.ID]
		f.Samples = append(f.Samples, rs)
	}
	f.Summary = results.Summarize(f.Config.Metrics, f.Samples)
	return f
}

// newHeader fills every field of the file but the samples, the summary
// and the usage.
func newHeader(p Provenance, metricNames []string) *results.File {
	created := p.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	return &results.File{
		Schema:    results.Schema,
		Tool:      results.Tool{Name: "raggate", Version: p.Version},
		CreatedAt: created.UTC().Truncate(time.Second),
		Git:       p.Git,
		Dataset:   p.Dataset,
		Judge: results.Judge{
			Provider: p.Judge.Provider, Model: p.Judge.Model, EmbeddingModel: p.Judge.EmbeddingModel,
			Temperature: p.Judge.Temperature, SampleTemperature: p.Judge.SampleTemperature,
			Prompts: p.Judge.Prompts, UserMetrics: p.Judge.UserMetrics,
			Fingerprint: Fingerprint(p.Judge),
		},
		UserMetrics: p.UserMetrics,
		Config:      results.Config{Metrics: metricNames, Repeats: max(1, p.Repeats)},
		Shard:       p.Shard,
	}
}

func byID(run *Result) map[string]*SampleResult {
	m := make(map[string]*SampleResult, len(run.Samples))
	for i := range run.Samples {
		m[run.Samples[i].ID] = &run.Samples[i]
	}
	return m
}

// combine makes the results sample of s (from the first run) from its
// scores in every run; the reasons of undefined scores are the first
// run's.
func combine(s *SampleResult, perRun []map[string]*SampleResult) results.Sample {
	rs := results.Sample{ID: s.ID, Question: s.Question, Scores: make(map[string]results.Score, len(s.Scores))}
	for k := range s.Scores {
		xs := make([]float64, 0, len(perRun))
		for _, run := range perRun {
			xs = append(xs, run[s.ID].Scores[k])
		}
		v := metrics.NanMean(xs)
		rs.Scores[k] = results.Score(v)
		if len(perRun) > 1 {
			if rs.Runs == nil {
				rs.Runs = map[string][]results.Score{}
			}
			for _, x := range xs {
				rs.Runs[k] = append(rs.Runs[k], results.Score(x))
			}
		}
		if math.IsNaN(v) {
			setUndefined(&rs, k, s.Undefined[k], s.UndefinedKind[k])
		}
	}
	if len(s.Reasons) > 0 {
		rs.Reasons = clipReasons(s.Reasons)
	}
	for k, v := range s.Raw {
		if rs.Raw == nil {
			rs.Raw = make(map[string]results.Score, len(s.Raw))
		}
		rs.Raw[k] = results.Score(v)
	}
	return rs
}

// clipReasons returns reasons, or a copy with the ones over
// results.MaxReason characters cut: a results file holds no longer ones,
// whoever built them.
func clipReasons(reasons map[string]string) map[string]string {
	var out map[string]string
	for m, r := range reasons {
		if c := results.ClipReason(r); c != r {
			if out == nil {
				out = maps.Clone(reasons)
			}
			out[m] = c
		}
	}
	if out == nil {
		return reasons
	}
	return out
}

func setUndefined(rs *results.Sample, metric, reason string, kind results.UndefinedKind) {
	if rs.Undefined == nil {
		rs.Undefined = map[string]string{}
	}
	rs.Undefined[metric] = results.ClipReason(reason)
	if kind == "" {
		return
	}
	if rs.UndefinedKind == nil {
		rs.UndefinedKind = map[string]results.UndefinedKind{}
	}
	rs.UndefinedKind[metric] = kind
}

// UsageOf converts the judge's usage, in total and per metric, into the
// results file's; the cost estimate is left to the caller.
func UsageOf(total judge.Usage, perMetric map[string]judge.Usage) results.Usage {
	u := results.Usage{
		ChatCalls: total.ChatCalls, CachedCalls: total.CachedCalls, PromptTokens: total.PromptTokens,
		CompletionTokens: total.CompletionTokens, EmbeddingTokens: total.EmbeddingTokens, EmbeddingCalls: total.EmbeddingCalls,
	}
	if len(perMetric) > 0 {
		u.PerMetric = make(map[string]results.Usage, len(perMetric))
		for k, v := range perMetric {
			u.PerMetric[k] = UsageOf(v, nil)
		}
	}
	return u
}

// SampleOf is the results sample of one run's result r, as NewFile makes
// it from a run without repeats (the inputs aside).
func SampleOf(r *SampleResult) results.Sample {
	return combine(r, []map[string]*SampleResult{{r.ID: r}})
}

// Combine makes one results sample of the same sample's results in every
// repeat of a run (SampleOf each), as NewFile does: each score the mean
// of the repeats' defined ones, each repeat's in Runs when there are
// several; the question, reasons, raw values, undefined reasons and
// inputs are the first repeat's.
func Combine(repeats []results.Sample) results.Sample {
	if len(repeats) == 1 {
		return repeats[0]
	}
	first := &repeats[0]
	rs := results.Sample{ID: first.ID, Question: first.Question, Scores: make(map[string]results.Score, len(first.Scores)),
		Reasons: first.Reasons, Raw: first.Raw, InputHash: first.InputHash, Metadata: first.Metadata, ContextIDs: first.ContextIDs}
	for k := range first.Scores {
		xs := make([]float64, 0, len(repeats))
		for r := range repeats {
			xs = append(xs, float64(repeats[r].Scores[k]))
		}
		v := metrics.NanMean(xs)
		rs.Scores[k] = results.Score(v)
		if rs.Runs == nil {
			rs.Runs = map[string][]results.Score{}
		}
		for _, x := range xs {
			rs.Runs[k] = append(rs.Runs[k], results.Score(x))
		}
		if math.IsNaN(v) {
			setUndefined(&rs, k, first.Undefined[k], first.UndefinedKind[k])
		}
	}
	return rs
}
