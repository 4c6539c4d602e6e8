package app

import (
	"fmt"
	"slices"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/offline"
	"github.com/raggate/raggate/internal/judge/openaicompat"
	"github.com/raggate/raggate/metrics"
)

// The judge is chosen here, once: chooseJudge turns the configured name
// into a backend, and every later decision asks the backend what it can
// do (declines, metered, deterministic) instead of comparing names.

// backend is a kind of judge: how to build it and what it can do.
type backend interface {
	// build makes the judge of repeat r (r > 0: an LLM judge asks afresh
	// instead of reading the answers of earlier repeats from its cache).
	build(env Env, o *runState, r int) (judge.Judge, judge.Info, error)
	// defaultSuite is the metrics judged when none are named.
	defaultSuite(has func(metrics.Field) bool) []metrics.Metric
	// declines says why the judge leaves a metric undefined by design
	// ("": it scores it).
	declines(metric string) string
	// metered reports whether calls cost money: usage, cost estimates,
	// model and price checks apply.
	metered() bool
	// deterministic reports whether the same inputs always get the same
	// scores (no judge noise to calibrate).
	deterministic() bool
}

// JudgeNames are the accepted values of the judge setting.
var JudgeNames = []string{"auto", "offline", "openai", "azure"}

// KnownJudge reports whether name is a judge name (JudgeNames).
func KnownJudge(name string) bool { return slices.Contains(JudgeNames, name) }

// chooseJudge resolves the configured judge as the gate command does:
// auto is the LLM judge when an API key or an endpoint is configured, else
// the offline judge (DecideJudge, falling back rather than skipping).
func chooseJudge(env Env, c *JudgeConfig) backend { return DecideJudge(env, c, false).b }

// NoKey is what becomes of a run whose judge needs an API key that did not
// reach it.
type NoKey int

const (
	// KeyOK: the judge chosen can run (it has a key, needs none, or is
	// the offline judge).
	KeyOK NoKey = iota
	// KeyFallBack: judge auto with nothing but a missing key pointing at
	// a provider: the offline judge stands in.
	KeyFallBack
	// KeySkip: the front end skips the run instead (the action's
	// skip-without-key).
	KeySkip
	// KeyRefuse: the LLM judge was asked for, by name or by its Azure
	// endpoint: no fallback, the run is refused.
	KeyRefuse
)

// JudgeDecision is the judge a configuration selects and what happens
// when it needs a key that is missing.
type JudgeDecision struct {
	b     backend
	NoKey NoKey
}

// DecideJudge is the one judge decision of both front ends. Judge offline
// never needs a key; an LLM judge with a self-hosted endpoint (base URL)
// may need none. Otherwise, without a key: skip is the front end's policy
// (true: skip the run rather than fall back, the action's
// skip-without-key); else judge auto with no endpoint falls back to the
// offline judge, and an LLM judge asked for by name or by an Azure
// endpoint is refused (its build says why).
func DecideJudge(env Env, c *JudgeConfig, skip bool) JudgeDecision {
	switch {
	case c.Judge == "offline":
		return JudgeDecision{b: offlineBackend{}}
	case !KeyMissing(env, c) || c.BaseURL != "":
		return JudgeDecision{b: llmBackend{}}
	case skip:
		return JudgeDecision{b: llmBackend{}, NoKey: KeySkip}
	case (c.Judge != "auto" && c.Judge != "") || c.Azure.Endpoint != "":
		return JudgeDecision{b: llmBackend{}, NoKey: KeyRefuse}
	}
	return JudgeDecision{b: offlineBackend{auto: true}, NoKey: KeyFallBack}
}

// backendOf is the backend a results file was judged with, by the
// provider it records.
func backendOf(provider string) backend {
	if provider == offline.Provider {
		return offlineBackend{}
	}
	return llmBackend{}
}

// APIKey is the API key of c: given, or from its environment variable.
func APIKey(env Env, c *JudgeConfig) string {
	if c.APIKey == "" && c.APIKeyEnv != "" {
		return env.getenv(c.APIKeyEnv)
	}
	return c.APIKey
}

// KeyMissing reports whether c names no API key that is set.
func KeyMissing(env Env, c *JudgeConfig) bool { return APIKey(env, c) == "" }

// offlineBackend is the deterministic lexical judge.
type offlineBackend struct{ auto bool }

func (b offlineBackend) build(env Env, o *runState, r int) (judge.Judge, judge.Info, error) {
	if b.auto && r == 0 {
		fmt.Fprintf(env.Log, "note: no API key in $%s: using the offline judge (a lexical heuristic for demos and smoke runs, not an LLM)\n", o.APIKeyEnv)
	}
	j := offline.New(offline.Options{})
	return j, j.Info(), nil
}

func (offlineBackend) defaultSuite(has func(metrics.Field) bool) []metrics.Metric {
	return offline.DefaultSuite(has)
}
func (offlineBackend) declines(m string) string { return offline.Declines(m) }
func (offlineBackend) metered() bool            { return false }
func (offlineBackend) deterministic() bool      { return true }

// llmBackend is the LLM judge over an OpenAI-compatible API.
type llmBackend struct{}

func (llmBackend) build(env Env, o *runState, r int) (judge.Judge, judge.Info, error) {
	key := APIKey(env, &o.JudgeConfig)
	if key == "" && o.BaseURL == "" {
		// api.openai.com (and Azure) need a key: say so now rather than
		// after a round of retries.
		name := o.Judge
		if name == "auto" || name == "" {
			name = "openai"
			if o.Azure.Endpoint != "" {
				name = "auto with --azure-endpoint"
			}
		}
		return nil, judge.Info{}, usageErr("--judge %s: no API key in $%s; set it (in CI: from a secret), name another variable with --api-key-env, or use --judge offline", name, o.APIKeyEnv)
	}
	return newOpenAIJudge(env, &o.JudgeConfig, key, r)
}

func (llmBackend) defaultSuite(has func(metrics.Field) bool) []metrics.Metric {
	return metrics.DefaultSuite(has)
}
func (llmBackend) declines(string) string { return "" }
func (llmBackend) metered() bool          { return true }
func (llmBackend) deterministic() bool    { return false }

// newOpenAIJudge builds the LLM judge over an OpenAI-compatible API.
func newOpenAIJudge(env Env, c *JudgeConfig, key string, repeat int) (judge.Judge, judge.Info, error) {
	headers, err := parseHeaders(c.Headers)
	if err != nil {
		return nil, judge.Info{}, err
	}
	cfg := openaicompat.Config{
		BaseURL:        c.BaseURL,
		APIKey:         key,
		APIKeyEnv:      c.APIKeyEnv,
		Model:          c.Model,
		EmbeddingModel: c.EmbeddingModel,
		Azure: openaicompat.AzureConfig{Endpoint: c.Azure.Endpoint, APIVersion: c.Azure.APIVersion,
			ChatDeployment: c.Azure.Deployment, EmbeddingDeployment: c.Azure.EmbeddingDeployment},
		ExtraHeaders:        headers,
		Concurrency:         c.Concurrency,
		RPM:                 c.RPM,
		TPM:                 c.TPM,
		RequestTimeout:      c.RequestTimeout,
		MaxRetries:          c.MaxRetries,
		NoSeed:              c.NoSeed,
		MaxCompletionTokens: c.MaxTokens,
		ResponseFormat:      c.ResponseFormat,
		CacheDir:            env.abs(c.CacheDir),
		NoCache:             c.NoCache,
		Logf: func(format string, args ...any) {
			// The judge's messages start with "judge".
			fmt.Fprintf(env.Log, format+"\n", args...)
		},
	}
	if c.MaxRetries == 0 {
		cfg.MaxRetries = -1
	}
	if repeat > 0 {
		cfg.CacheSalt = fmt.Sprintf("repeat-%d", repeat)
	}
	seed := c.Seed
	cfg.Seed = &seed
	cfg.Now, cfg.Sleep = env.judgeClock()
	if c.CacheDir == "" {
		cfg.NoCache = true
	}
	j, err := openaicompat.New(cfg)
	if err != nil {
		return nil, judge.Info{}, asUsage(err)
	}
	return j, j.Info(), nil
}

// UseOfflineJudge makes c select the offline judge (the action's
// fallback when no API key reaches the run).
func UseOfflineJudge(c *JudgeConfig) { c.Judge = "offline" }
