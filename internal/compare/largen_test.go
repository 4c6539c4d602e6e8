package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The evidence for the large-n methods of largen.go: at the switch points
// they agree with the resampling methods they replace within the reported
// precision (intervals) and within the Monte Carlo error (p-values), on the
// kinds of differences real metrics produce, and the gate keeps its
// false-alarm rate and power at large n.

// largeDiffs are differences of the kinds real metrics produce, n of them.
var largeDiffs = []struct {
	name string
	gen  func(rng *rand.Rand, n int) []float64
}{
	{"judge fractions, 70% cached", func(rng *rand.Rand, n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			if rng.Float64() < 0.3 {
				q, k := 0.5+0.5*rng.Float64(), 3+rng.IntN(4)
				d[i] = judgeScore(rng, k, q-0.02) - judgeScore(rng, k, q)
			}
		}
		return d
	}},
	{"continuous, half moved", func(rng *rand.Rand, n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			if rng.IntN(2) == 0 {
				d[i] = -0.005 + 0.03*rng.NormFloat64()
			}
		}
		return d
	}},
	{"pass/fail, 5% flipped", func(rng *rand.Rand, n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			if u := rng.Float64(); u < 0.03 {
				d[i] = -1
			} else if u < 0.05 {
				d[i] = 1
			}
		}
		return d
	}},
	{"pass/fail, every one flipped", func(rng *rand.Rand, n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = 1
			if rng.Float64() < 0.52 {
				d[i] = -1
			}
		}
		return d
	}},
	{"sparse and one-sided, 1% lost 0.5", func(rng *rand.Rand, n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			if rng.Float64() < 0.01 {
				d[i] = -0.5
			}
		}
		return d
	}},
	{"skewed, 20% fell by Exp(0.1)", func(rng *rand.Rand, n int) []float64 {
		d := make([]float64, n)
		for i := range d {
			if rng.Float64() < 0.2 {
				d[i] = -math.Min(1, 0.1*rng.ExpFloat64())
			}
		}
		return d
	}},
}

// refBootstrap is the percentile bootstrap interval from many resamples,
// with a cheaper index draw than BootstrapMeanCI's (two 32-bit indices a
// random word, by multiply-shift): the reference for the limit.
func refBootstrap(xs []float64, level float64, resamples int, seed uint64) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	n := uint64(len(xs))
	means := make([]float64, resamples)
	for b := range means {
		var s float64
		for i := 0; i < len(xs); i += 2 {
			r := rng.Uint64()
			s += xs[(r&0xffffffff)*n>>32]
			if i+1 < len(xs) {
				s += xs[(r>>32)*n>>32]
			}
		}
		means[b] = s / float64(n)
	}
	slices.Sort(means)
	tail := (1 - level) / 2
	return quantileSorted(means, tail), quantileSorted(means, 1-tail)
}

// TestBootstrapLargeAgrees checks the Cornish-Fisher interval at the
// switch point (BootstrapLargeFrom differences, where its error is
// largest: the expansion's error falls as 1/n, and so does the spacing
// 2/n of the lattice the bootstrap means of pass/fail differences sit on)
// against a 50,000-resample percentile bootstrap (the limit it stands for,
// to about +-0.0002) and
// against the 10,000-resample bootstrap used below the switch: every
// endpoint within 0.0005 of the reference (plus the reference's own Monte
// Carlo error: where the means sit on a lattice of spacing 0.0005, as with
// pass/fail differences, any percentile is a lattice point and the smooth
// expansion falls between two), below the 3 decimals the report shows, and
// within 4 of the 10,000-resample method's own Monte Carlo errors of it.
func TestBootstrapLargeAgrees(t *testing.T) {
	skipEvidence(t)
	n := BootstrapLargeFrom
	rng := rand.New(rand.NewPCG(2026, 12))
	var worstRef, worst10k float64
	for _, c := range largeDiffs {
		d := c.gen(rng, n)
		lo, hi := BootstrapMeanCI(d, ciLevel, 0, 1)
		rlo, rhi := refBootstrap(d, ciLevel, 50000, 2)
		blo, bhi := bootstrapResampled(d, ciLevel, 10000, seedOf("bootstrap:x", d))
		// Monte Carlo standard error of a 2.5% quantile of 10,000
		// resamples: sqrt(q(1-q)/B) / density, with the normal density
		// at the quantile.
		se := math.Sqrt(0.025*0.975/10000) / (math.Exp(-1.96*1.96/2) / math.Sqrt(2*math.Pi)) * stddev(d) / math.Sqrt(float64(n))
		dRef := math.Max(math.Abs(lo-rlo), math.Abs(hi-rhi))
		d10k := math.Max(math.Abs(lo-blo), math.Abs(hi-bhi))
		worstRef, worst10k = math.Max(worstRef, dRef), math.Max(worst10k, d10k)
		t.Logf("n=%d %-36s Cornish-Fisher [%.5f, %.5f]  50k [%.5f, %.5f] (off %.5f)  10k [%.5f, %.5f] (off %.5f, its MC error %.5f)",
			n, c.name, lo, hi, rlo, rhi, dRef, blo, bhi, d10k, se)
		if lim := 0.0005 + 2*se/math.Sqrt(5); dRef > lim {
			t.Errorf("%s: Cornish-Fisher interval [%.5f, %.5f] is %.5f from the 50,000-resample [%.5f, %.5f] (limit 0.0005 and 2 of the reference's Monte Carlo errors: %.5f)", c.name, lo, hi, dRef, rlo, rhi, lim)
		}
		if d10k > math.Max(0.0005, 4*se) {
			t.Errorf("%s: Cornish-Fisher interval [%.5f, %.5f] is %.5f from the 10,000-resample [%.5f, %.5f], more than 4 Monte Carlo errors (%.5f)", c.name, lo, hi, d10k, blo, bhi, se)
		}
	}
	t.Logf("largest endpoint difference: %.5f from 50,000 resamples, %.5f from 10,000", worstRef, worst10k)
}

// TestBootstrapLargeBelowSwitchUnchanged checks that below the switch, or
// with fewer resamples than the default asked for, the interval is still
// the seeded resampling one, bit for bit.
func TestBootstrapLargeBelowSwitchUnchanged(t *testing.T) {
	d := largeDiffs[0].gen(rand.New(rand.NewPCG(3, 4)), BootstrapLargeFrom-1)
	lo, hi := BootstrapMeanCI(d, ciLevel, 0, 9)
	blo, bhi := bootstrapResampled(d, ciLevel, 10000, 9)
	if lo != blo || hi != bhi {
		t.Errorf("below the switch: [%v, %v], resampling gives [%v, %v]", lo, hi, blo, bhi)
	}
	if clo, chi := cornishFisherMeanCI([]float64{0.5, 0.5, 0.5}, ciLevel); clo != 0.5 || chi != 0.5 {
		t.Errorf("constant differences: [%v, %v], want [0.5, 0.5]", clo, chi)
	}
	// Fewer resamples than the default, asked for, are resampled at any n.
	d = largeDiffs[0].gen(rand.New(rand.NewPCG(3, 4)), BootstrapLargeFrom)
	lo, hi = BootstrapMeanCI(d, ciLevel, 200, 9)
	blo, bhi = bootstrapResampled(d, ciLevel, 200, 9)
	if lo != blo || hi != bhi {
		t.Errorf("200 resamples asked for: [%v, %v], resampling gives [%v, %v]", lo, hi, blo, bhi)
	}
}

// TestSignFlipLargeAgrees checks the grouped sign-flip test at and above
// the switch (SignFlipLargeFrom non-zero differences) against the
// pattern-by-pattern draws used below it, with 200,000 draws as the
// reference: on every kind of differences (all drawn as counts, all
// smooth, both, and too few distinct values to be smooth) and at p-values
// near 0.5, 0.02 and 0.001, every p-value within 4 Monte Carlo errors of
// the reference (those of the 20,000 default draws and of the reference's).
func TestSignFlipLargeAgrees(t *testing.T) {
	skipEvidence(t)
	fraction := func(rng *rand.Rand) float64 {
		for {
			q, k := 0.5+0.5*rng.Float64(), 3+rng.IntN(4)
			if x := math.Abs(judgeScore(rng, k, q) - judgeScore(rng, k, q)); x > 0 {
				return x
			}
		}
	}
	kinds := []struct {
		name string
		mag  func(rng *rand.Rand, i, m int) float64
	}{
		{"judge fractions (drawn as counts)", func(rng *rand.Rand, _, _ int) float64 { return fraction(rng) }},
		{"continuous (smooth, no draw)", func(rng *rand.Rand, _, _ int) float64 { return math.Abs(0.2 * rng.NormFloat64()) }},
		{"pass/fail (one count)", func(*rand.Rand, int, int) float64 { return 1 }},
		{"half fractions, half continuous (both)", func(rng *rand.Rand, i, _ int) float64 {
			if i%2 == 0 {
				return fraction(rng)
			}
			return 0.01 + 0.3*rng.ExpFloat64()
		}},
		{"15% continuous (too few to be smooth: drawn)", func(rng *rand.Rand, i, _ int) float64 {
			if i%7 == 0 {
				return rng.Float64()
			}
			return fraction(rng)
		}},
		{"skewed continuous", func(rng *rand.Rand, _, _ int) float64 { return math.Min(1, 0.05*rng.ExpFloat64()) }},
	}
	rng := rand.New(rand.NewPCG(2026, 13))
	worst := 0.0
	for _, m := range []int{SignFlipLargeFrom, 5000} {
		for _, k := range kinds {
			for _, zt := range []float64{0, 2, 3} {
				d := make([]float64, m)
				for i := range d {
					d[i] = k.mag(rng, i, m)
					if rng.Float64() < 0.5+zt/(2*math.Sqrt(float64(m))) {
						d[i] = -d[i]
					}
				}
				sf := SignFlipTest(d, 20000, 5)
				a, obs, eps := signFlipInputs(d)
				le, _ := drawCounts(a, obs, eps, 200000, 6)
				ref := float64(le+1) / 200001
				se := math.Sqrt(ref * (1 - ref) * (1.0/20000 + 1.0/200000))
				off := math.Abs(sf.PWorse - ref)
				worst = math.Max(worst, off/math.Max(se, 1e-9))
				t.Logf("m=%d %-46s p %.5f, reference %.5f: off %.5f (%.1f MC errors)", m, k.name, sf.PWorse, ref, off, off/math.Max(se, 1e-9))
				if off > 4*se+1e-4 {
					t.Errorf("m=%d %s: p %.5f, reference %.5f: off by %.5f, more than 4 Monte Carlo errors (%.5f)", m, k.name, sf.PWorse, ref, off, se)
				}
				if sf.Exact || sf.Draws != 20000 || sf.NonZero != m {
					t.Errorf("m=%d %s: %+v", m, k.name, sf)
				}
			}
		}
	}
	t.Logf("largest difference: %.1f Monte Carlo errors", worst)
}

// TestSignFlipLargeBelowSwitchUnchanged checks that below the switch the
// p-values are still the pattern-by-pattern draws, bit for bit, and that
// groupValues merges values equal but for floating-point noise.
func TestSignFlipLargeBelowSwitchUnchanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	d := make([]float64, SignFlipLargeFrom-1)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	sf := SignFlipTest(d, 20000, 11)
	a, obs, eps := signFlipInputs(d)
	le, ge := drawCounts(a, obs, eps, 20000, 11)
	if sf.PWorse != float64(le+1)/20001 || sf.PBetter != float64(ge+1)/20001 {
		t.Errorf("below the switch: %+v, draws give %v, %v", sf, float64(le+1)/20001, float64(ge+1)/20001)
	}
	groups, single := groupValues([]float64{2.0 / 3, 1 - 1.0/3, 0.25, 0.5, 0.5})
	if len(groups) != 2 || groups[0].c != 2 || groups[1].c != 2 || len(single) != 1 || single[0] != 0.25 {
		t.Errorf("groupValues: %v, %v; want 0.5 x2, 2/3 x2 and 0.25 alone", groups, single)
	}
}

// TestSimulationAALarge is TestSimulationAA at the size where the large-n
// methods take over (4,500 to 5,000 samples, 3 metrics re-judged
// independently on both sides, 12% undefined at random on each: about
// 2,400 to 2,700 non-zero differences a metric): an unchanged pipeline
// fails the gate at most at the rate alpha.
func TestSimulationAALarge(t *testing.T) {
	skipEvidence(t)
	const sims = 200
	names := []string{"context_recall", "faithfulness", "factual_correctness"}
	th := DefaultThresholds()
	alpha := th.Defaults.Alpha
	rng := rand.New(rand.NewPCG(20261202, 1))
	cfg := Config{Bootstrap: -1}
	gate, anyAdj, large, tests := 0, 0, 0, 0
	for range sims {
		b, h := simulate(rng, 4500+rng.IntN(501), names, 0)
		undefineAtRandom(rng, b, 0.12)
		undefineAtRandom(rng, h, 0.12)
		r := cfg.Compare(b, h, th)
		if !r.Passed {
			gate++
		}
		adj := false
		for _, m := range r.Metrics {
			adj = adj || m.PWorseAdj.Value() < alpha || m.PLostAdj.Value() < alpha
			tests++
			if m.Better+m.Worse >= SignFlipLargeFrom {
				large++
			}
		}
		if adj {
			anyAdj++
		}
	}
	rate := float64(gate) / sims
	margin := 3 * math.Sqrt(alpha*(1-alpha)/sims)
	t.Logf("A/A at 4,500-5,000 samples, %d simulations (%d of %d tests by the large-n method): false-failure rate %.4f, any adjusted p < alpha %.4f (limit %.4f)",
		sims, large, tests, rate, float64(anyAdj)/sims, alpha+margin)
	if large < tests/2 {
		t.Fatalf("only %d of %d tests used the large-n method: the fixture does not exercise it", large, tests)
	}
	if rate > alpha+margin || float64(anyAdj)/sims > alpha+margin {
		t.Errorf("false-failure rate %.4f (any adjusted p %.4f) exceeds alpha %.2f + margin %.4f", rate, float64(anyAdj)/sims, alpha, margin)
	}
}

// TestSimulationPowerLarge is TestSimulationPower at large n: a drop of
// 0.025 on 3,500 samples (about 2,450 non-zero differences), caught about
// as often as the oracle z-test on
// the same data catches it.
func TestSimulationPowerLarge(t *testing.T) {
	skipEvidence(t)
	const sims = 200
	th := DefaultThresholds()
	rng := rand.New(rand.NewPCG(20261202, 2))
	cfg := Config{Bootstrap: -1}
	zcrit := NormalQuantile(1 - th.Defaults.Alpha)
	caught, oracle, large := 0, 0, 0
	for range sims {
		b, h := simulate(rng, 3500, []string{"faithfulness"}, 0.025)
		r := cfg.Compare(b, h, th)
		m := r.Metrics[0]
		if m.Better+m.Worse >= SignFlipLargeFrom {
			large++
		}
		if !r.Passed && m.Change == VerdictRegression {
			caught++
		}
		if se := m.SD.Value() / math.Sqrt(float64(m.N)); m.Delta.Value() <= -th.Defaults.Tolerance && -m.Delta.Value()/se > zcrit {
			oracle++
		}
	}
	power, zpower := float64(caught)/sims, float64(oracle)/sims
	t.Logf("drop of 0.025 on 3,500 samples (%d of %d by the large-n method): power %.3f, z-test on the same data %.3f", large, sims, power, zpower)
	if large < sims/2 {
		t.Fatalf("only %d of %d tests used the large-n method", large, sims)
	}
	if power < zpower-0.03 {
		t.Errorf("power %.3f is more than 3 points below the z-test's %.3f", power, zpower)
	}
}

// skipEvidence skips the large statistical evidence tests under -short
// and under the race detector: they are single-goroutine numeric work
// that the race detector slows tenfold (3.5 minutes) without checking
// anything more; .ci/run runs them without -race.
func skipEvidence(t *testing.T) {
	t.Helper()
	if testing.Short() || raceEnabled {
		t.Skip("statistical evidence at large n: run without -short and -race (go test -run 'Large|Simulation' ./internal/compare)")
	}
}
