package judge_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
)

// recorder is an EmbedFunc that embeds a text as [len(text)] and records
// its calls. Texts containing "LONG" fail as undefined.
type recorder struct {
	mu    sync.Mutex
	calls [][]string
	fail  error
}

func (r *recorder) embed(ctx context.Context, texts []string) (judge.Embedding, error) {
	r.mu.Lock()
	r.calls = append(r.calls, append([]string(nil), texts...))
	fail := r.fail
	r.mu.Unlock()
	if fail != nil {
		return judge.Embedding{}, fail
	}
	e := judge.Embedding{Usage: judge.Usage{EmbeddingCalls: 1, EmbeddingTokens: 10 * len(texts)}}
	for _, t := range texts {
		if strings.Contains(t, "LONG") {
			return judge.Embedding{Usage: judge.Usage{EmbeddingCalls: 1}}, judge.Undefinedf("too long")
		}
		e.Vectors = append(e.Vectors, []float64{float64(len(t))})
	}
	return e, nil
}

func (r *recorder) Calls() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// embedAll runs one Embed per caller concurrently.
func embedAll(b *judge.Batcher, callers [][]string) ([]judge.Embedding, []error) {
	embs := make([]judge.Embedding, len(callers))
	errs := make([]error, len(callers))
	var wg sync.WaitGroup
	for i, texts := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			embs[i], errs[i] = b.Embed(context.Background(), texts)
		}()
	}
	wg.Wait()
	return embs, errs
}

func TestBatcherMergesCallers(t *testing.T) {
	r := &recorder{}
	// The window is an hour: only the size triggers the flush.
	b := judge.NewBatcher(r.embed, judge.BatchOptions{Window: time.Hour, MaxTexts: 4})
	callers := [][]string{{"a", "bb"}, {"ccc", "a"}, {"dddd"}}
	embs, errs := embedAll(b, callers)
	for i, texts := range callers {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		for k, text := range texts {
			if embs[i].Vectors[k][0] != float64(len(text)) {
				t.Errorf("caller %d text %q got vector %v", i, text, embs[i].Vectors[k])
			}
		}
	}
	calls := r.Calls()
	if len(calls) != 1 || len(calls[0]) != 4 {
		t.Fatalf("calls = %q, want one call with the 4 distinct texts", calls)
	}
	var total judge.Usage
	for _, e := range embs {
		total = total.Add(e.Usage)
	}
	if total.EmbeddingCalls != 1 || total.EmbeddingTokens != 40 {
		t.Errorf("usage split = %+v, want 1 call and 40 tokens in total", total)
	}
}

func TestBatcherWindow(t *testing.T) {
	r := &recorder{}
	b := judge.NewBatcher(r.embed, judge.BatchOptions{Window: time.Millisecond, MaxTexts: 100})
	e, err := b.Embed(context.Background(), []string{"alone"})
	if err != nil || e.Vectors[0][0] != 5 {
		t.Fatalf("%v %v", e, err)
	}
}

func TestBatcherLargeRequestChunked(t *testing.T) {
	r := &recorder{}
	b := judge.NewBatcher(r.embed, judge.BatchOptions{Window: time.Millisecond, MaxTexts: 3})
	texts := []string{"1", "22", "333", "4444", "55555", "666666", "7"}
	e, err := b.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range e.Vectors {
		if v[0] != float64(len(texts[i])) {
			t.Errorf("vector %d = %v", i, v)
		}
	}
	// 7 texts in batches of 3: two full batches, and the last text joins
	// the open batch (sent at the end of the window).
	if n := len(r.Calls()); n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
}

func TestBatcherBisectsUndefined(t *testing.T) {
	r := &recorder{}
	b := judge.NewBatcher(r.embed, judge.BatchOptions{Window: time.Hour, MaxTexts: 4})
	callers := [][]string{{"ok1", "ok2"}, {"LONG text"}, {"ok3"}}
	embs, errs := embedAll(b, callers)
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("callers without the long text failed: %v %v", errs[0], errs[2])
	}
	var u *judge.Undefined
	if !errors.As(errs[1], &u) {
		t.Errorf("caller with the long text: %v, want undefined", errs[1])
	}
	if embs[2].Vectors == nil || embs[2].Vectors[0][0] != 3 {
		t.Errorf("caller 3 vectors %v", embs[2].Vectors)
	}
}

func TestBatcherFatalGoesToEveryone(t *testing.T) {
	r := &recorder{fail: &judge.Fatal{Err: fmt.Errorf("bad key")}}
	b := judge.NewBatcher(r.embed, judge.BatchOptions{Window: time.Hour, MaxTexts: 2})
	_, errs := embedAll(b, [][]string{{"a"}, {"b"}})
	for _, err := range errs {
		if !judge.IsFatal(err) {
			t.Errorf("err = %v, want fatal", err)
		}
	}
	if n := len(r.Calls()); n != 1 {
		t.Errorf("%d calls, want 1 (no bisection of fatal errors)", n)
	}
}

func TestBatcherCancelledCaller(t *testing.T) {
	started := make(chan struct{})
	var batchCtx context.Context
	fn := func(ctx context.Context, texts []string) (judge.Embedding, error) {
		batchCtx = ctx
		close(started)
		<-ctx.Done()
		return judge.Embedding{}, ctx.Err()
	}
	b := judge.NewBatcher(fn, judge.BatchOptions{Window: time.Hour, MaxTexts: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := b.Embed(ctx, []string{"x"}); done <- err }()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	// The batch's own call is cancelled once nobody waits for it.
	<-batchCtx.Done()
}
