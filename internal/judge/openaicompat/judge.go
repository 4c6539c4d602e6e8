// Package openaicompat is the LLM judge over any OpenAI-compatible chat and
// embeddings API (OpenAI, Azure OpenAI, Ollama, vLLM, LiteLLM, ...), built
// on github.com/sashabaranov/go-openai.
//
// Every chat step is rendered by judge.Render and asked at temperature 0,
// except a request for several answers (the question step with strictness
// > 1), which is sampled at judge.SampleTemperature so that the answers
// vary; the calls that fill in answers a server did not return get their
// own seeds, so they vary too. Each call is sent with its temperature
// (go-openai drops a zero temperature, so a body patch puts it back), a
// seed, and structured output (response_format
// json_schema, strict) where the server supports it, falling back to
// json_object and then to the prompt alone when it does not; the reply is
// always validated locally by judge.Parse. An invalid reply is re-asked
// once with the validator's reason; a reply cut by the completion limit is
// retried once with twice the limit; refusals and content filters make the
// step undefined, never a score.
//
// Transport faults are handled in one place: rate limits (429) pause every
// caller until the reset the server announces; exhausted quota, bad keys
// and denied access stop the run with a message saying what to fix; 5xx
// answers, HTML error pages, timeouts, resets, empty choices and bodies cut
// mid-JSON are retried with bounded exponential backoff and jitter; an
// input too long for the model makes the step undefined. Calls are bounded
// by a concurrency limit and optional requests- and tokens-per-minute
// limits, answers are kept in a content-addressed disk cache
// (judge.Cache), and embeddings of concurrent callers are batched
// (judge.Batcher).
package openaicompat

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/retry"
)

// Providers reported in judge.Info: ProviderAzure for Azure OpenAI,
// ProviderOpenAI for every other OpenAI-compatible endpoint.
const (
	ProviderOpenAI = "openai"
	ProviderAzure  = "azure"
)

// Defaults of Config: a zero field takes these values.
const (
	// DefaultBaseURL is OpenAI's API.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultModel and DefaultEmbeddingModel are used with DefaultBaseURL
	// when no model is configured.
	DefaultModel          = "gpt-4o-mini"
	DefaultEmbeddingModel = "text-embedding-3-small"
	// DefaultAzureAPIVersion is the Azure OpenAI GA api-version with
	// structured outputs.
	DefaultAzureAPIVersion = "2024-10-21"
	// DefaultRequestTimeout bounds one HTTP attempt.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultMaxRetries bounds the retries of transient failures.
	DefaultMaxRetries = 5
	// DefaultMaxRetryWait caps one backoff or rate-limit wait.
	DefaultMaxRetryWait = 60 * time.Second
	// DefaultMaxCompletionTokens is the completion limit of a chat call.
	DefaultMaxCompletionTokens = 4096
	// DefaultEmbedConcurrency bounds the embeddings calls in flight.
	DefaultEmbedConcurrency = 4
	// DefaultSeed is the seed sent with every chat call.
	DefaultSeed = 42
	// DefaultAPIKeyEnv is the environment variable named in error messages.
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
)

// maxRateLimitRetries bounds the 429 waits of one call.
const maxRateLimitRetries = 20

// Response formats (Config.ResponseFormat).
const (
	// FormatAuto tries json_schema, then json_object, then none, as the
	// server refuses each.
	FormatAuto = ""
	// FormatJSONSchema is structured output with the step's JSON Schema
	// (strict); FormatJSONObject is JSON mode; FormatNone sends no
	// response_format. The server may still force a downgrade.
	FormatJSONSchema = "json_schema"
	FormatJSONObject = "json_object"
	FormatNone       = "none"
)

// AzureConfig selects Azure OpenAI. Endpoint is the resource URL
// (https://NAME.openai.azure.com); requests go to
// {Endpoint}/openai/deployments/{deployment}/chat/completions?api-version=...
// with the key in the api-key header.
type AzureConfig struct {
	Endpoint            string
	APIVersion          string // default DefaultAzureAPIVersion
	ChatDeployment      string // default Config.Model
	EmbeddingDeployment string // default Config.EmbeddingModel
}

// Config configures a Judge. The zero value of every field means its
// default.
type Config struct {
	// BaseURL of the OpenAI-compatible API, including /v1 (default
	// DefaultBaseURL; Ollama: http://localhost:11434/v1).
	BaseURL string
	// APIKey is sent as a bearer token (Azure: api-key header). It may be
	// empty for servers that need none.
	APIKey string
	// APIKeyEnv names the variable the key came from, for error messages
	// (default OPENAI_API_KEY).
	APIKeyEnv string
	// Model is the chat model (default DefaultModel with the default
	// BaseURL; required otherwise, except with Azure where the deployment
	// suffices).
	Model string
	// EmbeddingModel is the embeddings model (default DefaultEmbeddingModel
	// with the default BaseURL). Without one, Embed fails with a fatal
	// error.
	EmbeddingModel string
	// Azure, when Endpoint is set, selects Azure OpenAI.
	Azure AzureConfig
	// ExtraHeaders are added to every request.
	ExtraHeaders map[string]string

	// Concurrency bounds the chat calls in flight (default 8); RPM and TPM
	// are optional requests- and tokens-per-minute limits of the chat model
	// (tokens estimated as prompt characters / 4).
	Concurrency int
	RPM, TPM    int
	// EmbedConcurrency bounds the embeddings calls in flight (default 4).
	// Embeddings are a different model with its own rate limits, and
	// batched calls are few, so they have their own small pool (and their
	// own 429 backoff) rather than taking chat slots.
	EmbedConcurrency int
	// RequestTimeout bounds one HTTP attempt (default 60s).
	RequestTimeout time.Duration
	// MaxRetries bounds the retries of a transient failure (default 5; a
	// negative value means none). MaxRetryWait caps one wait (default 60s).
	MaxRetries   int
	MaxRetryWait time.Duration

	// Seed is sent for reproducibility where supported (nil: DefaultSeed);
	// NoSeed sends none.
	Seed   *int
	NoSeed bool
	// MaxCompletionTokens is the completion limit (default 4096); a reply
	// cut by it is retried once with twice the limit.
	MaxCompletionTokens int
	// ResponseFormat forces a response format (FormatJSONSchema,
	// FormatJSONObject, FormatNone); FormatAuto (empty) starts with
	// json_schema and downgrades when the server refuses it.
	ResponseFormat string

	// CacheDir is the judge cache directory (default judge.DefaultCacheDir);
	// NoCache disables the cache; Cache, when set, is used instead (to
	// share one cache between judges).
	CacheDir string
	NoCache  bool
	Cache    *judge.Cache
	// CacheSalt, when set, is part of every chat cache key: the repeats of
	// a run use different salts so that each asks the judge afresh (and is
	// cached on its own). Embeddings are deterministic and not salted.
	CacheSalt string

	// BatchWindow and BatchMaxTexts tune embedding batching (defaults 20ms,
	// 256 texts).
	BatchWindow   time.Duration
	BatchMaxTexts int

	// HTTPClient is the client to use (default: a new http.Client).
	HTTPClient *http.Client
	// Now, Sleep and Rand replace the clock, waits and backoff jitter in
	// tests (Rand returns a number in [0, 1)).
	Now   func() time.Time
	Sleep judge.SleepFunc
	Rand  func() float64
	// Logf receives warnings (capability downgrades, rate limits).
	Logf func(format string, args ...any)
}

type formatMode int

const (
	formatSchema formatMode = iota
	formatObject
	formatNone
)

func (f formatMode) String() string {
	switch f {
	case formatSchema:
		return FormatJSONSchema
	case formatObject:
		return FormatJSONObject
	}
	return FormatNone
}

// caps is what the server turned out to accept; downgrades last for the
// run.
type caps struct {
	format        formatMode
	n             bool
	seed          bool
	temperature   bool
	maxCompletion bool
}

// Judge is the OpenAI-compatible judge. It is safe for concurrent use.
type Judge struct {
	client    *openai.Client
	provider  string
	endpoint  string // host and path of the API, for cache keys
	chatModel string // model (or Azure deployment) sent
	embModel  string
	infoModel string
	infoEmb   string
	keyEnv    string

	timeout      time.Duration
	maxRetries   int
	maxRetryWait time.Duration
	maxTokens    int
	salt         string
	seed         *int
	format0      formatMode

	limiter      *judge.Limiter // chat calls
	embedLimiter *judge.Limiter // embeddings calls
	cache        *judge.Cache
	batcher      *judge.Batcher

	now   func() time.Time
	sleep judge.SleepFunc
	rand  func() float64
	logfn func(format string, args ...any)

	capsMu sync.Mutex
	caps   caps

	warned    sync.Map
	rateLimit atomic.Int64
}

var (
	_ judge.Judge     = (*Judge)(nil)
	_ judge.Describer = (*Judge)(nil)
)

// New returns a Judge for cfg.
func New(cfg Config) (*Judge, error) {
	if err := checkCredentials(cfg); err != nil {
		return nil, err
	}
	j := newJudge(cfg)
	format, err := responseFormat(cfg.ResponseFormat)
	if err != nil {
		return nil, err
	}
	j.format0 = format
	j.caps.format = j.format0

	hd := &doer{client: httpClientFor(cfg), headers: cfg.ExtraHeaders}
	oc, err := j.clientConfig(cfg, hd)
	if err != nil {
		return nil, err
	}
	oc.HTTPClient = hd
	j.client = openai.NewClientWithConfig(oc)

	j.setLimiters(cfg)
	if err := j.openCache(cfg); err != nil {
		return nil, err
	}
	j.batcher = judge.NewBatcher(j.embedBatch, judge.BatchOptions{Window: cfg.BatchWindow, MaxTexts: cfg.BatchMaxTexts})
	return j, nil
}

// newJudge copies the settings of cfg that need no validation, with
// defaults for the zero values.
func newJudge(cfg Config) *Judge {
	j := &Judge{
		keyEnv:       orDefault(cfg.APIKeyEnv, DefaultAPIKeyEnv),
		timeout:      cfg.RequestTimeout,
		maxRetries:   cfg.MaxRetries,
		maxRetryWait: cfg.MaxRetryWait,
		maxTokens:    cfg.MaxCompletionTokens,
		salt:         cfg.CacheSalt,
		now:          cfg.Now,
		sleep:        cfg.Sleep,
		rand:         cfg.Rand,
		logfn:        cfg.Logf,
		caps:         caps{n: true, seed: !cfg.NoSeed, temperature: true, maxCompletion: true},
	}
	if j.timeout <= 0 {
		j.timeout = DefaultRequestTimeout
	}
	switch {
	case j.maxRetries == 0:
		j.maxRetries = DefaultMaxRetries
	case j.maxRetries < 0:
		j.maxRetries = 0
	}
	if j.maxRetryWait <= 0 {
		j.maxRetryWait = DefaultMaxRetryWait
	}
	if j.maxTokens <= 0 {
		j.maxTokens = DefaultMaxCompletionTokens
	}
	if j.now == nil {
		j.now = time.Now
	}
	if j.sleep == nil {
		j.sleep = retry.Sleep
	}
	if j.rand == nil {
		j.rand = rand.Float64
	}
	if !cfg.NoSeed {
		s := DefaultSeed
		if cfg.Seed != nil {
			s = *cfg.Seed
		}
		j.seed = &s
	}
	return j
}

// responseFormat maps the configured response format to the first one the
// judge asks for.
func responseFormat(f string) (formatMode, error) {
	switch f {
	case FormatAuto, FormatJSONSchema:
		return formatSchema, nil
	case FormatJSONObject:
		return formatObject, nil
	case FormatNone:
		return formatNone, nil
	}
	return 0, fmt.Errorf("judge: unknown response format %q (want %s, %s or %s)", f, FormatJSONSchema, FormatJSONObject, FormatNone)
}

// httpClientFor returns cfg.HTTPClient, or a client that keeps a
// connection per concurrent call alive.
// Either way the client follows no redirect (noRedirects).
func httpClientFor(cfg Config) *http.Client {
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		c.CheckRedirect = noRedirects
		return &c
	}
	// Keep a connection per concurrent call alive (the default keeps
	// two per host and would reconnect for most calls). Attempts are
	// bounded by per-request context timeouts.
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(cfg.Concurrency, judge.DefaultConcurrency) + 4
	return &http.Client{Transport: t, CheckRedirect: noRedirects}
}

// noRedirects returns a 3xx response as it is (the doer turns it into a
// redirectError): following it would send the key and the extra headers
// to the host it names, and a 301, 302 or 303 would turn the POST into a
// GET without its body.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// clientConfig resolves the provider, endpoint and models and builds the
// go-openai configuration; it sets the query hd adds to every request.
func (j *Judge) clientConfig(cfg Config, hd *doer) (openai.ClientConfig, error) {
	if cfg.Azure.Endpoint != "" {
		return j.azureConfig(cfg, hd)
	}
	return j.openAIConfig(cfg, hd)
}

// azureConfig is clientConfig for an Azure OpenAI endpoint.
func (j *Judge) azureConfig(cfg Config, hd *doer) (openai.ClientConfig, error) {
	az := cfg.Azure
	j.provider = ProviderAzure
	endpoint, query := splitQuery(az.Endpoint)
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return openai.ClientConfig{}, fmt.Errorf("judge: Azure endpoint %q is not a URL like https://NAME.openai.azure.com", displayURL(az.Endpoint))
	}
	hd.query = query
	j.chatModel = orDefault(az.ChatDeployment, cfg.Model)
	j.embModel = orDefault(az.EmbeddingDeployment, cfg.EmbeddingModel)
	if j.chatModel == "" {
		return openai.ClientConfig{}, errors.New("judge: Azure OpenAI needs a chat deployment name (or a model name that is also the deployment name)")
	}
	j.infoModel = orDefault(cfg.Model, j.chatModel)
	j.infoEmb = orDefault(cfg.EmbeddingModel, j.embModel)
	oc := openai.DefaultAzureConfig(cfg.APIKey, strings.TrimRight(endpoint, "/"))
	oc.APIVersion = orDefault(az.APIVersion, DefaultAzureAPIVersion)
	oc.AzureModelMapperFunc = func(model string) string { return model }
	j.endpoint = strings.TrimRight(u.Host+u.Path, "/") + "?api-version=" + oc.APIVersion
	return oc, nil
}

// openAIConfig is clientConfig for an OpenAI or OpenAI-compatible base URL.
func (j *Judge) openAIConfig(cfg Config, hd *doer) (openai.ClientConfig, error) {
	j.provider = ProviderOpenAI
	// A query (?api-key=... for some proxies) goes on every request,
	// after the endpoint path.
	base, query := splitQuery(orDefault(cfg.BaseURL, DefaultBaseURL))
	base = strings.TrimRight(base, "/")
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return openai.ClientConfig{}, fmt.Errorf("judge: base URL %q is not an http(s) URL like https://api.openai.com/v1", displayURL(base))
	}
	hd.query = query
	j.chatModel, j.embModel = cfg.Model, cfg.EmbeddingModel
	if base == DefaultBaseURL {
		j.chatModel = orDefault(j.chatModel, DefaultModel)
		j.embModel = orDefault(j.embModel, DefaultEmbeddingModel)
	}
	if j.chatModel == "" {
		return openai.ClientConfig{}, fmt.Errorf("judge: no chat model configured for %s: set the model name the server serves", displayURL(base))
	}
	j.infoModel, j.infoEmb = j.chatModel, j.embModel
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = base
	j.endpoint = strings.TrimRight(u.Host+u.Path, "/")
	return oc, nil
}

// setLimiters sets the limiters of chat calls and embedding calls.
func (j *Judge) setLimiters(cfg Config) {
	j.limiter = judge.NewLimiter(judge.LimitOptions{
		Concurrency: cfg.Concurrency, RPM: cfg.RPM, TPM: cfg.TPM, Now: j.now, Sleep: j.sleep,
	})
	embedConc := cfg.EmbedConcurrency
	if embedConc <= 0 {
		embedConc = DefaultEmbedConcurrency
	}
	j.embedLimiter = judge.NewLimiter(judge.LimitOptions{Concurrency: embedConc, Now: j.now, Sleep: j.sleep})
}

// openCache sets the answer cache: cfg.Cache, the on-disk cache, or none.
func (j *Judge) openCache(cfg Config) error {
	switch {
	case cfg.Cache != nil:
		j.cache = cfg.Cache
	case !cfg.NoCache:
		c, err := judge.OpenCache(cfg.CacheDir)
		if err != nil {
			return err
		}
		c.Logf = cfg.Logf
		j.cache = c
	}
	return nil
}

// Info describes the judge for the results file.
func (j *Judge) Info() judge.Info {
	return judge.Info{
		Provider:          j.provider,
		Model:             j.infoModel,
		EmbeddingModel:    j.infoEmb,
		Temperature:       0,
		SampleTemperature: judge.SampleTemperature,
		Prompts:           judge.PromptsHash(),
	}
}

// Cache returns the judge's cache (nil when disabled).
func (j *Judge) Cache() *judge.Cache { return j.cache }

func (j *Judge) logf(format string, args ...any) {
	if j.logfn != nil {
		j.logfn(format, args...)
	}
}

// warnOnce logs a warning the first time key is seen.
func (j *Judge) warnOnce(key, format string, args ...any) {
	if _, seen := j.warned.LoadOrStore(key, true); !seen {
		j.logf(format, args...)
	}
}

// Ask answers one chat step: from the cache when an identical request was
// answered before, else from the API.
func (j *Judge) Ask(ctx context.Context, req judge.Request) (judge.Answer, error) {
	r, err := judge.Render(req)
	if err != nil {
		return judge.Answer{}, err
	}
	if j.cache == nil {
		_, a, u, err := j.ask(ctx, req, r)
		a.Usage = u
		return a, err
	}
	// The answer parsed by this caller's check or fill, so that it is not
	// parsed twice; a caller coalesced with another parses the entry.
	var (
		mu     sync.Mutex
		spent  judge.Usage
		parsed *judge.Answer
	)
	keep := func(a judge.Answer) {
		mu.Lock()
		defer mu.Unlock()
		parsed = &a
	}
	check := func(e judge.CacheEntry) error {
		if len(e.Contents) != req.Count() {
			return fmt.Errorf("cache entry has %d answers, want %d", len(e.Contents), req.Count())
		}
		a, err := assemble(req, e.Contents)
		if err == nil {
			keep(a)
		}
		return err
	}
	e, hit, err := j.cache.Chat(ctx, j.chatKey(req, r), check, func(ctx context.Context) (judge.CacheEntry, error) {
		contents, a, u, err := j.ask(ctx, req, r)
		mu.Lock()
		spent = u
		mu.Unlock()
		if err != nil {
			return judge.CacheEntry{}, err
		}
		keep(a)
		return judge.CacheEntry{Contents: contents, Usage: u}, nil
	})
	mu.Lock()
	p, u := parsed, spent
	mu.Unlock()
	if err != nil {
		// spent is only written by this caller's fill; a coalesced caller
		// that failed spent nothing.
		return judge.Answer{Usage: u}, err
	}
	var a judge.Answer
	if p != nil {
		a = *p
	} else if a, err = assemble(req, e.Contents); err != nil {
		return judge.Answer{}, err
	}
	if hit {
		a.Usage = judge.Usage{CachedCalls: 1}
	} else {
		a.Usage = e.Usage
	}
	return a, nil
}

// assemble parses the contents (one per choice) into one answer.
func assemble(req judge.Request, contents []string) (judge.Answer, error) {
	if !judge.MultiAnswer(req.Step) {
		if len(contents) != 1 {
			return judge.Answer{}, fmt.Errorf("%s step: %d answers, want 1", req.Step, len(contents))
		}
		return judge.Parse(req, contents[0])
	}
	var out judge.Answer
	for _, c := range contents {
		a, err := judge.Parse(req, c)
		if err != nil {
			return judge.Answer{}, err
		}
		out.Questions = append(out.Questions, a.Questions...)
		out.Critic = append(out.Critic, a.Critic...)
	}
	return out, nil
}

// chatKey is the cache key of a chat step: everything that determines the
// answer, as configured (capability downgrades during a run do not change
// what was asked, so they do not change the key).
func (j *Judge) chatKey(req judge.Request, r judge.Rendered) string {
	return judge.CacheKey(j.chatKeyParts(req, r)...)
}

// chatKeyParts lists what chatKey hashes.
func (j *Judge) chatKeyParts(req judge.Request, r judge.Rendered) []string {
	seed := "none"
	if j.seed != nil {
		seed = strconv.Itoa(*j.seed)
	}
	parts := []string{"chat", j.provider, j.endpoint, j.chatModel}
	if j.salt != "" {
		// Repeats of a run (gate run --repeats) must ask the judge again,
		// not read each other's answers.
		parts = append(parts, "salt="+j.salt)
	}
	return append(parts,
		"temperature="+strconv.FormatFloat(req.Temperature(), 'g', -1, 64), "n="+strconv.Itoa(req.Count()), "seed="+seed,
		"response_format="+j.format0.String()+":"+r.SchemaName+":strict",
		"max_completion_tokens="+strconv.Itoa(j.maxTokens),
		r.System, r.User, string(r.Schema))
}

func (j *Judge) embedKey(text string) string {
	return judge.CacheKey("embed", j.provider, j.endpoint, j.embModel, text)
}

// choice is one assistant reply.
type choice struct {
	content string
	finish  openai.FinishReason
	refusal string
}

// refused reports whether the reply is a refusal or was filtered.
func (c choice) refused() bool {
	return c.refusal != "" || c.finish == openai.FinishReasonContentFilter
}

// ask asks the API until it has req.Count() valid replies: it asks for the
// missing ones (n in one call where supported), retries once with a
// doubled completion limit when a reply is cut, and re-asks once with the
// validator's reason when a reply is invalid.
func (j *Judge) ask(ctx context.Context, req judge.Request, r judge.Rendered) ([]string, judge.Answer, judge.Usage, error) {
	var usage judge.Usage
	want := req.Count()
	base := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: r.System},
		{Role: openai.ChatMessageRoleUser, Content: r.User},
	}
	maxTokens := j.maxTokens
	var (
		good          []string
		answers       []judge.Answer
		lengthRetried bool
		reasked       bool
		fewerReported bool
	)
	for len(good) < want {
		need := want - len(good)
		// A fill-in call (the server returned fewer than n) gets its own
		// seed so that its samples differ from those already taken.
		choices, u, err := j.complete(ctx, base, sampling{n: need, temperature: req.Temperature(), seedOffset: len(good)}, maxTokens, r)
		usage = usage.Add(u)
		if err != nil {
			return nil, judge.Answer{}, usage, err
		}
		if len(choices) < need && !fewerReported && need > 1 {
			fewerReported = true
			j.warnOnce("fewer-choices", "judge: the endpoint returned %d choice(s) for n=%d (it ignores n); making the missing calls", len(choices), need)
		}
		b, err := sortChoices(req, choices[:min(len(choices), need)])
		if err != nil {
			return nil, judge.Answer{}, usage, err
		}
		good = append(good, b.good...)
		answers = append(answers, b.answers...)
		bad, firstInvalid, cut := b.bad, b.firstInvalid, b.cut
		if len(bad) > 0 {
			if reasked {
				return nil, judge.Answer{}, usage, firstInvalid.Undefined()
			}
			reasked = true
			contents, as, u, err := j.reask(ctx, req, base, bad[0], firstInvalid, len(bad), maxTokens, r)
			usage = usage.Add(u)
			if err != nil {
				return nil, judge.Answer{}, usage, err
			}
			good = append(good, contents...)
			answers = append(answers, as...)
		}
		if cut {
			if lengthRetried {
				return nil, judge.Answer{}, usage, &judge.Undefined{Reason: "truncated", Err: fmt.Errorf("the judge's reply was cut at the completion limit of %d tokens, and again at %d", maxTokens/2, maxTokens)}
			}
			lengthRetried = true
			maxTokens *= 2
		}
	}
	out := answers[0]
	for _, a := range answers[1:want] {
		out.Questions = append(out.Questions, a.Questions...)
		out.Critic = append(out.Critic, a.Critic...)
	}
	return good[:want], out, usage, nil
}

// sorted is a batch of choices sorted by what ask does next with them.
type sorted struct {
	good         []string       // valid replies
	answers      []judge.Answer // their parsed answers
	bad          []string       // replies that failed validation
	firstInvalid *judge.InvalidOutputError
	cut          bool // some reply was cut at the completion limit
}

// sortChoices parses and validates each choice. A refusal, or a reply that
// cannot be parsed at all, ends the question with an error.
func sortChoices(req judge.Request, choices []choice) (sorted, error) {
	var b sorted
	for _, c := range choices {
		if c.refused() {
			return b, &judge.Undefined{Reason: "judge refused", Err: refusalError(c)}
		}
		if c.finish == openai.FinishReasonLength {
			b.cut = true
			continue
		}
		a, perr := judge.Parse(req, c.content)
		if perr != nil {
			var inv *judge.InvalidOutputError
			if !errors.As(perr, &inv) {
				return b, perr
			}
			if b.firstInvalid == nil {
				b.firstInvalid = inv
			}
			b.bad = append(b.bad, c.content)
			continue
		}
		b.good = append(b.good, c.content)
		b.answers = append(b.answers, a)
	}
	return b, nil
}

// reask asks once more, for n replies, with an invalid reply and the
// validator's reason appended to the conversation. Every reply must now be
// valid.
func (j *Judge) reask(ctx context.Context, req judge.Request, base []openai.ChatCompletionMessage, bad string, inv *judge.InvalidOutputError, n, maxTokens int, r judge.Rendered) ([]string, []judge.Answer, judge.Usage, error) {
	msgs := append(append([]openai.ChatCompletionMessage{}, base...),
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: bad},
		openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: judge.Reask(inv)},
	)
	choices, u, err := j.complete(ctx, msgs, sampling{n: n, temperature: req.Temperature()}, maxTokens, r)
	if err != nil {
		return nil, nil, u, err
	}
	var (
		out     []string
		answers []judge.Answer
	)
	for _, c := range choices[:min(len(choices), n)] {
		switch {
		case c.refused():
			return nil, nil, u, &judge.Undefined{Reason: "judge refused", Err: refusalError(c)}
		case c.finish == openai.FinishReasonLength:
			return nil, nil, u, &judge.Undefined{Reason: "truncated", Err: fmt.Errorf("the judge's corrected reply was cut at the completion limit of %d tokens", maxTokens)}
		}
		a, perr := judge.Parse(req, c.content)
		if perr != nil {
			var inv2 *judge.InvalidOutputError
			if errors.As(perr, &inv2) {
				return nil, nil, u, inv2.Undefined()
			}
			return nil, nil, u, perr
		}
		out = append(out, c.content)
		answers = append(answers, a)
	}
	return out, answers, u, nil
}

func refusalError(c choice) error {
	if c.refusal != "" {
		return fmt.Errorf("refusal: %s", c.refusal)
	}
	return fmt.Errorf("finish_reason %s", c.finish)
}

// sampling is what one chat call asks for: n choices at a temperature, with
// the configured seed plus seedOffset.
type sampling struct {
	n           int
	temperature float64
	seedOffset  int
}

// complete makes one chat completion call (with retries) asking for smp.n
// choices, and returns at least one choice.
func (j *Judge) complete(ctx context.Context, msgs []openai.ChatCompletionMessage, smp sampling, maxTokens int, r judge.Rendered) ([]choice, judge.Usage, error) {
	n := smp.n
	var (
		usage judge.Usage
		resp  openai.ChatCompletionResponse
	)
	chars := 0
	for _, m := range msgs {
		chars += len(m.Content)
	}
	err := j.withRetries(ctx, j.limiter, chars/4+1, func(ctx context.Context, c *call) error {
		j.capsMu.Lock()
		cp := j.caps
		j.capsMu.Unlock()
		req := openai.ChatCompletionRequest{Model: j.chatModel, Messages: msgs}
		switch cp.format {
		case formatSchema:
			req.ResponseFormat = &openai.ChatCompletionResponseFormat{
				Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
					Name: r.SchemaName, Schema: r.Schema, Strict: true,
				},
			}
		case formatObject:
			req.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
		}
		c.sent = sent{format: cp.format}
		c.patch = map[string]any{}
		if cp.temperature {
			c.patch["temperature"] = smp.temperature
			c.sent.temperature = true
		}
		if n > 1 && cp.n {
			c.patch["n"] = n
			c.sent.n = n
		}
		if j.seed != nil && cp.seed {
			c.patch["seed"] = *j.seed + smp.seedOffset
			c.sent.seed = true
		}
		if cp.maxCompletion {
			c.patch["max_completion_tokens"] = maxTokens
			c.sent.maxCompletion = true
		} else {
			c.patch["max_tokens"] = maxTokens
		}
		res, err := j.client.CreateChatCompletion(ctx, req)
		if err != nil {
			return err
		}
		usage = usage.Add(judge.Usage{ChatCalls: 1, PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens})
		if len(res.Choices) == 0 {
			return errEmptyChoices
		}
		resp = res
		return nil
	})
	if err != nil {
		return nil, usage, err
	}
	sort.SliceStable(resp.Choices, func(a, b int) bool { return resp.Choices[a].Index < resp.Choices[b].Index })
	out := make([]choice, len(resp.Choices))
	for i, c := range resp.Choices {
		out[i] = choice{content: c.Message.Content, finish: c.FinishReason, refusal: c.Message.Refusal}
	}
	return out, usage, nil
}

// withRetries runs attempt until it succeeds, adapting to refused
// parameters, waiting out rate limits (one backoff shared by all callers of
// lim) and backing off from transient failures. The doer takes a slot of
// lim and starts the per-attempt timeout around each HTTP exchange.
func (j *Judge) withRetries(ctx context.Context, lim *judge.Limiter, tokens int, attempt func(context.Context, *call) error) error {
	transient, limited, adapted := 0, 0, 0
	for {
		c := &call{lim: lim, tokens: tokens, timeout: j.timeout}
		err := brief(attempt(withCall(ctx, c), c))
		if err == nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("judge: %w", cerr)
		}
		if c.timedOut {
			err = fmt.Errorf("no answer within %s (request timeout; raise --request-timeout for a slow judge): %w", j.timeout, err)
		}
		if adapted < 8 && j.adapt(err, c.sent) {
			adapted++
			continue
		}
		kind, out := j.classify(err, lim == j.embedLimiter)
		switch kind {
		case failFatal:
			return &judge.Fatal{Err: out}
		case failUndefined:
			return out
		case failRateLimit:
			limited++
			if limited > maxRateLimitRetries {
				return &judge.Fatal{Err: fmt.Errorf("judge still rate limited after %d waits: lower the concurrency or set requests/tokens-per-minute limits: %w", limited-1, err)}
			}
			_, _, _, msg, _, _ := apiDetails(err)
			wait, ok := rateLimitWait(c.header, msg, j.now())
			if !ok {
				wait = j.retryPolicy().Backoff(limited - 1)
			}
			wait, _ = j.retryPolicy().Announced(wait)
			if n := j.rateLimit.Add(1); n == 1 || n%50 == 0 {
				j.logf("judge: rate limited (HTTP 429, %d so far); all calls pause for %s", n, wait)
			}
			lim.Pause(wait)
		case failRetry:
			transient++
			if !j.retryPolicy().Allows(transient - 1) {
				return &judge.Fatal{Err: fmt.Errorf("judge unreachable after %s: %w", attempts(transient), err)}
			}
			if err := j.sleep(ctx, j.retryPolicy().Backoff(transient-1)); err != nil {
				return fmt.Errorf("judge: %w", err)
			}
		}
	}
}

// retryPolicy spaces the retries of transient failures (MaxRetries of
// them) and the waits of rate limits: 500ms x 2^n, capped at MaxRetryWait,
// with jitter (50% to 100% of it); a server's longer wait is shortened to
// the cap.
func (j *Judge) retryPolicy() retry.Policy {
	return retry.Policy{Base: 500 * time.Millisecond, Cap: j.maxRetryWait, Jitter: 0.5, Retries: j.maxRetries, Rand: j.rand}
}

// Embed returns one vector per text: cached vectors from the cache, the
// rest from a batch shared with concurrent callers.
func (j *Judge) Embed(ctx context.Context, texts []string) (judge.Embedding, error) {
	if j.embModel == "" {
		return judge.Embedding{}, &judge.Fatal{Err: errors.New("judge: no embedding model configured; set the embedding model (answer relevancy and semantic similarity need embeddings)")}
	}
	vecs := make([][]float64, len(texts))
	where := map[string][]int{}
	var missing []string
	for i, t := range texts {
		if j.cache != nil {
			if v, ok := j.cache.LoadEmbedding(j.embedKey(t)); ok {
				vecs[i] = v
				continue
			}
		}
		if _, ok := where[t]; !ok {
			missing = append(missing, t)
		}
		where[t] = append(where[t], i)
	}
	if len(missing) == 0 {
		return judge.Embedding{Vectors: vecs}, nil
	}
	e, err := j.batcher.Embed(ctx, missing)
	if err != nil {
		return judge.Embedding{Usage: e.Usage}, err
	}
	for k, t := range missing {
		for _, i := range where[t] {
			vecs[i] = e.Vectors[k]
		}
		if j.cache != nil {
			j.cache.StoreEmbedding(j.embedKey(t), e.Vectors[k])
		}
	}
	return judge.Embedding{Vectors: vecs, Usage: e.Usage}, nil
}

// embedBatch makes one embeddings call (with retries) for texts.
func (j *Judge) embedBatch(ctx context.Context, texts []string) (judge.Embedding, error) {
	chars := 0
	for _, t := range texts {
		chars += len(t)
	}
	var (
		usage judge.Usage
		out   [][]float64
	)
	err := j.withRetries(ctx, j.embedLimiter, chars/4+1, func(ctx context.Context, c *call) error {
		res, err := j.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(j.embModel)})
		if err != nil {
			return err
		}
		tok := res.Usage.PromptTokens
		if tok == 0 {
			tok = res.Usage.TotalTokens
		}
		usage = usage.Add(judge.Usage{EmbeddingCalls: 1, EmbeddingTokens: tok})
		if len(res.Data) != len(texts) {
			return fmt.Errorf("embeddings: %d vectors for %d texts", len(res.Data), len(texts))
		}
		vecs := make([][]float64, len(texts))
		for _, d := range res.Data {
			if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
				return fmt.Errorf("embeddings: bad or repeated index %d", d.Index)
			}
			v := make([]float64, len(d.Embedding))
			for i, x := range d.Embedding {
				v[i] = float64(x)
			}
			vecs[d.Index] = v
		}
		out = vecs
		return nil
	})
	if err != nil {
		return judge.Embedding{Usage: usage}, err
	}
	return judge.Embedding{Vectors: out, Usage: usage}, nil
}

// attempts words a count of attempts: "1 attempt", "3 attempts".
func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
