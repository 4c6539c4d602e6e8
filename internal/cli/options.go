package cli

import (
	"flag"
	"fmt"
	"github.com/raggate/raggate/internal/htmlreport"
	"github.com/raggate/raggate/internal/results"
	"path/filepath"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/judge/openaicompat"
	"github.com/raggate/raggate/metrics"
)

// Options is every setting of every command. Flags and GitHub Action
// inputs both fill it, so the two front ends cannot drift apart.
type Options struct {
	// Dataset and its mapping.
	Dataset   string
	Responses string
	Fields    []string // canonical=name-in-file
	Metrics   string   // comma-separated; empty = default suite
	// MetricsFile defines user-defined metrics (package usermetric);
	// userDefs are its definitions once read.
	MetricsFile string
	userDefs    []metrics.Definition
	// Target, when configured, answers the questions instead of the
	// dataset's responses (gate run --target).
	Target targetOptions
	// StrictFields makes extra dataset columns errors instead of metadata.
	StrictFields bool
	Limits       Limits // dataset size limits

	// Judge.
	Judge          string // auto | offline | openai
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
	Azure          struct{ Endpoint, APIVersion, Deployment, EmbeddingDeployment string }
	Headers        []string // K=V
	RPM, TPM       int
	RequestTimeout time.Duration
	MaxRetries     int
	Seed           int
	NoSeed         bool
	Alpha          float64 // calibrate: significance level of the minimum detectable effect
	MaxTokens      int
	ResponseFormat string
	Prices         string
	DryRun         bool

	// ClaimsAtomicity and ClaimsCoverage: low or high (factual correctness).
	ClaimsAtomicity, ClaimsCoverage string

	// Output.
	Out   string
	Quiet bool
	// RecordTexts records each sample's response, retrieved contexts and
	// the judge's evidence in the results file (for the HTML report);
	// texts holds them on disk while the run lasts.
	RecordTexts bool
	texts       *results.Spill
	textsLost   string   // why the results have no texts after all (a full temporary directory)
	warnings    []string // for the results file (contexts cut by --max-contexts)
	Shard       string   // i/n: judge only this shard of the dataset
	Format      string   // markdown | text | json (compare, check)
	// History is a directory of earlier results files whose trend the
	// report shows (compare, check).
	History string
	Report  string // where compare/check write the report
	// HTMLSamples is how many samples, the worst, an HTML report lists.
	HTMLSamples int

	// Comparison.
	Base        string
	Head        string
	Thresholds  string
	Baseline    string
	BaselineRef string
	// SegmentBy are metadata keys to compare segment by segment, added to
	// the thresholds' segments.
	SegmentBy []string
	// segmentKeys are every segment key of a check (the thresholds' and
	// SegmentBy): the dataset must have each, checked before judging.
	segmentKeys []string
	// checkDataset, when set, checks the loaded dataset before any judge
	// call (gate agree: the label columns).
	checkDataset func(*dataset.Dataset) error
}

func defaultOptions() Options {
	return Options{
		Judge:        "auto",
		APIKeyEnv:    "OPENAI_API_KEY",
		Concurrency:  8,
		Strictness:   3,
		Out:          "results.json",
		Format:       "text",
		CacheDir:     ".raggate-cache",
		Seed:         42,
		MaxUndefined: 0.5,
		MaxRetries:   openaicompat.DefaultMaxRetries,
		Repeats:      1,
		// Ragas's factual-correctness defaults.
		ClaimsAtomicity: string(metrics.DefaultClaimsAtomicity),
		ClaimsCoverage:  string(metrics.DefaultClaimsCoverage),
		// Explicit defaults, so that a 0 given on the command line is
		// seen (and refused) rather than taken for "not given".
		RequestTimeout: openaicompat.DefaultRequestTimeout,
		MaxTokens:      openaicompat.DefaultMaxCompletionTokens,
		Alpha:          0.05,
		Limits:         defaultLimits(),
		RecordTexts:    true,
		HTMLSamples:    htmlreport.DefaultLimit,
	}
}

// closeTexts removes the run's texts file (see RecordTexts); a results
// file it supplied texts to must be written before.
func (o *Options) closeTexts() {
	if o.texts != nil {
		o.texts.Close()
		o.texts = nil
	}
}

func (o *Options) bindDataset(fs *flag.FlagSet) {
	fs.StringVar(&o.Dataset, "dataset", o.Dataset, "golden dataset `file` (JSONL, JSON array, CSV or Parquet)")
	fs.StringVar(&o.Responses, "responses", o.Responses, "optional `file` of pipeline outputs (response, contexts) joined to the dataset by id or user_input")
	fs.Var((*listFlag)(&o.Fields), "field", "map a field to the name used in the file, `canonical=name` (repeatable), e.g. --field response=answer")
	fs.BoolVar(&o.StrictFields, "strict-fields", o.StrictFields, "reject dataset columns that are not fields, instead of keeping them as metadata")
	fs.StringVar(&o.Metrics, "metrics", o.Metrics, "comma-separated `metrics` to compute (default: the default suite the data allows, and every user-defined metric)")
	fs.StringVar(&o.MetricsFile, "metrics-file", o.MetricsFile, "user-defined metrics `file` (YAML; see metrics.example.yaml): critic, rubric and numeric metrics")
	o.bindLimits(fs)
}

func (o *Options) bindJudge(fs *flag.FlagSet) {
	fs.StringVar(&o.Judge, "judge", o.Judge, "judge `provider`: auto (openai when an API key is set, else offline), offline, openai")
	fs.StringVar(&o.Model, "model", o.Model, "chat `model` of the LLM judge")
	fs.StringVar(&o.EmbeddingModel, "embedding-model", o.EmbeddingModel, "embedding `model` of the LLM judge")
	fs.StringVar(&o.BaseURL, "base-url", o.BaseURL, "`URL` of an OpenAI-compatible API")
	fs.StringVar(&o.APIKeyEnv, "api-key-env", o.APIKeyEnv, "environment `variable` holding the API key")
	fs.IntVar(&o.Concurrency, "concurrency", o.Concurrency, "judge calls in flight at once, 1 to 1000")
	fs.IntVar(&o.Strictness, "strictness", o.Strictness, "questions generated per sample for answer_relevancy, 1 to 10")
	fs.StringVar(&o.ClaimsAtomicity, "claims-atomicity", o.ClaimsAtomicity, "`level` of the claims of factual_correctness: low (a sentence's claims together) or high (one fact each)")
	fs.StringVar(&o.ClaimsCoverage, "claims-coverage", o.ClaimsCoverage, "`level` of the claims of factual_correctness: low (main claims) or high (every detail)")
	fs.Float64Var(&o.MaxUndefined, "max-undefined", o.MaxUndefined, "exit 3 when the judge leaves a metric undefined on more than this `share` of the samples (0 to 1; 1 = never)")
	fs.IntVar(&o.Repeats, "repeats", o.Repeats, "judge every sample this many `times` (1 to 100) and average (the spread is reported as judge noise)")
	fs.DurationVar(&o.MaxDuration, "max-duration", o.MaxDuration, "stop judging after this `duration` and save what finished (0 = no limit)")
	fs.StringVar(&o.CacheDir, "cache-dir", o.CacheDir, "judge cache `directory` (LLM judge); persist it between CI runs")
	fs.BoolVar(&o.NoCache, "no-cache", o.NoCache, "do not read or write the judge cache")
	fs.StringVar(&o.Azure.Endpoint, "azure-endpoint", "", "Azure OpenAI `endpoint`, e.g. https://NAME.openai.azure.com (selects Azure)")
	fs.StringVar(&o.Azure.APIVersion, "azure-api-version", "", "Azure OpenAI api-`version` (default 2024-10-21)")
	fs.StringVar(&o.Azure.Deployment, "azure-deployment", "", "Azure chat `deployment` name")
	fs.StringVar(&o.Azure.EmbeddingDeployment, "azure-embedding-deployment", "", "Azure embedding `deployment` name")
	fs.Var((*listFlag)(&o.Headers), "header", "extra HTTP header `K=V` sent to the judge API (repeatable)")
	fs.IntVar(&o.RPM, "rpm", o.RPM, "requests-per-minute limit of the chat model (0 = none)")
	fs.IntVar(&o.TPM, "tpm", o.TPM, "tokens-per-minute limit of the chat model (0 = none)")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "timeout of one judge HTTP request, more than 0 and at most 1h")
	fs.IntVar(&o.MaxRetries, "max-retries", o.MaxRetries, "retries of a transient judge failure (5xx, timeouts, resets), 0 to 20")
	fs.IntVar(&o.Seed, "seed", o.Seed, "seed sent to the judge where supported")
	fs.BoolVar(&o.NoSeed, "no-seed", false, "send no seed")
	fs.IntVar(&o.MaxTokens, "max-completion-tokens", o.MaxTokens, "completion token limit of a judge call, 1 to 1000000")
	fs.StringVar(&o.ResponseFormat, "response-format", "", "force the `format`: json_schema, json_object or none (default: json_schema, falling back when refused)")
	fs.StringVar(&o.Prices, "prices", "", "price table `file` (JSON or YAML: model -> {input_per_mtok, output_per_mtok}) for cost estimates")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the number of judge calls, estimated tokens and cost, and exit without judging")
}

func (o *Options) bindOut(fs *flag.FlagSet) {
	fs.StringVar(&o.Out, "out", o.Out, "results `file` to write")
	fs.BoolVar(&o.Quiet, "quiet", o.Quiet, "no progress on stderr")
	fs.BoolVar(&o.RecordTexts, "record-texts", o.RecordTexts, "record each sample's response, retrieved contexts and the judge's evidence in the results file (for --format html); =false keeps scores and reasons only")
}

// fieldMapping parses the --field values.
func (o *Options) fieldMapping() (map[string]string, error) {
	if len(o.Fields) == 0 {
		return nil, nil
	}
	m := make(map[string]string, len(o.Fields))
	for _, kv := range o.Fields {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--field %q: want canonical=name-in-file, e.g. --field response=answer", kv)
		}
		m[k] = v
	}
	return m, nil
}

func (o *Options) metricNames() []string {
	var out []string
	for _, n := range strings.Split(o.Metrics, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// abs resolves p against the environment's working directory.
func (e Env) abs(p string) string {
	if p == "" || filepath.IsAbs(p) || e.Dir == "" {
		return p
	}
	return filepath.Join(e.Dir, p)
}
