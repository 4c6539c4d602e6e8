package compare

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestSignFlipTestExact(t *testing.T) {
	tests := []struct {
		name            string
		d               []float64
		worse, better   float64
		nonZero         int
		wantExactResult bool
	}{
		{
			// a = |d| = [0.1, 0.2, 0.05]; observed sum S = 0.25.
			// The 8 sign patterns and their sums:
			//   + + + :  0.35
			//   + + - :  0.25  (observed)
			//   + - + : -0.05
			//   + - - : -0.15
			//   - + + :  0.15
			//   - + - :  0.05
			//   - - + : -0.25
			//   - - - : -0.35
			// sums <= 0.25: 7 -> p(worse) = 7/8; sums >= 0.25: 2 -> p(better) = 2/8.
			name: "three differences", d: []float64{0.1, 0.2, -0.05},
			worse: 7.0 / 8, better: 2.0 / 8, nonZero: 3, wantExactResult: true,
		},
		{
			// Every difference negative: only the observed pattern is as low.
			name: "all worse", d: []float64{-0.1, -0.2, -0.3, -0.4},
			worse: 1.0 / 16, better: 1, nonZero: 4, wantExactResult: true,
		},
		{
			// Zeros carry no information: 2 non-zero differences, 4 patterns.
			name: "zeros ignored", d: []float64{0, 0, -0.1, -0.2, 0},
			worse: 1.0 / 4, better: 1, nonZero: 2, wantExactResult: true,
		},
		{
			// Patterns: ++ 0.2, +- 0 (observed), -+ 0, -- -0.2. Ties count.
			name: "ties", d: []float64{0.1, -0.1},
			worse: 3.0 / 4, better: 3.0 / 4, nonZero: 2, wantExactResult: true,
		},
		{
			name: "no differences", d: []float64{0, 0, 0},
			worse: 1, better: 1, nonZero: 0, wantExactResult: true,
		},
		{
			name: "NaN ignored", d: []float64{math.NaN(), 0.3},
			worse: 1, better: 0.5, nonZero: 1, wantExactResult: true,
		},
		{
			// 20 equal negative differences: p = 2^-20 exactly.
			name: "twenty worse", d: repeat(-0.05, 20),
			worse: math.Ldexp(1, -20), better: 1, nonZero: 20, wantExactResult: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SignFlipTest(tt.d, 0, 1)
			if got.Exact != tt.wantExactResult || got.NonZero != tt.nonZero {
				t.Fatalf("Exact=%v NonZero=%d, want %v %d", got.Exact, got.NonZero, tt.wantExactResult, tt.nonZero)
			}
			if math.Abs(got.PWorse-tt.worse) > 1e-15 || math.Abs(got.PBetter-tt.better) > 1e-15 {
				t.Errorf("p(worse)=%v p(better)=%v, want %v %v", got.PWorse, got.PBetter, tt.worse, tt.better)
			}
		})
	}
}

// bruteForce counts the sign patterns directly.
func bruteForce(d []float64) (worse, better float64) {
	var obs float64
	for _, x := range d {
		obs += x
	}
	n := len(d)
	le, ge := 0, 0
	for m := 0; m < 1<<n; m++ {
		var s float64
		for i, x := range d {
			if m&(1<<i) != 0 {
				s += math.Abs(x)
			} else {
				s -= math.Abs(x)
			}
		}
		if s <= obs+1e-9 {
			le++
		}
		if s >= obs-1e-9 {
			ge++
		}
	}
	return float64(le) / float64(int(1)<<n), float64(ge) / float64(int(1)<<n)
}

func TestSignFlipTestMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 1; n <= 14; n++ {
		d := make([]float64, n)
		for i := range d {
			// Scores on a grid of 1/6ths, as judges produce: many ties.
			d[i] = float64(rng.IntN(7)-3) / 6
			if d[i] == 0 {
				d[i] = 1.0 / 6
			}
		}
		w, b := bruteForce(d)
		got := SignFlipTest(d, 0, 1)
		if math.Abs(got.PWorse-w) > 1e-12 || math.Abs(got.PBetter-b) > 1e-12 {
			t.Errorf("n=%d d=%v: got %v %v, brute force %v %v", n, d, got.PWorse, got.PBetter, w, b)
		}
	}
}

func TestSignFlipTestMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, 22)
	for i := range d {
		d[i] = rng.NormFloat64()*0.2 - 0.05
	}
	got := SignFlipTest(d, 0, 42)
	if got.Exact || got.Draws != 20000 || got.NonZero != 22 {
		t.Fatalf("got Exact=%v Draws=%d NonZero=%d, want Monte Carlo with 20000 draws", got.Exact, got.Draws, got.NonZero)
	}
	again := SignFlipTest(d, 0, 42)
	if got != again {
		t.Errorf("same seed, different result: %+v vs %+v", got, again)
	}
	// The exact answer for 22 differences, by the meet-in-the-middle counter.
	var obs, total float64
	a := make([]float64, len(d))
	for i, x := range d {
		a[i] = math.Abs(x)
		total += a[i]
		if x > 0 {
			obs += x
		}
	}
	le, ge := exactCounts(a, obs, 1e-9*total)
	ew, eb := float64(le)/math.Ldexp(1, 22), float64(ge)/math.Ldexp(1, 22)
	for _, c := range []struct{ mc, exact float64 }{{got.PWorse, ew}, {got.PBetter, eb}} {
		se := math.Sqrt(c.exact*(1-c.exact)/20000) + 1e-4
		if math.Abs(c.mc-c.exact) > 4*se {
			t.Errorf("Monte Carlo p %v vs exact %v: more than 4 standard errors apart", c.mc, c.exact)
		}
	}
	// (k+1)/(B+1): never zero.
	all := repeat(-0.1, 40)
	p := SignFlipTest(all, 999, 3)
	if want := 1.0 / 1000; p.PWorse != want {
		t.Errorf("all-negative Monte Carlo p(worse) = %v, want (0+1)/(999+1) = %v", p.PWorse, want)
	}
}

func TestHolmAdjust(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		// Sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> max(0.06, 0.04) = 0.06.
		{"textbook", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.03, 0.06, 0.06, 0.02}},
		// 0.5*2 = 1, then 0.6 is raised to the running maximum 1.
		{"capped and monotone", []float64{0.5, 0.6}, []float64{1, 1}},
		{"single", []float64{0.03}, []float64{0.03}},
		{"NaN left out of the family", []float64{0.01, nan, 0.02}, []float64{0.02, nan, 0.02}},
		{"empty", nil, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HolmAdjust(tt.p)
			if len(got) != len(tt.want) {
				t.Fatalf("len %d, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if math.IsNaN(tt.want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(got[i]) && math.Abs(got[i]-tt.want[i]) > 1e-15) {
					t.Errorf("got %v, want %v", got, tt.want)
					break
				}
			}
		})
	}
}

func TestNormalQuantile(t *testing.T) {
	tests := []struct{ p, want float64 }{
		{0.5, 0},
		{0.975, 1.9599639845400536},
		{0.025, -1.9599639845400538},
		{0.95, 1.6448536269514715},
		{0.8, 0.8416212335729144},
		{0.999, 3.090232306167813},
		{0.02425, -1.9729610513118845}, // the region boundary of the approximation
		{1e-10, -6.361340902404056},
		{0.9999999, 5.199337582290662},
	}
	for _, tt := range tests {
		got := NormalQuantile(tt.p)
		if math.Abs(got-tt.want) > 1e-9*math.Max(1, math.Abs(tt.want)) {
			t.Errorf("NormalQuantile(%v) = %.16g, want %.16g", tt.p, got, tt.want)
		}
	}
	if !math.IsInf(NormalQuantile(0), -1) || !math.IsInf(NormalQuantile(1), 1) {
		t.Error("NormalQuantile(0) and (1) must be -Inf and +Inf")
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(NormalQuantile(p)) {
			t.Errorf("NormalQuantile(%v) must be NaN", p)
		}
	}
}

func TestMinDetectableEffect(t *testing.T) {
	tests := []struct {
		name        string
		sd          float64
		n           int
		alpha, pow  float64
		want        float64
		wantUndef   bool
		wantHalving bool
	}{
		// (1.6448536269514715 + 0.8416212335729144) * 0.15 / sqrt(50)
		{name: "sd 0.15 n 50", sd: 0.15, n: 50, alpha: 0.05, pow: 0.8, want: 2.486474860524386 * 0.15 / math.Sqrt(50)},
		// (1.9599639845400536 + 0.8416212335729144) * 0.3 / 10
		{name: "alpha 0.025", sd: 0.3, n: 100, alpha: 0.025, pow: 0.8, want: 2.801585218112968 * 0.3 / 10},
		{name: "no noise", sd: 0, n: 30, alpha: 0.05, pow: 0.8, want: 0},
		{name: "no samples", sd: 0.1, n: 0, alpha: 0.05, pow: 0.8, wantUndef: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MinDetectableEffect(tt.sd, tt.n, tt.alpha, tt.pow)
			if tt.wantUndef {
				if !math.IsNaN(got) {
					t.Errorf("got %v, want NaN", got)
				}
				return
			}
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("got %.15g, want %.15g", got, tt.want)
			}
		})
	}
	// Four times the samples, half the MDE.
	if a, b := MinDetectableEffect(0.2, 25, 0.05, 0.8), MinDetectableEffect(0.2, 100, 0.05, 0.8); math.Abs(a-2*b) > 1e-12 {
		t.Errorf("MDE(n=25)=%v should be twice MDE(n=100)=%v", a, b)
	}
}

func TestBootstrapMeanCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	d := make([]float64, 60)
	for i := range d {
		d[i] = rng.NormFloat64()*0.2 - 0.03
	}
	m := mean(d)
	seed := seedOf("bootstrap:test", d)
	lo, hi := BootstrapMeanCI(d, 0.95, 0, seed)
	lo2, hi2 := BootstrapMeanCI(d, 0.95, 0, seedOf("bootstrap:test", d))
	if lo != lo2 || hi != hi2 {
		t.Fatalf("not reproducible: [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
	}
	if !(lo < m && m < hi) {
		t.Errorf("CI [%v, %v] does not contain the mean %v", lo, hi, m)
	}
	// Close to the normal interval mean +- 1.96 sd/sqrt(n).
	want := 2 * 1.96 * stddev(d) / math.Sqrt(float64(len(d)))
	if w := hi - lo; math.Abs(w-want) > 0.15*want {
		t.Errorf("CI width %v, normal approximation %v", w, want)
	}
	if l, h := BootstrapMeanCI(nil, 0.95, 100, 1); !math.IsNaN(l) || !math.IsNaN(h) {
		t.Errorf("empty: got [%v, %v], want NaN", l, h)
	}
	if l, h := BootstrapMeanCI([]float64{0.3}, 0.95, 100, 1); l != 0.3 || h != 0.3 {
		t.Errorf("one value: got [%v, %v], want [0.3, 0.3]", l, h)
	}
	if l, h := BootstrapMeanCI([]float64{0, 0, 0}, 0.95, 100, 1); l != 0 || h != 0 {
		t.Errorf("all zero: got [%v, %v], want [0, 0]", l, h)
	}
}

func TestQuantileSorted(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct{ q, want float64 }{{0, 1}, {0.5, 3}, {0.1, 1.4}, {0.9, 4.6}, {1, 5}} {
		if got := quantileSorted(xs, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

func repeat(x float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x
	}
	return out
}

func TestBinomialUpperHalf(t *testing.T) {
	tests := []struct {
		k, n int
		want float64
	}{
		{0, 5, 1},
		{8, 8, 1.0 / 256},
		{7, 8, 9.0 / 256},
		{5, 10, 638.0 / 1024},
		{11, 10, 0},
		{3, 0, 0},
		{60, 100, 0.028443966820490395},
	}
	for _, tt := range tests {
		if got := BinomialUpperHalf(tt.k, tt.n); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("BinomialUpperHalf(%d, %d) = %v, want %v", tt.k, tt.n, got, tt.want)
		}
	}
}
