package judge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// EmbedFunc embeds texts in one call: one vector per text, in order.
type EmbedFunc func(ctx context.Context, texts []string) (Embedding, error)

// BatchOptions configures a Batcher.
type BatchOptions struct {
	// Window is how long the first text of a batch waits for more
	// (default 20 ms).
	Window time.Duration
	// MaxTexts flushes a batch as soon as it holds this many distinct texts
	// (default 256).
	MaxTexts int
}

// Default batching parameters: the window of a batch and its size.
const (
	DefaultBatchWindow   = 20 * time.Millisecond
	DefaultBatchMaxTexts = 256
)

// Batcher merges the Embed calls of concurrent callers into batched calls:
// texts arriving within Window of the first one (or until MaxTexts distinct
// texts) go out in one call of the EmbedFunc, and the vectors are split back
// to their callers. Identical texts in a batch are embedded once.
//
// A batch that fails with *Undefined (for example a text that is too long)
// is bisected so that only the callers whose texts fail get the error. The
// usage of a batch is shared between its callers in proportion to the
// length of their texts; the first caller is charged the call itself.
// A batch is cancelled when every caller waiting for it has given up.
type Batcher struct {
	fn       EmbedFunc
	window   time.Duration
	maxTexts int

	mu  sync.Mutex
	cur *embedBatch
}

type embedCall struct {
	texts []string
	done  chan struct{}
	emb   Embedding
	err   error
}

type embedBatch struct {
	b       *Batcher
	calls   []*embedCall
	index   map[string]int // distinct text -> position in texts
	texts   []string
	timer   *time.Timer
	flushed bool

	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	live   int
}

// NewBatcher returns a Batcher that calls fn.
func NewBatcher(fn EmbedFunc, o BatchOptions) *Batcher {
	if o.Window <= 0 {
		o.Window = DefaultBatchWindow
	}
	if o.MaxTexts <= 0 {
		o.MaxTexts = DefaultBatchMaxTexts
	}
	return &Batcher{fn: fn, window: o.Window, maxTexts: o.MaxTexts}
}

// Embed returns one vector per text, in order, from a shared batch.
func (b *Batcher) Embed(ctx context.Context, texts []string) (Embedding, error) {
	if len(texts) == 0 {
		return Embedding{Vectors: [][]float64{}}, nil
	}
	if len(texts) > b.maxTexts {
		return b.embedChunks(ctx, texts)
	}
	c := &embedCall{texts: texts, done: make(chan struct{})}
	batch := b.join(c)
	select {
	case <-c.done:
		return c.emb, c.err
	case <-ctx.Done():
		batch.leave()
		return Embedding{}, ctx.Err()
	}
}

// embedChunks embeds more texts than fit one batch, chunk by chunk.
func (b *Batcher) embedChunks(ctx context.Context, texts []string) (Embedding, error) {
	out := Embedding{Vectors: make([][]float64, 0, len(texts))}
	for i := 0; i < len(texts); i += b.maxTexts {
		e, err := b.Embed(ctx, texts[i:min(len(texts), i+b.maxTexts)])
		out.Usage = out.Usage.Add(e.Usage)
		if err != nil {
			return Embedding{Usage: out.Usage}, err
		}
		out.Vectors = append(out.Vectors, e.Vectors...)
	}
	return out, nil
}

// join adds c to the open batch (opening one if needed) and flushes it when
// full.
func (b *Batcher) join(c *embedCall) *embedBatch {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur != nil && (b.cur.ctx.Err() != nil || len(b.cur.texts)+b.cur.newTexts(c.texts) > b.maxTexts) {
		// Full, or abandoned by all its callers: start a new batch.
		b.flushLocked(b.cur)
	}
	if b.cur == nil {
		ctx, cancel := context.WithCancel(context.Background())
		batch := &embedBatch{b: b, index: map[string]int{}, ctx: ctx, cancel: cancel}
		b.cur = batch
		batch.timer = time.AfterFunc(b.window, func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.flushLocked(batch)
		})
	}
	batch := b.cur
	batch.calls = append(batch.calls, c)
	batch.mu.Lock()
	batch.live++
	batch.mu.Unlock()
	for _, t := range c.texts {
		if _, ok := batch.index[t]; !ok {
			batch.index[t] = len(batch.texts)
			batch.texts = append(batch.texts, t)
		}
	}
	if len(batch.texts) >= b.maxTexts {
		b.flushLocked(batch)
	}
	return batch
}

// flushLocked closes batch to new callers and sends it; b.mu is held.
func (b *Batcher) flushLocked(batch *embedBatch) {
	if batch.flushed {
		return
	}
	batch.flushed = true
	batch.timer.Stop()
	if b.cur == batch {
		b.cur = nil
	}
	go batch.run()
}

func (batch *embedBatch) newTexts(texts []string) int {
	n := 0
	seen := map[string]bool{}
	for _, t := range texts {
		if _, ok := batch.index[t]; !ok && !seen[t] {
			seen[t] = true
			n++
		}
	}
	return n
}

// leave records that a caller gave up; the last one cancels the batch.
func (batch *embedBatch) leave() {
	batch.mu.Lock()
	defer batch.mu.Unlock()
	batch.live--
	if batch.live == 0 {
		batch.cancel()
	}
}

// run embeds the batch's distinct texts and answers every caller.
func (batch *embedBatch) run() {
	defer batch.cancel()
	vecs := make([][]float64, len(batch.texts))
	errs := make([]error, len(batch.texts))
	usage, err := batch.embedRange(batch.ctx, 0, len(batch.texts), vecs, errs)
	// Share the usage between callers in proportion to their text length.
	total := 0
	sizes := make([]int, len(batch.calls))
	for i, c := range batch.calls {
		for _, t := range c.texts {
			sizes[i] += len(t) + 1
		}
		total += sizes[i]
	}
	given := 0
	for i, c := range batch.calls {
		var u Usage
		if total > 0 {
			u.EmbeddingTokens = usage.EmbeddingTokens * sizes[i] / total
		}
		given += u.EmbeddingTokens
		if i == 0 {
			u.EmbeddingCalls = usage.EmbeddingCalls
			u.ChatCalls, u.CachedCalls = usage.ChatCalls, usage.CachedCalls
			u.PromptTokens, u.CompletionTokens = usage.PromptTokens, usage.CompletionTokens
		}
		c.emb.Usage = u
		if err != nil {
			c.err = err
		} else {
			c.emb.Vectors = make([][]float64, len(c.texts))
			for k, t := range c.texts {
				j := batch.index[t]
				if errs[j] != nil {
					c.err = errs[j]
					c.emb.Vectors = nil
					break
				}
				c.emb.Vectors[k] = vecs[j]
			}
		}
	}
	if len(batch.calls) > 0 {
		batch.calls[0].emb.Usage.EmbeddingTokens += usage.EmbeddingTokens - given
	}
	for _, c := range batch.calls {
		close(c.done)
	}
}

// embedRange embeds texts[lo:hi] into vecs. An *Undefined failure of more
// than one text is bisected; a single text's *Undefined goes to errs. Any
// other error is returned.
func (batch *embedBatch) embedRange(ctx context.Context, lo, hi int, vecs [][]float64, errs []error) (Usage, error) {
	e, err := batch.b.fn(ctx, batch.texts[lo:hi])
	if err == nil && len(e.Vectors) != hi-lo {
		err = fmt.Errorf("embeddings: got %d vectors for %d texts", len(e.Vectors), hi-lo)
	}
	if err == nil {
		copy(vecs[lo:hi], e.Vectors)
		return e.Usage, nil
	}
	var u *Undefined
	if !errors.As(err, &u) {
		return e.Usage, err
	}
	if hi-lo == 1 {
		errs[lo] = err
		return e.Usage, nil
	}
	mid := (lo + hi) / 2
	u1, err := batch.embedRange(ctx, lo, mid, vecs, errs)
	usage := e.Usage.Add(u1)
	if err != nil {
		return usage, err
	}
	u2, err := batch.embedRange(ctx, mid, hi, vecs, errs)
	return usage.Add(u2), err
}
