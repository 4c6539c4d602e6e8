package compare

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
)

// ExactLimit is the largest number of non-zero differences for which
// SignFlipTest enumerates every sign pattern; beyond it, it draws.
const ExactLimit = 20

// zeroDiff is the magnitude below which a paired difference counts as zero
// (floating-point noise of equal scores computed differently).
const zeroDiff = 1e-12

// SignFlip is the result of a one-sided paired sign-flip permutation test.
type SignFlip struct {
	// PWorse is the p-value for "the mean difference is negative": the
	// share of sign patterns whose sum is <= the observed sum.
	PWorse float64
	// PBetter is the p-value for "the mean difference is positive".
	PBetter float64
	// Exact is true when every sign pattern was enumerated.
	Exact bool
	// Draws is the number of Monte Carlo draws (0 when exact).
	Draws int
	// NonZero is the number of non-zero differences (zeros carry no
	// information: flipping their sign changes nothing).
	NonZero int
}

// SignFlipTest runs a paired sign-flip permutation test on the differences
// d. Under the null hypothesis each difference is symmetric about zero, so
// every pattern of signs is equally likely. With at most ExactLimit non-zero
// differences the p-values are exact (all 2^n patterns, counted by meet in
// the middle); otherwise they come from draws random patterns (20,000 when
// draws <= 0) with the (k+1)/(B+1) correction, from a generator seeded with
// seed, and from SignFlipLargeFrom non-zero differences on they are drawn
// as signFlipLarge does. NaN differences are ignored. With no non-zero difference both
// p-values are 1.
func SignFlipTest(d []float64, draws int, seed uint64) SignFlip {
	a, obs, eps := signFlipInputs(d)
	res := SignFlip{PWorse: 1, PBetter: 1, Exact: true, NonZero: len(a)}
	if len(a) == 0 {
		return res
	}
	if len(a) <= ExactLimit {
		le, ge := exactCounts(a, obs, eps)
		n := math.Ldexp(1, len(a))
		res.PWorse, res.PBetter = float64(le)/n, float64(ge)/n
		return res
	}
	if draws <= 0 {
		draws = 20000
	}
	res.Exact, res.Draws = false, draws
	if len(a) >= SignFlipLargeFrom {
		res.PWorse, res.PBetter = signFlipLarge(a, obs, eps, draws, seed)
		return res
	}
	le, ge := drawCounts(a, obs, eps, draws, seed)
	res.PWorse = float64(le+1) / float64(draws+1)
	res.PBetter = float64(ge+1) / float64(draws+1)
	return res
}

// exactCounts counts the subsets P of a with sum <= obs+eps and with sum >=
// obs-eps, by splitting a in two halves and binary-searching the sorted
// subset sums of one half for each subset sum of the other.
func exactCounts(a []float64, obs, eps float64) (le, ge int) {
	h := len(a) / 2
	left, right := subsetSums(a[:h]), subsetSums(a[h:])
	slices.Sort(right)
	for _, x := range left {
		// right sums <= obs+eps-x
		le += sort.Search(len(right), func(i int) bool { return right[i] > obs+eps-x })
		// right sums >= obs-eps-x
		ge += len(right) - sort.Search(len(right), func(i int) bool { return right[i] >= obs-eps-x })
	}
	return le, ge
}

func subsetSums(a []float64) []float64 {
	out := make([]float64, 1<<len(a))
	for m := 1; m < len(out); m++ {
		low := m & (m - 1)
		out[m] = out[low] + a[bits.TrailingZeros(uint(m))]
	}
	return out
}

// drawCounts draws random sign patterns. The sum of a pattern is looked up
// eight elements at a time in tables of the 256 partial sums of each chunk.
func drawCounts(a []float64, obs, eps float64, draws int, seed uint64) (le, ge int) {
	chunks := (len(a) + 7) / 8
	tables := make([][256]float64, chunks)
	for c := range tables {
		part := a[c*8 : min(len(a), c*8+8)]
		for b := 1; b < 256; b++ {
			j := bits.TrailingZeros(uint(b))
			v := tables[c][b&(b-1)]
			if j < len(part) {
				v += part[j]
			}
			tables[c][b] = v
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for range draws {
		var s float64
		var word uint64
		for c := range tables {
			if c%8 == 0 {
				word = rng.Uint64()
			}
			s += tables[c][byte(word)]
			word >>= 8
		}
		if s <= obs+eps {
			le++
		}
		if s >= obs-eps {
			ge++
		}
	}
	return le, ge
}

// BootstrapMeanCI returns the percentile bootstrap confidence interval of
// the mean of d at the given level (0.95 for 95%), from resamples resamples
// (10,000 when resamples <= 0) drawn with a generator seeded with seed.
// From BootstrapLargeFrom values on, with at least the default 10,000
// resamples, it returns the limit of infinitely many resamples instead, by
// the Cornish-Fisher expansion (cornishFisherMeanCI), and seed is unused:
// the evidence is for the default, and fewer resamples asked for (tests
// that want a cheap interval) are cheap anyway. NaN values are ignored; with no value
// it returns NaN, NaN.
func BootstrapMeanCI(d []float64, level float64, resamples int, seed uint64) (lo, hi float64) {
	xs := dropNaN(d)
	n := len(xs)
	switch n {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return xs[0], xs[0]
	}
	if resamples <= 0 {
		resamples = 10000
	}
	if n >= BootstrapLargeFrom && resamples >= 10000 {
		return cornishFisherMeanCI(xs, level)
	}
	return bootstrapResampled(xs, level, resamples, seed)
}

// bootstrapResampled is the resampling percentile interval of the mean of
// xs (at least two values, no NaN) from resamples resamples.
func bootstrapResampled(xs []float64, level float64, resamples int, seed uint64) (lo, hi float64) {
	n := len(xs)
	rng := rand.New(rand.NewPCG(seed, seed^0xbf58476d1ce4e5b9))
	means := make([]float64, resamples)
	for b := range means {
		var s float64
		for range n {
			s += xs[rng.IntN(n)]
		}
		means[b] = s / float64(n)
	}
	slices.Sort(means)
	tail := (1 - level) / 2
	return quantileSorted(means, tail), quantileSorted(means, 1-tail)
}

// HolmAdjust returns Holm's step-down adjusted p-values, in the order of p:
// sorted ascending, the i-th smallest (0-based, of m) becomes the running
// maximum of min(1, (m-i) p), so adjusted values are monotone and capped at
// 1. NaN entries are left out of the family and stay NaN.
func HolmAdjust(p []float64) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	m := len(idx)
	running := 0.0
	for rank, i := range idx {
		adj := math.Min(1, float64(m-rank)*p[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}

// NormalQuantile returns the p-quantile of the standard normal
// distribution (the inverse CDF): Acklam's rational approximation refined by
// one Halley step, accurate to about 1e-15. It returns -Inf at 0, +Inf at 1
// and NaN outside [0, 1].
func NormalQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p) || p < 0 || p > 1:
		return math.NaN()
	case p == 0:
		return math.Inf(-1)
	case p == 1:
		return math.Inf(1)
	}
	const (
		a1, a2, a3 = -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02
		a4, a5, a6 = 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00
		b1, b2, b3 = -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02
		b4, b5     = 6.680131188771972e+01, -1.328068155288572e+01
		c1, c2, c3 = -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00
		c4, c5, c6 = -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00
		d1, d2, d3 = 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00
		d4         = 3.754408661907416e+00
		plow       = 0.02425
	)
	var x float64
	switch {
	case p < plow:
		q := math.Sqrt(-2 * math.Log(p))
		x = (((((c1*q+c2)*q+c3)*q+c4)*q+c5)*q + c6) / ((((d1*q+d2)*q+d3)*q+d4)*q + 1)
	case p <= 1-plow:
		q := p - 0.5
		r := q * q
		x = (((((a1*r+a2)*r+a3)*r+a4)*r+a5)*r + a6) * q / (((((b1*r+b2)*r+b3)*r+b4)*r+b5)*r + 1)
	default:
		q := math.Sqrt(-2 * math.Log1p(-p))
		x = -(((((c1*q+c2)*q+c3)*q+c4)*q+c5)*q + c6) / ((((d1*q+d2)*q+d3)*q+d4)*q + 1)
	}
	// Halley refinement against the exact CDF.
	e := 0.5*math.Erfc(-x/math.Sqrt2) - p
	u := e * math.Sqrt(2*math.Pi) * math.Exp(x*x/2)
	return x - u/(1+x*u/2)
}

// MinDetectableEffect returns the smallest true mean difference that a
// one-sided test at level alpha detects with the given power (0.8) on n
// paired samples whose differences have standard deviation sd, by the
// normal approximation (z_{1-alpha} + z_{power}) * sd / sqrt(n). It is NaN
// for n < 1 or a NaN sd.
func MinDetectableEffect(sd float64, n int, alpha, power float64) float64 {
	if n < 1 || math.IsNaN(sd) {
		return math.NaN()
	}
	return (NormalQuantile(1-alpha) + NormalQuantile(power)) * sd / math.Sqrt(float64(n))
}

// seedOf hashes a label and the bits of xs into a generator seed, so that
// the same data always draws the same random numbers.
func seedOf(label string, xs []float64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(label))
	var buf [8]byte
	for _, x := range xs {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
		h.Write(buf[:])
	}
	return h.Sum64()
}

func dropNaN(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// mean of the non-NaN values; NaN when there are none.
func mean(xs []float64) float64 {
	var s float64
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// stddev is the sample standard deviation (n-1) of the non-NaN values; NaN
// with fewer than two.
func stddev(xs []float64) float64 {
	m := mean(xs)
	var s float64
	n := 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += (x - m) * (x - m)
			n++
		}
	}
	if n < 2 {
		return math.NaN()
	}
	return math.Sqrt(s / float64(n-1))
}

// quantileSorted is the q-quantile of sorted data by linear interpolation
// between order statistics (numpy's default, "type 7").
func quantileSorted(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	h := q * float64(len(xs)-1)
	lo := int(math.Floor(h))
	if lo >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	if lo < 0 {
		return xs[0]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
}

// BinomialUpperHalf returns P(X >= k) for X ~ Binomial(n, 1/2): the exact
// one-sided p-value of a sign (McNemar) test that saw k of n discordant
// pairs go one way. It is 1 for k <= 0 and 0 for k > n.
func BinomialUpperHalf(k, n int) float64 {
	if k <= 0 {
		return 1
	}
	if k > n {
		return 0
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	sum := 0.0
	for i := k; i <= n; i++ {
		lgI, _ := math.Lgamma(float64(i + 1))
		lgR, _ := math.Lgamma(float64(n - i + 1))
		sum += math.Exp(lgN - lgI - lgR - float64(n)*math.Ln2)
	}
	return math.Min(1, sum)
}

// signFlipInputs is SignFlipTest's preparation of d: the magnitudes |d_i|
// of the non-zero differences, obs the sum of |d_i| over the positive ones
// and eps the tie tolerance. A sign pattern with positive set P has sum
// 2*sum_P(a) - total, so comparing sums is comparing sum_P(a) with obs.
func signFlipInputs(d []float64) (a []float64, obs, eps float64) {
	var total float64
	for _, x := range d {
		if math.IsNaN(x) || math.Abs(x) <= zeroDiff {
			continue
		}
		a = append(a, math.Abs(x))
		total += math.Abs(x)
		if x > 0 {
			obs += x
		}
	}
	return a, obs, 1e-9 * total
}
