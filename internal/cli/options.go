package cli

import (
	"flag"

	"github.com/raggate/raggate/internal/app"
)

// Options are the settings the flags fill: the action's inputs fill the
// same app.Settings, so the two front ends cannot drift apart.
type Options struct {
	app.Settings
	// judgeConfig is the --judge-config file, applied by parseFlags.
	judgeConfig string
	// repeatsRange is the range of --repeats (nil: a run's).
	repeatsRange *app.IntRange
}

func defaultOptions() Options { return Options{Settings: app.DefaultSettings()} }

// validate checks the options of command cmd before any work (see
// app.Settings.Validate); every problem is exit 2 naming the flag.
func (o *Options) validate(env Env, cmd string) error {
	return o.Settings.Validate(env.app(), cmd, app.FlagNames)
}

// loadUserMetrics reads --metrics-file, before the dataset and any judge
// call: a bad definition is exit 2 with its line.
func (o *Options) loadUserMetrics(env Env) error {
	defs, err := app.LoadUserMetrics(env.app(), o.MetricsFile)
	o.UserDefs = defs
	return err
}

func (o *Options) bindDataset(fs *flag.FlagSet) {
	fs.StringVar(&o.Dataset, "dataset", o.Dataset, "golden dataset `file` (JSONL, JSON array, CSV or Parquet)")
	fs.StringVar(&o.Responses, "responses", o.Responses, "optional `file` of pipeline outputs (response, contexts) joined to the dataset by id or user_input")
	textsVar(fs, &o.Fields, "field", eachValue(app.CheckField), "map a field to the name used in the file, `canonical=name` (repeatable), e.g. --field response=answer")
	fs.BoolVar(&o.StrictFields, "strict-fields", o.StrictFields, "reject dataset columns that are not fields, instead of keeping them as metadata")
	fs.Var(&metricsFlag{p: &o.Metrics, file: &o.MetricsFile, target: &o.Target}, "metrics", "comma-separated `metrics` to compute (default: the default suite the data allows, and every user-defined metric)")
	fs.StringVar(&o.MetricsFile, "metrics-file", o.MetricsFile, "user-defined metrics `file` (YAML; see metrics.example.yaml): critic, rubric and numeric metrics")
	o.bindLimits(fs)
}

func (o *Options) bindJudge(fs *flag.FlagSet) {
	enumVar(fs, &o.Judge, "judge", nil, "judge `provider`: auto (openai when an API key is set, else offline), offline, openai, azure (Azure OpenAI, with the azure-* settings)")
	fs.StringVar(&o.judgeConfig, "judge-config", "", "YAML `file` whose judge: section gives judge settings by flag name (model, base-url, azure-*, header, rpm, tpm, prices, seed, ...); flags given win")
	fs.StringVar(&o.Model, "model", o.Model, "chat `model` of the LLM judge")
	fs.StringVar(&o.EmbeddingModel, "embedding-model", o.EmbeddingModel, "embedding `model` of the LLM judge")
	fs.StringVar(&o.BaseURL, "base-url", o.BaseURL, "`URL` of an OpenAI-compatible API")
	fs.StringVar(&o.APIKeyEnv, "api-key-env", o.APIKeyEnv, "environment `variable` holding the API key")
	intVar(fs, &o.Concurrency, "concurrency", nil, "judge `calls` in flight at once, 1 to 1000")
	intVar(fs, &o.Strictness, "strictness", nil, "`questions` generated per sample for answer_relevancy, 1 to 10")
	enumVar(fs, &o.ClaimsAtomicity, "claims-atomicity", nil, "`level` of the claims of factual_correctness: low (a sentence's claims together) or high (one fact each)")
	enumVar(fs, &o.ClaimsCoverage, "claims-coverage", nil, "`level` of the claims of factual_correctness: low (main claims) or high (every detail)")
	shareVar(fs, &o.MaxUndefined, "max-undefined", "exit 3 when the judge leaves a metric undefined on more than this `share` of the samples (0 to 1; 1 = never)")
	intVar(fs, &o.Repeats, "repeats", o.repeatsRange, "judge every sample this many `times` (1 to 100) and average (the spread is reported as judge noise)")
	durationVar(fs, &o.MaxDuration, "max-duration", "stop judging after this `duration` and save what finished (0 = no limit)")
	fs.StringVar(&o.CacheDir, "cache-dir", o.CacheDir, "judge cache `directory` (LLM judge); persist it between CI runs")
	fs.BoolVar(&o.NoCache, "no-cache", o.NoCache, "do not read or write the judge cache")
	fs.StringVar(&o.Azure.Endpoint, "azure-endpoint", "", "Azure OpenAI `endpoint`, e.g. https://NAME.openai.azure.com (selects Azure)")
	fs.StringVar(&o.Azure.APIVersion, "azure-api-version", "", "Azure OpenAI api-`version` (default 2024-10-21)")
	fs.StringVar(&o.Azure.Deployment, "azure-deployment", "", "Azure chat `deployment` name")
	fs.StringVar(&o.Azure.EmbeddingDeployment, "azure-embedding-deployment", "", "Azure embedding `deployment` name")
	textsVar(fs, &o.Headers, "header", app.CheckHeader, "extra HTTP header `K=V` sent to the judge API (repeatable)")
	intVar(fs, &o.RPM, "rpm", nil, "`requests`-per-minute limit of the chat model (0 = none)")
	intVar(fs, &o.TPM, "tpm", nil, "`tokens`-per-minute limit of the chat model (0 = none)")
	durationVar(fs, &o.RequestTimeout, "request-timeout", "`timeout` of one judge HTTP request, more than 0 and at most 1h")
	intVar(fs, &o.MaxRetries, "max-retries", nil, "`retries` of a transient judge failure (5xx, timeouts, resets), 0 to 20")
	anyIntVar(fs, &o.Seed, "seed", "an integer, e.g. 42 (the default)", "`seed` sent to the judge where supported, an integer")
	fs.BoolVar(&o.NoSeed, "no-seed", false, "send no seed")
	intVar(fs, &o.MaxTokens, "max-completion-tokens", nil, "completion `tokens` limit of a judge call, 1 to 1000000")
	enumVar(fs, &o.ResponseFormat, "response-format", nil, "force the `format`: json_schema, json_object or none (default: json_schema, falling back when refused)")
	fs.StringVar(&o.Prices, "prices", "", "price table `file` (JSON or YAML: model -> {input_per_mtok, output_per_mtok}) for cost estimates")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the number of judge calls, estimated tokens and cost, and exit without judging")
}

func (o *Options) bindOut(fs *flag.FlagSet) {
	fs.StringVar(&o.Out, "out", o.Out, "results `file` to write")
	fs.BoolVar(&o.Quiet, "quiet", o.Quiet, "no progress on stderr")
	fs.BoolVar(&o.RecordTexts, "record-texts", o.RecordTexts, "record each sample's response, retrieved contexts and the judge's evidence in the results file (for --format html); =false keeps scores and reasons only")
}

func (o *Options) bindLimits(fs *flag.FlagSet) {
	sizeVar(fs, &o.Limits.MaxLineSize, "max-line-size", "longest line of a JSON Lines dataset, one sample (`size`, e.g. 64M; 0: no limit)")
	sizeVar(fs, &o.Limits.MaxDatasetSize, "max-dataset-size", "largest dataset or responses file (`size`, e.g. 4G; 0: no limit)")
	intVar(fs, &o.Limits.MaxContexts, "max-contexts", nil, "judge at most `n` retrieved contexts of a sample, the first ones, from the dataset or the target (0: no limit)")
}

func (o *Options) bindTarget(fs *flag.FlagSet) {
	t := &o.Target
	fs.StringVar(&t.URL, "target", t.URL, "call the pipeline at this `URL` for every sample instead of reading its responses (README: Targets)")
	fs.StringVar(&t.Cmd, "target-cmd", t.Cmd, "call the pipeline as this `command`: JSON Lines on stdin and stdout")
	fs.BoolVar(&t.PerSample, "target-per-sample", t.PerSample, "start the target command once per sample instead of keeping it running")
	fs.StringVar(&t.Config, "target-config", t.Config, "YAML `file` with a target: section (flags override it)")
	fs.StringVar(&t.Method, "target-method", t.Method, "HTTP `method` of the target (default POST)")
	textsVar(fs, &t.Headers, "target-header", eachValue(app.CheckTargetHeader), "HTTP header `NAME=VALUE` sent to the target, ${VAR} expanded from the environment (repeatable)")
	fs.StringVar(&t.Body, "target-body", t.Body, "JSON request `template`, e.g. '{\"query\": \"{{user_input}}\"}' (default {\"id\": \"{{id}}\", \"user_input\": \"{{user_input}}\"})")
	fs.StringVar(&t.Response, "target-response-path", t.Response, "`path` of the answer in the reply (default response)")
	fs.StringVar(&t.Contexts, "target-contexts-path", t.Contexts, "`path` of the retrieved contexts in the reply, e.g. sources[*].text (default retrieved_contexts, if present)")
	fs.StringVar(&t.ContextIDs, "target-context-ids-path", t.ContextIDs, "`path` of the retrieved context ids in the reply (default retrieved_context_ids, if present)")
	fs.StringVar(&t.Usage, "target-usage-path", t.Usage, "`path` of the token usage in the reply (default usage, if present)")
	fs.StringVar(&t.ID, "target-id-path", t.ID, "`path` of the request's id in the reply, which must then be the sample's (default id, checked when present for a command target)")
	fs.Var(&optInt{p: &t.Concurrency, key: "target-concurrency"}, "target-concurrency", "`calls` in flight to the target (command: processes), 1 to 1000 (default 8)")
	fs.Var(&durationFlag{opt: &t.Timeout, key: "target-timeout"}, "target-timeout", "`timeout` of one target call, 10ms to 1h (default 60s)")
	fs.Var(&optInt{p: &t.Retries, key: "target-retries"}, "target-retries", "`retries` of a transient target failure (5xx, 429, timeouts, a process that died), 0 to 20 (default 2)")
	fs.Var((*listFlag)(&t.Env), "target-env", "environment variable `NAME` a command target is given although it holds a secret of the gate (repeatable), e.g. OPENAI_API_KEY")
	fs.StringVar(&t.SaveResponses, "save-responses", t.SaveResponses, "write the target's answers to this JSON Lines `file`, to re-judge with --responses")
	shareVar(fs, &t.MaxFailures, "max-target-failures", "exit 3 when the target call fails for more than this `share` of the samples (0 to 1; default 0)")
}
