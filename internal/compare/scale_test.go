package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// scaleMetrics are the 11 metrics of the comparison at scale, by the kind of
// score they produce: fractions of a few judge verdicts, continuous
// similarities, and pass/fail.
var scaleMetrics = []struct {
	name string
	kind int // 0 fraction, 1 continuous, 2 binary
}{
	{"context_precision", 0}, {"context_recall", 0}, {"faithfulness", 0}, {"answer_relevancy", 1},
	{"factual_correctness", 0}, {"noise_sensitivity_relevant", 0}, {"semantic_similarity", 1},
	{"id_context_recall", 0}, {"string_similarity", 1}, {"exact_match", 2}, {"string_presence", 2},
}

// scaleFiles builds base and head results of n samples scored on the 11
// scaleMetrics, as a large golden set judged twice: per sample and metric a
// true quality q ~ U(0.5, 1); a fraction is k ~ U{3..6} verdicts of
// probability q, re-judged on head for 3 samples in 10 (the others hit the
// judge cache and keep their score); a continuous score is q plus noise,
// moved by N(0, 0.03) on half the head samples; a pass/fail score flips on
// head with probability 0.05. head loses drop of quality. About 1% of the
// scores are undefined on each side.
func scaleFiles(n int, seed uint64, drop float64) (base, head *results.File) {
	rng := rand.New(rand.NewPCG(seed, 24))
	bs, hs := make([]results.Sample, n), make([]results.Sample, n)
	clamp := func(x float64) float64 { return math.Max(0, math.Min(1, x)) }
	for i := range n {
		id := fmt.Sprintf("s-%06d", i)
		bs[i] = results.Sample{ID: id, Scores: make(map[string]results.Score, len(scaleMetrics))}
		hs[i] = results.Sample{ID: id, Scores: make(map[string]results.Score, len(scaleMetrics))}
		for _, m := range scaleMetrics {
			q := 0.5 + 0.5*rng.Float64()
			var b, h float64
			switch m.kind {
			case 0:
				k := 3 + rng.IntN(4)
				b = judgeScore(rng, k, q)
				h = b
				if rng.Float64() < 0.3 || drop > 0 && rng.Float64() < 0.5 {
					h = judgeScore(rng, k, q-drop)
				}
			case 1:
				b = clamp(q + 0.05*rng.NormFloat64())
				h = b
				if rng.IntN(2) == 0 {
					h = clamp(b - drop + 0.03*rng.NormFloat64())
				}
			default:
				if rng.Float64() < q {
					b = 1
				}
				h = b
				if rng.Float64() < 0.05+drop {
					h = 1 - b
				}
			}
			if rng.Float64() < 0.01 {
				b = math.NaN()
			}
			if rng.Float64() < 0.01 {
				h = math.NaN()
			}
			bs[i].Scores[m.name], hs[i].Scores[m.name] = results.Score(b), results.Score(h)
		}
	}
	return file(bs...), file(hs...)
}

// BenchmarkCompare40k compares two results files of 40,000 paired samples
// and 11 metrics with the default settings (bench/compare.sh times the
// whole `gate compare` on the same data).
func BenchmarkCompare40k(b *testing.B) { benchCompare(b, 0) }

// BenchmarkCompare40kDrop is BenchmarkCompare40k with head 0.01 worse,
// which about doubles the non-zero differences.
func BenchmarkCompare40kDrop(b *testing.B) { benchCompare(b, 0.01) }

func benchCompare(b *testing.B, drop float64) {
	base, head := scaleFiles(40000, 1, drop)
	th := DefaultThresholds()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		Compare(base, head, th)
	}
}

// TestWriteScaleFiles writes the files of BenchmarkCompare40k for
// bench/compare.sh when RAGGATE_SCALE_DIR is set: base.json and head.json
// of RAGGATE_SCALE_N samples (default 40,000).
func TestWriteScaleFiles(t *testing.T) {
	dir := os.Getenv("RAGGATE_SCALE_DIR")
	if dir == "" {
		t.Skip("RAGGATE_SCALE_DIR not set")
	}
	n := 40000
	if s := os.Getenv("RAGGATE_SCALE_N"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatalf("RAGGATE_SCALE_N: %v", err)
		}
	}
	base, head := scaleFiles(n, 1, 0)
	for name, f := range map[string]*results.File{"base.json": base, "head.json": head} {
		if err := results.Write(filepath.Join(dir, name), f); err != nil {
			t.Fatal(err)
		}
	}
}
