package judge

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/raggate/raggate/internal/atomicfile"
	"golang.org/x/sync/singleflight"
)

// DefaultCacheDir is the default directory of the judge cache.
const DefaultCacheDir = ".raggate-cache"

// cacheFormat names the layout of cache entries; it is part of every key.
const cacheFormat = "raggate.cache/v1"

// CacheEntry is what the cache stores for one chat step: the raw assistant
// contents (one per choice; the question step has several) and what
// producing them cost.
type CacheEntry struct {
	Contents []string `json:"contents"`
	Usage    Usage    `json:"usage"`
}

// CacheStats counts cache traffic since the cache was opened.
type CacheStats struct {
	// Hits counts chat steps answered from disk or by a concurrent
	// identical request; EmbeddingHits counts texts.
	Hits, EmbeddingHits int64
	// Misses counts chat steps that had to be asked; EmbeddingMisses texts.
	Misses, EmbeddingMisses int64
	// Corrupt counts entries that could not be read back (they are
	// rewritten by the next successful answer).
	Corrupt int64
	// Writes and WriteErrors count stored entries and failed writes.
	Writes, WriteErrors int64
}

// Cache is a content-addressed on-disk store of judge answers, safe for
// concurrent use by one or more processes. Keys (see CacheKey) hash
// everything that determines an answer, so an entry is never reused for a
// different model, endpoint, parameter or prompt. Entries are written
// atomically (temporary file and rename); a corrupt or truncated entry is
// ignored and rewritten. Identical concurrent chat requests are coalesced
// into one. Nothing is fsynced: a lost entry is only a cache miss.
//
// Layout: <dir>/chat/<2 hex>/<key>.json and <dir>/embed/<2 hex>/<key>.json.
type Cache struct {
	dir    string
	flight singleflight.Group

	// Logf, when set before the cache is used, receives warnings (the first
	// failed write).
	Logf func(format string, args ...any)

	hits, misses, embHits, embMisses, corrupt, writes, writeErrs atomic.Int64
	warnOnce                                                     sync.Once
}

// OpenCache opens (creating it if needed) the cache in dir; an empty dir
// means DefaultCacheDir.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		dir = DefaultCacheDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	// Mark the directory as a cache for backup tools (best effort).
	tag := filepath.Join(dir, "CACHEDIR.TAG")
	if _, err := os.Stat(tag); errors.Is(err, os.ErrNotExist) {
		_ = os.WriteFile(tag, []byte("Signature: 8a477f597d28d172789f06886806bc55\n# raggate judge cache: safe to delete; see https://bford.info/cachedir/\n"), 0o644)
	}
	return &Cache{dir: dir}, nil
}

// Dir returns the cache directory.
func (c *Cache) Dir() string { return c.dir }

// Stats returns the cache counters.
func (c *Cache) Stats() CacheStats {
	return CacheStats{
		Hits: c.hits.Load(), Misses: c.misses.Load(),
		EmbeddingHits: c.embHits.Load(), EmbeddingMisses: c.embMisses.Load(),
		Corrupt: c.corrupt.Load(), Writes: c.writes.Load(), WriteErrors: c.writeErrs.Load(),
	}
}

// CacheKey hashes fields into a cache key (64 hex digits). Fields are
// length-prefixed, so ("ab", "c") and ("a", "bc") differ. The cache format
// version is always included.
func CacheKey(fields ...string) string {
	h := sha256.New()
	write := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	write(cacheFormat)
	for _, f := range fields {
		write(f)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type chatFile struct {
	Format string `json:"format"`
	Key    string `json:"key"`
	CacheEntry
}

type flightResult struct {
	entry CacheEntry
	hit   bool
}

// Chat returns the entry stored under key, or calls fill and stores what it
// returns. check validates a stored entry (for example by parsing its
// contents); an entry that fails it is treated as corrupt. Concurrent calls
// with the same key share one lookup and one fill; hit reports that this
// caller's fill did not run (the answer came from disk or from another
// caller), so the call cost nothing. Errors of fill are returned and nothing
// is stored.
func (c *Cache) Chat(ctx context.Context, key string, check func(CacheEntry) error, fill func(context.Context) (CacheEntry, error)) (entry CacheEntry, hit bool, err error) {
	var ran bool
	ch := c.flight.DoChan(key, func() (any, error) {
		if e, ok := c.loadChat(key, check); ok {
			return flightResult{entry: e, hit: true}, nil
		}
		ran = true
		c.misses.Add(1)
		e, err := fill(ctx)
		if err != nil {
			return nil, err
		}
		c.store(c.path("chat", key), chatFile{Format: cacheFormat, Key: key, CacheEntry: e})
		return flightResult{entry: e}, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return CacheEntry{}, false, r.Err
		}
		res := r.Val.(flightResult)
		// A caller whose fill did not run got the answer from disk or
		// from a concurrent identical request: a hit either way.
		if !ran {
			c.hits.Add(1)
		}
		return res.entry, !ran, nil
	case <-ctx.Done():
		return CacheEntry{}, false, ctx.Err()
	}
}

func (c *Cache) loadChat(key string, check func(CacheEntry) error) (CacheEntry, bool) {
	b, err := os.ReadFile(c.path("chat", key))
	if err != nil {
		return CacheEntry{}, false
	}
	var f chatFile
	if err := json.Unmarshal(b, &f); err != nil || f.Format != cacheFormat || f.Key != key || len(f.Contents) == 0 {
		c.corrupt.Add(1)
		return CacheEntry{}, false
	}
	if check != nil && check(f.CacheEntry) != nil {
		c.corrupt.Add(1)
		return CacheEntry{}, false
	}
	return f.CacheEntry, true
}

type embedFile struct {
	Format string `json:"format"`
	Key    string `json:"key"`
	// Vector is little-endian float32 values, base64: what the API returns,
	// at a fifth of the size of JSON numbers.
	Vector string `json:"vector"`
}

// LoadEmbedding returns the vector stored under key.
func (c *Cache) LoadEmbedding(key string) ([]float64, bool) {
	b, err := os.ReadFile(c.path("embed", key))
	if err != nil {
		c.embMisses.Add(1)
		return nil, false
	}
	var f embedFile
	raw, derr := []byte(nil), error(nil)
	if err = json.Unmarshal(b, &f); err == nil {
		raw, derr = base64.StdEncoding.DecodeString(f.Vector)
	}
	if err != nil || derr != nil || f.Format != cacheFormat || f.Key != key || len(raw) == 0 || len(raw)%4 != 0 {
		c.corrupt.Add(1)
		c.embMisses.Add(1)
		return nil, false
	}
	v := make([]float64, len(raw)/4)
	for i := range v {
		v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:])))
	}
	c.embHits.Add(1)
	return v, true
}

// StoreEmbedding stores a vector under key (as float32, the API's precision).
func (c *Cache) StoreEmbedding(key string, v []float64) {
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(x)))
	}
	c.store(c.path("embed", key), embedFile{Format: cacheFormat, Key: key, Vector: base64.StdEncoding.EncodeToString(raw)})
}

func (c *Cache) path(kind, key string) string {
	if len(key) < 3 {
		key = CacheKey(key)
	}
	return filepath.Join(c.dir, kind, key[:2], key+".json")
}

// store writes v as JSON to path atomically; failures are counted and the
// first one is logged.
func (c *Cache) store(path string, v any) {
	if err := writeAtomic(path, v); err != nil {
		c.writeErrs.Add(1)
		c.warnOnce.Do(func() {
			if c.Logf != nil {
				c.Logf("judge cache: cannot write entries (answers are not cached): %v", err)
			}
		})
		return
	}
	c.writes.Add(1)
}

func writeAtomic(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return atomicfile.WriteUnsynced(path, b, 0o644)
}
