package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/raggate/raggate/metrics"
)

// EmbedMetric is the metric name that Memoized.Embed attributes embedding
// usage to; Memoized.EmbedFor names the metric instead.
const EmbedMetric = "embed"

// Memoized is a Judge that answers each distinct step once per run: a
// request with the same step, input (compared as canonical JSON) and count
// as an earlier one gets the earlier answer, and identical requests in
// flight at the same time are coalesced into one call of the underlying
// judge. Answers that failed with an *Undefined error are memoized too (the
// same input would fail the same way); fatal errors, context errors and
// other errors are not, so a later request asks again. Embeddings are
// memoized per text.
//
// Entries asked for through Memoized itself are kept for the whole run.
// Entries asked for through a Scope are kept while some unreleased Scope
// has used them (or Memoized itself has), so that a run which gives each
// sample its own Scope holds the texts and answers of the samples in
// flight only, not of every sample judged so far.
//
// Memoized also accounts for the work of the underlying judge: usage per
// metric that caused it (memo hits are free and not counted) and calls per
// step. It is safe for concurrent use. Use one Memoized per run.
type Memoized struct {
	j Judge

	mu        sync.Mutex
	asks      map[string]*askEntry
	vecs      map[string]*vecEntry
	total     Usage
	perMetric map[string]Usage
	calls     map[metrics.Step]int
	// waits counts requests that waited for an identical one in flight
	// (for tests).
	waits int
}

var _ Judge = (*Memoized)(nil)

type askEntry struct {
	done chan struct{}
	ans  Answer
	err  error
	hold
}

type vecEntry struct {
	done chan struct{}
	vec  []float64
	err  error
	hold
}

// hold counts who keeps a memo entry; m.mu guards it.
type hold struct {
	refs   int  // unreleased scopes that used the entry
	pinned bool // used through Memoized itself: kept for the run
}

// unused reports whether nothing keeps the entry any longer.
func (h *hold) unused() bool { return h.refs == 0 && !h.pinned }

// Memo wraps j so that repeated steps are answered once.
func Memo(j Judge) *Memoized {
	return &Memoized{
		j:         j,
		asks:      map[string]*askEntry{},
		vecs:      map[string]*vecEntry{},
		perMetric: map[string]Usage{},
		calls:     map[metrics.Step]int{},
	}
}

// Unwrap returns the underlying judge.
func (m *Memoized) Unwrap() Judge { return m.j }

// Ask answers req, asking the underlying judge only for a request not seen
// before in this run. A memo hit returns a copy of the earlier answer with
// zero Usage, or the earlier *Undefined error.
func (m *Memoized) Ask(ctx context.Context, req Request) (Answer, error) {
	return m.ask(ctx, req, nil)
}

// ask is Ask on behalf of scope s (nil: Memoized itself).
func (m *Memoized) ask(ctx context.Context, req Request, s *Scope) (Answer, error) {
	key, err := askKey(req)
	if err != nil {
		return Answer{}, fmt.Errorf("memo: %s input: %w", req.Step, err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return Answer{}, err
		}
		m.mu.Lock()
		e, ok := m.asks[key]
		if !ok {
			e = &askEntry{done: make(chan struct{})}
			m.asks[key] = e
			m.calls[req.Step]++
			s.holdAsk(e, key)
			m.mu.Unlock()
			return m.lead(ctx, key, e, req)
		}
		s.holdAsk(e, key)
		select {
		case <-e.done:
		default:
			m.waits++
		}
		m.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return Answer{}, ctx.Err()
		}
		if e.err != nil && !memoizable(e.err) && !IsFatal(e.err) {
			// The leader failed for its own reasons (its context ended,
			// a transient error): ask again, now perhaps as the leader.
			continue
		}
		if e.err != nil {
			return Answer{}, e.err
		}
		a := e.ans.Clone()
		a.Usage = Usage{}
		return a, nil
	}
}

// keyBuffers are the buffers askKey encodes in.
var keyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// askKey is the memo key of req: its step, count and input as compact JSON
// without HTML escaping (as marshalJSON), separated by NUL bytes. The
// input is encoded into a pooled buffer and copied once into the key.
func askKey(req Request) (string, error) {
	b := keyBuffers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= 1<<20 {
			keyBuffers.Put(b)
		}
	}()
	b.Reset()
	b.WriteString(string(req.Step))
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(req.Count()))
	b.WriteByte(0)
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req.Input); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// lead asks the underlying judge for the entry e that this call created.
func (m *Memoized) lead(ctx context.Context, key string, e *askEntry, req Request) (Answer, error) {
	returned := false
	defer func() {
		if !returned {
			// The judge panicked or called runtime.Goexit: release the
			// waiters and forget the entry.
			m.mu.Lock()
			e.err = &Fatal{Err: fmt.Errorf("judge did not return from a %s step", req.Step)}
			delete(m.asks, key)
			close(e.done)
			m.mu.Unlock()
		}
	}()
	ans, err := m.j.Ask(ctx, req)
	returned = true
	m.mu.Lock()
	m.account(req.Metric, ans.Usage)
	e.ans, e.err = ans.Clone(), err
	if err != nil && !memoizable(err) || e.unused() {
		delete(m.asks, key)
	}
	close(e.done)
	m.mu.Unlock()
	return ans, err
}

// memoizable reports whether an error is remembered as the answer of its
// request: *Undefined errors are, unless they are also fatal.
func memoizable(err error) bool {
	var u *Undefined
	return errors.As(err, &u) && !IsFatal(err)
}

// account adds usage to the totals; m.mu must be held.
func (m *Memoized) account(metric string, u Usage) {
	m.total = m.total.Add(u)
	m.perMetric[metric] = m.perMetric[metric].Add(u)
}

// Embed returns one vector per text, asking the underlying judge, in one
// call, only for the texts not embedded before in this run (each once, in
// order of first appearance). Its usage is attributed to EmbedMetric.
func (m *Memoized) Embed(ctx context.Context, texts []string) (Embedding, error) {
	return m.EmbedFor(ctx, EmbedMetric, texts)
}

// EmbedFor is Embed with the usage attributed to metric. Errors of the
// underlying judge are not memoized: the texts of a failed call are asked
// again by a later request. Embedding.Usage is the usage of the underlying
// call this request made (zero when every text was known).
func (m *Memoized) EmbedFor(ctx context.Context, metric string, texts []string) (Embedding, error) {
	return m.embedFor(ctx, metric, texts, nil)
}

// embedFor is EmbedFor on behalf of scope s (nil: Memoized itself).
func (m *Memoized) embedFor(ctx context.Context, metric string, texts []string, s *Scope) (Embedding, error) {
	out := Embedding{Vectors: make([][]float64, len(texts))}
	entries := make([]*vecEntry, len(texts))
	for {
		if err := ctx.Err(); err != nil {
			return Embedding{}, err
		}
		var (
			missing []string
			mine    []*vecEntry
		)
		m.mu.Lock()
		for i, t := range texts {
			e, ok := m.vecs[t]
			if !ok {
				e = &vecEntry{done: make(chan struct{})}
				m.vecs[t] = e
				missing = append(missing, t)
				mine = append(mine, e)
			}
			s.holdVec(e, t)
			entries[i] = e
		}
		if len(missing) > 0 {
			m.calls[metrics.StepEmbed]++
		}
		m.mu.Unlock()

		if len(missing) > 0 {
			u, err := m.embedMissing(ctx, metric, missing, mine)
			if err != nil {
				return Embedding{}, err
			}
			out.Usage = out.Usage.Add(u)
		}

		retry := false
		for i, e := range entries {
			select {
			case <-e.done:
			case <-ctx.Done():
				return Embedding{}, ctx.Err()
			}
			if e.err != nil {
				if IsFatal(e.err) {
					return Embedding{}, e.err
				}
				// Another request's call failed: ask again ourselves.
				retry = true
				continue
			}
			out.Vectors[i] = slices.Clone(e.vec)
		}
		if !retry {
			return out, nil
		}
	}
}

// embedMissing asks the underlying judge for the texts whose entries this
// request created, and completes the entries.
func (m *Memoized) embedMissing(ctx context.Context, metric string, missing []string, mine []*vecEntry) (Usage, error) {
	var (
		emb Embedding
		err = error(&Fatal{Err: errors.New("judge did not return from an embed step")})
	)
	defer func() {
		// Deferred so that a panicking judge still releases the waiters.
		m.mu.Lock()
		defer m.mu.Unlock()
		m.account(metric, emb.Usage)
		for k, e := range mine {
			if err != nil {
				e.err = err
				delete(m.vecs, missing[k])
			} else {
				e.vec = slices.Clone(emb.Vectors[k])
				if e.unused() {
					delete(m.vecs, missing[k])
				}
			}
			close(e.done)
		}
	}()
	emb, err = m.j.Embed(ctx, missing)
	if err == nil && len(emb.Vectors) != len(missing) {
		err = &Fatal{Err: fmt.Errorf("judge returned %d vectors for %d texts", len(emb.Vectors), len(missing))}
	}
	return emb.Usage, err
}

// Usage returns the usage of the underlying judge so far: the total, and
// per metric that caused each call (Request.Metric; EmbedMetric or the
// metric given to EmbedFor for embeddings). Memo hits are not counted.
func (m *Memoized) Usage() (total Usage, perMetric map[string]Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total, maps.Clone(m.perMetric)
}

// Calls returns how many times the underlying judge was called per step
// (metrics.StepEmbed for embedding calls), failed calls included.
func (m *Memoized) Calls() map[metrics.Step]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.calls)
}

// Scope is a view of a Memoized for one unit of work, such as a sample:
// it shares the memo's answers, and the entries it used stay in the memo
// until Release (unless something else still holds them). A Scope is
// safe for concurrent use until Release; do not use it after.
type Scope struct {
	m    *Memoized
	asks map[*askEntry]string // entries used, with their keys
	vecs map[*vecEntry]string
}

var _ Judge = (*Scope)(nil)

// Scope returns a new scope of the memo.
func (m *Memoized) Scope() *Scope {
	return &Scope{m: m, asks: map[*askEntry]string{}, vecs: map[*vecEntry]string{}}
}

// Ask is Memoized.Ask, keeping the entry until Release.
func (s *Scope) Ask(ctx context.Context, req Request) (Answer, error) {
	return s.m.ask(ctx, req, s)
}

// Embed is Memoized.Embed, keeping the vectors until Release.
func (s *Scope) Embed(ctx context.Context, texts []string) (Embedding, error) {
	return s.m.embedFor(ctx, EmbedMetric, texts, s)
}

// EmbedFor is Memoized.EmbedFor, keeping the vectors until Release.
func (s *Scope) EmbedFor(ctx context.Context, metric string, texts []string) (Embedding, error) {
	return s.m.embedFor(ctx, metric, texts, s)
}

// Release lets the memo forget the entries this scope used and nothing
// else holds. Usage and call counts are kept.
func (s *Scope) Release() {
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	for e, key := range s.asks {
		e.refs--
		if e.unused() && isClosed(e.done) && m.asks[key] == e {
			delete(m.asks, key)
		}
	}
	for e, text := range s.vecs {
		e.refs--
		if e.unused() && isClosed(e.done) && m.vecs[text] == e {
			delete(m.vecs, text)
		}
	}
	s.asks, s.vecs = nil, nil
}

// Held returns the number of chat answers and vectors the memo holds (for
// tests and benchmarks).
func (m *Memoized) Held() (answers, vectors int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.asks), len(m.vecs)
}

// holdAsk records that scope s (nil: Memoized itself) uses the entry;
// m.mu must be held.
func (s *Scope) holdAsk(e *askEntry, key string) {
	if s == nil {
		e.pinned = true
		return
	}
	if _, ok := s.asks[e]; !ok {
		s.asks[e] = key
		e.refs++
	}
}

// holdVec is holdAsk for a vector.
func (s *Scope) holdVec(e *vecEntry, text string) {
	if s == nil {
		e.pinned = true
		return
	}
	if _, ok := s.vecs[e]; !ok {
		s.vecs[e] = text
		e.refs++
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
