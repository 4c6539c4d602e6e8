package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/dataset"
	_ "github.com/raggate/raggate/internal/dataset/parquetfile" // reads .parquet datasets
	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/offline"
	"github.com/raggate/raggate/internal/judge/openaicompat"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

func runCmd(ctx context.Context, env Env, args []string) error {
	o := defaultOptions()
	fs := newFlagSet("run", env, "--dataset FILE [--responses FILE] [--field k=v ...] [--metrics a,b] [--judge offline|openai] [--out results.json]")
	o.bindDataset(fs)
	o.bindJudge(fs)
	o.bindOut(fs)
	o.bindTarget(fs)
	fs.StringVar(&o.Shard, "shard", o.Shard, "judge only shard `i/n` of the dataset (by a hash of the sample id); combine the shards with gate merge")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := o.validate(env, "run"); err != nil {
		return err
	}
	if err := o.loadUserMetrics(env); err != nil {
		return err
	}
	defer o.closeTexts()
	f, err := execRun(ctx, env, &o)
	if f != nil {
		if terr := report.RunTable(env.Stdout, f); terr != nil {
			return terr
		}
		fmt.Fprintf(env.Stderr, "wrote %s (%d samples, judge %s)\n", o.Out, len(f.Samples), f.Judge.Provider)
	}
	return err
}

// execRun loads the dataset, judges it and writes the results file. On a
// fatal judge error, a time-out or cancellation it still writes what
// finished (marked incomplete) and returns both the file and the error.
// The options have been validated (Options.validate).
func execRun(ctx context.Context, env Env, o *Options) (*results.File, error) {
	env.protect(o.secretValues(env)...)
	if err := o.buildTarget(env); err != nil {
		return nil, err
	}
	in, err := loadRun(ctx, env, o)
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		return nil, dryRun(env, o, in.samples, in.ms)
	}
	judges, err := newJudges(env, o, in.ms)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := withTimeBudget(ctx, o.MaxDuration)
	defer cancel()
	all := len(in.ds.Samples)
	ph, unanswered, err := answer(runCtx, env, o, in)
	if err != nil {
		return nil, err
	}
	// From here the run holds the texts of the samples not judged yet only:
	// the results need the input hashes, computed now, not the texts.
	inputs := eval.InputsOf(in.samples)
	if err := o.openTexts(env); err != nil {
		return nil, err
	}
	in.ds.Samples = nil
	jr, err := judgeRepeats(runCtx, env, o, judges, in.samples, in.ms, unanswered)
	if err != nil {
		return nil, err
	}
	runErr, start := jr.err, jr.start
	judged := len(jr.runs[len(jr.runs)-1].Samples)
	prov := provenance(env, o, in.ds, all, jr.info)
	prov.UserMetrics = definitionsOf(in.ms)
	f := resultsFile(env, o, prov, inputs, jr)
	f.Config.MaxUndefined, f.Config.MaxTargetFailures = &o.MaxUndefined, &o.Target.MaxFailures
	attachTargetCalls(f, ph)
	if runErr != nil {
		runErr = markIncomplete(ctx, runCtx, o, f, runErr, judged, len(in.samples))
	}
	redactResults(env.red, f)
	if err := saveResults(env, o, f); err != nil {
		return nil, err
	}
	if !o.Quiet {
		fmt.Fprintf(env.Stderr, "judged %d samples x %d metrics in %s\n", judged, len(in.ms), time.Since(start).Round(time.Millisecond))
	}
	if runErr == nil {
		runErr = gateUnscored(o, f, jr.info)
	}
	return f, runErr
}

// runInputs are what a run judges: the dataset, the samples of its shard
// and the metrics.
type runInputs struct {
	ds      *dataset.Dataset
	samples []metrics.Sample
	ms      []metrics.Metric
}

// loadRun loads the dataset and checks, before any call, everything that
// can be checked: segment keys, the command's own checks, the metrics and
// the columns they and the target's requests read.
func loadRun(ctx context.Context, env Env, o *Options) (*runInputs, error) {
	mapping, err := o.fieldMapping()
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	ds, err := dataset.LoadContext(ctx, env.abs(o.Dataset), dataset.Options{Mapping: mapping, ResponsesPath: env.abs(o.Responses), StrictFields: o.StrictFields, Limits: o.Limits.dataset()})
	if err != nil {
		return nil, withCode(ExitUsage, err)
	}
	for _, w := range ds.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	if err := checkSegmentKeys(ds, o.segmentKeys); err != nil {
		return nil, err
	}
	if o.checkDataset != nil {
		if err := o.checkDataset(ds); err != nil {
			return nil, withCode(ExitUsage, err)
		}
	}
	samples, err := shardSamples(env, o, ds.Samples)
	if err != nil {
		return nil, err
	}
	o.warn(env, capContexts(o.Limits.MaxContexts, samples))
	ms, err := o.suite(env, ds)
	if err != nil {
		return nil, err
	}
	if err := checkScorable(ms, o.hasField(ds), o.offlineJudge(env)); err != nil {
		return nil, err
	}
	if err := checkUserColumns(ds, ms, o.targetColumns()...); err != nil {
		return nil, err
	}
	if err := o.checkTargetFields(ds); err != nil {
		return nil, err
	}
	return &runInputs{ds: ds, samples: samples, ms: ms}, nil
}

// gateUnscored is the error of a finished run with too many samples left
// unscored: by the judge (--max-undefined) or by failed target calls
// (--max-target-failures).
func gateUnscored(o *Options, f *results.File, info judge.Info) error {
	if msg := nothingScored(f); msg != "" {
		return usageErr("%s; the results are saved in %s", msg, o.Out)
	}
	if msg := scoredByJudge(f, info).TooManyUndefined(o.MaxUndefined); msg != "" {
		return withCode(ExitOperational, fmt.Errorf("%s; the results are saved in %s (raise --max-undefined to accept this)", msg, o.Out))
	}
	if msg := tooManyTargetFailures(f, o.Target.MaxFailures); msg != "" {
		return withCode(ExitOperational, fmt.Errorf("%s; the results are saved in %s (their scores are undefined, kind target; raise --max-target-failures to accept this)", msg, o.Out))
	}
	return nil
}

// openTexts opens the file that holds the samples' texts while the run
// lasts, when they are recorded.
func (o *Options) openTexts(env Env) error {
	if !o.RecordTexts || o.texts != nil {
		return nil
	}
	newSpill := results.NewSpill
	if env.newSpill != nil {
		newSpill = env.newSpill
	}
	sp, err := newSpill("")
	if err != nil {
		// A full or unwritable temporary directory must not cost the
		// run: its results are written without texts.
		o.loseTexts(env, err)
		return nil
	}
	o.texts = sp
	return nil
}

// warn prints w ("" is none) on stderr and keeps it for the results
// file's warnings.
func (o *Options) warn(env Env, w string) {
	if w != "" {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
		o.warnings = append(o.warnings, w)
	}
}

// loseTexts records, and warns, that the results are written without
// texts because of err (the temporary file of the texts failed).
func (o *Options) loseTexts(env Env, err error) {
	o.textsLost = fmt.Sprintf("the samples' texts could not be kept in the temporary directory (%v): the results are written without texts, so the HTML report shows scores and reasons only; free space in $TMPDIR (or point TMPDIR elsewhere), or pass --record-texts=false", err)
	fmt.Fprintf(env.Stderr, "warning: %s\n", env.red.String(o.textsLost))
}

// saveResults writes f to --out with the run's texts. When the texts were
// not all written or cannot be read back (the temporary directory filled
// up), it writes the results without them, with a warning, rather than
// lose the run.
func saveResults(env Env, o *Options, f *results.File) error {
	if o.texts != nil {
		if err := o.texts.Err(); err != nil {
			o.loseTexts(env, err)
		} else {
			f.SetTextSource(redactedTexts(env.red, o.texts))
		}
	}
	f.Warnings = append(f.Warnings, o.warnings...)
	withoutTexts := func() {
		f.SetTextSource(nil)
		f.Warnings = append(f.Warnings, env.red.String(o.textsLost))
	}
	if o.textsLost != "" {
		withoutTexts()
	}
	err := results.Write(env.abs(o.Out), f)
	if errors.Is(err, results.ErrTexts) && o.textsLost == "" {
		o.loseTexts(env, err)
		withoutTexts()
		err = results.Write(env.abs(o.Out), f)
	}
	if err != nil {
		return withCode(ExitOperational, fmt.Errorf("save results: %w", err))
	}
	return nil
}

// shardSamples returns the samples of the shard --shard names, or all.
func shardSamples(env Env, o *Options, all []metrics.Sample) ([]metrics.Sample, error) {
	if o.Shard == "" {
		return all, nil
	}
	i, n, err := results.ParseShard(o.Shard)
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--shard: %w", err))
	}
	samples := results.ShardOf(all, i, n)
	if !o.Quiet {
		fmt.Fprintf(env.Stderr, "shard %s: %d of %d samples\n", o.Shard, len(samples), len(all))
	}
	return samples, nil
}

// markIncomplete records in f why a run stopped after judging judged of
// total samples (time budget, cancellation or the judge's failure) and
// returns the error the command ends with.
func markIncomplete(ctx, runCtx context.Context, o *Options, f *results.File, runErr error, judged, total int) error {
	switch {
	case errors.Is(context.Cause(runCtx), errTimeBudget) && ctx.Err() == nil:
		f.Incomplete = fmt.Sprintf("time budget --max-duration=%s reached: %d of %d samples judged", o.MaxDuration, judged, total)
		return withCode(ExitOperational, fmt.Errorf("%s; results so far saved to %s", f.Incomplete, o.Out))
	case ctx.Err() != nil:
		f.Incomplete = fmt.Sprintf("cancelled: %d of %d samples judged", judged, total)
		return fmt.Errorf("%s; results so far saved to %s: %w", f.Incomplete, o.Out, ctx.Err())
	default:
		f.Incomplete = fmt.Sprintf("judge failed: %d of %d samples judged: %v", judged, total, runErr)
		return withCode(ExitOperational, fmt.Errorf("%w; the %d samples judged so far are saved in %s", runErr, judged, o.Out))
	}
}

var errTimeBudget = errors.New("time budget reached")

// suite returns the metrics to compute: those of --metrics (built-in or
// user-defined), else the default suite the dataset allows (the offline
// judge's without the metrics it cannot score reliably) and every
// user-defined metric. A metric named that the offline judge declines is
// kept, undefined, with a note.
func (o *Options) suite(env Env, ds *dataset.Dataset) ([]metrics.Metric, error) {
	has := o.hasField(ds)
	user := o.userMetrics()
	names := o.metricNames()
	if len(names) == 0 {
		if o.offlineJudge(env) {
			return append(offline.DefaultSuite(has), user...), nil
		}
		return append(metrics.DefaultSuite(has), user...), nil
	}
	ms, err := eval.Resolve(names, user...)
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--metrics: %w", err))
	}
	if o.offlineJudge(env) && !o.DryRun {
		for _, m := range ms {
			if r := offline.Declines(m.Name); r != "" {
				fmt.Fprintf(env.Stderr, "note: %s: it stays undefined\n", r)
			}
		}
	}
	return ms, nil
}

// scoredByJudge returns f without the metrics its judge declines (see
// declineOf): their undefined scores are by design, not a judge failure
// for --max-undefined.
func scoredByJudge(f *results.File, info judge.Info) *results.File {
	declines := declineOf(info)
	if declines == nil {
		return f
	}
	g := *f
	g.Config.Metrics = slices.DeleteFunc(slices.Clone(f.Config.Metrics), func(m string) bool { return declines(m) != "" })
	return &g
}

// offlineJudge reports whether the options select the offline judge
// (--judge offline, or auto without a key or an endpoint).
func (o *Options) offlineJudge(env Env) bool {
	switch o.Judge {
	case "offline":
		return true
	case "auto", "":
		return o.apiKey(env) == "" && o.BaseURL == "" && o.Azure.Endpoint == ""
	}
	return false
}

// apiKey is the API key of the options: given, or from the environment.
func (o *Options) apiKey(env Env) string {
	if o.APIKey == "" && o.APIKeyEnv != "" {
		return env.getenv(o.APIKeyEnv)
	}
	return o.APIKey
}

// withTimeBudget returns ctx cancelled with cause errTimeBudget after d (0:
// never).
func withTimeBudget(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, d, errTimeBudget)
}

// resultsFile makes the results file of the repeated runs, with the
// judge's usage and, for an LLM judge, its estimated cost.
func resultsFile(env Env, o *Options, p eval.Provenance, inputs eval.Inputs, jr *repeated) *results.File {
	f := eval.NewFile(p, inputs, jr.runs)
	f.Usage = eval.UsageOf(jr.total, jr.perMetric)
	if jr.info.Provider != offline.Provider {
		if table, err := prices(env, o); err == nil {
			f.Usage.EstimatedCostUSD = openaicompat.EstimateCost(jr.info.Model, jr.info.EmbeddingModel, jr.total, table)
		}
	}
	return f
}

// newJudges builds the judge of the first repeat and checks, before any
// judge call, what can be checked without spending money: the models the
// metrics ms need and the price table. It returns the judge of each
// repeat.
func newJudges(env Env, o *Options, ms []metrics.Metric) (func(repeat int) (judge.Judge, judge.Info, error), error) {
	j0, info0, err := newJudge(env, o, 0)
	if err != nil {
		return nil, err
	}
	if info0.Provider != offline.Provider {
		if err := checkModels(info0, ms); err != nil {
			return nil, err
		}
		if _, err := prices(env, o); err != nil {
			return nil, err
		}
	}
	return func(repeat int) (judge.Judge, judge.Info, error) {
		if repeat == 0 {
			return j0, info0, nil
		}
		return newJudge(env, o, repeat)
	}, nil
}

// checkModels fails when a metric of ms needs embeddings and the LLM
// judge has no embedding model.
func checkModels(info judge.Info, ms []metrics.Metric) error {
	if info.EmbeddingModel != "" {
		return nil
	}
	var need, others []string
	for _, m := range ms {
		if slices.Contains(m.Steps, metrics.StepEmbed) {
			need = append(need, m.Name)
		} else {
			others = append(others, m.Name)
		}
	}
	if len(need) == 0 {
		return nil
	}
	fix := "set --embedding-model (action input embedding-model; Azure: --azure-embedding-deployment) to an embedding model the server serves"
	if len(others) > 0 {
		fix += ", or judge only the other metrics: --metrics " + strings.Join(others, ",")
	}
	return usageErr("%s need an embedding model and none is configured: %s", strings.Join(need, ", "), fix)
}

// repeated is the outcome of judging the samples o.Repeats times.
type repeated struct {
	runs      []*eval.Result
	info      judge.Info
	total     judge.Usage
	perMetric map[string]judge.Usage
	err       error // the error that stopped the last run
	start     time.Time
}

// judgeRepeats judges the samples o.Repeats times, stopping at the first
// run that fails. The last run lets go of each sample's texts once it is
// judged: the caller must not read them after.
func judgeRepeats(ctx context.Context, env Env, o *Options, judges func(repeat int) (judge.Judge, judge.Info, error), samples []metrics.Sample, ms []metrics.Metric, unanswered map[string]string) (*repeated, error) {
	out := &repeated{perMetric: map[string]judge.Usage{}, start: time.Now()}
	repeats := max(1, o.Repeats)
	for r := 0; r < repeats && out.err == nil; r++ {
		j, inf, err := judges(r)
		if err != nil {
			return nil, err
		}
		out.info = withClaims(inf, o)
		out.info.UserMetrics = judge.UserMetricsHash(definitionsOf(ms))
		if repeats > 1 && !o.Quiet {
			fmt.Fprintf(env.Stderr, "repeat %d of %d\n", r+1, repeats)
		}
		memo := judge.Memo(j)
		opts := eval.Options{
			Metrics:     ms,
			Decline:     declineOf(inf),
			Unanswered:  unanswered,
			Concurrency: max(4, 2*o.Concurrency),
			Strictness:  o.Strictness,
			Progress:    newProgress(env.Stderr, o.Quiet, progressOf(env, o, memo, out.info)),
			// Validated as low or high.
			ClaimsAtomicity: metrics.Level(o.ClaimsAtomicity),
			ClaimsCoverage:  metrics.Level(o.ClaimsCoverage),
		}
		if r == repeats-1 {
			opts.Release = func(i int) { samples[i] = metrics.Sample{ID: samples[i].ID} }
			if o.texts != nil {
				opts.Texts = o.texts.Put
			}
		}
		res, err := eval.Run(ctx, memo, samples, opts)
		if res == nil {
			return nil, withCode(ExitOperational, err)
		}
		out.runs, out.err = append(out.runs, res), err
		u, pm := memo.Usage()
		out.total = out.total.Add(u)
		for k, v := range pm {
			out.perMetric[k] = out.perMetric[k].Add(v)
		}
	}
	return out, nil
}

// declineOf returns the judge's refusals: the offline judge leaves the
// metrics it cannot score reliably undefined.
func declineOf(info judge.Info) func(string) string {
	if info.Provider == offline.Provider {
		return offline.Declines
	}
	return nil
}

// progressOf is what the progress of a run tells about its judge: the
// LLM judge's calls and tokens so far, and their estimated cost.
func progressOf(env Env, o *Options, memo *judge.Memoized, info judge.Info) progressFigures {
	if info.Provider == offline.Provider {
		return progressFigures{}
	}
	fig := progressFigures{usage: func() judge.Usage { u, _ := memo.Usage(); return u }}
	if table, err := prices(env, o); err == nil {
		fig.cost = func(u judge.Usage) float64 {
			return openaicompat.EstimateCost(info.Model, info.EmbeddingModel, u, table)
		}
	}
	return fig
}

// newJudge builds the judge the options ask for; repeat > 0 makes an LLM
// judge ask afresh instead of reading the answers of earlier repeats from
// the cache.
func newJudge(env Env, o *Options, repeat int) (judge.Judge, judge.Info, error) {
	provider := o.Judge
	key := o.apiKey(env)
	if provider == "auto" || provider == "" {
		if !o.offlineJudge(env) {
			provider = "openai"
		} else {
			provider = "offline"
			if repeat > 0 {
				return offline.New(offline.Options{}), offline.New(offline.Options{}).Info(), nil
			}
			fmt.Fprintf(env.Stderr, "note: no API key in $%s: using the offline judge (a lexical heuristic for demos and smoke runs, not an LLM)\n", o.APIKeyEnv)
		}
	}
	switch provider {
	case "offline":
		j := offline.New(offline.Options{})
		info := j.Info()
		return j, info, nil
	case "openai", "azure":
		if key == "" && o.BaseURL == "" {
			// api.openai.com (and Azure) need a key: say so now rather than
			// after a round of retries.
			return nil, judge.Info{}, usageErr("--judge %s: no API key in $%s; set it (in CI: from a secret), name another variable with --api-key-env, or use --judge offline", provider, o.APIKeyEnv)
		}
		return newOpenAIJudge(env, o, key, repeat)
	}
	return nil, judge.Info{}, usageErr("--judge %q: want auto, offline or openai", o.Judge)
}

// newOpenAIJudge builds the LLM judge over an OpenAI-compatible API.
func newOpenAIJudge(env Env, o *Options, key string, repeat int) (judge.Judge, judge.Info, error) {
	headers, err := parseHeaders(o.Headers)
	if err != nil {
		return nil, judge.Info{}, err
	}
	cfg := openaicompat.Config{
		BaseURL:        o.BaseURL,
		APIKey:         key,
		APIKeyEnv:      o.APIKeyEnv,
		Model:          o.Model,
		EmbeddingModel: o.EmbeddingModel,
		Azure: openaicompat.AzureConfig{Endpoint: o.Azure.Endpoint, APIVersion: o.Azure.APIVersion,
			ChatDeployment: o.Azure.Deployment, EmbeddingDeployment: o.Azure.EmbeddingDeployment},
		ExtraHeaders:        headers,
		Concurrency:         o.Concurrency,
		RPM:                 o.RPM,
		TPM:                 o.TPM,
		RequestTimeout:      o.RequestTimeout,
		MaxRetries:          o.MaxRetries,
		NoSeed:              o.NoSeed,
		MaxCompletionTokens: o.MaxTokens,
		ResponseFormat:      o.ResponseFormat,
		CacheDir:            env.abs(o.CacheDir),
		NoCache:             o.NoCache,
		Logf: func(format string, args ...any) {
			// The judge's messages start with "judge".
			fmt.Fprintf(env.Stderr, format+"\n", args...)
		},
	}
	if o.MaxRetries == 0 {
		cfg.MaxRetries = -1
	}
	if repeat > 0 {
		cfg.CacheSalt = fmt.Sprintf("repeat-%d", repeat)
	}
	seed := o.Seed
	cfg.Seed = &seed
	cfg.Now, cfg.Sleep = env.judgeClock()
	if o.CacheDir == "" {
		cfg.NoCache = true
	}
	j, err := openaicompat.New(cfg)
	if err != nil {
		return nil, judge.Info{}, withCode(ExitUsage, err)
	}
	return j, j.Info(), nil
}

// prices loads the price table for cost estimates.
func prices(env Env, o *Options) (openaicompat.Prices, error) {
	if o.Prices == "" {
		return openaicompat.DefaultPrices(), nil
	}
	p, err := openaicompat.LoadPrices(env.abs(o.Prices))
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--prices: %w", err))
	}
	return p, nil
}

// withClaims records non-default claims settings in the judge's prompts
// field, so that they change the judge fingerprint: results judged with
// other claims are a judge change, not a regression.
func withClaims(info judge.Info, o *Options) judge.Info {
	if o.ClaimsAtomicity != string(metrics.DefaultClaimsAtomicity) || o.ClaimsCoverage != string(metrics.DefaultClaimsCoverage) {
		info.Prompts += " claims=" + o.ClaimsAtomicity + "/" + o.ClaimsCoverage
	}
	return info
}

// provenance describes the run of o over ds (of total samples) for its
// results file.
func provenance(env Env, o *Options, ds *dataset.Dataset, total int, info judge.Info) eval.Provenance {
	p := eval.Provenance{
		Version: version(),
		Dataset: results.Dataset{Path: o.Dataset, SHA256: ds.SHA256, Samples: total, Responses: o.Responses},
		Judge:   info,
		Repeats: o.Repeats,
		Shard:   o.Shard,
	}
	if sha := env.getenv("GITHUB_SHA"); sha != "" {
		p.Git = &results.Git{SHA: sha, Ref: env.getenv("GITHUB_REF")}
	}
	return p
}

// dryRun prints what a run would cost without calling the judge.
func dryRun(env Env, o *Options, samples []metrics.Sample, ms []metrics.Metric) error {
	if o.Target.built != nil {
		samples = standIns(samples)
		capContexts(o.Limits.MaxContexts, samples)
		fmt.Fprintln(env.Stdout, "with a target, each answer is estimated as the reference (or the question) and its contexts as the reference contexts, where the dataset has none")
	}
	est := eval.EstimateCalls(samples, ms, o.Strictness)
	p, err := prices(env, o)
	if err != nil {
		return err
	}
	// The models the LLM judge would use: the judge itself resolves the
	// defaults (OpenAI's models, Azure's deployments), so the estimate
	// prices what a run would report. No key is needed, no cache opened.
	noCache := *o
	noCache.NoCache = true
	_, info, err := newOpenAIJudge(env, &noCache, "", 0)
	if err != nil {
		return err
	}
	if err := checkModels(info, ms); err != nil {
		return err
	}
	model, emb := info.Model, info.EmbeddingModel
	cost := openaicompat.EstimateCost(model, emb, est.Usage(), p)
	w := env.Stdout
	fmt.Fprintf(w, "dry run: %d samples x %d metrics, judge model %q, embeddings %q\n", est.Samples, len(ms), model, emb)
	fmt.Fprintf(w, "  chat calls         %d (%.1f per sample; before cache hits)\n", est.ChatCalls, float64(est.ChatCalls)/float64(max(1, est.Samples)))
	fmt.Fprintf(w, "  embedding calls    %d (%d texts)\n", est.EmbeddingCalls, est.EmbeddingTexts)
	fmt.Fprintf(w, "  prompt tokens      ~%d\n", est.PromptTokens)
	fmt.Fprintf(w, "  completion tokens  ~%d\n", est.CompletionTokens)
	fmt.Fprintf(w, "  embedding tokens   ~%d\n", est.EmbeddingTokens)
	if _, ok := p.Lookup(model); ok {
		fmt.Fprintf(w, "  estimated cost     $%.4f (prices as of %s; override with --prices)\n", cost, openaicompat.PricesAsOf)
	} else {
		fmt.Fprintf(w, "  estimated cost     unknown: no price for %q (give one with --prices)\n", model)
	}
	return nil
}

// checkSegmentKeys fails, before any judge call, when a segment key names
// no column of the dataset: a misspelt key would otherwise cost a whole
// run and then compare nothing.
func checkSegmentKeys(ds *dataset.Dataset, keys []string) error {
	var problems []string
	for _, msg := range missingColumns(ds, keys) {
		problems = append(problems, "segment key "+msg)
	}
	if len(problems) > 0 {
		return usageErr("%s; segment keys (--segment-by, action input segment-by, thresholds segments) name dataset columns kept as metadata, case as written", strings.Join(problems, "; "))
	}
	return nil
}
