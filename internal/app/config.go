package app

import (
	"strings"
	"time"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/htmlreport"
	"github.com/raggate/raggate/internal/judge/openaicompat"
	"github.com/raggate/raggate/metrics"
)

// DataConfig is the dataset a run judges and how to read it.
type DataConfig struct {
	Dataset   string
	Responses string
	Fields    []string // canonical=name-in-file
	Metrics   string   // comma-separated; empty = default suite
	// MetricsFile defines user-defined metrics (package usermetric).
	MetricsFile string
	// StrictFields makes extra dataset columns errors instead of metadata.
	StrictFields bool
	Limits       Limits // dataset size limits
}

// AzureConfig selects Azure OpenAI.
type AzureConfig struct{ Endpoint, APIVersion, Deployment, EmbeddingDeployment string }

// JudgeConfig is the judge of a run and its settings.
type JudgeConfig struct {
	Judge          string // a judge name (JudgeNames)
	Model          string
	EmbeddingModel string
	BaseURL        string
	APIKeyEnv      string
	APIKey         string // from the action input; never logged
	Concurrency    int
	Strictness     int
	Repeats        int
	MaxUndefined   float64
	CacheDir       string
	NoCache        bool
	MaxDuration    time.Duration
	Azure          AzureConfig
	Headers        []string // K=V
	RPM, TPM       int
	RequestTimeout time.Duration
	MaxRetries     int
	Seed           int
	NoSeed         bool
	MaxTokens      int
	ResponseFormat string
	Prices         string
	DryRun         bool

	// ClaimsAtomicity and ClaimsCoverage: low or high (factual correctness).
	ClaimsAtomicity, ClaimsCoverage string
}

// RunConfig is the configuration of the run use case (Run): the dataset,
// the judge, the target and the results file.
type RunConfig struct {
	DataConfig
	JudgeConfig
	// Target, when configured, answers the questions instead of the
	// dataset's responses.
	Target TargetConfig

	Out   string // results file to write
	Quiet bool   // no progress in the log
	// RecordTexts records each sample's response, retrieved contexts and
	// the judge's evidence in the results file (for the HTML report).
	RecordTexts bool
	Shard       string // i/n: judge only this shard of the dataset

	// UserDefs are the user-defined metrics, once read (LoadUserMetrics,
	// or the action's read at the base commit).
	UserDefs []metrics.Definition
	// SegmentKeys are every segment key of a check: the dataset must have
	// each, checked before judging.
	SegmentKeys []string
	// CheckDataset, when set, checks the loaded dataset before any judge
	// call (gate agree: the label columns).
	CheckDataset func(*dataset.Dataset) error

	// sequential is set by a sequential check (see sequential.go).
	sequential *seqPlan
}

// DefaultRunConfig is the configuration of a run before any flag or
// input: callers copy it.
func DefaultRunConfig() RunConfig {
	return RunConfig{
		DataConfig: DataConfig{Limits: DefaultLimits()},
		JudgeConfig: JudgeConfig{
			Judge:        "auto",
			APIKeyEnv:    "OPENAI_API_KEY",
			Concurrency:  8,
			Strictness:   3,
			CacheDir:     ".raggate-cache",
			Seed:         42,
			MaxUndefined: 0.5,
			MaxRetries:   openaicompat.DefaultMaxRetries,
			Repeats:      1,
			// Ragas's factual-correctness defaults.
			ClaimsAtomicity: string(metrics.DefaultClaimsAtomicity),
			ClaimsCoverage:  string(metrics.DefaultClaimsCoverage),
			// Explicit defaults, so that a 0 given is seen (and refused)
			// rather than taken for "not given".
			RequestTimeout: openaicompat.DefaultRequestTimeout,
			MaxTokens:      openaicompat.DefaultMaxCompletionTokens,
		},
		Out:         "results.json",
		RecordTexts: true,
	}
}

// fieldMapping parses the --field values.
func (c *DataConfig) fieldMapping() (map[string]string, error) {
	if len(c.Fields) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(c.Fields))
	for _, kv := range c.Fields {
		k, v, ok := SplitField(kv)
		if !ok { // refused by Problems before any work
			return nil, JoinProblems([]Problem{*CheckField(kv)}, FlagNames)
		}
		m[k] = v
	}
	return m, nil
}

// MetricNames are the names of Metrics.
func (c *DataConfig) MetricNames() []string {
	var out []string
	for _, n := range strings.Split(c.Metrics, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func (c *DataConfig) metricNames() []string { return c.MetricNames() }

// Settings are every setting a front end gathers (from flags or action
// inputs) and validates before any work (Problems, PathProblems): the
// run's, and those of the comparison and the reports. Use cases take the
// typed part they need (RunConfig, CompareConfig, CheckConfig).
type Settings struct {
	RunConfig

	Format string // report format: text, markdown, json, html
	// History is a directory of earlier results files whose trend the
	// report shows (compare, check).
	History string
	Report  string // where compare/check also write the report
	// HTMLSamples is how many samples, the worst, an HTML report lists.
	HTMLSamples int

	Base        string // compare: the base results file
	Head        string // compare: the head results file
	Thresholds  string // thresholds file
	Baseline    string // check: baseline results file
	BaselineRef string // check: REF:PATH of the baseline in git
	// SegmentBy are metadata keys to compare segment by segment, added to
	// the thresholds' segments.
	SegmentBy []string
	Alpha     float64 // calibrate: significance level of the minimum detectable effect
	// Sequential makes a check sequential (nil: as the thresholds say).
	Sequential *SequentialConfig
	// Scores is check's head when it checks scores already made (a
	// results file or another evaluator's scores file) instead of running.
	Scores string
	// ScoresFormat forces the format of the scores files read ("" sniffs).
	ScoresFormat string
}

// DefaultSettings are the settings before any flag or input: callers
// copy them.
func DefaultSettings() Settings {
	return Settings{
		RunConfig:   DefaultRunConfig(),
		Format:      "text",
		Alpha:       0.05,
		HTMLSamples: htmlreport.DefaultLimit,
	}
}
