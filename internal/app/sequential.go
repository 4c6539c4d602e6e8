package app

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// SequentialConfig makes a check sequential (gate check --sequential): it
// judges the head's samples in batches, those whose inputs are unchanged
// since the base first and the others in a seeded random order, and stops
// once every gated metric is decided (see docs/statistics.md).
type SequentialConfig struct {
	// On is set by --sequential (or the action's input); Batch and Seed
	// alone only tune a sequential: key of the thresholds file.
	On bool
	// Batch is the number of samples judged between two looks (0: the
	// default, see compare.DefaultBatch).
	Batch int
	// Seed draws the random order (nil: derived from the dataset's hash,
	// so that a rerun judges the same samples and hits the judge cache).
	Seed *uint64
}

// seqPlan is what a sequential check hands its run: the base it decides
// against and the thresholds it decides with.
type seqPlan struct {
	cfg  SequentialConfig
	base *results.Table
	th   compare.Thresholds
}

// seqRun is the sequential state of a run: the order the samples are fed
// in, and the decider fed with each judged sample in that order.
type seqRun struct {
	plan  *seqPlan
	order []int32 // sample indices, in the order they are judged
	pos   []int32 // sample index -> position in order
	seed  uint64
	batch int
	// maxContexts is the run's cut of the retrieved contexts (0: none).
	maxContexts int
	// segs keeps the samples' values of the segment keys, which the
	// decider reads (the run lets go of the rest of their metadata).
	segs segValues
	// unchanged is the number of samples whose inputs are the base's:
	// the first positions of order.
	unchanged int

	mu      sync.Mutex
	dec     *compare.Sequential
	waiting map[int]*results.Sample // judged, by position, not yet fed
	next    int                     // positions fed to the decider
	decided int                     // samples fed when it decided (0: not yet)
	judgedN int                     // samples judged
	end     func()                  // stops the feed
	// lead bounds how far ahead of the samples fed the run reads: about
	// as many as the judge has in flight, so that few are judged after
	// the decision. fed is replaced (closed) whenever next moves.
	lead int
	fed  chan struct{}
}

// segValues keeps each sample's metadata restricted to a few keys, each
// distinct restriction once: a 4-byte index a sample. Without keys it
// keeps nothing.
type segValues struct {
	keys []string
	ix   []int32
	maps []map[string]string
	seen map[string]int32
}

func newSegValues(keys []string, n int) segValues {
	if len(keys) == 0 {
		return segValues{}
	}
	return segValues{keys: keys, ix: make([]int32, n), seen: map[string]int32{}}
}

// add records sample i's metadata md.
func (v *segValues) add(i int, md map[string]string) {
	if len(v.keys) == 0 {
		return
	}
	var key strings.Builder
	for _, k := range v.keys {
		val, ok := md[k]
		if ok {
			key.WriteByte(1)
		} else {
			key.WriteByte(0)
		}
		key.WriteString(strconv.Itoa(len(val)))
		key.WriteByte(':')
		key.WriteString(val)
	}
	j, ok := v.seen[key.String()]
	if !ok {
		sub := map[string]string{}
		for _, k := range v.keys {
			if val, ok := md[k]; ok {
				sub[k] = val
			}
		}
		j = int32(len(v.maps))
		v.maps = append(v.maps, sub)
		v.seen[key.String()] = j
	}
	v.ix[i] = j
}

// of returns sample i's restricted metadata (nil without keys; read only).
func (v *segValues) of(i int) map[string]string {
	if len(v.keys) == 0 {
		return nil
	}
	return v.maps[v.ix[i]]
}

// gate waits until the pos-th sample of the order is within lead of the
// samples fed to the decider, or the check has decided.
func (q *seqRun) gate(ctx context.Context, pos int) error {
	for {
		q.mu.Lock()
		if pos < q.next+q.lead || q.decided > 0 {
			q.mu.Unlock()
			return nil
		}
		ch := q.fed
		q.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// seqSeed is the seed of a sequential order: the configured one, else a
// hash of the dataset's content.
func seqSeed(cfg SequentialConfig, datasetSHA string) uint64 {
	if cfg.Seed != nil {
		return *cfg.Seed
	}
	h := fnv.New64a()
	fmt.Fprint(h, "raggate sequential order ", datasetSHA)
	// Below 2^53: JSON tools that read numbers as doubles (jq) keep it
	// exact, so it can be given back to --sequential-seed.
	return h.Sum64() & (1<<53 - 1)
}

// newSeqRun orders the samples of in: those whose inputs hash as on the
// base first (their judge answers are cached: they cost nothing), in
// dataset order, then the others in a random order drawn from the seed.
// The samples' inputs are not kept: the records of those the check does
// not judge read them back (notJudged).
func (o *runState) newSeqRun(in *runInputs) (*seqRun, error) {
	plan := o.sequential
	src := in.store()
	var unchanged, changed []int32
	all := make([]compare.SeqSample, in.n)
	segs := newSegValues(plan.th.Segments, in.n)
	for i := range in.n {
		s, err := src.get(i)
		if err != nil {
			return nil, asOperational(fmt.Errorf("read the samples back: %w (free space in $TMPDIR, or point TMPDIR elsewhere)", err))
		}
		(&capCount{}).apply(o.Limits.MaxContexts, &s)
		same := false
		if j, ok := plan.base.Index(s.ID); ok && plan.base.InputHash(j) != "" && plan.base.InputHash(j) == eval.InputHash(&s) {
			unchanged, same = append(unchanged, int32(i)), true
		} else {
			changed = append(changed, int32(i))
		}
		// Only the segment keys' values, each distinct set once: the
		// samples' own metadata maps would all be live until the loop ends.
		segs.add(i, s.Metadata)
		all[i] = compare.SeqSample{ID: s.ID, Metadata: segs.of(i), Unchanged: same}
	}
	q := &seqRun{plan: plan, seed: seqSeed(plan.cfg, in.ds.SHA256), maxContexts: o.Limits.MaxContexts, segs: segs}
	rng := rand.New(rand.NewPCG(q.seed, q.seed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(changed), func(a, b int) { changed[a], changed[b] = changed[b], changed[a] })
	q.order = append(unchanged, changed...)
	q.pos = make([]int32, in.n)
	for p, i := range q.order {
		q.pos[i] = int32(p)
	}
	q.batch = plan.cfg.Batch
	if q.batch <= 0 {
		q.batch = compare.DefaultBatch(len(q.order))
	}
	q.dec = compare.NewSequential(plan.base, plan.th, q.batch, all)
	q.unchanged = len(unchanged)
	q.waiting = map[int]*results.Sample{}
	q.fed = make(chan struct{})
	return q, nil
}

// judged feeds the decider the judged samples in their order (a sample
// that finishes early waits for those before it), looking after each
// batch; once every gated metric is decided it ends the feed.
func (q *seqRun) judged(in *runInputs, i int, r *eval.SampleResult) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.judgedN++
	s := &results.Sample{ID: r.ID, Scores: make(map[string]results.Score, len(r.Scores)), UndefinedKind: r.UndefinedKind}
	for m, v := range r.Scores {
		s.Scores[m] = results.Score(v)
	}
	s.Metadata = q.segs.of(i)
	q.waiting[int(q.pos[i])] = s
	defer func() {
		close(q.fed)
		q.fed = make(chan struct{})
	}()
	for {
		next, ok := q.waiting[q.next]
		if !ok {
			return
		}
		delete(q.waiting, q.next)
		q.next++
		if q.decided > 0 {
			continue
		}
		q.dec.Add(next, q.next <= q.unchanged)
		if q.next%q.batch == 0 && q.dec.Look().Decided {
			q.decided = q.next
			q.end()
		}
	}
}

// notJudged returns the record of the run's sample i when the check did
// not judge it: every metric undefined with kind not_judged, saying why,
// with the sample's inputs read back from the run's samples (cut to the
// contexts the judge would have seen, so that the input hash is the one a
// judged record would carry).
func (q *seqRun) notJudged(in *runInputs, names []string) func(i int) (results.Sample, error) {
	src := in.store()
	return func(i int) (results.Sample, error) {
		why := fmt.Sprintf("not judged: the sequential check decided after %d of %d samples", q.decided, in.n)
		if q.decided == 0 {
			why = fmt.Sprintf("not judged: the run stopped (%d of %d samples judged) before the sequential check could decide", q.judgedCount(), in.n)
		}
		s, err := src.get(i)
		if err != nil {
			return results.Sample{}, err
		}
		(&capCount{}).apply(q.maxContexts, &s)
		return notJudgedSample(s.ID, names, why, eval.InputHash(&s), s.Metadata, s.RetrievedContextIDs), nil
	}
}

// judgedCount is the number of samples the check judged.
func (q *seqRun) judgedCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.judgedN
}

// record marks f as the results of a sequential check (its samples made
// by assemble: each judged one with its position, the others not_judged):
// how the run was ordered and batched. The summary stays that of the
// judged samples.
func (q *seqRun) record(f *results.File, in *runInputs, alpha float64) {
	f.Config.Sequential = &results.Sequential{Seed: q.seed, Batch: q.batch, Alpha: alpha, Judged: q.judgedCount(), Total: in.n,
		DecidedAfter: q.decided, Unchanged: q.unchanged, Segments: q.plan.th.Segments}
}

// checkSequential refuses what a sequential check cannot do: repeats (each
// look would need every repeat of a batch) and a target (its answers are
// not known before the calls, so the order could not put the unchanged
// samples first).
func checkSequential(r RunConfig) error {
	if r.Repeats > 1 {
		return usageErr("--sequential judges each sample once: drop --repeats %d, or check without --sequential", r.Repeats)
	}
	if r.Target.configured() {
		return usageErr("--sequential cannot call a target yet: judge the answers the target saved (--save-responses, then --responses), or check without --sequential")
	}
	if r.DryRun {
		return usageErr("--sequential and --dry-run: a dry run estimates the whole run; drop one")
	}
	return nil
}

// checkSequentially is Check in sequential mode: the baseline stays in
// memory while judging (the decider pairs with it after every batch).
func checkSequentially(ctx context.Context, env Env, c CheckConfig, th compare.Thresholds, store baseline.Store,
	get func(context.Context, baseline.Store, baseline.Key) (*results.Table, string, error), seq SequentialConfig) (*Comparison, error) {
	base, src, err := get(ctx, store, c.Key)
	if err != nil {
		return nil, err
	}
	trend, err := ReadTrend(ctx, env, c.History)
	if err != nil {
		return nil, err
	}
	if base == nil {
		env.logf("note: a sequential check without a baseline judges every sample")
	} else {
		c.Run.sequential = &seqPlan{cfg: seq, base: base, th: th}
	}
	// The run's samples stay on disk, as a check's do.
	res, err := RunOnDisk(ctx, env, c.Run)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	head := res.File
	if q := head.Config.Sequential; q != nil && !c.Run.Quiet {
		env.logf("%s", report.SequentialNote(q))
	}
	ht := results.TableOf(head)
	rep, err := CompareTablesRedacted(env, base, ht, th)
	if err != nil {
		return nil, err
	}
	out := &Comparison{Report: rep, Base: base, Head: ht, Trend: trend, Source: src}
	// The HTML pass reads the samples it lists from the results file
	// written.
	out.HTML = HTMLSides{Base: base, Head: ht, HeadPath: env.abs(c.Run.Out)}
	if base != nil {
		out.HTML.Reread = RereadFrom(store, c.Key)
	}
	return out, nil
}

// sequentialOf is the sequential configuration of a check: the front
// end's, else the thresholds file's, with the file's batch unless the
// front end gave one; nil for a check that is not sequential.
func sequentialOf(c CheckConfig, th compare.Thresholds) (*SequentialConfig, error) {
	seq := c.Sequential
	switch {
	case seq != nil && !seq.On && th.Sequential == nil:
		return nil, usageErr("--sequential-batch and --sequential-seed tune a sequential check: add --sequential (or sequential: to the thresholds file)")
	case seq != nil && c.Scores != nil && seq.On:
		return nil, usageErr("--sequential judges the samples; --scores checks scores already made: drop one")
	case c.Scores != nil:
		return nil, nil
	case seq == nil && th.Sequential == nil:
		return nil, nil
	case seq == nil:
		seq = &SequentialConfig{}
	}
	out := *seq
	if out.Batch == 0 && th.Sequential != nil {
		out.Batch = th.Sequential.Batch
	}
	return &out, nil
}

// refusePartialBase refuses, as a base, the results of a sequential check
// that left samples unjudged: a comparison needs every sample of the base
// scored (baseline put refuses to store them for the same reason).
func refusePartialBase(f *results.File, where string) error {
	if q := f.Config.Sequential; q != nil && q.Judged < q.Total {
		return usageErr("%s is a sequential check that judged %d of its %d samples: it cannot be a base; compare with a complete run (gate run, or the stored baseline)", where, q.Judged, q.Total)
	}
	return nil
}
