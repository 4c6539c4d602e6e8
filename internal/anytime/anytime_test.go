package anytime

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestSignEClosedForm checks the e-process against values worked by hand
// from sum_{j<=k} C(n+1, j) / ((n+1) C(n, k)) and against the integral it
// stands for.
func TestSignEClosedForm(t *testing.T) {
	cases := []struct {
		up, n int
		want  float64
	}{
		{0, 0, 1},              // nothing seen
		{1, 1, 1.5},            // (1 + 2) / (2 * 1)
		{0, 1, 0.5},            // 1 / (2 * 1)
		{1, 2, 4.0 / 6},        // (1 + 3) / (3 * 2)
		{2, 2, 7.0 / 3},        // (1 + 3 + 3) / (3 * 1)
		{5, 5, 63.0 / 6},       // (2^6 - 1) / 6
		{6, 6, 127.0 / 7},      // 18.1: not yet 20
		{7, 7, 255.0 / 8},      // 31.9: past 20
		{3, 4, 26.0 / 20},      // (1 + 5 + 10 + 10) / (5 * 4)
		{10, 20, 0.2702601836}, // sum_{j<=10} C(21, j) / (21 * C(20, 10)): 1048576 / (21 * 184756)
	}
	for _, c := range cases {
		var s SignE
		for i := range c.n {
			s.Add(i < c.up)
		}
		if got := s.E(); !near(got, c.want, 1e-9*c.want) {
			t.Errorf("E(%d up of %d) = %.10g, want %.10g", c.up, c.n, got, c.want)
		}
	}
	// The integral 2 int_{1/2}^1 p^k (1-p)^(n-k) dp * 2^n, by the midpoint
	// rule, for a case the table does not cover.
	k, n := 30, 45
	const steps = 200000
	var integral float64
	for i := range steps {
		p := 0.5 + (float64(i)+0.5)*0.5/steps
		integral += math.Exp(float64(k)*math.Log(p)+float64(n-k)*math.Log(1-p)+float64(n)*math.Ln2) * 0.5 / steps
	}
	var s SignE
	for i := range n {
		s.Add(i < k)
	}
	if got := s.E(); !near(got, 2*integral, 1e-6*got) {
		t.Errorf("E(30 up of 45) = %.8g, the integral gives %.8g", got, 2*integral)
	}
}

// TestSignEOrderAndMax: the value depends on the counts only, and MaxE and
// Rejects keep the largest value seen at a look.
func TestSignEOrderAndMax(t *testing.T) {
	var s SignE
	for range 7 {
		s.Add(true)
	}
	if !s.Rejects(0.05) {
		t.Fatalf("7 of 7 up: E = %.2f, want it past 20", s.E())
	}
	for range 20 {
		s.Add(false)
	}
	if e := s.E(); e >= 1 {
		t.Fatalf("7 up of 27: E = %.3f, want below 1", e)
	}
	if !s.Rejects(0.05) || s.MaxE() < 31.8 {
		t.Errorf("after the fall, MaxE = %.2f: the running maximum must keep 31.9", s.MaxE())
	}
	if up, n := s.Counts(); up != 7 || n != 27 {
		t.Errorf("Counts = %d, %d; want 7, 27", up, n)
	}
}

// TestSignEValid checks Ville's bound by Monte Carlo: fair events, a look
// after every 5, up to 400 events: the e-process reaches 1/alpha in at
// most alpha of the runs (plus 3 standard errors).
func TestSignEValid(t *testing.T) {
	const runs, events, alpha = 2000, 400, 0.05
	rng := rand.New(rand.NewPCG(25, 1))
	hits := 0
	for range runs {
		var s SignE
		for i := 1; i <= events; i++ {
			s.Add(rng.IntN(2) == 0)
			if i%5 == 0 && s.Rejects(alpha) {
				hits++
				break
			}
		}
	}
	rate := float64(hits) / runs
	limit := alpha + 3*math.Sqrt(alpha*(1-alpha)/runs)
	t.Logf("fair events, %d runs of %d, a look every 5: rejected in %.4f of runs (limit %.4f)", runs, events, rate, limit)
	if rate > limit {
		t.Errorf("false rejections %.4f exceed %.4f", rate, limit)
	}
}

// TestCSFirstBets checks the capital after the first two observations
// against the aGRAPA bets worked by hand.
//
// Range [0, 1], point 0.25, observations 1 and 1. First bet: estimates
// mean 1/2, variance 1/4; l = (0.5 - 0.25) / (0.25 + 0.0625) = 0.8 (cap
// 0.9 / 0.25 = 3.6), factor 1 + 0.8 * 0.75 = 1.6. Then mean (0.5 + 1)/2 =
// 0.75, variance (0.25 + 0.25^2)/2 = 0.15625; l = 0.5 / 0.40625 =
// 1.2307692, factor 1 + 1.2307692 * 0.75 = 1.9230769; capital 3.0769231.
// The betting on "below" never bets (the estimates stay above 0.25).
func TestCSFirstBets(t *testing.T) {
	cases := []struct {
		name      string
		lo, hi, p float64
		xs        []float64
		up, down  float64
	}{
		{"[0,1], point 0.25, x = 1", 0, 1, 0.25, []float64{1}, 1.6, 1},
		{"[0,1], point 0.25, x = 1, 1", 0, 1, 0.25, []float64{1, 1}, 1.6 * 1.9230769230769231, 1},
		{"[0,1], point 0.75, x = 0 (mirror image)", 0, 1, 0.75, []float64{0}, 1, 1.6},
		{"[-1,1], point -0.5, x = 1 (same in units of the range)", -1, 1, -0.5, []float64{1}, 1.6, 1},
		// Point 0.5: the first estimate is 1/2, no bet; after x = 1 the
		// mean is 0.75, variance 0.15625, l = 0.25 / 0.21875 = 8/7,
		// factor on x = 0: 1 + (8/7)(0 - 0.5) = 3/7.
		{"[0,1], point 0.5, x = 1, 0", 0, 1, 0.5, []float64{1, 0}, 1, 1},
	}
	for _, c := range cases {
		cs, err := NewCS(c.lo, c.hi, c.p)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range c.xs {
			if err := cs.Add(x); err != nil {
				t.Fatal(err)
			}
		}
		up, down := cs.Capital(0)
		if !near(up, c.up, 1e-12) || !near(down, c.down, 1e-12) {
			t.Errorf("%s: capital up %.10f down %.10f, want %.10f %.10f", c.name, up, down, c.up, c.down)
		}
	}
	// The last case's current capital (not the maximum) fell to 3/7.
	cs, _ := NewCS(0, 1, 0.5)
	_ = cs.Add(1)
	_ = cs.Add(0)
	if got := math.Exp(cs.points[0].up); !near(got, 3.0/7, 1e-12) {
		t.Errorf("capital after 1, 0 at 0.5 = %.10f, want 3/7", got)
	}
}

// TestCSCapBinds: with every observation 0.3 above the point 0.5, the
// variance estimate falls and the bet reaches its cap BetCap / m = 1.8, so
// each further observation multiplies the capital by exactly 1 + 1.8 * 0.3.
func TestCSCapBinds(t *testing.T) {
	cs, _ := NewCS(0, 1, 0.5)
	for range 200 {
		_ = cs.Add(0.8)
	}
	before := cs.points[0].up
	_ = cs.Add(0.8)
	if got, want := cs.points[0].up-before, math.Log(1+BetCap/0.5*0.3); !near(got, want, 1e-12) {
		t.Errorf("log factor at the cap = %.12f, want %.12f", got, want)
	}
}

// TestCSRuleOfThree: every observation at the mean itself (0 on [-1, 1])
// and a point g below it (m = 0.49 in units of the range): the capital
// grows by at most 1 + (c/m)(g/2) per observation, so the lower bound
// needs at least log(1/alpha) / log(1 + that) observations to pass the
// point; with c = 0.9 and g = 0.02 at alpha 0.005 that is 292 (the price
// of the range: an unseen mass at -1 is ruled out only slowly, as by the
// rule of three), and the sequence gets there within 10% more.
func TestCSRuleOfThree(t *testing.T) {
	const g, alpha = 0.02, 0.005
	m := 0.5 - g/2 // -0.02 in units of [-1, 1]
	floor := int(math.Ceil(-math.Log(alpha) / math.Log1p(BetCap/m*(g/2))))
	cs, _ := NewCS(-1, 1, -g)
	n := 0
	for !cs.AboveAt(0, alpha) && n < 5000 {
		_ = cs.Add(0)
		n++
	}
	t.Logf("all zeros: the lower bound passes -0.02 at alpha 0.005 after %d observations (no bet can do it before %d)", n, floor)
	if n < floor || float64(n) > 1.1*float64(floor) {
		t.Errorf("passed after %d observations, want between %d and %d", n, floor, int(1.1*float64(floor)))
	}
}

// coverageShapes are distributions on [0, 1] with known means.
var coverageShapes = []struct {
	name string
	mean float64
	draw func(*rand.Rand) float64
}{
	{"Bernoulli(0.1)", 0.1, func(r *rand.Rand) float64 {
		if r.Float64() < 0.1 {
			return 1
		}
		return 0
	}},
	{"uniform", 0.5, func(r *rand.Rand) float64 { return r.Float64() }},
	{"U^2 (skewed)", 1.0 / 3, func(r *rand.Rand) float64 { u := r.Float64(); return u * u }},
	{"mostly 1/2, 2% at the ends", 0.5, func(r *rand.Rand) float64 {
		switch u := r.Float64(); {
		case u < 0.01:
			return 0
		case u < 0.02:
			return 1
		}
		return 0.5
	}},
}

// TestCSTimeUniformCoverage: Monte Carlo with a fixed seed, a look after
// every observation up to 1,000: the lower bound ever passes the true mean
// in at most alpha of the runs (plus 3 standard errors), and so does the
// upper bound.
func TestCSTimeUniformCoverage(t *testing.T) {
	const runs, steps, alpha = 1000, 1000, 0.05
	limit := alpha + 3*math.Sqrt(alpha*(1-alpha)/runs)
	for si, sh := range coverageShapes {
		rng := rand.New(rand.NewPCG(2023, uint64(si)))
		var above, below int
		for range runs {
			cs, _ := NewCS(0, 1, sh.mean)
			for range steps {
				_ = cs.Add(sh.draw(rng))
			}
			// The capital's running maximum covers every time.
			if cs.AboveAt(0, alpha) {
				above++
			}
			if cs.BelowAt(0, alpha) {
				below++
			}
		}
		ra, rb := float64(above)/runs, float64(below)/runs
		t.Logf("%s: lower bound ever above the mean in %.4f of runs, upper ever below in %.4f (limit %.4f)", sh.name, ra, rb, limit)
		if ra > limit || rb > limit {
			t.Errorf("%s: miscoverage %.4f / %.4f exceeds %.4f", sh.name, ra, rb, limit)
		}
	}
}

// TestCSInterval: the grid interval holds the running mean, narrows as
// observations come, agrees with the exact decisions at a registered point
// up to the grid's resolution, and starts as the whole range.
func TestCSInterval(t *testing.T) {
	cs, _ := NewCS(-1, 1, -0.02, 0)
	if lo, hi := cs.Interval(0.05); lo != -1 || hi != 1 {
		t.Errorf("empty: [%g, %g], want [-1, 1]", lo, hi)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	prev := 2.0
	step := 2.0 / (GridPoints - 1)
	for batch := range 10 {
		for range 100 {
			_ = cs.Add(math.Max(-1, math.Min(1, 0.05+0.2*rng.NormFloat64())))
		}
		lo, hi := cs.Interval(0.025)
		if m := cs.Mean(); lo > m || hi < m {
			t.Fatalf("after %d: [%.4f, %.4f] misses the mean %.4f", 100*(batch+1), lo, hi, m)
		}
		if hi-lo > prev+1e-12 {
			t.Errorf("after %d: width %.4f grew from %.4f", 100*(batch+1), hi-lo, prev)
		}
		prev = hi - lo
		if cs.AboveAt(1, 0.025) != (lo >= 0) && math.Abs(lo) > step {
			t.Errorf("after %d: exact decision at 0 says above=%v, interval low %.4f", 100*(batch+1), cs.AboveAt(1, 0.025), lo)
		}
	}
	lo, hi := cs.Interval(0.025)
	t.Logf("1,000 draws of N(0.05, 0.2): mean %.4f, 97.5%% one-sided bounds [%.4f, %.4f]", cs.Mean(), lo, hi)
	if hi-lo > 0.1 {
		t.Errorf("width %.4f after 1,000 draws of sd 0.2: want below 0.1", hi-lo)
	}
	if !cs.AboveAt(0, 0.025) || lo < -0.02 {
		t.Errorf("mean 0.05 with 1,000 draws: the sequence should be above -0.02 (low %.4f)", lo)
	}
}

// TestCSBadInput: a range or a value it cannot use is an error saying which.
func TestCSBadInput(t *testing.T) {
	if _, err := NewCS(1, 1); err == nil || !strings.Contains(err.Error(), "lo < hi") {
		t.Errorf("NewCS(1, 1): %v", err)
	}
	if _, err := NewCS(0, 1, 2); err == nil || !strings.Contains(err.Error(), "point 2 is outside") {
		t.Errorf("NewCS(0, 1, 2): %v", err)
	}
	cs, _ := NewCS(0, 1)
	for _, x := range []float64{-0.5, 1.5, math.NaN()} {
		if err := cs.Add(x); err == nil || !strings.Contains(err.Error(), "outside the range [0, 1]") {
			t.Errorf("Add(%g): %v", x, err)
		}
	}
	if cs.N() != 0 || !math.IsNaN(cs.Mean()) {
		t.Errorf("refused observations were counted: N %d, mean %g", cs.N(), cs.Mean())
	}
}

func TestBonferroni(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		k     int
		want  float64
	}{{0.05, 5, 0.01}, {0.05, 1, 0.05}, {0.05, 0, 0.05}, {0.1, 4, 0.025}} {
		if got := Bonferroni(c.alpha, c.k); !near(got, c.want, 1e-15) {
			t.Errorf("Bonferroni(%g, %d) = %g, want %g", c.alpha, c.k, got, c.want)
		}
	}
}
