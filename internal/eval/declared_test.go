package eval

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// recorder is a recording judge: it answers through the estimating judge,
// checks every answer with judge.Validate, and counts the calls per step
// and the texts embedded that reach it.
type recorder struct {
	t     *testing.T
	est   *estimator
	mu    sync.Mutex
	calls map[metrics.Step]int
	texts int
}

func newRecorder(t *testing.T) *recorder {
	return &recorder{t: t, est: newEstimator(), calls: map[metrics.Step]int{}}
}

func (r *recorder) Ask(ctx context.Context, req judge.Request) (judge.Answer, error) {
	a, err := r.est.Ask(ctx, req)
	if err == nil {
		if verr := judge.Validate(req, a); verr != nil {
			r.t.Errorf("the estimating judge's %s answer is invalid: %v", req.Step, verr)
		}
	}
	r.mu.Lock()
	r.calls[req.Step]++
	r.mu.Unlock()
	return a, err
}

func (r *recorder) Embed(ctx context.Context, texts []string) (judge.Embedding, error) {
	r.mu.Lock()
	r.calls[metrics.StepEmbed]++
	r.texts += len(texts)
	r.mu.Unlock()
	return r.est.Embed(ctx, texts)
}

// declSample has every field, n retrieved contexts and a response and a
// reference of several sentences each, distinct from one another.
func declSample(n int) metrics.Sample {
	var s metrics.Sample
	s.ID = fmt.Sprintf("n%d", n)
	s.Set(metrics.UserInput, "When was the bridge opened?")
	s.Set(metrics.Response, "The bridge opened in 1932. It is painted red.")
	s.Set(metrics.Reference, "It opened in 1932. It spans 503 metres.")
	ctxs := make([]string, n)
	ids := make([]string, n)
	for i := range ctxs {
		ctxs[i] = fmt.Sprintf("Context %d: the bridge opened in 1932.", i+1)
		ids[i] = fmt.Sprintf("doc-%d", i+1)
	}
	s.SetList(metrics.RetrievedContexts, ctxs)
	s.SetList(metrics.RetrievedContextIDs, ids)
	s.SetList(metrics.ReferenceContexts, ctxs[:1])
	s.SetList(metrics.ReferenceContextIDs, ids[:1])
	s.Metadata = map[string]string{"section": "3.2", "latency_ms": "120"}
	return s
}

// userKinds are one user-defined metric of each kind.
func userKinds() []metrics.Metric {
	defs := []metrics.Definition{
		{Name: "cites_section", Kind: metrics.KindCritic, Reads: []string{"response", "section"}, Definition: "The response cites the section.", Votes: 3},
		{Name: "tone", Kind: metrics.KindRubric, Reads: []string{"response"}, Definition: "Tone.",
			Rubric: []metrics.RubricLevel{{Score: 1, Description: "rude"}, {Score: 2, Description: "neutral"}, {Score: 3, Description: "kind"}}},
		{Name: "latency", Kind: metrics.KindNumeric, Reads: []string{"latency_ms"}, Direction: metrics.LowerIsBetter},
	}
	out := make([]metrics.Metric, len(defs))
	for i := range defs {
		out[i] = defs[i].Metric()
	}
	return out
}

// TestDeclaredStepsAreAsked runs every built-in metric and every kind of
// user-defined metric alone through Run with a recording judge, on samples
// with 1 and 3 retrieved contexts: the steps the metric's declaration
// lists are exactly the steps Run asks, each as many times per sample as
// declared, and the texts declared to be embedded ahead are.
func TestDeclaredStepsAreAsked(t *testing.T) {
	for _, m := range append(metrics.Catalogue(), userKinds()...) {
		t.Run(m.Name, func(t *testing.T) {
			for _, n := range []int{1, 3} {
				rec := newRecorder(t)
				res, err := Run(context.Background(), judge.Memo(rec), []metrics.Sample{declSample(n)}, Options{Metrics: []metrics.Metric{m}})
				if err != nil {
					t.Fatal(err)
				}
				if reason, ok := res.Samples[0].Undefined[m.Name]; ok {
					t.Fatalf("undefined: %s", reason)
				}
				asked := slices.Sorted(maps.Keys(rec.calls))
				declared := slices.Clone(m.Steps)
				slices.Sort(declared)
				if !slices.Equal(asked, slices.Compact(declared)) {
					t.Errorf("%d contexts: declared steps %v, Run asked %v", n, declared, asked)
				}
				for _, a := range m.Asks {
					if a.Step == metrics.StepEmbed {
						if len(a.Embeds) == 0 {
							t.Errorf("the embed step declares no fields to embed ahead")
						}
						continue
					}
					if got, want := rec.calls[a.Step], a.CallsFor(n); got != want {
						t.Errorf("%d contexts: %d %s calls, declared %d", n, got, a.Step, want)
					}
				}
			}
		})
	}
}

// TestPrefetchEmbedsDeclaredFields: the texts the embed step declares are
// embedded ahead, in the prefetch batch, before any sample asks for them.
func TestPrefetchEmbedsDeclaredFields(t *testing.T) {
	s := declSample(2)
	for _, m := range metrics.Catalogue() {
		var want []string
		for _, a := range m.Asks {
			for _, f := range a.Embeds {
				want = append(want, s.String(f))
			}
		}
		if len(want) == 0 {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			rec := newRecorder(t)
			n, sample := source([]metrics.Sample{s}, nil)
			p := newPrefetcher(context.Background(), rec, n, sample, []metrics.Metric{m}, &inOrder{n: 1})
			p.ahead(0)
			p.wait()
			if rec.texts != len(want) {
				t.Errorf("prefetched %d texts, want %d (%q)", rec.texts, len(want), want)
			}
		})
	}
}

// Every metric of the catalogue has a computation, and every computation a
// catalogue entry.
func TestEveryMetricIsComputed(t *testing.T) {
	names := metrics.Names()
	if got := slices.Sorted(maps.Keys(computers)); !slices.Equal(got, names) {
		t.Errorf("computed %v, catalogue %v", got, names)
	}
}
