// Package eval runs the metric suite over a dataset: samples x metrics with
// bounded concurrency, judge steps shared between metrics through a
// memoizing judge, failures recorded per sample and metric as undefined
// scores with their reason, and a per-metric summary.
package eval

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/suggest"
	"github.com/raggate/raggate/metrics"
)

// Options configures a run.
type Options struct {
	// Metrics to compute; empty means metrics.DefaultSuite for the samples' fields.
	Metrics []metrics.Metric
	// Concurrency bounds the samples evaluated at once (default 16). Judge
	// calls are bounded by the judge itself.
	Concurrency int
	// Strictness is the number of questions answer relevancy generates (default 3).
	Strictness int
	// ClaimsAtomicity and ClaimsCoverage set the claims step of factual
	// and answer correctness (default low and low, as Ragas).
	ClaimsAtomicity, ClaimsCoverage metrics.Level
	// Progress, when set, is called after each finished sample (never
	// concurrently).
	Progress func(done, total int)
	// Release, when set, is called with the index of each sample Run has
	// judged (or failed to), possibly concurrently: Run no longer reads
	// samples[i] after, so the caller may drop its texts.
	Release func(i int)
	// Decline, when set, returns a reason for leaving a metric undefined
	// without asking the judge (a judge that cannot score it reliably), or
	// "" to compute it.
	Decline func(metric string) string
	// Texts, when set, is called with each judged sample's texts: the
	// response and retrieved contexts it was judged on and the judge's
	// evidence per metric (bounded, see results.BoundEvidence), possibly
	// concurrently. Without it no evidence is collected.
	Texts func(id string, t results.Texts)
	// Unanswered gives, for a sample id, why the pipeline gave no answer
	// to judge (a failed target call), "" when it did: every metric of
	// such a sample is undefined with kind target and that reason, and no
	// judge is asked. Run asks after Feed.Wait for the sample; nil: every
	// sample was answered.
	Unanswered func(id string) string
	// Feed, when set, gives the samples as they become available, and
	// Run judges them in that order (see Feed); nil: every sample is there
	// from the start, judged in order. A Feed ends the run early and
	// cleanly by returning ErrEnough from Next: the samples taken are
	// judged, the others are skipped, and Run returns no error.
	Feed Feed
	// Judged, when set, is called with each sample Run has judged and its
	// scores, in the order they finish, never concurrently (see Progress).
	Judged func(i int, r *SampleResult)
	// Record, when set, takes each judged sample's result (after Judged,
	// likewise never concurrently) and Run keeps none of them:
	// Result.Samples stays empty and Result.Judged counts them, so that
	// memory does not grow with the samples. An error of Record stops the
	// run as a judge's fatal error does.
	Record func(i int, r *SampleResult) error
}

// ErrEnough, returned (or wrapped) by a Feed's Next, ends a run without
// an error: a sequential check has judged enough samples to decide.
var ErrEnough = errors.New("enough samples judged to decide")

// SampleResult holds one sample's scores.
type SampleResult struct {
	ID       string
	Question string
	// Scores has an entry for every metric of the run; NaN when undefined.
	Scores map[string]float64
	// Undefined gives the reason of every NaN score.
	Undefined map[string]string
	// UndefinedKind says, for every NaN score, whether the data, the judge
	// or the metric's definition left it undefined.
	UndefinedKind map[string]results.UndefinedKind
	// Reasons explains scores below 1 where the judge said why.
	Reasons map[string]string
	// Raw holds the raw values of user-defined metrics: a rubric's level,
	// a numeric metric's value before its transform.
	Raw map[string]float64
}

// Result is the outcome of a run.
type Result struct {
	Metrics []string
	// Samples holds the finished samples, in dataset order (none when
	// Options.Record took them).
	Samples []SampleResult
	// Judged counts the finished samples.
	Judged int
	// Skipped counts samples not evaluated because the run stopped early.
	Skipped int
}

// recorded stands, in Run's table of finished samples, for a sample
// Options.Record took.
var recorded = &SampleResult{}

// Run evaluates every sample: those of samples, or, when samples is nil
// and opts.Feed is a Holder, the Feed's. The judge should be wrapped in judge.Memo so
// that metrics share steps. A fatal judge error or a cancelled context stops
// the run: Run then returns the samples that finished together with the
// error, so nothing finished is lost.
func Run(ctx context.Context, j judge.Judge, samples []metrics.Sample, opts Options) (*Result, error) {
	ms, conc, strictness := opts.resolved(samples)
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	// Ask for the embeddings the samples about to be judged will need, in
	// a few large batches across samples; a memoizing judge then serves (or
	// coalesces with) the per-sample requests.
	n, sample := source(samples, opts.Feed)
	feed := opts.Feed
	if feed == nil {
		feed = &inOrder{n: n}
	}
	pf := newPrefetcher(ctx, j, n, sample, ms, feed)
	defer pf.wait()

	out := make([]*SampleResult, n)
	var (
		mu   sync.Mutex
		done int
		sem  = make(chan struct{}, conc)
		wg   sync.WaitGroup
	)
	for pos := range n {
		i, err := feed.Next(ctx)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, ErrEnough) {
				cancel(err)
			}
			break
		}
		pf.ahead(pos)
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(i, pos int) {
			defer wg.Done()
			defer func() { <-sem }()
			sj, release := sampleJudge(j)
			defer release()
			defer pf.done(pos)
			s := sample(i)
			se := &sampleEval{ctx: ctx, j: sj, s: s, strictness: strictness, claims: claimsLevels(opts), decline: opts.Decline,
				unanswered: opts.unanswered(s.ID)}
			if opts.Texts != nil {
				se.evidence = map[string][]results.Evidence{}
			}
			r, err := se.run(ms)
			if err == nil && opts.Texts != nil {
				opts.Texts(s.ID, se.texts())
			}
			if opts.Release != nil {
				opts.Release(i)
			}
			if err != nil {
				cancel(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			out[i] = r
			done++
			if opts.Judged != nil {
				opts.Judged(i, r)
			}
			if opts.Record != nil {
				out[i] = recorded
				if err := opts.Record(i, r); err != nil {
					cancel(err)
				}
			}
			if opts.Progress != nil {
				opts.Progress(done, n)
			}
		}(i, pos)
	}
	wg.Wait()

	res := collect(names, out)
	if err := context.Cause(ctx); err != nil {
		return res, err
	}
	return res, nil
}

// unanswered is why the pipeline gave no answer to sample id ("": it did).
func (opts Options) unanswered(id string) string {
	if opts.Unanswered == nil {
		return ""
	}
	return opts.Unanswered(id)
}

// resolved returns the options' metrics, concurrency and strictness, with
// the defaults for those not set: the default suite for the fields the
// samples have, 16 concurrent samples, metrics.DefaultStrictness.
func (opts Options) resolved(samples []metrics.Sample) (ms []metrics.Metric, conc, strictness int) {
	ms = opts.Metrics
	if len(ms) == 0 {
		ms = metrics.DefaultSuite(metrics.FieldsOf(samples).Has)
	}
	conc = opts.Concurrency
	if conc <= 0 {
		conc = 16
	}
	strictness = opts.Strictness
	if strictness <= 0 {
		strictness = metrics.DefaultStrictness
	}
	return ms, conc, strictness
}

// collect gathers the judged samples in order; a nil entry is a sample
// not judged (the run stopped first) and counts as skipped.
func collect(names []string, out []*SampleResult) *Result {
	res := &Result{Metrics: names}
	for _, r := range out {
		switch r {
		case nil:
			res.Skipped++
		case recorded:
			res.Judged++
		default:
			res.Judged++
			res.Samples = append(res.Samples, *r)
		}
	}
	return res
}

// Resolve turns metric names (or aliases) into catalogue entries, in the
// given order without duplicates. user are the run's user-defined metrics,
// which names may also give.
func Resolve(names []string, user ...metrics.Metric) ([]metrics.Metric, error) {
	var out []metrics.Metric
	seen := map[string]bool{}
	for _, n := range names {
		m, ok := lookup(n, user)
		if !ok {
			known := metrics.Names()
			for _, u := range user {
				known = append(known, u.Name)
			}
			if s := suggest.Closest(n, known); s != "" {
				return nil, fmt.Errorf("unknown metric %q: did you mean %q?", n, s)
			}
			return nil, fmt.Errorf("unknown metric %q; known metrics: %s", n, strings.Join(known, ", "))
		}
		if seen[m.Name] {
			continue
		}
		seen[m.Name] = true
		out = append(out, m)
	}
	return out, nil
}

func lookup(name string, user []metrics.Metric) (metrics.Metric, bool) {
	if m, ok := metrics.Lookup(name); ok {
		return m, true
	}
	for _, u := range user {
		if u.Name == strings.TrimSpace(name) {
			return u, true
		}
	}
	return metrics.Metric{}, false
}

type sampleEval struct {
	ctx        context.Context
	j          judge.Judge
	s          *metrics.Sample
	strictness int
	claims     levels
	decline    func(metric string) string
	unanswered string // why the target gave no answer ("" if it did)

	mu       sync.Mutex
	evidence map[string][]results.Evidence // nil: not collected
	cuts     map[string]string             // per metric: the statements capStatements left out
}

// note records what the judge decided for metric (when evidence is
// collected).
func (e *sampleEval) note(metric string, items []results.Evidence) {
	if e.evidence == nil || len(items) == 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.evidence[metric] = results.BoundEvidence(items)
}

// texts returns the sample's texts and the evidence noted.
func (e *sampleEval) texts() results.Texts {
	t := results.Texts{Response: e.s.Response, Contexts: e.s.RetrievedContexts}
	if len(e.evidence) > 0 {
		t.Evidence = e.evidence
	}
	return t
}

type score struct {
	v      float64
	reason string // why undefined, or why low
	kind   results.UndefinedKind
	raw    *float64 // a user-defined metric's raw value (rubric level, numeric value)
}

func (e *sampleEval) run(ms []metrics.Metric) (*SampleResult, error) {
	r := &SampleResult{
		ID:       e.s.ID,
		Question: e.s.UserInput,
		Scores:   make(map[string]float64, len(ms)),
	}
	scores := make([]score, len(ms))
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		if e.unanswered != "" {
			scores[i] = score{v: nan, reason: "target call failed: " + e.unanswered, kind: results.KindTarget}
			continue
		}
		if f, ok := e.missing(m); ok {
			scores[i] = score{v: nan, reason: "missing field " + string(f), kind: results.KindData}
			continue
		}
		if f, ok := e.emptyGolden(m); ok {
			scores[i] = score{v: nan, reason: "empty field " + string(f), kind: results.KindData}
			continue
		}
		if e.decline != nil {
			if reason := e.decline(m.Name); reason != "" {
				scores[i] = score{v: nan, reason: reason, kind: results.KindJudge}
				continue
			}
		}
		wg.Add(1)
		go func(i int, m metrics.Metric) {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					scores[i] = score{v: nan, reason: fmt.Sprintf("internal error: %v", p), kind: results.KindJudge}
					debug.PrintStack()
				}
			}()
			if m.User != nil {
				scores[i], errs[i] = e.user(m.User)
				return
			}
			v, reason, err := e.compute(m)
			switch {
			case err == nil:
				scores[i] = e.classify(m, v, e.withCuts(m.Name, reason))
			case judge.IsFatal(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
				errs[i] = err
			case errors.Is(err, judge.ErrNothingToCheck):
				scores[i] = score{v: nan, reason: judge.ReasonOf(err), kind: results.KindMetric}
			default:
				scores[i] = score{v: nan, reason: judge.ReasonOf(err), kind: results.KindJudge}
			}
		}(i, m)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// Metrics sharing a judge step often give the same reason: hold it once.
	shared := map[string]string{}
	share := func(s string) string {
		if p, ok := shared[s]; ok {
			return p
		}
		shared[s] = s
		return s
	}
	for i, m := range ms {
		sc := scores[i]
		r.Scores[m.Name] = sc.v
		if sc.raw != nil {
			if r.Raw == nil {
				r.Raw = map[string]float64{}
			}
			r.Raw[m.Name] = *sc.raw
		}
		switch {
		case isNaN(sc.v):
			if sc.reason == "" {
				sc.reason = "undefined"
			}
			if r.Undefined == nil {
				r.Undefined = map[string]string{}
				r.UndefinedKind = map[string]results.UndefinedKind{}
			}
			r.Undefined[m.Name] = share(sc.reason)
			r.UndefinedKind[m.Name] = sc.kind
		case sc.reason != "":
			if r.Reasons == nil {
				r.Reasons = map[string]string{}
			}
			r.Reasons[m.Name] = share(sc.reason)
		}
	}
	return r, nil
}

// goldenFields are the fields the dataset's author writes; the others
// (response, retrieved contexts and their ids) are the pipeline's output.
var goldenFields = []metrics.Field{metrics.UserInput, metrics.Reference, metrics.ReferenceContexts, metrics.ReferenceContextIDs}

// classify types a score computed without a judge error. A NaN is the
// data's doing when a golden field the metric needs is empty (reason
// "empty field X"), else the metric's: it is undefined by its definition
// for what the pipeline produced (a response with no statements).
func (e *sampleEval) classify(m metrics.Metric, v float64, reason string) score {
	if !isNaN(v) {
		return score{v: v, reason: reason}
	}
	for _, f := range m.Needs {
		if slices.Contains(goldenFields, f) && e.empty(f) {
			return score{v: nan, reason: "empty field " + string(f), kind: results.KindData}
		}
	}
	if reason == "" {
		reason = "undefined by the metric's definition for this sample"
	}
	return score{v: nan, reason: reason, kind: results.KindMetric}
}

// empty reports whether a field holds only whitespace or an empty list.
func (e *sampleEval) empty(f metrics.Field) bool { return emptyField(e.s, f) }

func emptyField(s *metrics.Sample, f metrics.Field) bool {
	if f.IsList() {
		for _, x := range s.List(f) {
			if strings.TrimSpace(x) != "" {
				return false
			}
		}
		return true
	}
	return strings.TrimSpace(s.String(f)) == ""
}

// emptyGolden returns a golden field the metric needs that is empty: the
// metric is then undefined as the data's doing, before any computation or
// judge call, whatever it would compute on "" (exact_match 0,
// string_presence 1), the same for every metric.
func (e *sampleEval) emptyGolden(m metrics.Metric) (metrics.Field, bool) {
	return emptyGoldenField(e.s, m.Needs)
}

// emptyGoldenField returns the first golden field of needs that s has
// empty (only whitespace, or a list of such).
func emptyGoldenField(s *metrics.Sample, needs []metrics.Field) (metrics.Field, bool) {
	for _, f := range needs {
		if slices.Contains(goldenFields, f) && s.Has(f) && emptyField(s, f) {
			return f, true
		}
	}
	return "", false
}

func (e *sampleEval) missing(m metrics.Metric) (metrics.Field, bool) {
	for _, f := range m.Needs {
		if !e.s.Has(f) {
			return f, true
		}
	}
	return "", false
}
