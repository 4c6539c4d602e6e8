package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/raggate/raggate/internal/atomicfile"
	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/target"
	"github.com/raggate/raggate/metrics"
)

// A run streams its samples: the dataset's texts wait on disk (a
// dataset.Spool) and a judging pass reads each sample back, or has the
// target answer it, at most windowAhead samples ahead of the first one
// not judged yet, so memory holds the texts of a few hundred samples
// whatever the dataset's size. With a target, the first pass judges each
// sample as soon as its answer arrives: the calls and the judging overlap.

// windowAhead is how many samples a pass reads (or has answered) ahead of
// the first one not judged yet, beyond the calls and samples in flight:
// enough for the judge's embeddings to be asked in large batches.
const windowAhead = 256

// sampleStore gives back, whole, sample i of the run.
type sampleStore interface {
	get(i int) (metrics.Sample, error)
}

// memStore is a run's samples held in memory.
type memStore []metrics.Sample

func (m memStore) get(i int) (metrics.Sample, error) { return m[i], nil }

// forget lets go of sample i's texts (the last pass has read it).
func (m memStore) forget(i int) {
	m[i] = metrics.Sample{ID: m[i].ID, Present: m[i].Present, Metadata: m[i].Metadata}
}

// forgetter is a store that can let go of a sample once read for the
// last time.
type forgetter interface{ forget(i int) }

// spoolStore is a run's samples kept on disk: sample i of the run is at
// position at[i] of the spool (at nil: at i).
type spoolStore struct {
	sp *dataset.Spool
	at []int32
}

func (s spoolStore) get(i int) (metrics.Sample, error) {
	if s.at != nil {
		i = int(s.at[i])
	}
	return s.sp.Get(i)
}

// inputsLog collects the inputs of the samples as a pass reads them (the
// results need their hashes, metadata and context ids, not their texts).
type inputsLog struct {
	mu sync.Mutex
	in eval.Inputs
}

func newInputsLog() *inputsLog {
	return &inputsLog{in: eval.Inputs{Hash: map[string]string{}, Metadata: map[string]map[string]string{}, ContextIDs: map[string][]string{}}}
}

func (l *inputsLog) add(s *metrics.Sample) {
	h := eval.InputHash(s)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.in.Hash[s.ID] = h
	if len(s.Metadata) > 0 {
		l.in.Metadata[s.ID] = s.Metadata
	}
	if ids := s.RetrievedContextIDs; len(ids) > 0 {
		l.in.ContextIDs[s.ID] = ids
	}
}

// take returns the inputs of sample id and forgets them: its record holds
// them from now on.
func (l *inputsLog) take(id string) (hash string, md map[string]string, ctxIDs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	hash, md, ctxIDs = l.in.Hash[id], l.in.Metadata[id], l.in.ContextIDs[id]
	delete(l.in.Hash, id)
	delete(l.in.Metadata, id)
	delete(l.in.ContextIDs, id)
	return hash, md, ctxIDs
}

// syncReasons is a map of sample id to reason safe for concurrent use.
type syncReasons struct {
	mu sync.Mutex
	m  map[string]string
}

func (r *syncReasons) set(id, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]string{}
	}
	r.m[id] = reason
}

func (r *syncReasons) get(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[id]
}

// snapshot returns a copy of the map.
func (r *syncReasons) snapshot() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.m)
}

// pass is one judging pass over the run's n samples: the feed eval.Run
// reads (an eval.Holder), holding each sample from its arrival through
// the window to its release, so never more than the window's.
type pass struct {
	n   int
	win *eval.Window
	mu  sync.Mutex
	// held are the samples admitted (or, with a target, handed over) and
	// not released yet.
	held map[int]*metrics.Sample
	// order is the order the samples are read in (nil: dataset order; a
	// sequential check sets its own), and gate, when set, is waited on
	// before the pos-th of them is read (a sequential check keeps the
	// samples read close to those it has looked at).
	order []int32
	gate  func(ctx context.Context, pos int) error
}

func newPass(n, ahead int) *pass {
	return &pass{n: n, win: eval.NewWindow(n, ahead), held: map[int]*metrics.Sample{}}
}

// Next, Arrived, Len and Sample make p an eval.Holder.
func (p *pass) Next(ctx context.Context) (int, error) { return p.win.Next(ctx) }
func (p *pass) Arrived(pos int) (int, bool)           { return p.win.Arrived(pos) }
func (p *pass) Len() int                              { return p.n }

// Sample returns sample i, held from put to release (nil outside).
func (p *pass) Sample(i int) *metrics.Sample {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held[i]
}

// put holds s as sample i until its release and returns it.
func (p *pass) put(i int, s metrics.Sample) *metrics.Sample {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held[i] = &s
	return &s
}

// release lets go of sample i once it is judged.
func (p *pass) release(i int) {
	p.mu.Lock()
	delete(p.held, i)
	p.mu.Unlock()
	p.win.Release(i)
}

// readAll is the producer of a pass without target calls: it reads each
// sample back from src, in order, cut to --max-contexts, and records its
// inputs when log is set. The last pass lets the store forget each
// sample it has read.
func readAll(ctx context.Context, p *pass, src sampleStore, limit int, cuts *capCount, log *inputsLog, last bool) {
	for pos := range p.n {
		i := pos
		if p.order != nil {
			i = int(p.order[pos])
		}
		if p.gate != nil {
			if err := p.gate(ctx, pos); err != nil {
				return
			}
		}
		if err := p.win.Admit(ctx, i); err != nil {
			return
		}
		s, err := src.get(i)
		if err != nil {
			p.win.Fail(fmt.Errorf("read the samples back: %w (free space in $TMPDIR, or point TMPDIR elsewhere)", err))
			return
		}
		if f, ok := src.(forgetter); ok && last {
			f.forget(i)
		}
		cuts.apply(limit, &s)
		if log != nil {
			log.add(&s)
		}
		p.put(i, s)
		p.win.Fill(i)
	}
}

// targetPipe is the target calls of a run, made while the first pass
// judges the answers.
type targetPipe struct {
	o   *runState
	env Env
	src sampleStore
	// ids are the run's samples' ids.
	ids  []string
	log  *inputsLog
	cuts *capCount
	// answers keeps the answered samples for the later passes of a run
	// with repeats (nil: one pass).
	answers    sampleKeeper
	calls      map[string]*pendingCall
	unanswered syncReasons
	rows       *rowSpill
	fields     map[metrics.Field]bool
	handed     []bool // samples handed to a call (read back whole)
	mu         sync.Mutex
	start      time.Time
	outOfStep  map[string]string // id -> why its answer was dropped after judging
	err        error
}

// pendingCall is a finished call, without its reply, and its record.
type pendingCall struct {
	out    target.Outcome
	record *results.TargetCall
}

// sampleKeeper keeps answered samples for the later passes.
type sampleKeeper interface {
	sampleStore
	put(i int, s metrics.Sample) error
	close()
}

// memKeeper keeps them in memory.
type memKeeper struct {
	mu sync.Mutex
	s  []metrics.Sample
}

func (m *memKeeper) put(i int, s metrics.Sample) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.s[i] = s
	return nil
}
func (m *memKeeper) get(i int) (metrics.Sample, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.s[i], nil
}
func (m *memKeeper) close() {}

// spoolKeeper keeps them on disk, in a spool of their own: sample i at
// position i.
type spoolKeeper struct{ spoolStore }

func (k spoolKeeper) put(i int, s metrics.Sample) error { return k.sp.Set(i, s) }
func (k spoolKeeper) close()                            { _ = k.sp.Close() }

// run calls the target for every sample of p, putting each answer into
// its sample and filling the window as the answers arrive.
func (tp *targetPipe) run(ctx context.Context, p *pass) {
	o, env := tp.o, tp.env
	b := o.target
	opts := b.Options
	// The judge's progress tells: an answer is judged as it arrives, so
	// it follows the calls when they are the slower, and the judging
	// when it is.
	opts.Progress = nil
	if !o.Quiet {
		fmt.Fprintf(env.Log, "calling the target for %d samples (%d at once), judging each answer as it arrives\n", p.n, opts.Concurrency)
	}
	tp.start = time.Now()
	tp.handed = make([]bool, p.n)
	opts.Admit = func(ctx context.Context, i int) error {
		if err := p.win.Admit(ctx, i); err != nil {
			return err
		}
		s, err := tp.src.get(i)
		if err != nil {
			err = fmt.Errorf("read the samples back: %w (free space in $TMPDIR, or point TMPDIR elsewhere)", err)
			p.win.Fail(err)
			tp.mu.Lock()
			tp.err = err
			tp.mu.Unlock()
			return err
		}
		p.put(i, s)
		tp.handed[i] = true
		return nil
	}
	opts.Done = func(i int, out target.Outcome) { tp.done(p, i, out) }
	target.Each(ctx, b.Target, p.n, p.Sample, opts) // each finished call goes through done
	closeErr := b.Target.Close()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.outOfStep = outOfStepIDs(closeErr, tp.calls)
	for id, why := range tp.outOfStep {
		tp.unanswered.set(id, why)
		tp.rows.fail(id, why)
	}
}

// done records one finished call: its figures, its answer (or why there
// is none) put into the sample, its saved row, and the sample handed to
// the judge.
func (tp *targetPipe) done(p *pass, i int, out target.Outcome) {
	env, o := tp.env, tp.o
	redactReply(env.Red, &out.Reply)
	s := p.Sample(i)
	if !tp.handed[i] {
		// Not handed to a call (the target was taken for down): read it
		// back for its saved row.
		full, err := tp.src.get(i)
		if err != nil {
			full = metrics.Sample{ID: tp.ids[i]}
		}
		s = p.put(i, full)
	}
	if out.Err != nil {
		tp.unanswered.set(s.ID, out.Err.Error())
		dropAnswer(s)
	} else {
		applyReply(s, &out)
	}
	tp.cuts.apply(o.Limits.MaxContexts, s)
	row := savedOf(s, &out)
	row.Error = env.Red.String(row.Error)
	tp.rows.add(i, &row)
	tp.mu.Lock()
	tp.calls[s.ID] = &pendingCall{out: target.Outcome{Done: out.Done, Err: out.Err, Attempts: out.Attempts, Latency: out.Latency}, record: targetCall(&out)}
	for f := range s.Present {
		tp.fields[f] = true
	}
	tp.mu.Unlock()
	tp.log.add(s)
	if tp.answers != nil {
		if err := tp.answers.put(i, *s); err != nil {
			p.win.Fail(fmt.Errorf("keep the answers for the repeats: %w", err))
			return
		}
	}
	p.win.Fill(i)
}

// outOfStepIDs returns, for a command target process found out of step
// when it stopped (a line more than its requests), the samples it
// answered and why their answers are dropped: they cannot be matched to
// their questions.
func outOfStepIDs(closeErr error, calls map[string]*pendingCall) map[string]string {
	oos := outOfStep(closeErr)
	if oos == nil {
		return nil
	}
	out := map[string]string{}
	for _, id := range oos.IDs {
		if c := calls[id]; c != nil && c.out.Done && c.out.Err == nil {
			c.out.Err = oos.Call()
			c.record = targetCall(&c.out)
			out[id] = c.out.Err.Error()
		}
	}
	return out
}

// rowSpill keeps the saved answers (--save-responses) as they arrive, on
// disk when it can (memory otherwise: a missing or full temporary
// directory costs memory, not answers), and writes them in sample order
// at the end.
type rowSpill struct {
	mu     sync.Mutex
	f      *os.File
	end    int64
	at     map[int]span
	mem    map[int][]byte // rows the file could not take
	failed map[string]string
}

type span struct {
	off int64
	n   int
}

func newRowSpill() *rowSpill {
	r := &rowSpill{at: map[int]span{}, mem: map[int][]byte{}}
	if f, err := os.CreateTemp("", "raggate-answers-*.jsonl"); err == nil {
		r.f = f
	}
	return r
}

func (r *rowSpill) add(i int, row *savedResponse) {
	b, err := json.Marshal(row)
	if err != nil {
		return // a row of strings and numbers always encodes
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		if _, err := r.f.WriteAt(b, r.end); err == nil {
			r.at[i] = span{off: r.end, n: len(b)}
			r.end += int64(len(b))
			return
		}
	}
	r.mem[i] = b
}

// fail marks the row of sample id failed with why (a command target found
// out of step).
func (r *rowSpill) fail(id, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		r.failed = map[string]string{}
	}
	r.failed[id] = why
}

// count is the number of rows.
func (r *rowSpill) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.at) + len(r.mem)
}

// writeTo writes the rows to path as JSON Lines in sample order, atomically.
func (r *rowSpill) writeTo(path string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	order := slices.Sorted(maps.Keys(r.at))
	order = append(order, slices.Collect(maps.Keys(r.mem))...)
	slices.Sort(order)
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, i := range order {
			b, ok := r.mem[i]
			if !ok {
				sp := r.at[i]
				b = make([]byte, sp.n)
				if _, err := r.f.ReadAt(b, sp.off); err != nil {
					return fmt.Errorf("read the answers back from the temporary file: %w", err)
				}
			}
			var row savedResponse
			if err := json.Unmarshal(b, &row); err != nil {
				return err
			}
			if why, bad := r.failed[row.ID]; bad {
				row = savedResponse{ID: row.ID, UserInput: row.UserInput, LatencyMS: row.LatencyMS, Error: why, Response: new(string)}
			}
			if err := enc.Encode(&row); err != nil {
				return err
			}
		}
		return nil
	})
}

func (r *rowSpill) close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		r.f.Close()
		os.Remove(r.f.Name())
		r.f = nil
	}
}

// newTargetPipe prepares the target calls of a run (nil without a
// target). With the default suite, the metrics judged are those of the
// fields the target may fill, ids of retrieved contexts included: which
// the answers hold is known only once they are all in, and finish drops
// the metrics of fields none held (metrics without judge calls, so
// nothing is spent on them).
func (o *runState) newTargetPipe(env Env, in *runInputs, src sampleStore, log *inputsLog, cuts *capCount, repeats int) (*targetPipe, bool, error) {
	if o.target == nil {
		return nil, false, nil
	}
	rows := newRowSpill()
	ids := make([]string, in.n)
	for i := range ids {
		ids[i] = in.sampleID(i)
	}
	tp := &targetPipe{o: o, env: env, src: src, ids: ids, log: log, cuts: cuts, calls: map[string]*pendingCall{}, rows: rows, fields: map[metrics.Field]bool{}}
	if repeats > 1 {
		tp.answers = &memKeeper{s: make([]metrics.Sample, in.n)}
		if in.ds.Spool() != nil {
			if sp, err := dataset.NewSpool(""); err == nil {
				tp.answers = spoolKeeper{spoolStore{sp: sp}}
			}
		}
	}
	chosen := len(o.metricNames()) == 0
	if chosen {
		ds := *in.ds
		ds.Fields = maps.Clone(in.ds.Fields)
		if ds.Fields == nil {
			ds.Fields = map[metrics.Field]bool{}
		}
		ds.Fields[metrics.RetrievedContextIDs] = true
		var err error
		if in.ms, err = o.suite(env, &ds); err != nil {
			rows.close()
			return nil, false, err
		}
	}
	return tp, chosen, nil
}

// finish ends the target calls of the first pass: a run stopped before
// every call finished saves the answers and ends (nothing is written but
// them); otherwise it reports the calls, saves the answers when asked,
// drops the answers of command processes found out of step (their
// samples' scores become failed calls) and, with the default suite, the
// metrics of fields no answer held. res and runErr are the pass's.
func (tp *targetPipe) finish(ctx context.Context, res *eval.Result, runErr error, chosen bool, in *runInputs) (*targetPhase, error) {
	o, env := tp.o, tp.env
	if tp.err != nil {
		return nil, asOperational(tp.err)
	}
	total := in.n
	finished := len(tp.calls)
	unanswered := tp.unanswered.snapshot()
	if !o.Quiet {
		stopped := ""
		if finished < total {
			stopped = fmt.Sprintf(", %d not called: the run stopped", total-finished)
		}
		fmt.Fprintf(env.Log, "target answered %d of %d samples in %s (%d failed%s)\n", finished-len(unanswered), total,
			time.Since(tp.start).Round(time.Millisecond), len(unanswered), stopped)
	}
	o.warn(env, tp.cuts.note(o.Limits.MaxContexts, total))
	ph := &targetPhase{calls: make(map[string]*results.TargetCall, len(tp.calls)), unanswered: unanswered}
	for id, c := range tp.calls {
		ph.calls[id] = c.record
	}
	capCallIDs(ph.calls, o.Limits.MaxContexts)
	if total > 0 && finished == total && len(unanswered) == total && o.Target.MaxFailures >= 1 {
		// Allowed by --max-target-failures 1, but never silent (under a
		// lower limit the run ends with exit 3, which says so).
		o.warn(env, fmt.Sprintf("the target answered none of the %d samples: the results hold no score of the pipeline, and a baseline store refuses such a file (--max-target-failures %g allowed the run to go on)",
			total, o.Target.MaxFailures))
	}
	if res != nil {
		// Their records are failed as the run's results are assembled.
		ph.outOfStep = tp.outOfStep
		for id := range tp.outOfStep {
			if o.texts != nil {
				o.texts.Drop(id)
			}
		}
	}
	if chosen && res != nil {
		ds := *in.ds
		ds.Fields = tp.fields
		final, err := o.suite(env, &ds)
		if err != nil {
			return nil, err
		}
		keepSuite(res, final)
		in.ms = final
	}
	return ph, runErr
}

// saveAnswers writes the target's answers to --save-responses, or, when
// the run did not judge every sample (stopped, out of time, the judge
// failed), to <out>.responses.jsonl beside the results: the answers
// received are never lost. A failure to write them is kept for the end
// of the run, after the results are written.
func (o *runState) saveAnswers(env Env, tp *targetPipe, incomplete bool) {
	save := o.Target.SaveResponses
	if save == "" && incomplete && tp.rows.count() > 0 {
		save = stoppedResponsesPath(o.Out)
	}
	if save == "" {
		return
	}
	if err := tp.rows.writeTo(env.abs(save)); err != nil {
		o.answersErr = fmt.Errorf("save responses to %s: %w", save, err)
		return
	}
	o.answersSaved, o.answersCount = save, tp.rows.count()
}

// keepSuite drops from res every metric not in ms.
func keepSuite(res *eval.Result, ms []metrics.Metric) {
	keep := map[string]bool{}
	for _, m := range ms {
		keep[m.Name] = true
	}
	drop := func(name string) bool { return !keep[name] }
	res.Metrics = slices.DeleteFunc(res.Metrics, drop)
	for i := range res.Samples {
		s := &res.Samples[i]
		maps.DeleteFunc(s.Scores, func(k string, _ float64) bool { return drop(k) })
		maps.DeleteFunc(s.Undefined, func(k string, _ string) bool { return drop(k) })
		maps.DeleteFunc(s.UndefinedKind, func(k string, _ results.UndefinedKind) bool { return drop(k) })
		maps.DeleteFunc(s.Reasons, func(k string, _ string) bool { return drop(k) })
		maps.DeleteFunc(s.Raw, func(k string, _ float64) bool { return drop(k) })
	}
}
