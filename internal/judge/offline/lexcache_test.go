package offline

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The cache holds at most two generations of bagCacheBytes of text, however
// many texts go through it, and keeps the recent ones.
func TestLexCacheBounded(t *testing.T) {
	c := newLexCache()
	text := func(i int) string { return strings.Repeat("x", 1000) + " statement number " + strconv.Itoa(i) }
	held := func() (n int) {
		for k := range c.bags.cur {
			n += len(k)
		}
		for k := range c.bags.old {
			n += len(k)
		}
		return n
	}
	for i := range 5000 {
		c.bag(text(i))
		if n := held(); n > 2*bagCacheBytes+len(text(i)) {
			t.Fatalf("after %d texts the cache holds %d bytes, over two generations of %d", i+1, n, bagCacheBytes)
		}
	}
	if _, ok := c.bags.get(text(4999)); !ok {
		t.Error("the last text is not cached")
	}
	if _, ok := c.bags.get(text(0)); ok {
		t.Error("the first text is still cached after 5 MB of others")
	}
	long := strings.Repeat("word ", bagCacheMax)
	c.bag(long)
	if _, ok := c.bags.get(long); ok {
		t.Error("a text longer than bagCacheMax is cached")
	}
}

// A text used again while in the old generation moves to the current one,
// so a text in use is not dropped.
func TestLexCacheKeepsUsed(t *testing.T) {
	c := newLexCache()
	keep := "The ruling has limited access to abortion."
	b := c.bag(keep)
	for i := range 2000 {
		c.bag(strings.Repeat("z", 500) + " other text " + strconv.Itoa(i))
		if got := c.bag(keep); got != b {
			t.Fatalf("after %d other texts the bag of a text in use was recomputed", i+1)
		}
	}
}

// Cached analyses give the same answers as fresh ones: the amnesty rows
// judged by a judge without the cache, by a new judge and again by the
// same judge (every bag from the cache) score and explain alike.
func TestLexCacheSameAnswers(t *testing.T) {
	samples := amnestySamples(t)
	uncached := judgeSuite(t, &Judge{}, slices.Clone(samples))
	j := New(Options{})
	first := judgeSuite(t, j, slices.Clone(samples))
	again := judgeSuite(t, j, slices.Clone(samples))
	for name, got := range map[string]any{"new judge": first.Samples, "same judge again": again.Samples} {
		if !reflect.DeepEqual(got, uncached.Samples) {
			t.Errorf("%s: results differ from the judge without a cache", name)
		}
	}
}
