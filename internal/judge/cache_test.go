package judge_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/raggate/raggate/internal/judge"
)

func TestCacheKey(t *testing.T) {
	if judge.CacheKey("ab", "c") == judge.CacheKey("a", "bc") {
		t.Error("field boundaries are not part of the key")
	}
	k1, k2 := judge.CacheKey("a", "b"), judge.CacheKey("a", "b")
	if k1 != k2 || len(k1) != 64 {
		t.Error("key is not a stable sha256 hex")
	}
}

func TestCacheChat(t *testing.T) {
	c, err := judge.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := judge.CacheKey("chat", "model-a", "prompt")
	fills := 0
	fill := func(context.Context) (judge.CacheEntry, error) {
		fills++
		return judge.CacheEntry{Contents: []string{`{"x":1}`}, Usage: judge.Usage{ChatCalls: 1, PromptTokens: 10}}, nil
	}
	e, hit, err := c.Chat(ctx, key, nil, fill)
	if err != nil || hit || fills != 1 || e.Usage.PromptTokens != 10 {
		t.Fatalf("miss: %+v hit=%v err=%v fills=%d", e, hit, err, fills)
	}
	e, hit, err = c.Chat(ctx, key, nil, fill)
	if err != nil || !hit || fills != 1 || e.Contents[0] != `{"x":1}` || e.Usage.PromptTokens != 10 {
		t.Fatalf("hit: %+v hit=%v err=%v fills=%d", e, hit, err, fills)
	}
	if s := c.Stats(); s.Hits != 1 || s.Misses != 1 || s.Writes != 1 {
		t.Errorf("stats = %+v", s)
	}

	t.Run("check rejects -> refill", func(t *testing.T) {
		_, hit, err := c.Chat(ctx, key, func(judge.CacheEntry) error { return errors.New("stale") }, fill)
		if err != nil || hit || fills != 2 {
			t.Errorf("hit=%v err=%v fills=%d", hit, err, fills)
		}
	})
	t.Run("fill error stores nothing", func(t *testing.T) {
		k := judge.CacheKey("failing")
		boom := errors.New("boom")
		_, _, err := c.Chat(ctx, k, nil, func(context.Context) (judge.CacheEntry, error) { return judge.CacheEntry{}, boom })
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
		_, hit, _ := c.Chat(ctx, k, nil, fill)
		if hit {
			t.Error("a failed fill was cached")
		}
	})
	t.Run("corrupt and truncated entries are rewritten", func(t *testing.T) {
		for _, garbage := range []string{"", "{", `{"format":"raggate.cache/v1","key":"other","contents":["a"]}`, `{"format":"raggate.cache/v1","key":"` + key + `","contents":[]}`} {
			path := filepath.Join(c.Dir(), "chat", key[:2], key+".json")
			if err := os.WriteFile(path, []byte(garbage), 0o644); err != nil {
				t.Fatal(err)
			}
			before := fills
			if _, hit, err := c.Chat(ctx, key, nil, fill); err != nil || hit || fills != before+1 {
				t.Fatalf("garbage %q: hit=%v err=%v", garbage, hit, err)
			}
			if _, hit, _ := c.Chat(ctx, key, nil, fill); !hit {
				t.Fatalf("garbage %q: entry not rewritten", garbage)
			}
		}
	})
	t.Run("no temporary files left", func(t *testing.T) {
		tmp, _ := filepath.Glob(filepath.Join(c.Dir(), "chat", "*", ".*tmp-*"))
		if len(tmp) != 0 {
			t.Errorf("temporary files left: %v", tmp)
		}
	})
}

func TestCacheCoalescesConcurrentRequests(t *testing.T) {
	c, err := judge.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var fills atomic.Int32
	release := make(chan struct{})
	entered := make(chan struct{})
	fill := func(context.Context) (judge.CacheEntry, error) {
		fills.Add(1)
		close(entered)
		<-release
		return judge.CacheEntry{Contents: []string{"x"}}, nil
	}
	key := judge.CacheKey("same")
	var wg sync.WaitGroup
	hits := make([]bool, 4)
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, hits[0], _ = c.Chat(context.Background(), key, nil, fill)
	}()
	<-entered
	for i := 1; i < len(hits); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, hits[i], _ = c.Chat(context.Background(), key, nil, fill)
		}()
	}
	// The followers are either waiting for the leader or will read its
	// entry from disk: both ways they do not fill.
	close(release)
	wg.Wait()
	if fills.Load() != 1 {
		t.Errorf("%d fills, want 1", fills.Load())
	}
	if hits[0] || !hits[1] || !hits[2] || !hits[3] {
		t.Errorf("hits = %v, want only the leader to miss", hits)
	}
	if s := c.Stats(); s.Hits != 3 || s.Misses != 1 {
		t.Errorf("stats = %+v", s)
	}
}

func TestCacheCancelledWaiter(t *testing.T) {
	c, _ := judge.OpenCache(t.TempDir())
	release := make(chan struct{})
	entered := make(chan struct{})
	leaderDone := make(chan struct{})
	go func() {
		defer close(leaderDone)
		_, _, _ = c.Chat(context.Background(), "k1", nil, func(context.Context) (judge.CacheEntry, error) {
			close(entered)
			<-release
			return judge.CacheEntry{Contents: []string{"x"}}, nil
		})
	}()
	<-entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.Chat(ctx, "k1", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	close(release)
	<-leaderDone
}

func TestCacheEmbeddings(t *testing.T) {
	c, _ := judge.OpenCache(t.TempDir())
	key := judge.CacheKey("embed", "model", "text")
	if _, ok := c.LoadEmbedding(key); ok {
		t.Fatal("hit on an empty cache")
	}
	v := []float64{0.5, -0.25, 1}
	c.StoreEmbedding(key, v)
	got, ok := c.LoadEmbedding(key)
	if !ok || len(got) != 3 || got[0] != 0.5 || got[1] != -0.25 || got[2] != 1 {
		t.Fatalf("got %v %v", got, ok)
	}
	path := filepath.Join(c.Dir(), "embed", key[:2], key+".json")
	if err := os.WriteFile(path, []byte(`{"format":"raggate.cache/v1","key":"`+key+`","vector":"AAA"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.LoadEmbedding(key); ok {
		t.Error("corrupt vector used")
	}
	if s := c.Stats(); s.EmbeddingHits != 1 || s.Corrupt != 1 {
		t.Errorf("stats = %+v", s)
	}
}

func TestCacheWriteFailureLogged(t *testing.T) {
	dir := t.TempDir()
	c, _ := judge.OpenCache(dir)
	var logged []string
	c.Logf = func(format string, args ...any) { logged = append(logged, format) }
	// A file where the shard directory should be makes writes fail.
	key := judge.CacheKey("x")
	if err := os.MkdirAll(filepath.Join(dir, "chat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chat", key[:2]), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := c.Chat(context.Background(), key, nil, func(context.Context) (judge.CacheEntry, error) {
			return judge.CacheEntry{Contents: []string{"x"}}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if s := c.Stats(); s.WriteErrors != 2 || len(logged) != 1 {
		t.Errorf("stats %+v, %d warnings; want 2 failed writes and 1 warning", s, len(logged))
	}
}

// Cache entries are readable by other users: the action's container writes
// them as root, actions/cache saves them as the runner's user.
func TestCacheEntriesAreWorldReadable(t *testing.T) {
	dir := t.TempDir()
	c, err := judge.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Chat(context.Background(), judge.CacheKey("k"), nil, func(context.Context) (judge.CacheEntry, error) {
		return judge.CacheEntry{Contents: []string{"{}"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
			if info, _ := d.Info(); info.Mode().Perm()&0o044 != 0o044 {
				t.Errorf("%s has mode %v, want group/other readable", p, info.Mode().Perm())
			}
		}
		return nil
	})
	if n == 0 {
		t.Fatal("no cache file written")
	}
}
