package compare

import "math"

// meanSeq is a confidence sequence for the mean of bounded observations:
// valid at every look at once, so that a sequential check may decide as
// soon as it excludes a value.
type meanSeq interface {
	Add(x float64)
	// Interval returns the one-sided bounds, each at the level the
	// sequence was made for.
	Interval() (lo, hi float64)
	N() int
	Mean() float64
}

// ebSeq is the predictable plug-in empirical-Bernstein confidence
// sequence of Waudby-Smith and Ramdas (2023, Theorem 2), one-sided at
// level alpha on each side, over observations in [lo, hi] (mapped to
// [0, 1]), with the running intersection of its bounds.
type ebSeq struct {
	lo, width, logA float64

	n                   int
	sum                 float64 // of the observations in [0, 1]
	muPrev, sqdev       float64 // running mean (with its 1/2 prior) and sum of squared deviations
	sumL, sumLX, sumPsi float64
	low, high           float64 // running intersection, in [0, 1]
}

func newEBSeq(lo, hi, alpha float64) *ebSeq {
	return &ebSeq{lo: lo, width: hi - lo, logA: math.Log(1 / alpha), muPrev: 0.5, low: 0, high: 1}
}

func (s *ebSeq) N() int { return s.n }

func (s *ebSeq) Mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	return s.lo + s.width*s.sum/float64(s.n)
}

func (s *ebSeq) Add(x float64) {
	y := math.Min(1, math.Max(0, (x-s.lo)/s.width))
	t := float64(s.n + 1)
	varPrev := (0.25 + s.sqdev) / t // sigma^2_{t-1}, with its 1/4 prior
	lambda := math.Min(math.Sqrt(2*s.logA/(varPrev*t*math.Log1p(t))), 0.5)
	v := 4 * (y - s.muPrev) * (y - s.muPrev)
	psi := (-math.Log1p(-lambda) - lambda) / 4
	s.sumL += lambda
	s.sumLX += lambda * y
	s.sumPsi += v * psi
	s.n++
	s.sum += y
	mu := (0.5 + s.sum) / (t + 1)
	s.sqdev += (y - mu) * (y - mu)
	s.muPrev = mu
	center := s.sumLX / s.sumL
	margin := (s.logA + s.sumPsi) / s.sumL
	s.low = math.Max(s.low, center-margin)
	s.high = math.Min(s.high, center+margin)
}

func (s *ebSeq) Interval() (lo, hi float64) {
	return s.lo + s.width*s.low, s.lo + s.width*s.high
}
