package eval

import (
	"context"
	"sync"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// embedChunk is the number of texts pre-embedded per call.
const embedChunk = 256

// scoper is a memoizing judge whose entries can be released per sample
// (judge.Memoized).
type scoper interface {
	Scope() *judge.Scope
}

// sampleJudge returns the judge one sample uses and the function that
// releases what the memo kept for it once the sample is done.
func sampleJudge(j judge.Judge) (judge.Judge, func()) {
	if m, ok := j.(scoper); ok {
		s := m.Scope()
		return s, s.Release
	}
	return j, func() {}
}

// prefetcher embeds, ahead of the samples that need them, the texts known
// before judging, one batch of about embedChunk texts at a time. The
// vectors of a batch stay in the memo until every sample of the batch is
// done, so memory holds a few batches, not the whole dataset's.
type prefetcher struct {
	ctx context.Context
	j   judge.Judge
	// n samples, sample(i) the i-th.
	n      int
	sample func(i int) *metrics.Sample
	// embeds are the metrics' embed steps: the fields whose texts they
	// embed, for samples that have every field the metric needs.
	embeds []embedAhead
	// feed orders the samples: positions below are positions in the
	// order they arrive (Feed.Arrived), and only arrived samples are
	// embedded ahead.
	feed Feed
	wg   sync.WaitGroup

	mu      sync.Mutex
	next    int            // first position not in a batch yet
	batches int            // batches started
	of      map[int]*batch // position -> its batch, until the sample is done
}

// embedAhead is what one metric embeds ahead: the texts of fields, for the
// samples that have needs.
type embedAhead struct {
	needs, fields []metrics.Field
}

// batch is one prefetch call and the samples it serves.
type batch struct {
	n       int // number of the batch, from 0
	pending int // samples not done, plus 1 while the call runs
	release func()
}

// newPrefetcher reads from the metrics' declarations (metrics.Ask.Embeds)
// which texts to embed ahead.
func newPrefetcher(ctx context.Context, j judge.Judge, n int, sample func(i int) *metrics.Sample, ms []metrics.Metric, feed Feed) *prefetcher {
	p := &prefetcher{ctx: ctx, j: j, n: n, sample: sample, feed: feed, of: map[int]*batch{}}
	for _, m := range ms {
		for _, a := range m.Asks {
			if len(a.Embeds) > 0 {
				p.embeds = append(p.embeds, embedAhead{needs: m.Needs, fields: a.Embeds})
			}
		}
	}
	return p
}

// ahead makes sure the batch of the sample at position i (arrived) and
// the next one are asked for.
func (p *prefetcher) ahead(i int) {
	if len(p.embeds) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.next <= i && p.next < p.n {
		p.start()
	}
	if b := p.of[i]; b != nil && p.batches <= b.n+1 && p.next < p.n && p.isReady(p.next) {
		p.start()
	}
}

// isReady reports whether the sample at position pos has arrived.
func (p *prefetcher) isReady(pos int) bool { _, ok := p.feed.Arrived(pos); return ok }

// start asks for the next batch; p.mu must be held.
func (p *prefetcher) start() {
	b := &batch{n: p.batches, pending: 1}
	p.batches++
	seen := map[string]bool{}
	var texts []string
	for first := p.next; p.next < p.n && (len(texts) < embedChunk || p.next == first) && (p.next == first || p.isReady(p.next)); p.next++ {
		i, _ := p.feed.Arrived(p.next)
		if s := p.sample(i); s != nil {
			texts = p.texts(s, seen, texts)
		}
		p.of[p.next] = b
		b.pending++
	}
	j, release := sampleJudge(p.j)
	b.release = release
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if len(texts) > 0 {
			_, _ = j.Embed(p.ctx, texts) // failures resurface in the sample that needs the vector
		}
		p.finish(b)
	}()
}

// done records that the sample at position i is done.
func (p *prefetcher) done(i int) {
	p.mu.Lock()
	b := p.of[i]
	delete(p.of, i)
	p.mu.Unlock()
	if b != nil {
		p.finish(b)
	}
}

// finish counts down a batch and releases its vectors when nothing needs
// them any longer.
func (p *prefetcher) finish(b *batch) {
	p.mu.Lock()
	b.pending--
	last := b.pending == 0
	p.mu.Unlock()
	if last {
		b.release()
	}
}

// wait waits for the calls in flight.
func (p *prefetcher) wait() { p.wg.Wait() }

// texts appends the texts of s to embed that are not in seen.
func (p *prefetcher) texts(s *metrics.Sample, seen map[string]bool, out []string) []string {
	for _, e := range p.embeds {
		if !hasAll(s, e.needs) {
			continue
		}
		if _, empty := emptyGoldenField(s, e.needs); empty {
			continue // the metric is undefined without a call
		}
		for _, f := range e.fields {
			if t := s.String(f); !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// hasAll reports whether s has every field of fs.
func hasAll(s *metrics.Sample, fs []metrics.Field) bool {
	for _, f := range fs {
		if !s.Has(f) {
			return false
		}
	}
	return true
}
