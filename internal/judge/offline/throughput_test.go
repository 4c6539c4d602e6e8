package offline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// amnestySamples loads the 20 amnesty_qa rows (goldenPath) as the gate
// does: real long responses, references and three contexts each.
func amnestySamples(tb testing.TB) []metrics.Sample {
	tb.Helper()
	ds, err := dataset.Load(goldenPath, dataset.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return ds.Samples
}

// judgeSuite judges samples with the offline default suite through
// eval.Run and a memo, as `gate run --judge offline` does.
func judgeSuite(tb testing.TB, j judge.Judge, samples []metrics.Sample) *eval.Result {
	tb.Helper()
	ms := DefaultSuite(metrics.FieldsOf(samples).Has)
	res, err := eval.Run(context.Background(), judge.Memo(j), samples, eval.Options{Metrics: ms, Decline: Declines})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// BenchmarkSuiteAmnesty is the offline judge's throughput: the default
// suite over the 20 amnesty_qa rows per op, 16 samples in flight (the
// gate's default), reported as samples/s, and the CPU time a sample takes
// (cpu-ms/sample: steadier than the wall time on a shared machine; the
// samples/s of n free cores is n x 1000 / cpu-ms/sample). Each op has a
// new judge, so nothing one op analysed is reused by the next (a dataset
// of distinct rows). bench/offline.sh runs it.
func BenchmarkSuiteAmnesty(b *testing.B) {
	samples := amnestySamples(b)
	b.ReportAllocs()
	cpu0, ok := cpuTime()
	for b.Loop() {
		judgeSuite(b, New(Options{}), slices.Clone(samples))
	}
	n := float64(len(samples) * b.N)
	b.ReportMetric(n/b.Elapsed().Seconds(), "samples/s")
	if cpu1, ok1 := cpuTime(); ok && ok1 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/n, "cpu-ms/sample")
	}
}

var updateAnswers = flag.Bool("update-answers", false, "rewrite testdata/amnesty_answers.golden")

// recorder records every answer the judge gives, by request.
type recorder struct {
	j  *Judge
	mu sync.Mutex
	// answers maps "step count input-JSON" to the answer's JSON.
	answers map[string]string
}

func (r *recorder) Ask(ctx context.Context, req judge.Request) (judge.Answer, error) {
	a, err := r.j.Ask(ctx, req)
	r.record("ask "+string(req.Step)+" "+fmt.Sprint(req.Count()), req.Input, a, err)
	return a, err
}

func (r *recorder) Embed(ctx context.Context, texts []string) (judge.Embedding, error) {
	e, err := r.j.Embed(ctx, texts)
	// One entry per text, so that how texts are batched does not matter.
	for i, t := range texts {
		var v any
		if err == nil {
			v = e.Vectors[i]
		}
		r.record("embed", t, v, err)
	}
	return e, err
}

func (r *recorder) record(kind string, in, out any, err error) {
	inJSON, _ := json.Marshal(in)
	outJSON, _ := json.Marshal(out)
	if err != nil {
		outJSON = []byte("error: " + err.Error())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers[kind+" "+string(inJSON)] = string(outJSON)
}

// TestAmnestyAnswersUnchanged pins every answer the offline judge gives
// while judging the 20 amnesty_qa rows with its default suite (statements,
// verdicts with their reasons, claims, usefulness, questions, embedding
// vectors to the last bit) and every score: a change of speed must not
// change one of them. The golden file holds one digest per step kind and
// the scores; regenerate it with -update-answers only when the heuristics
// change on purpose (and bump HeuristicVersion).
func TestAmnestyAnswersUnchanged(t *testing.T) {
	rec := &recorder{j: New(Options{}), answers: map[string]string{}}
	// The default suite and the metrics declined on human labels, whose
	// steps (claims, verify_pair, embed) the judge still answers.
	samples := amnestySamples(t)
	ms := DefaultSuite(metrics.FieldsOf(samples).Has)
	for _, name := range []string{metrics.FactualCorrectnessName, metrics.NoiseSensitivityIrrelevantName, metrics.SemanticSimilarityName} {
		m, _ := metrics.Lookup(name)
		ms = append(ms, m)
	}
	res, err := eval.Run(context.Background(), judge.Memo(rec), samples, eval.Options{Metrics: ms})
	if err != nil {
		t.Fatal(err)
	}

	var got strings.Builder
	counts := map[string]int{}
	hashes := map[string]hash.Hash{}
	for _, k := range slices.Sorted(maps.Keys(rec.answers)) {
		kind := "embed"
		if f := strings.Fields(k); f[0] == "ask" {
			kind = f[1]
		}
		if hashes[kind] == nil {
			hashes[kind] = sha256.New()
		}
		fmt.Fprintf(hashes[kind], "%s\n%s\n", k, rec.answers[k])
		counts[kind]++
	}
	for _, kind := range slices.Sorted(maps.Keys(hashes)) {
		fmt.Fprintf(&got, "%s: %d answers, sha256 %s\n", kind, counts[kind], hex.EncodeToString(hashes[kind].Sum(nil)))
	}
	for _, s := range res.Samples {
		fmt.Fprintf(&got, "%s", s.Question[:min(40, len(s.Question))])
		for _, m := range res.Metrics {
			v := s.Scores[m]
			if math.IsNaN(v) {
				fmt.Fprintf(&got, " %s=NaN", m)
				continue
			}
			fmt.Fprintf(&got, " %s=%v", m, v)
		}
		got.WriteString("\n")
	}

	const path = "testdata/amnesty_answers.golden"
	if *updateAnswers {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("the offline judge's answers or scores on amnesty_qa changed:\n got:\n%s\nwant:\n%s", got.String(), want)
	}
}
