// Package results defines the versioned results file (raggate.results/v1)
// that `gate run` writes and `gate compare` reads: per-sample scores with
// reasons for undefined ones, a per-metric summary, the judge fingerprint
// and usage. Writes are atomic; reads check the schema version.
package results

import (
	"math"

	"github.com/raggate/raggate/metrics"
	"strings"
	"time"
)

// Schema is the schema identifier of this version of the file.
const Schema = "raggate.results/v1"

// File is a results file.
type File struct {
	Schema    string         `json:"schema"`
	Tool      Tool           `json:"tool"`
	CreatedAt time.Time      `json:"created_at"`
	Git       *Git           `json:"git,omitempty"`
	Dataset   Dataset        `json:"dataset"`
	Judge     Judge          `json:"judge"`
	Config    Config         `json:"config"`
	Usage     Usage          `json:"usage"`
	Summary   map[string]Sum `json:"summary"`
	Samples   []Sample       `json:"samples"`
	// Warnings are non-fatal problems met during the run.
	Warnings []string `json:"warnings,omitempty"`
	// Incomplete is set when the run stopped early (time budget, fatal judge
	// error, cancellation); Samples holds what finished.
	Incomplete string `json:"incomplete,omitempty"`
	// Shard is set on the results of one shard of a sharded run ("2/8").
	Shard string `json:"shard,omitempty"`
	// UserMetrics are the definitions of the run's user-defined metrics
	// (the metrics file), so that a comparison knows their direction and
	// range. Added within v1: omitted when there are none.
	UserMetrics []metrics.Definition `json:"user_metrics,omitempty"`

	// texts supplies, when the file is written, the texts of samples that
	// hold none in memory (see SetTextSource).
	texts TextSource
	// source, when set and Samples is nil, gives the samples (see
	// SetSampleSource).
	source SampleSource
	// tallied is the tally of a file on disk, once counted (see counts).
	tallied *tally
}

// TextSource returns the texts recorded for a sample (ok false: none).
type TextSource func(id string) (t Texts, ok bool, err error)

// SetTextSource makes Write, Encode and Marshal take the texts of samples
// that hold none from src, one sample at a time: a run keeps its samples'
// texts out of memory (see Spill) and the file still records them.
func (f *File) SetTextSource(src TextSource) { f.texts = src }

// Metric returns the catalogue entry of a metric of the file: a built-in
// metric, or one of its user-defined metrics.
func (f *File) Metric(name string) (metrics.Metric, bool) {
	if m, ok := metrics.Lookup(name); ok {
		return m, true
	}
	for i := range f.UserMetrics {
		if f.UserMetrics[i].Name == name {
			return f.UserMetrics[i].Metric(), true
		}
	}
	return metrics.Metric{}, false
}

// Tool names the program that wrote the file.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Git records the commit the results were produced for.
type Git struct {
	SHA string `json:"sha,omitempty"`
	Ref string `json:"ref,omitempty"`
}

// ShortHash abbreviates a commit SHA, a content hash or a fingerprint to
// its first 12 hex digits, as messages and reports show them.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Dataset identifies the evaluated data.
type Dataset struct {
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	Samples   int    `json:"samples"`
	Responses string `json:"responses,omitempty"`
}

// Judge describes the judge. Fingerprint is a hash of every other field
// (SampleTemperature through Prompts): two results with different
// fingerprints were judged differently.
type Judge struct {
	Provider       string  `json:"provider"`
	Model          string  `json:"model,omitempty"`
	EmbeddingModel string  `json:"embedding_model,omitempty"`
	Temperature    float64 `json:"temperature"`
	// SampleTemperature is the temperature of the steps that sample
	// several answers (answer relevancy's questions, a critic's votes);
	// Temperature is that of every other step. Omitted for a judge that
	// samples nothing (offline) and in files written before it (added
	// within v1); the prompts hash covers it, so the fingerprint is that
	// of earlier runs.
	SampleTemperature float64 `json:"sample_temperature,omitempty"`
	Prompts           string  `json:"prompts"`
	// UserMetrics is the hash of the user-defined metrics' definitions
	// and prompts, part of the fingerprint; omitted when there are none.
	UserMetrics string `json:"user_metrics,omitempty"`
	Fingerprint string `json:"fingerprint"`
}

// Config records how the run was configured.
type Config struct {
	Metrics []string `json:"metrics"`
	Repeats int      `json:"repeats"`
	// MaxUndefined and MaxTargetFailures are the shares of samples the
	// run allowed the judge to leave unscored (gate run --max-undefined)
	// and the target to fail on (--max-target-failures), so that the file
	// can be held to them later (gate baseline put). Added within v1: nil
	// in files written before, which are held to the defaults.
	MaxUndefined      *float64 `json:"max_undefined,omitempty"`
	MaxTargetFailures *float64 `json:"max_target_failures,omitempty"`
	// Sequential is set on the results of a sequential check (gate check
	// --sequential), which judges the samples in batches and stops once
	// every gated metric is decided. Added within v1.
	Sequential *Sequential `json:"sequential,omitempty"`
}

// Sequential records how a sequential check ordered and batched its
// samples, so that a comparison can replay its looks: the samples it
// judged carry their position (Sample.Seq), the others are undefined with
// kind not_judged.
type Sequential struct {
	// Seed drew the random order of the samples whose inputs changed
	// since the base (those unchanged come first).
	Seed uint64 `json:"seed"`
	// Batch is the number of samples judged between two looks.
	Batch int `json:"batch"`
	// Alpha is the error rate the decisions were taken at.
	Alpha float64 `json:"alpha"`
	// Judged and Total count the samples judged and those of the run.
	Judged int `json:"judged"`
	Total  int `json:"total"`
	// DecidedAfter is the number of samples judged when every gated
	// metric was decided (0: not before the end).
	DecidedAfter int `json:"decided_after,omitempty"`
	// Unchanged counts the samples whose inputs were those of the base,
	// judged first (their answers cached).
	Unchanged int `json:"unchanged,omitempty"`
	// Segments are the segment keys the decisions were taken over (a
	// comparison replays the looks with them).
	Segments []string `json:"segments,omitempty"`
}

// Usage counts judge work, in total and per metric.
type Usage struct {
	ChatCalls        int     `json:"chat_calls"`
	CachedCalls      int     `json:"cached_calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	EmbeddingTokens  int     `json:"embedding_tokens"`
	EmbeddingCalls   int     `json:"embedding_calls,omitempty"`
	EstimatedCostUSD float64 `json:"estimated_cost_usd,omitempty"`
	// PerMetric attributes calls and tokens to the metric that first asked
	// for a step (shared steps are counted once).
	PerMetric map[string]Usage `json:"per_metric,omitempty"`
}

// Sum summarises one metric over the samples.
type Sum struct {
	Mean      Score `json:"mean"`
	N         int   `json:"n"`
	Undefined int   `json:"undefined"`
	Std       Score `json:"std"`
	P10       Score `json:"p10"`
	P50       Score `json:"p50"`
	P90       Score `json:"p90"`
}

// Sample holds one sample's scores. A NaN score is stored as null with its
// reason in Undefined.
type Sample struct {
	ID        string            `json:"id"`
	Question  string            `json:"question,omitempty"`
	Scores    map[string]Score  `json:"scores"`
	Undefined map[string]string `json:"undefined,omitempty"`
	// UndefinedKind classifies each reason in Undefined (data, judge,
	// metric or target). Files written before it existed lack it: see KindOf.
	UndefinedKind map[string]UndefinedKind `json:"undefined_kind,omitempty"`
	Runs          map[string][]Score       `json:"runs,omitempty"`
	// Reasons holds the judge's explanation of a low score, where known.
	Reasons map[string]string `json:"reasons,omitempty"`
	// InputHash is a hash of the sample's inputs: equal hashes on base and
	// head mean the sample did not change.
	InputHash string `json:"input_hash,omitempty"`
	// Metadata is the sample's extra dataset columns as text (topic,
	// source, ...); omitted when there are none. Added within v1: readers
	// that do not know it ignore it.
	Metadata map[string]string `json:"metadata,omitempty"`
	// Raw holds the raw values of user-defined metrics where they differ
	// from the score: a rubric's level, a numeric metric's value before
	// its transform (of the first run, with repeats).
	Raw map[string]Score `json:"raw,omitempty"`
	// Response and Contexts are the response and retrieved contexts the
	// sample was judged on, and Evidence what the judge found in them, per
	// metric (see Texts). Added within v1: omitted when not recorded;
	// readers that do not know them ignore them, and ReadWith drops them
	// unless asked to keep them.
	Response string                `json:"response,omitempty"`
	Contexts []string              `json:"retrieved_contexts,omitempty"`
	Evidence map[string][]Evidence `json:"evidence,omitempty"`
	// Target is how the pipeline answered the sample when the run called
	// it (gate run --target); nil otherwise. Added within v1.
	Target *TargetCall `json:"target,omitempty"`
	// ContextIDs are the ids of the contexts the pipeline retrieved for
	// the sample, when known: a comparison tells from them that the
	// corpus was re-indexed (see compare). Added within v1: omitted when
	// the sample has none; kept on reads, unlike the texts.
	ContextIDs []string `json:"retrieved_context_ids,omitempty"`
	// Seq is the sample's position (from 1) in the order a sequential
	// check judged its samples; 0 otherwise. Added within v1.
	Seq int `json:"seq,omitempty"`
}

// UndefinedKind says why a score is undefined.
type UndefinedKind string

// The kinds of undefined scores.
const (
	// KindData: a field the metric needs is absent from the dataset, or a
	// golden field (user_input, reference, reference contexts or ids) is
	// empty. Not the pipeline's fault and not the judge's.
	KindData UndefinedKind = "data"
	// KindJudge: the judge failed or returned output that could not be used.
	KindJudge UndefinedKind = "judge"
	// KindMetric: the metric is undefined by its definition for what the
	// pipeline produced (a response with no statements, an empty embedding).
	KindMetric UndefinedKind = "metric"
	// KindTarget: the run called the pipeline (gate run --target) and the
	// call failed, so there was nothing to judge. Counted by
	// --max-target-failures, not --max-undefined.
	KindTarget UndefinedKind = "target"
	// KindNotJudged: a sequential check (gate check --sequential) decided
	// before it reached the sample, so it was never judged. Never a lost
	// score, a judge failure or a failure of the pipeline: a comparison
	// counts it on neither side. Added within v1.
	KindNotJudged UndefinedKind = "not_judged"
)

// KindOf returns the kind of the undefined score of metric m ("" when the
// score is not undefined). Files without undefined_kind (written before
// it existed) are classified from the reason, conservatively: "missing
// field ..." is data, a reason starting with "no " ("no statements in
// response") is metric, anything else is judge.
func (s *Sample) KindOf(m string) UndefinedKind {
	reason, ok := s.Undefined[m]
	if k := s.UndefinedKind[m]; k == KindData || k == KindJudge || k == KindMetric || k == KindTarget || k == KindNotJudged {
		return k
	}
	if !ok {
		if v, has := s.Scores[m]; has && v.IsNaN() {
			return KindJudge
		}
		return ""
	}
	switch {
	case strings.HasPrefix(reason, "missing field ") || strings.HasPrefix(reason, "empty field "):
		return KindData
	case strings.HasPrefix(reason, "no "):
		return KindMetric
	}
	return KindJudge
}

// Score is a float64 that is written as JSON null when NaN.
type Score float64

// NaN is the undefined score.
func NaN() Score { return Score(math.NaN()) }

// IsNaN reports whether the score is undefined.
func (s Score) IsNaN() bool { return math.IsNaN(float64(s)) }

// Value returns the score as a float64 (NaN when undefined).
func (s Score) Value() float64 { return float64(s) }
