package compare

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// The large-n methods. Resampling costs grow with pairs x resamples, so at
// and above these sizes the interval and the sign-flip test switch to
// methods whose cost barely grows with n and whose results agree with the
// resampling ones within the reported precision (the tests of
// largen_test.go are the evidence; docs/statistics.md the account):
//
//   - the bootstrap interval of the mean becomes the Cornish-Fisher
//     expansion of the bootstrap distribution itself (the limit of
//     infinitely many resamples), from the sample's mean, variance,
//     skewness and kurtosis;
//   - the sign-flip test still draws sign patterns of the repeated |d|
//     values, but as one binomial count per value (a popcount of random
//     bits), and replaces the draws over the values seen only once by
//     their exact mean-and-variance Edgeworth distribution.

const (
	// BootstrapLargeFrom is the number of differences from which
	// BootstrapMeanCI uses the Cornish-Fisher expansion instead of
	// resampling.
	BootstrapLargeFrom = 4000
	// SignFlipLargeFrom is the number of non-zero differences from which
	// SignFlipTest draws grouped sign patterns (see signFlipLarge).
	SignFlipLargeFrom = 2000
	// smoothFrom is the number of distinct |d| values from which the sum
	// over them is taken as smooth (Edgeworth) rather than drawn.
	smoothFrom = 1000
	// sameValue is the relative distance below which two |d| values are
	// one value (floating-point noise of equal fractions computed
	// differently; the sign-flip test's tie tolerance is of the same order).
	sameValue = 1e-9
)

// cornishFisherMeanCI is the percentile interval of the bootstrap
// distribution of the mean of xs at the given level, by the Cornish-Fisher
// expansion to order 1/n: the mean of n draws from the sample has mean
// mean(xs), variance m2/n, skewness g1/sqrt(n) and excess kurtosis g2/n
// (m2, g1, g2 the sample's own central moments, divided by n), and its
// q-quantile is mean + sqrt(m2/n) (z + (z^2-1) s/6 + (z^3-3z) k/24 -
// (2z^3-5z) s^2/36) with z the normal q-quantile, s and k the skewness and
// kurtosis of the mean.
func cornishFisherMeanCI(xs []float64, level float64) (lo, hi float64) {
	n := float64(len(xs))
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mu := sum / n
	var m2, m3, m4 float64
	for _, x := range xs {
		d := x - mu
		d2 := d * d
		m2 += d2
		m3 += d2 * d
		m4 += d2 * d2
	}
	m2, m3, m4 = m2/n, m3/n, m4/n
	if m2 <= 0 {
		return mu, mu
	}
	sd := math.Sqrt(m2 / n)
	s := m3 / (m2 * math.Sqrt(m2)) / math.Sqrt(n)
	k := (m4/(m2*m2) - 3) / n
	q := func(p float64) float64 {
		z := NormalQuantile(p)
		w := z + (z*z-1)*s/6 + (z*z*z-3*z)*k/24 - (2*z*z*z-5*z)*s*s/36
		return mu + sd*w
	}
	tail := (1 - level) / 2
	return q(tail), q(1 - tail)
}

// valueGroup is a |d| value and how many differences have it.
type valueGroup struct {
	v float64
	c int
}

// signFlipLarge is SignFlipTest's method for many non-zero differences,
// for the same null distribution: the sum T of the |d_i| whose sign is
// positive, over uniformly random sign patterns, compared with obs (le:
// T <= obs+eps, ge: T >= obs-eps).
//
// T is split in two independent parts. The |d| values that occur more than
// once (fractions of a few judge verdicts, pass/fail) give T_L = sum v B_v
// with B_v ~ Binomial(c_v, 1/2) the number of positive signs among the c_v
// differences of value v: each draw takes B_v as a popcount of c_v random
// bits, so a draw costs n/64 random words and one term per distinct value
// instead of one term per difference. The values seen once (continuous
// scores) give T_C, a sum of many distinct independent terms, whose
// distribution is taken as the Edgeworth expansion from its exact mean,
// variance and fourth cumulant (it has no third); each draw adds
// P(T_C <= obs+eps-T_L), so the estimate is the expected share of patterns,
// averaged over the drawn T_L. With fewer than smoothFrom distinct values
// they are drawn too (groups of one). With no repeated value the estimate
// needs no draw. draws, seed and the (k+1)/(B+1) correction are as in
// SignFlipTest.
func signFlipLarge(a []float64, obs, eps float64, draws int, seed uint64) (pWorse, pBetter float64) {
	groups, single := groupValues(a)
	if len(single) < smoothFrom {
		for _, v := range single {
			groups = append(groups, valueGroup{v, 1})
		}
		single = nil
	}
	smooth := newEdgeworthSum(single)
	var le, ge float64
	if len(groups) == 0 {
		le, ge = float64(draws)*smooth.cdf(obs+eps), float64(draws)*smooth.ccdf(obs-eps)
	} else {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		var word uint64 // random bits not used yet, avail of them
		avail := 0
		for range draws {
			var t float64
			for _, g := range groups {
				c, k := g.c, 0
				for c >= 64 {
					k += bits.OnesCount64(rng.Uint64())
					c -= 64
				}
				if c > avail {
					word, avail = rng.Uint64(), 64
				}
				if c > 0 {
					k += bits.OnesCount64(word & (1<<c - 1))
					word >>= c
					avail -= c
				}
				t += g.v * float64(k)
			}
			le += smooth.cdf(obs + eps - t)
			ge += smooth.ccdf(obs - eps - t)
		}
	}
	return (le + 1) / float64(draws+1), (ge + 1) / float64(draws+1)
}

// groupValues sorts a copy of a and returns its repeated values with their
// counts and the values seen once (values within sameValue of a group's
// first are that value).
func groupValues(a []float64) (groups []valueGroup, single []float64) {
	s := slices.Clone(a)
	slices.Sort(s)
	for i := 0; i < len(s); {
		j := i + 1
		var sum float64 = s[i]
		for j < len(s) && s[j]-s[i] <= sameValue*s[i] {
			sum += s[j]
			j++
		}
		if j-i == 1 {
			single = append(single, s[i])
		} else {
			groups = append(groups, valueGroup{sum / float64(j-i), j - i})
		}
		i = j
	}
	return groups, single
}

// edgeworthSum is the distribution of sum_i a_i B_i with B_i independent
// Bernoulli(1/2) by its Edgeworth expansion: mean sum(a)/2, variance
// sum(a^2)/4, excess kurtosis -2 sum(a^4)/sum(a^2)^2 (symmetric: no
// skewness term). The empty sum is the point mass at 0.
type edgeworthSum struct {
	mean, sd, kurt float64
}

func newEdgeworthSum(a []float64) edgeworthSum {
	var s1, s2, s4 float64
	for _, x := range a {
		s1 += x
		s2 += x * x
		s4 += x * x * x * x
	}
	if s2 == 0 {
		return edgeworthSum{}
	}
	return edgeworthSum{mean: s1 / 2, sd: math.Sqrt(s2) / 2, kurt: -2 * s4 / (s2 * s2)}
}

// cdf is P(sum <= x).
func (e edgeworthSum) cdf(x float64) float64 {
	if e.sd == 0 {
		if x >= 0 {
			return 1
		}
		return 0
	}
	z := (x - e.mean) / e.sd
	p := 0.5*math.Erfc(-z/math.Sqrt2) - math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)*e.kurt/24*(z*z*z-3*z)
	return math.Max(0, math.Min(1, p))
}

// ccdf is P(sum >= x) (the sum is continuous but for the empty one).
func (e edgeworthSum) ccdf(x float64) float64 {
	if e.sd == 0 {
		if x <= 0 {
			return 1
		}
		return 0
	}
	return e.cdf(2*e.mean - x) // symmetric about the mean
}
