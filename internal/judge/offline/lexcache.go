package offline

import "sync"

// lexCache keeps the bags of recent statements and evidence sentences. The
// steps of one sample analyse the same short texts again and again: the
// response's statements are verified against the joined contexts, then
// against each context (verify_pair), and the sentences of each context
// are evidence both there and in the joined contexts. A bag depends on its
// text only, so it is computed once while it is recent. Memory is bounded
// by the bytes of text held (two generations of at most bagCacheBytes: a
// text not used for a generation is dropped), not by the number of
// samples. A nil *lexCache caches nothing. It is safe for concurrent use;
// the bags it returns are never modified.
type lexCache struct {
	mu   sync.Mutex
	bags generations[*bag]
}

func newLexCache() *lexCache {
	return &lexCache{bags: generations[*bag]{limit: bagCacheBytes}}
}

// bagCacheBytes is the text a generation of the cache holds: the
// statements and sentences of about 16 samples of long answers (some 15 KB
// each), the evaluator's default in flight.
const bagCacheBytes = 256 << 10

// bagCacheMax is the longest text cached: longer ones are rare and
// analysed each time.
const bagCacheMax = 4 << 10

// bag returns newBag(s).
func (c *lexCache) bag(s string) *bag {
	if c == nil || len(s) > bagCacheMax {
		return newBag(s)
	}
	c.mu.Lock()
	b, ok := c.bags.get(s)
	c.mu.Unlock()
	if ok {
		return b
	}
	b = newBag(s)
	c.mu.Lock()
	c.bags.put(s, b)
	c.mu.Unlock()
	return b
}

// generations is a cache of two generations: entries are added to the
// current one; when it holds limit bytes of keys, it becomes the old one
// and the old one is dropped. A hit in the old generation moves the entry
// to the current one.
type generations[T any] struct {
	cur, old map[string]T
	bytes    int // bytes of the keys of cur
	limit    int
}

func (g *generations[T]) get(k string) (T, bool) {
	if v, ok := g.cur[k]; ok {
		return v, true
	}
	v, ok := g.old[k]
	if ok {
		g.put(k, v)
	}
	return v, ok
}

func (g *generations[T]) put(k string, v T) {
	if _, ok := g.cur[k]; ok {
		return
	}
	if g.cur == nil || (g.bytes+len(k) > g.limit && len(g.cur) > 0) {
		g.old, g.cur, g.bytes = g.cur, map[string]T{}, 0
	}
	g.cur[k] = v
	g.bytes += len(k)
}
