package app

import (
	"fmt"

	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/redact"
	"github.com/raggate/raggate/internal/results"
)

// A run keeps no sample's results record in memory. Each judging pass
// hands every judged sample's record to a passRecords (a temporary file,
// see results.Records) as it finishes; once the passes are over, assemble
// reads the passes' records back in dataset order, makes each sample's
// final record (the repeats combined, the target's call, the sequential
// position, secrets removed) into another temporary file, and the results
// file is written from it. What memory holds per sample is a few bytes of
// index and, while the summary is computed, one number per metric.

// passRecords are the records of one judging pass, by sample index.
type passRecords struct {
	recs *results.Records
	at   []int32 // sample index -> record number (-1: not judged)
}

func newPassRecords(n int) *passRecords {
	p := &passRecords{recs: results.NewRecords(""), at: make([]int32, n)}
	for i := range p.at {
		p.at[i] = -1
	}
	return p
}

// put records sample i's record; eval.Run calls it never concurrently.
func (p *passRecords) put(i int, s *results.Sample) error {
	n := p.recs.Len()
	if err := p.recs.Add(s); err != nil {
		return err
	}
	p.at[i] = int32(n)
	return nil
}

// get returns sample i's record, ok false when the pass did not judge it.
func (p *passRecords) get(i int) (results.Sample, bool, error) {
	k := p.at[i]
	if k < 0 {
		return results.Sample{}, false, nil
	}
	s, err := p.recs.Sample(int(k))
	return s, err == nil, err
}

func (p *passRecords) close() {
	if p != nil {
		p.recs.Close()
	}
}

// recordSink is eval.Options.Record for pass r: the sample's record, with
// its inputs on the first pass (taken from log, which lets go of them).
func recordSink(recs *passRecords, log *inputsLog, first bool) func(i int, r *eval.SampleResult) error {
	return func(i int, r *eval.SampleResult) error {
		s := eval.SampleOf(r)
		if first && log != nil {
			s.InputHash, s.Metadata, s.ContextIDs = log.take(r.ID)
		}
		return recs.put(i, &s)
	}
}

// assembly is what assemble needs besides the passes' records.
type assembly struct {
	ids       func(i int) string // sample i's id
	n         int                // samples of the run
	names     []string           // the run's metrics (the final suite)
	outOfStep map[string]string  // id -> why a target answer judged was dropped
	calls     map[string]*results.TargetCall
	seq       *seqRun
	red       *redact.Redactor
}

// assemble makes the final records of the run from the passes' records
// into f (its samples on disk: f.SetSampleSource) and f's summary. A
// sample is kept when every pass judged it; a sequential check keeps the
// others too, undefined with kind not_judged. It returns the records to
// close once the file is written and read.
func assemble(f *results.File, passes []*passRecords, a assembly, notJudged func(i int) (results.Sample, error)) (*results.Records, error) {
	out := results.NewRecords("")
	cols := make(map[string][]float64, len(a.names))
	for _, m := range a.names {
		cols[m] = make([]float64, 0, a.n) // at most a score a sample: no regrowth
	}
	keep := map[string]bool{}
	for _, m := range a.names {
		keep[m] = true
	}
	reps := make([]results.Sample, len(passes))
	for i := range a.n {
		all := true
		for r, p := range passes {
			s, ok, err := p.get(i)
			if err != nil {
				out.Close()
				return nil, fmt.Errorf("read back the results of sample %s: %w (free space in $TMPDIR, or point TMPDIR elsewhere)", a.ids(i), err)
			}
			if !ok {
				all = false
				break
			}
			reps[r] = s
		}
		var s results.Sample
		switch {
		case all:
			for r := range reps {
				dropMetrics(&reps[r], keep)
			}
			if why, ok := a.outOfStep[reps[0].ID]; ok {
				failSample(&reps[0], why)
			}
			s = eval.Combine(reps)
			for k, v := range s.Scores {
				cols[k] = append(cols[k], float64(v))
			}
			if a.seq != nil {
				s.Seq = int(a.seq.pos[i]) + 1
			}
		case a.seq != nil:
			var err error
			if s, err = notJudged(i); err != nil {
				out.Close()
				return nil, fmt.Errorf("read back sample %s: %w (free space in $TMPDIR, or point TMPDIR elsewhere)", a.ids(i), err)
			}
		default:
			continue
		}
		if c, ok := a.calls[s.ID]; ok {
			s.Target = c
		}
		redactSample(a.red, &s)
		if err := out.Add(&s); err != nil {
			out.Close()
			return nil, err
		}
	}
	f.Summary = make(map[string]results.Sum, len(a.names))
	for _, m := range a.names {
		f.Summary[m] = results.SumOf(cols[m])
	}
	f.Samples = nil
	f.SetSampleSource(out)
	return out, nil
}

// dropMetrics drops from s every metric not in keep (the suite chosen
// after a target's answers may be smaller than the one judged).
func dropMetrics(s *results.Sample, keep map[string]bool) {
	for k := range s.Scores {
		if !keep[k] {
			delete(s.Scores, k)
			delete(s.Undefined, k)
			delete(s.UndefinedKind, k)
			delete(s.Reasons, k)
			delete(s.Raw, k)
		}
	}
}

// failSample turns every score of s into a failed target call with reason
// why: its answer was judged before it was found unusable.
func failSample(s *results.Sample, why string) {
	why = results.ClipReason(why) // the target's words: a reason is a sentence
	s.Reasons, s.Raw = nil, nil
	for m := range s.Scores {
		s.Scores[m] = results.NaN()
		if s.Undefined == nil {
			s.Undefined = map[string]string{}
		}
		if s.UndefinedKind == nil {
			s.UndefinedKind = map[string]results.UndefinedKind{}
		}
		s.Undefined[m] = why
		s.UndefinedKind[m] = results.KindTarget
	}
}

// notJudgedSample is the record of a sample a sequential check did not
// judge: every metric undefined with kind not_judged and reason why.
func notJudgedSample(id string, names []string, why string, hash string, md map[string]string, ctxIDs []string) results.Sample {
	s := results.Sample{ID: id, Scores: map[string]results.Score{}, Undefined: map[string]string{},
		UndefinedKind: map[string]results.UndefinedKind{}, InputHash: hash, Metadata: md, ContextIDs: ctxIDs}
	for _, m := range names {
		s.Scores[m] = results.NaN()
		s.Undefined[m] = why
		s.UndefinedKind[m] = results.KindNotJudged
	}
	return s
}
