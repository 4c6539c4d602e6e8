package openaicompat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
)

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

func TestEmbed(t *testing.T) {
	e := newEnv(t, nil)
	texts := []string{"Paris is in France", "Lyon is in France", "Paris is in France"}
	emb, err := e.j.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.Vectors) != 3 {
		t.Fatalf("%d vectors", len(emb.Vectors))
	}
	for i, v := range emb.Vectors {
		want := openaitest.Vector(texts[i], 64)
		for k := range v {
			if d := v[k] - want[k]; d > 1e-6 || d < -1e-6 {
				t.Fatalf("vector %d differs from the server's at %d", i, k)
			}
		}
	}
	reqs := e.srv.Requests()
	if len(reqs) != 1 || len(reqs[0].Inputs) != 2 || reqs[0].Model != "text-embedding-3-small" {
		t.Fatalf("requests = %+v, want one call with the 2 distinct texts", reqs)
	}
	if emb.Usage.EmbeddingCalls != 1 || emb.Usage.EmbeddingTokens == 0 {
		t.Errorf("usage = %+v", emb.Usage)
	}
}

// TestEmbedBatchesAcrossCallers: texts of concurrent callers go out in one
// request and come back to the right caller.
func TestEmbedBatchesAcrossCallers(t *testing.T) {
	e := newEnv(t, nil, func(c *Config) { c.BatchWindow = time.Hour; c.BatchMaxTexts = 5 })
	callers := [][]string{{"alpha one", "alpha two"}, {"beta one", "beta two"}, {"gamma one", "alpha one"}}
	var wg sync.WaitGroup
	results := make([]judge.Embedding, len(callers))
	for i, texts := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			emb, err := e.j.Embed(context.Background(), texts)
			if err != nil {
				t.Error(err)
			}
			results[i] = emb
		}()
	}
	wg.Wait()
	// The window is an hour: the batch goes out when the last caller
	// brings it to 5 distinct texts.
	reqs := e.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d embeddings requests, want 1", len(reqs))
	}
	total := judge.Usage{}
	for i, texts := range callers {
		for k, text := range texts {
			if !close64(results[i].Vectors[k], openaitest.Vector(text, 64)) {
				t.Errorf("caller %d text %q got another text's vector", i, text)
			}
		}
		total = total.Add(results[i].Usage)
	}
	if total.EmbeddingCalls != 1 {
		t.Errorf("embedding calls charged %d, want 1", total.EmbeddingCalls)
	}
}

func close64(a, b []float64) bool {
	for i := range a {
		if d := a[i] - b[i]; d > 1e-6 || d < -1e-6 {
			return false
		}
	}
	return true
}

func TestEmbedTooLongIsolated(t *testing.T) {
	e := newEnv(t, []openaitest.Option{openaitest.WithMaxInputChars(100)}, func(c *Config) { c.BatchWindow = time.Hour; c.BatchMaxTexts = 3 })
	long := strings.Repeat("word ", 40)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, errs[0] = e.j.Embed(context.Background(), []string{"short one", "short two"})
	}()
	go func() { defer wg.Done(); _, errs[1] = e.j.Embed(context.Background(), []string{long}) }()
	wg.Wait()
	if errs[0] != nil {
		t.Errorf("the caller with short texts failed: %v", errs[0])
	}
	wantUndefined(t, errs[1], "too long")
}

func TestEmbedCached(t *testing.T) {
	dir := t.TempDir()
	mod := func(c *Config) { c.NoCache = false; c.CacheDir = dir }
	e := newEnv(t, nil, mod)
	first, err := e.j.Embed(context.Background(), []string{"cache me", "and me"})
	if err != nil {
		t.Fatal(err)
	}
	j2 := e.judge(t, mod)
	again, err := j2.Embed(context.Background(), []string{"and me", "cache me"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.Requests()) - 1; n != 0 {
		t.Errorf("%d requests, want 0", n)
	}
	if !close64(first.Vectors[0], again.Vectors[1]) || again.Usage != (judge.Usage{}) {
		t.Errorf("cached vectors differ or cost something: %+v", again.Usage)
	}
	t.Run("another embedding model misses", func(t *testing.T) {
		j3 := e.judge(t, mod, func(c *Config) { c.EmbeddingModel = "text-embedding-3-large" })
		if _, err := j3.Embed(context.Background(), []string{"cache me"}); err != nil {
			t.Fatal(err)
		}
		if n := len(e.srv.Requests()) - 1; n != 1 {
			t.Errorf("%d requests, want 1", n)
		}
	})
}

func TestEmbedFaults(t *testing.T) {
	t.Run("5xx retried", func(t *testing.T) {
		e := newEnv(t, nil)
		e.srv.Inject(openaitest.HTMLError(502).ForEmbeddings())
		if _, err := e.j.Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
		if n := e.srv.EmbeddingCalls(); n != 1 || len(e.srv.Requests()) != 2 {
			t.Errorf("calls %d requests %d", n, len(e.srv.Requests()))
		}
	})
	t.Run("truncated retried", func(t *testing.T) {
		e := newEnv(t, nil)
		e.srv.Inject(openaitest.Truncated().ForEmbeddings())
		if _, err := e.j.Embed(context.Background(), []string{"x"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("no embedding model is fatal", func(t *testing.T) {
		e := newEnv(t, nil, func(c *Config) { c.EmbeddingModel = "" })
		_, err := e.j.Embed(context.Background(), []string{"x"})
		wantFatal(t, err, "embedding model")
	})
}
