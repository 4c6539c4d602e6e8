package app

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/dataset"
	_ "github.com/raggate/raggate/internal/dataset/parquetfile" // reads .parquet datasets
	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaicompat"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/target"
	"github.com/raggate/raggate/metrics"
)

// runState is a run in progress: its configuration and what the run
// learns on the way (the target it built, the judge it chose, the texts
// it holds, the warnings for its results file). The caller never sees it.
type runState struct {
	RunConfig
	judge  backend
	target *target.Built
	// texts holds the samples' texts on disk while the run lasts;
	// textsLost says why the results have no texts after all.
	texts     *results.Spill
	textsLost string
	// spool holds the dataset's texts on disk while the run lasts.
	spool    *dataset.Spool
	warnings []string // for the results file (contexts cut by --max-contexts)
	// answersSaved is where the target's answers were saved (answersCount
	// of them), answersErr why they could not be.
	answersSaved string
	answersCount int
	answersErr   error
	// passes hold the judging passes' records while the run lasts, and
	// records the final records the results file is written from (and
	// read from by the caller until RunResult.Close).
	passes  []*passRecords
	records *results.Records
}

// RunResult is the outcome of Run: the results file written (nil after a
// dry run), or the estimate of a dry run.
type RunResult struct {
	File     *results.File
	Estimate *Estimate
	close    func()
}

// Close lets go of the run's texts, which File reads when it is encoded
// again (a baseline stored from it): call it once done with File.
func (r *RunResult) Close() {
	if r != nil && r.close != nil {
		r.close()
		r.close = nil
	}
}

// Run is the run use case: it loads the dataset, calls the target (if
// any), judges the samples and writes the results file. On a fatal judge
// error, a time-out or cancellation it still writes what finished (marked
// incomplete) and returns both the file and the error. cfg has been
// validated (Problems, PathProblems). The caller closes a result
// returned without error.
func Run(ctx context.Context, env Env, cfg RunConfig) (*RunResult, error) {
	res, err := RunOnDisk(ctx, env, cfg)
	if res != nil && res.File != nil {
		if lerr := res.File.Load(); lerr != nil && err == nil {
			res.Close()
			return nil, asOperational(fmt.Errorf("read back the results: %w", lerr))
		}
	}
	return res, err
}

// RunOnDisk is Run leaving the samples of the results file on disk
// (File.OnDisk): memory does not grow with them. File.Each, Len and
// Load read them back until Close.
func RunOnDisk(ctx context.Context, env Env, cfg RunConfig) (*RunResult, error) {
	o := &runState{RunConfig: cfg}
	res, err := execRun(ctx, env, o)
	o.closeSpool()
	o.closePasses()
	if res == nil || err != nil {
		// What a failed run wrote needs no texts any more; its samples
		// are read back once (Load) before they go.
		if res != nil && res.File != nil {
			_ = res.File.Load()
		}
		o.closeTexts()
		return res, err
	}
	res.close = o.closeTexts
	return res, nil
}

// execRun loads the dataset, judges it and writes the results file. On a
// fatal judge error, a time-out or cancellation it still writes what
// finished (marked incomplete) and returns both the file and the error.
// The options have been validated (Options.validate).
func execRun(ctx context.Context, env Env, o *runState) (*RunResult, error) {
	env.protect(SecretValues(env, &o.RunConfig)...)
	if err := o.buildTarget(env); err != nil {
		return nil, err
	}
	o.judge = chooseJudge(env, &o.JudgeConfig)
	in, err := loadRun(ctx, env, o)
	if err != nil {
		return nil, err
	}
	if o.DryRun {
		est, err := dryRun(env, o, in.mem, in.ms) // a dry run holds its samples whole (no spool)
		return &RunResult{Estimate: est}, err
	}
	judges, err := newJudges(env, o, in.ms)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := withTimeBudget(ctx, o.MaxDuration)
	defer cancel()
	all := in.ds.Len()
	if err := o.openTexts(env); err != nil {
		return nil, err
	}
	// From here the run reads each sample back as it judges it.
	in.ds.Samples = nil
	jr, ph, err := judgeRepeats(runCtx, env, o, judges, in)
	if err != nil {
		return nil, err
	}
	runErr, start := jr.err, jr.start
	judged := jr.runs[len(jr.runs)-1].Judged
	prov := provenance(env, o, in.ds, all, jr.info)
	prov.UserMetrics = definitionsOf(in.ms)
	f := resultsFile(env, o, prov, jr)
	f.Config.MaxUndefined, f.Config.MaxTargetFailures = &o.MaxUndefined, &o.Target.MaxFailures
	a := assembly{ids: in.id, n: in.n, names: f.Config.Metrics, red: env.Red}
	if ph != nil {
		a.calls, a.outOfStep = ph.calls, ph.outOfStep
	}
	var notJudged func(i int) (results.Sample, error)
	if jr.seq != nil {
		a.seq = jr.seq
		notJudged = jr.seq.notJudged(in, f.Config.Metrics)
	}
	recs, err := assemble(f, o.passes, a, notJudged)
	if err != nil {
		return nil, asOperational(err)
	}
	o.records = recs
	o.closePasses()
	if jr.seq != nil {
		jr.seq.record(f, in, o.sequential.th.Defaults.Alpha)
	}
	total := in.n
	// From here the run needs its results file only: the samples and
	// their spool are let go of before it is written.
	o.closeSpool()
	in.release()
	jr.runs = nil
	if runErr != nil {
		runErr = markIncomplete(ctx, runCtx, o, f, runErr, judged, total)
	}
	redactResults(env.Red, f)
	if err := saveResults(env, o, f); err != nil {
		return nil, err
	}
	if !o.Quiet {
		fmt.Fprintf(env.Log, "judged %d samples x %d metrics in %s\n", judged, len(in.ms), time.Since(start).Round(time.Millisecond))
	}
	if runErr == nil {
		runErr = gateUnscored(o, f)
	}
	if o.answersErr != nil {
		// The results are written: the answers' failure is said last.
		err := asOperational(fmt.Errorf("%w; the results are saved in %s", o.answersErr, o.Out))
		if runErr != nil {
			err = fmt.Errorf("%w; also: %w", runErr, err)
		}
		runErr = err
	}
	return &RunResult{File: f}, runErr
}

// runInputs are what a run judges: the dataset, the n samples of its
// shard and the metrics.
type runInputs struct {
	ds *dataset.Dataset
	// mem are the run's samples, whole, when the dataset has no spool
	// (nil when it has: ds keeps a few bytes of each, read through
	// sample). A run that reads its samples back from the spool lets
	// ds's go before judging (see judgeRepeats), keeping n and, for a
	// shard, each sample's position in the dataset (at; nil: sample i is
	// at position i).
	mem []metrics.Sample
	n   int
	at  []int32
	ms  []metrics.Metric
}

// pos is the position in the dataset of the run's sample i.
func (in *runInputs) pos(i int) int {
	if in.at != nil {
		return int(in.at[i])
	}
	return i
}

// held reports whether memory still keeps the run's samples (whole, or
// their ids, fields and metadata).
func (in *runInputs) held() bool { return in.mem != nil || in.ds.Len() > 0 }

// sample returns the run's sample i as memory keeps it: whole without a
// spool, else its id, fields and metadata (maps shared: read only).
func (in *runInputs) sample(i int) metrics.Sample {
	if in.mem != nil {
		return in.mem[i]
	}
	return in.ds.Light(in.pos(i))
}

// sampleID returns the id of the run's sample i.
func (in *runInputs) sampleID(i int) string {
	if in.mem != nil {
		return in.mem[i].ID
	}
	return in.ds.ID(in.pos(i))
}

// release lets go of what memory keeps of the samples.
func (in *runInputs) release() {
	in.mem = nil
	in.ds.Release()
}

// id names sample i in a message: its id while the samples are held,
// else its number.
func (in *runInputs) id(i int) string {
	if i < in.n && in.held() {
		return in.sampleID(i)
	}
	return fmt.Sprintf("number %d", i+1)
}

// loadRun loads the dataset and checks, before any call, everything that
// can be checked: segment keys, the command's own checks, the metrics and
// the columns they and the target's requests read.
func loadRun(ctx context.Context, env Env, o *runState) (*runInputs, error) {
	mapping, err := o.fieldMapping()
	if err != nil {
		return nil, asUsage(err)
	}
	dopts := dataset.Options{Mapping: mapping, ResponsesPath: env.abs(o.Responses), StrictFields: o.StrictFields, Limits: o.Limits.dataset()}
	if !o.DryRun {
		// The samples' texts wait on disk while the run lasts; without a
		// temporary directory they stay in memory.
		if sp, err := dataset.NewSpool(""); err == nil {
			dopts.Spool = sp
			o.spool = sp
		}
	}
	ds, err := dataset.LoadContext(ctx, env.abs(o.Dataset), dopts)
	if err != nil && dopts.Spool != nil && !errors.As(err, new(*dataset.Error)) && ctx.Err() == nil {
		// The temporary file failed, not the dataset: load it into memory.
		o.closeSpool()
		dopts.Spool = nil
		ds, err = dataset.LoadContext(ctx, env.abs(o.Dataset), dopts)
	}
	if err != nil {
		return nil, asUsage(err)
	}
	for _, w := range ds.Warnings {
		fmt.Fprintf(env.Log, "warning: %s\n", w)
	}
	if err := checkSegmentKeys(ds, o.SegmentKeys); err != nil {
		return nil, err
	}
	if o.CheckDataset != nil {
		if err := o.CheckDataset(ds); err != nil {
			return nil, asUsage(err)
		}
	}
	mem, at, n, err := shardSamples(env, o, ds)
	if err != nil {
		return nil, err
	}
	in := &runInputs{ds: ds, mem: mem, n: n, at: at}
	if sp := ds.Spool(); sp != nil {
		o.warn(env, spooledCapNote(o.Limits.MaxContexts, sp, n, at))
	} else {
		o.warn(env, capContexts(o.Limits.MaxContexts, mem))
	}
	ms, err := o.suite(env, ds)
	if err != nil {
		return nil, err
	}
	if err := checkScorable(ms, o.hasField(ds), o.judge.declines); err != nil {
		return nil, err
	}
	if err := checkUserColumns(ds, ms, o.targetColumns()...); err != nil {
		return nil, err
	}
	for _, w := range invalidRubrics(n, in.sample, ms) {
		o.warn(env, w)
	}
	if err := o.checkTargetFields(ds); err != nil {
		return nil, err
	}
	in.ms = ms
	return in, nil
}

// gateUnscored is the error of a finished run with too many samples left
// unscored: by the judge (--max-undefined) or by failed target calls
// (--max-target-failures).
func gateUnscored(o *runState, f *results.File) error {
	if msg := nothingScored(f); msg != "" {
		return usageErr("%s; the results are saved in %s", msg, o.Out)
	}
	if msg := scoredByJudge(f, o.judge).TooManyUndefined(o.MaxUndefined); msg != "" {
		return asOperational(fmt.Errorf("%s; the results are saved in %s (raise --max-undefined to accept this)", msg, o.Out))
	}
	if msg := tooManyTargetFailures(f, o.Target.MaxFailures); msg != "" {
		return asOperational(fmt.Errorf("%s; the results are saved in %s (their scores are undefined, kind target; raise --max-target-failures to accept this)", msg, o.Out))
	}
	return nil
}

// openTexts opens the file that holds the samples' texts while the run
// lasts, when they are recorded.
func (o *runState) openTexts(env Env) error {
	if !o.RecordTexts || o.texts != nil {
		return nil
	}
	newSpill := results.NewSpill
	if env.NewSpill != nil {
		newSpill = env.NewSpill
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
func (o *runState) warn(env Env, w string) {
	if w != "" {
		fmt.Fprintf(env.Log, "warning: %s\n", w)
		o.warnings = append(o.warnings, w)
	}
}

// loseTexts records, and warns, that the results are written without
// texts because of err (the temporary file of the texts failed).
func (o *runState) loseTexts(env Env, err error) {
	o.textsLost = fmt.Sprintf("the samples' texts could not be kept in the temporary directory (%v): the results are written without texts, so the HTML report shows scores and reasons only; free space in $TMPDIR (or point TMPDIR elsewhere), or pass --record-texts=false", err)
	fmt.Fprintf(env.Log, "warning: %s\n", env.Red.String(o.textsLost))
}

// saveResults writes f to --out with the run's texts. When the texts were
// not all written or cannot be read back (the temporary directory filled
// up), it writes the results without them, with a warning, rather than
// lose the run.
func saveResults(env Env, o *runState, f *results.File) error {
	if o.texts != nil {
		if err := o.texts.Err(); err != nil {
			o.loseTexts(env, err)
		} else {
			f.SetTextSource(redactedTexts(env.Red, o.texts))
		}
	}
	f.Warnings = append(f.Warnings, o.warnings...)
	withoutTexts := func() {
		f.SetTextSource(nil)
		f.Warnings = append(f.Warnings, env.Red.String(o.textsLost))
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
		return asOperational(fmt.Errorf("save results: %w", err))
	}
	return nil
}

// shardSamples returns the number of samples of ds in the shard --shard
// names, or all, and, for a shard, the position of each in ds (nil: all
// of them). When ds holds its samples whole (no spool), it returns them
// too (mem).
func shardSamples(env Env, o *runState, ds *dataset.Dataset) (mem []metrics.Sample, at []int32, count int, err error) {
	if o.Shard == "" {
		return ds.Samples, nil, ds.Len(), nil
	}
	i, n, err := results.ParseShard(o.Shard)
	if err != nil {
		return nil, nil, 0, asUsage(fmt.Errorf("--shard: %w", err))
	}
	for k := range ds.Len() {
		if results.InShard(ds.ID(k), i, n) {
			if ds.Samples != nil {
				mem = append(mem, ds.Samples[k])
			}
			at = append(at, int32(k))
		}
	}
	if !o.Quiet {
		fmt.Fprintf(env.Log, "shard %s: %d of %d samples\n", o.Shard, len(at), ds.Len())
	}
	return mem, at, len(at), nil
}

// markIncomplete records in f why a run stopped after judging judged of
// total samples (time budget, cancellation or the judge's failure) and
// returns the error the command ends with.
func markIncomplete(ctx, runCtx context.Context, o *runState, f *results.File, runErr error, judged, total int) error {
	saved := ""
	if o.answersSaved != "" {
		saved = fmt.Sprintf("; the target's %d answers are saved in %s (judge them with --responses %s)", o.answersCount, o.answersSaved, o.answersSaved)
	}
	switch {
	case errors.Is(context.Cause(runCtx), errTimeBudget) && ctx.Err() == nil:
		f.Incomplete = fmt.Sprintf("time budget --max-duration=%s reached: %d of %d samples judged", o.MaxDuration, judged, total)
		return asOperational(fmt.Errorf("%s; results so far saved to %s%s", f.Incomplete, o.Out, saved))
	case ctx.Err() != nil:
		f.Incomplete = fmt.Sprintf("cancelled: %d of %d samples judged", judged, total)
		return &quietCause{msg: fmt.Sprintf("%s; results so far saved to %s%s", f.Incomplete, o.Out, saved), err: ctx.Err()}
	default:
		f.Incomplete = fmt.Sprintf("judge failed: %d of %d samples judged: %v", judged, total, runErr)
		return asOperational(fmt.Errorf("%w; the %d samples judged so far are saved in %s%s", runErr, judged, o.Out, saved))
	}
}

// closeSpool removes the file of the dataset's texts.
func (o *runState) closeSpool() {
	if o.spool != nil {
		_ = o.spool.Close()
		o.spool = nil
	}
}

// closeTexts removes the run's texts file (see RecordTexts); a results
// file it supplied texts to must be written before.
func (o *runState) closeTexts() {
	if o.texts != nil {
		o.texts.Close()
		o.texts = nil
	}
	if o.records != nil {
		o.records.Close()
		o.records = nil
	}
}

// closePasses removes the files of the judging passes' records.
func (o *runState) closePasses() {
	for _, p := range o.passes {
		p.close()
	}
	o.passes = nil
}

var errTimeBudget = errors.New("time budget reached")

// quietCause is an error that says msg and wraps err without repeating
// it ("context canceled" adds nothing to "cancelled: 3 of 20 samples
// judged").
type quietCause struct {
	msg string
	err error
}

func (e *quietCause) Error() string { return e.msg }
func (e *quietCause) Unwrap() error { return e.err }

// suite returns the metrics to compute: those of --metrics (built-in or
// user-defined), else the default suite the dataset allows (the offline
// judge's without the metrics it cannot score reliably) and every
// user-defined metric. A metric named that the offline judge declines is
// kept, undefined, with a note.
func (o *runState) suite(env Env, ds *dataset.Dataset) ([]metrics.Metric, error) {
	has := o.hasField(ds)
	user := o.userMetrics()
	names := o.metricNames()
	if len(names) == 0 {
		return append(o.judge.defaultSuite(has), user...), nil
	}
	ms, err := resolveMetrics(names, user)
	if err != nil {
		return nil, asUsage(fmt.Errorf("--metrics: %w", err))
	}
	if !o.DryRun {
		for _, m := range ms {
			if r := o.judge.declines(m.Name); r != "" {
				fmt.Fprintf(env.Log, "note: %s: it stays undefined\n", r)
			}
		}
	}
	return ms, nil
}

// scoredByJudge returns f without the metrics its judge declines (see
// backend.declines): their undefined scores are by design, not a judge
// failure for --max-undefined.
func scoredByJudge(f *results.File, b backend) *results.File {
	g := *f
	g.Config.Metrics = slices.DeleteFunc(slices.Clone(f.Config.Metrics), func(m string) bool { return b.declines(m) != "" })
	return &g
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
func resultsFile(env Env, o *runState, p eval.Provenance, jr *repeated) *results.File {
	f := eval.NewFile(p, eval.Inputs{}, jr.runs)
	f.Usage = eval.UsageOf(jr.total, jr.perMetric)
	if o.judge.metered() {
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
func newJudges(env Env, o *runState, ms []metrics.Metric) (func(repeat int) (judge.Judge, judge.Info, error), error) {
	j0, info0, err := o.judge.build(env, o, 0)
	if err != nil {
		return nil, err
	}
	if o.judge.metered() {
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
		return o.judge.build(env, o, repeat)
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
	seq       *seqRun // a sequential check's order and decider (nil: none)
}

// store returns where the run's samples are read back from.
func (in *runInputs) store() sampleStore {
	if sp := in.ds.Spool(); sp != nil {
		return spoolStore{sp: sp, at: in.at}
	}
	return memStore(in.mem)
}

// judgeRepeats judges the samples o.Repeats times, stopping at the first
// run that fails. Each pass reads the samples back as it goes (see
// pipeline.go); with a target, the first pass judges the answers as they
// arrive. It returns the target's calls too (nil without a target).
func judgeRepeats(ctx context.Context, env Env, o *runState, judges func(repeat int) (judge.Judge, judge.Info, error), in *runInputs) (*repeated, *targetPhase, error) {
	out := &repeated{perMetric: map[string]judge.Usage{}, start: time.Now()}
	repeats := max(1, o.Repeats)
	src := in.store()
	log := newInputsLog()
	cuts := &capCount{}
	tp, chosen, err := o.newTargetPipe(env, in, src, log, cuts, repeats)
	if err != nil {
		return nil, nil, err
	}
	if tp != nil {
		defer tp.rows.close()
		if tp.answers != nil {
			defer tp.answers.close()
		}
	}
	var unanswered func(id string) string
	if tp != nil {
		unanswered = tp.unanswered.get
	} else if static := unansweredOf(in.n, in.sample); static != nil {
		unanswered = func(id string) string { return static[id] }
	}
	if in.ds.Spool() != nil && o.sequential == nil {
		// Every pass reads its samples back from the spool, by position:
		// what memory kept of each (its id, fields and metadata, its
		// line) can go. (A sequential check lets go of them below, once
		// the decider has what it needs of them.)
		in.release()
	}
	var ph *targetPhase
	if tp != nil {
		// Whatever ends the run, the answers received are saved.
		defer func() { o.saveAnswers(env, tp, out.err != nil || ph == nil) }()
	}
	for r := 0; r < repeats && out.err == nil; r++ {
		j, inf, err := judges(r)
		if err != nil {
			return nil, nil, err
		}
		out.info = withClaims(inf, o)
		out.info.UserMetrics = judge.UserMetricsHash(definitionsOf(in.ms))
		if repeats > 1 && !o.Quiet {
			fmt.Fprintf(env.Log, "repeat %d of %d\n", r+1, repeats)
		}
		memo := judge.Memo(j)
		opts := eval.Options{
			Metrics:     in.ms,
			Decline:     o.judge.declines,
			Unanswered:  unanswered,
			Concurrency: max(4, 2*o.Concurrency),
			Strictness:  o.Strictness,
			Progress:    newProgress(env.Log, o.Quiet, progressOf(env, o, memo, out.info)),
			// Validated as low or high.
			ClaimsAtomicity: metrics.Level(o.ClaimsAtomicity),
			ClaimsCoverage:  metrics.Level(o.ClaimsCoverage),
		}
		ahead := windowAhead + opts.Concurrency
		if tp != nil {
			ahead += max(1, o.target.Options.Concurrency)
		}
		p := newPass(in.n, ahead)
		opts.Feed, opts.Release = p, p.release
		if o.sequential != nil {
			// One pass, no target (validated): the samples go in the
			// sequential order, and the decider ends the feed.
			if in.ds.Spool() != nil {
				// As for any run, the samples are read back from the
				// spool from here, newSeqRun's reading included (the
				// decider keeps what it needs).
				in.release()
			}
			q, err := o.newSeqRun(in)
			if err != nil {
				return nil, nil, err
			}
			q.end = p.win.End
			q.lead = 2 * opts.Concurrency
			p.order, p.gate = q.order, q.gate
			opts.Judged = func(i int, r *eval.SampleResult) { q.judged(in, i, r) }
			out.seq = q
		}
		if r == repeats-1 && o.texts != nil {
			opts.Texts = o.texts.Put
		}
		recs := newPassRecords(in.n)
		o.passes = append(o.passes, recs)
		opts.Record = recordSink(recs, log, r == 0)
		pctx, pcancel := context.WithCancel(ctx)
		produced := make(chan struct{})
		go func() {
			defer close(produced)
			switch {
			case r == 0 && tp != nil:
				tp.run(pctx, p)
			case tp != nil:
				readAll(pctx, p, tp.answers, 0, &capCount{}, nil, false)
			case r == 0:
				readAll(pctx, p, src, o.Limits.MaxContexts, cuts, log, r == repeats-1)
			default:
				readAll(pctx, p, src, o.Limits.MaxContexts, &capCount{}, nil, r == repeats-1)
			}
		}()
		res, err := eval.Run(ctx, memo, nil, opts) // the samples come from p
		pcancel()
		<-produced
		if r == 0 && tp != nil {
			ph, err = tp.finish(ctx, res, err, chosen, in)
			if ph == nil {
				return nil, nil, err
			}
		}
		if res == nil {
			return nil, nil, asOperational(err)
		}
		out.runs, out.err = append(out.runs, res), err
		u, pm := memo.Usage()
		out.total = out.total.Add(u)
		for k, v := range pm {
			out.perMetric[k] = out.perMetric[k].Add(v)
		}
	}
	return out, ph, nil
}

// progressOf is what the progress of a run tells about its judge: the
// LLM judge's calls and tokens so far, and their estimated cost.
func progressOf(env Env, o *runState, memo *judge.Memoized, info judge.Info) progressFigures {
	if !o.judge.metered() {
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

// prices loads the price table for cost estimates.
func prices(env Env, o *runState) (openaicompat.Prices, error) {
	if o.Prices == "" {
		return openaicompat.DefaultPrices(), nil
	}
	p, err := openaicompat.LoadPrices(env.abs(o.Prices))
	if err != nil {
		return nil, asUsage(fmt.Errorf("--prices: %w", err))
	}
	return p, nil
}

// withClaims records non-default claims settings in the judge's prompts
// field, so that they change the judge fingerprint: results judged with
// other claims are a judge change, not a regression.
func withClaims(info judge.Info, o *runState) judge.Info {
	if o.ClaimsAtomicity != string(metrics.DefaultClaimsAtomicity) || o.ClaimsCoverage != string(metrics.DefaultClaimsCoverage) {
		info.Prompts += " claims=" + o.ClaimsAtomicity + "/" + o.ClaimsCoverage
	}
	return info
}

// provenance describes the run of o over ds (of total samples) for its
// results file.
func provenance(env Env, o *runState, ds *dataset.Dataset, total int, info judge.Info) eval.Provenance {
	p := eval.Provenance{
		Version: env.Version,
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

// Estimate is what a dry run says a run would cost, without calling the
// judge: the calls and tokens before cache hits, and their price.
type Estimate struct {
	// TargetStandIns is set when a target would answer: each answer is
	// estimated as the reference (or the question).
	TargetStandIns bool
	Metrics        int // metrics judged
	Samples        int
	// Calls and tokens, before cache hits.
	ChatCalls, EmbeddingCalls, EmbeddingTexts       int
	PromptTokens, CompletionTokens, EmbeddingTokens int
	Model, EmbeddingModel                           string
	// Priced reports whether the price table knows Model; CostUSD is the
	// estimated cost then.
	Priced  bool
	CostUSD float64
	// PricesAsOf dates the built-in price table.
	PricesAsOf string
	// MaxContexts is --max-contexts in a target run (the target chooses
	// how many contexts a sample has), and MaxChatCallsPerSample the chat
	// calls of a sample with that many (0: no bound).
	MaxContexts           int
	MaxChatCallsPerSample int
}

// dryRun estimates what a run would cost without calling the judge.
func dryRun(env Env, o *runState, samples []metrics.Sample, ms []metrics.Metric) (*Estimate, error) {
	out := &Estimate{Metrics: len(ms), PricesAsOf: openaicompat.PricesAsOf}
	if o.target != nil {
		samples = standIns(samples)
		capContexts(o.Limits.MaxContexts, samples)
		out.TargetStandIns = true
	}
	est := eval.EstimateCalls(samples, ms, o.Strictness)
	if o.target != nil && len(samples) > 0 {
		out.MaxContexts = o.Limits.MaxContexts
		if o.Limits.MaxContexts > 0 {
			// The target chooses the contexts: the bound is a sample with as
			// many as --max-contexts keeps.
			worst := []metrics.Sample{samples[0]}
			worst[0].Present = maps.Clone(worst[0].Present)
			ctxs := make([]string, o.Limits.MaxContexts)
			for i := range ctxs {
				ctxs[i] = fmt.Sprintf("Retrieved context %d of a sample with as many as --max-contexts keeps.", i+1)
			}
			worst[0].SetList(metrics.RetrievedContexts, ctxs)
			out.MaxChatCallsPerSample = eval.EstimateCalls(worst, ms, o.Strictness).ChatCalls
		}
	}
	p, err := prices(env, o)
	if err != nil {
		return nil, err
	}
	// The models the LLM judge would use: the judge itself resolves the
	// defaults (OpenAI's models, Azure's deployments), so the estimate
	// prices what a run would report. No key is needed, no cache opened.
	noCache := o.JudgeConfig
	noCache.NoCache = true
	_, info, err := newOpenAIJudge(env, &noCache, "", 0)
	if err != nil {
		return nil, err
	}
	if err := checkModels(info, ms); err != nil {
		return nil, err
	}
	out.Samples, out.ChatCalls, out.EmbeddingCalls, out.EmbeddingTexts = est.Samples, est.ChatCalls, est.EmbeddingCalls, est.EmbeddingTexts
	out.PromptTokens, out.CompletionTokens, out.EmbeddingTokens = est.PromptTokens, est.CompletionTokens, est.EmbeddingTokens
	out.Model, out.EmbeddingModel = info.Model, info.EmbeddingModel
	out.CostUSD = openaicompat.EstimateCost(info.Model, info.EmbeddingModel, est.Usage(), p)
	_, out.Priced = p.Lookup(info.Model)
	return out, nil
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
