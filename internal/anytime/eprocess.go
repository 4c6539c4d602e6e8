package anytime

import "math"

// SignE is an e-process for one-sided sign counts: a sequence of events,
// each "up" or "down" (a score lost on head or regained on head), tested
// against the hypothesis that each event is up with probability at most
// 1/2 (no change, or a change for the better), in the order they arrive.
//
// After k up events among n it is the mixture likelihood ratio
//
//	E_n = 2 int_{1/2}^{1} p^k (1-p)^(n-k) dp / 2^-n
//	    = sum_{j=0}^{k} C(n+1, j) / ((n+1) C(n, k))
//
// of "up with probability p", p uniform on [1/2, 1], against p = 1/2: the
// capital of a bettor who spreads it over every constant bet on "up" (the
// universal portfolio). For every p' >= 1/2 the likelihood ratio against
// 1/2 is a nonnegative supermartingale with mean at most 1 when the true
// probability is at most 1/2, and so is their mixture: by Ville's
// inequality E ever reaches 1/alpha with probability at most alpha under
// the hypothesis, whenever it is looked at.
//
// Examples: one up event, E = 1.5; k = n (all up), E = (2^(n+1) - 1)/(n+1),
// which first reaches 20 at n = 7 (31.9), where the exact fixed-n sign test
// reaches p < 0.05 at n = 5.
//
// It is evaluated when looked at (E, MaxE, Rejects: about O(sqrt(events)) each),
// not at every event: stopping at a look is stopping at a stopping time,
// which is all Ville's inequality needs, so the running maximum over the
// looks is as valid as over every event.
type SignE struct {
	up, n int
	max   float64 // log of the largest value seen at a look
}

// Add records one event: up (a score lost on head) or down (regained).
func (s *SignE) Add(up bool) {
	s.n++
	if up {
		s.up++
	}
}

// look evaluates the e-process now and keeps its running maximum.
func (s *SignE) look() float64 {
	l := signLogE(s.up, s.n)
	s.max = math.Max(s.max, l)
	return l
}

// Counts returns the up events and all events recorded.
func (s *SignE) Counts() (up, n int) { return s.up, s.n }

// E is the e-process now (1 before any event).
func (s *SignE) E() float64 { return math.Exp(s.look()) }

// MaxE is the largest value the e-process has reached at a look, this one
// included.
func (s *SignE) MaxE() float64 {
	s.look()
	return math.Exp(s.max)
}

// Rejects reports whether the e-process has reached 1/alpha at a look,
// this one included: the events have been shown, at level alpha, to go up
// more often than down.
func (s *SignE) Rejects(alpha float64) bool {
	s.look()
	return s.max >= -math.Log(alpha)
}

// signLogE is log E_n for k up events of n: the log of
// sum_{j<=k} C(n+1, j), less log(n+1) and log C(n, k). The sum runs over
// its terms in decreasing order (from j = k down when k is in the lower
// half, else as 2^(n+1) less the upper tail from k+1 up), until they no
// longer change it.
func signLogE(k, n int) float64 {
	if n == 0 {
		return 0
	}
	var logSum float64
	if 2*k <= n+1 {
		// C(n+1, j-1) / C(n+1, j) = j / (n+2-j) <= 1 here.
		sum, term := 1.0, 1.0
		for j := k; j > 0; j-- {
			term *= float64(j) / float64(n+2-j)
			sum += term
			if term < 1e-17*sum {
				break
			}
		}
		logSum = logChoose(n+1, k) + math.Log(sum)
	} else {
		// Upper tail T = sum_{j>k} C(n+1, j); C(n+1, j+1) / C(n+1, j) =
		// (n+1-j) / (j+1) < 1 here.
		sum, term := 1.0, 1.0
		for j := k + 1; j < n+1; j++ {
			term *= float64(n+1-j) / float64(j+1)
			sum += term
			if term < 1e-17*sum {
				break
			}
		}
		logTail := logChoose(n+1, k+1) + math.Log(sum)
		logSum = float64(n+1)*math.Ln2 + math.Log1p(-math.Exp(logTail-float64(n+1)*math.Ln2))
	}
	return logSum - math.Log(float64(n+1)) - logChoose(n, k)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Bonferroni returns the level at which each of k tests of a family runs
// so that the chance of any false rejection in the family stays at most
// alpha: alpha / k (alpha when k < 1).
//
// For anytime-valid tests this needs no assumption on how the members
// depend on one another (they all read the same samples) nor on when they
// are looked at: each member's capital reaches k/alpha under its
// hypothesis with probability at most alpha/k at any time, and the union
// bound adds these up. Equivalently, the average of the members' e-values
// is an e-value for the hypothesis that they all hold (e-values combine by
// averaging), and Bonferroni on the members is the simplest rule that is
// valid under it. A step-down (Holm-like) closure of averaged e-processes
// would be sharper only after a first rejection, and in the gate the first
// rejection of a change already fails it.
func Bonferroni(alpha float64, k int) float64 {
	if k < 1 {
		return alpha
	}
	return alpha / float64(k)
}
