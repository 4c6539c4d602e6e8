package anytime

import (
	"fmt"
	"math"
)

// BetCap is c of the bets' truncation: a bet on the mean being above m
// risks at most the share c of the capital on one observation (the
// observation at the far end of the range), so that the capital stays
// positive. The bound is what limits how fast a confidence sequence can
// narrow when the observations barely vary: with every observation equal
// to the point tested plus a gap g (in units of the range), the capital
// grows by at most a factor 1 + c g / (1 - m) per observation.
const BetCap = 0.9

// GridPoints is the number of points (over [lo, hi], both ends included)
// at which CS.Interval evaluates the capital: its bounds are exact to
// (hi - lo) / (GridPoints - 1).
const GridPoints = 1001

// CS is a confidence sequence for the mean of observations bounded in
// [lo, hi]: the betting confidence sequence of Waudby-Smith and Ramdas
// ("Estimating means of bounded random variables by betting", JRSS-B
// 2023), with their aGRAPA bets (a predictable plug-in of the
// growth-optimal bet), computed one-sided.
//
// The observations are mapped to y = (x - lo) / (hi - lo) in [0, 1]. For a
// candidate mean m, two capital processes bet on the next observation:
//
//	K+(m) = prod (1 + l+_i (y_i - m)),  l+_i in [0, c/m]       (bets the mean is above m)
//	K-(m) = prod (1 - l-_i (y_i - m)),  l-_i in [0, c/(1-m)]   (bets it is below m)
//
// where each bet uses only the observations before it. If the true mean
// is at most m, K+(m) is a nonnegative supermartingale with K+_0 = 1, so by
// Ville's inequality it ever reaches 1/alpha with probability at most
// alpha, however often and whenever it is looked at. The lower bound at
// level alpha is therefore every m whose K+(m) has reached 1/alpha ruled
// out; the upper bound likewise with K-. Each bound is one-sided: both
// together hold at all times with probability at least 1 - 2 alpha (call
// with alpha/2 for a two-sided 1 - alpha sequence).
//
// Points registered with NewCS (the points a decision is taken at) are
// tracked exactly as observations arrive, O(1) each; Interval evaluates a
// grid of GridPoints points, brought up to date lazily (the observations
// since the last call, times the grid), so looking after every batch costs
// O(batch x grid) and a caller that only decides at its points never pays
// for the grid. A point once ruled out stays ruled out (the running
// intersection, itself a valid confidence sequence).
type CS struct {
	lo, width float64
	n         int
	sum       float64 // sum of y
	// mu and v are the predictable estimates of the next bet: the mean and
	// variance of the y seen so far, regularized by a pseudo-observation of
	// mean 1/2 and variance 1/4.
	mu, v   float64
	sqdev   float64 // sum of (y_i - mu_i)^2, mu_i the estimate after y_i
	points  []track
	ys      []float64 // the observations (y), for the lazy grid
	grid    []track
	gridN   int // observations the grid has seen
	gridMu  float64
	gridV   float64
	gridSum float64
	gridSq  float64
}

// track is the capital of the two one-sided processes at one point m (in
// y units): their logarithms now and the largest they have been.
type track struct {
	m                  float64
	up, down           float64
	upMax, downMax     float64
	upStuck, downStuck bool // a factor of 0: the capital is gone for good
}

// NewCS returns an empty confidence sequence for the mean of observations
// in [lo, hi], tracking the given points (means in x units) exactly. It
// returns an error when lo >= hi, when either is not finite, or when a
// point lies outside [lo, hi].
func NewCS(lo, hi float64, points ...float64) (*CS, error) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo >= hi {
		return nil, fmt.Errorf("anytime: the range [%g, %g] of a confidence sequence must be finite with lo < hi", lo, hi)
	}
	c := &CS{lo: lo, width: hi - lo, mu: 0.5, v: 0.25}
	for _, p := range points {
		if math.IsNaN(p) || p < lo || p > hi {
			return nil, fmt.Errorf("anytime: point %g is outside the range [%g, %g]", p, lo, hi)
		}
		c.points = append(c.points, track{m: c.toY(p)})
	}
	c.gridMu, c.gridV = 0.5, 0.25
	return c, nil
}

func (c *CS) toY(x float64) float64 { return math.Min(1, math.Max(0, (x-c.lo)/c.width)) }
func (c *CS) toX(y float64) float64 { return c.lo + y*c.width }

// N is the number of observations added.
func (c *CS) N() int { return c.n }

// Mean is the mean of the observations added (NaN before the first).
func (c *CS) Mean() float64 {
	if c.n == 0 {
		return math.NaN()
	}
	return c.toX(c.sum / float64(c.n))
}

// Add adds one observation. It returns an error, and adds nothing, for a
// NaN or a value outside [lo, hi] (allowing for rounding of 1e-9 of the
// range).
func (c *CS) Add(x float64) error {
	if math.IsNaN(x) || x < c.lo-1e-9*c.width || x > c.lo+c.width+1e-9*c.width {
		return fmt.Errorf("anytime: observation %g is outside the range [%g, %g]", x, c.lo, c.lo+c.width)
	}
	y := c.toY(x)
	for i := range c.points {
		c.points[i].bet(y, c.mu, c.v)
	}
	c.ys = append(c.ys, y)
	c.n++
	c.sum, c.mu, c.v, c.sqdev = advance(c.n, y, c.sum, c.sqdev)
	return nil
}

// advance returns the running sums and the predictable estimates after
// the n-th observation y (WSR's regularized mean and variance).
func advance(n int, y, sum, sqdev float64) (newSum, mu, v, newSq float64) {
	newSum = sum + y
	mu = (0.5 + newSum) / float64(n+1)
	newSq = sqdev + (y-mu)*(y-mu)
	v = (0.25 + newSq) / float64(n+1)
	return newSum, mu, v, newSq
}

// bet moves the capital at t.m by one observation y, with the bets aGRAPA
// takes from the estimates mu and v: (mu - m) / (v + (mu - m)^2), on the
// side it favours, truncated to keep every factor at least 1 - BetCap.
func (t *track) bet(y, mu, v float64) {
	g := mu - t.m
	l := g / (v + g*g)
	if l > 0 && !t.upStuck {
		l = math.Min(l, BetCap/math.Max(t.m, 1e-12))
		f := 1 + l*(y-t.m)
		if f <= 0 {
			t.upStuck = true
			t.up = math.Inf(-1)
		} else {
			t.up += math.Log(f)
			t.upMax = math.Max(t.upMax, t.up)
		}
	}
	if l < 0 && !t.downStuck {
		l = math.Min(-l, BetCap/math.Max(1-t.m, 1e-12))
		f := 1 - l*(y-t.m)
		if f <= 0 {
			t.downStuck = true
			t.down = math.Inf(-1)
		} else {
			t.down += math.Log(f)
			t.downMax = math.Max(t.downMax, t.down)
		}
	}
}

// AboveAt reports whether the sequence has shown, at level alpha, that the
// mean is above the i-th registered point: the capital betting on "above"
// has reached 1/alpha. BelowAt is the mirror image.
func (c *CS) AboveAt(i int, alpha float64) bool { return c.points[i].upMax >= -math.Log(alpha) }

// BelowAt reports whether the sequence has shown, at level alpha, that the
// mean is below the i-th registered point.
func (c *CS) BelowAt(i int, alpha float64) bool {
	return c.points[i].downMax >= -math.Log(alpha)
}

// Capital returns the largest capital (not its logarithm) each one-sided
// process at the i-th registered point has reached: up bets on a mean
// above the point, down below. These are e-values: 1/capital is an
// anytime-valid p-value.
func (c *CS) Capital(i int) (up, down float64) {
	return math.Exp(c.points[i].upMax), math.Exp(c.points[i].downMax)
}

// Interval returns the one-sided bounds at level alpha each, on the grid
// of GridPoints points: low is the highest grid point below which every
// grid point has been ruled out by the capital betting on "above" (lo when
// none), high the mirror image (hi when none). Each holds at all times
// with probability at least 1 - alpha. Before the first observation it is
// [lo, hi].
func (c *CS) Interval(alpha float64) (low, high float64) {
	c.catchUp()
	crit := -math.Log(alpha)
	k := len(c.grid)
	lowY, highY := 0.0, 1.0
	for i := 0; i < k && c.grid[i].upMax >= crit; i++ {
		lowY = c.grid[i].m
	}
	for i := k - 1; i >= 0 && c.grid[i].downMax >= crit; i-- {
		highY = c.grid[i].m
	}
	if lowY > highY { // both sides ruled out a point: the bounds met
		lowY, highY = highY, lowY
	}
	return c.toX(lowY), c.toX(highY)
}

// catchUp brings the grid up to date with the observations.
func (c *CS) catchUp() {
	if c.grid == nil {
		c.grid = make([]track, GridPoints)
		for i := range c.grid {
			c.grid[i].m = float64(i) / float64(GridPoints-1)
		}
	}
	for ; c.gridN < len(c.ys); c.gridN++ {
		y := c.ys[c.gridN]
		for i := range c.grid {
			c.grid[i].bet(y, c.gridMu, c.gridV)
		}
		c.gridSum, c.gridMu, c.gridV, c.gridSq = advance(c.gridN+1, y, c.gridSum, c.gridSq)
	}
}
