package agree

import (
	"math"
	"slices"
	"sort"
)

// AUC is the area under the ROC curve of scores against binary labels:
// the probability that a random positive scores above a random negative,
// a tie counting half (the Mann-Whitney U statistic over n1*n0). NaN when
// either class is empty.
func AUC(scores []float64, positive []bool) float64 {
	r := midRanks(scores)
	var n1, n0 int
	var sum float64
	for i, p := range positive {
		if p {
			n1++
			sum += r[i]
		} else {
			n0++
		}
	}
	if n1 == 0 || n0 == 0 {
		return math.NaN()
	}
	u := sum - float64(n1)*float64(n1+1)/2
	return u / (float64(n1) * float64(n0))
}

// Confusion counts predictions against labels: a score at or above the
// threshold predicts positive.
type Confusion struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	TN int `json:"tn"`
	FN int `json:"fn"`
}

// ConfusionAt classifies scores at threshold t.
func ConfusionAt(scores []float64, positive []bool, t float64) Confusion {
	var c Confusion
	for i, s := range scores {
		pred := s >= t
		switch {
		case pred && positive[i]:
			c.TP++
		case pred:
			c.FP++
		case positive[i]:
			c.FN++
		default:
			c.TN++
		}
	}
	return c
}

// N is the number of rows counted.
func (c Confusion) N() int { return c.TP + c.FP + c.TN + c.FN }

// BalancedAccuracy is the mean of sensitivity and specificity; NaN when
// either class is empty.
func (c Confusion) BalancedAccuracy() float64 {
	p, n := c.TP+c.FN, c.TN+c.FP
	if p == 0 || n == 0 {
		return math.NaN()
	}
	return (float64(c.TP)/float64(p) + float64(c.TN)/float64(n)) / 2
}

// Kappa is Cohen's kappa between prediction and label: observed agreement
// corrected for the agreement expected by chance from the two marginals.
// NaN with no rows; 0 when chance agreement is already perfect (a
// constant prediction matching a constant label), as there is nothing
// beyond chance to measure.
func (c Confusion) Kappa() float64 {
	n := float64(c.N())
	if n == 0 {
		return math.NaN()
	}
	po := float64(c.TP+c.TN) / n
	predPos, labPos := float64(c.TP+c.FP)/n, float64(c.TP+c.FN)/n
	pe := predPos*labPos + (1-predPos)*(1-labPos)
	if pe >= 1 {
		return 0
	}
	return (po - pe) / (1 - pe)
}

// BestThreshold returns the threshold, among the distinct scores, with the
// highest balanced accuracy (the lowest such threshold on a tie), and that
// accuracy. NaN when either class is empty.
func BestThreshold(scores []float64, positive []bool) (t, balancedAccuracy float64) {
	cands := slices.Clone(scores)
	slices.Sort(cands)
	cands = slices.Compact(cands)
	t, balancedAccuracy = math.NaN(), math.NaN()
	for _, c := range cands {
		ba := ConfusionAt(scores, positive, c).BalancedAccuracy()
		if math.IsNaN(ba) {
			return math.NaN(), math.NaN()
		}
		if math.IsNaN(balancedAccuracy) || ba > balancedAccuracy {
			t, balancedAccuracy = c, ba
		}
	}
	return t, balancedAccuracy
}

// Spearman is Spearman's rank correlation: the Pearson correlation of the
// mid-ranks (ties share the mean of their ranks). NaN when either side is
// constant or there are fewer than two rows.
func Spearman(x, y []float64) float64 {
	return pearson(midRanks(x), midRanks(y))
}

// KendallTauB is Kendall's tau-b, tau adjusted for ties on either side:
// (concordant - discordant) / sqrt((n0 - ties x) (n0 - ties y)). NaN when
// either side is constant or there are fewer than two rows. It compares
// every pair of rows: O(n^2).
func KendallTauB(x, y []float64) float64 {
	var conc, disc, tx, ty float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			dx, dy := sign(x[i]-x[j]), sign(y[i]-y[j])
			switch {
			case dx == 0 && dy == 0:
			case dx == 0:
				tx++
			case dy == 0:
				ty++
			case dx == dy:
				conc++
			default:
				disc++
			}
		}
	}
	den := math.Sqrt((conc + disc + tx) * (conc + disc + ty))
	if den == 0 {
		return math.NaN()
	}
	return (conc - disc) / den
}

// PairAccuracy is the share of pairs the judge orders as the label does:
// better is the score of the candidate the label prefers, worse the
// other's; a tie counts half, as in the Ragas paper. NaN with no pairs.
func PairAccuracy(better, worse []float64) float64 {
	if len(better) == 0 {
		return math.NaN()
	}
	var s float64
	for i := range better {
		s += pairCredit(better[i], worse[i])
	}
	return s / float64(len(better))
}

// pairCredit is 1 when the better candidate scores higher, 1/2 on a tie,
// else 0.
func pairCredit(better, worse float64) float64 {
	switch {
	case better > worse:
		return 1
	case better == worse:
		return 0.5
	}
	return 0
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// midRanks ranks xs from 1, ties sharing the mean of their ranks.
func midRanks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		mid := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mid
		}
		i = j + 1
	}
	return r
}

// pearson is the Pearson correlation; NaN when either side is constant.
func pearson(x, y []float64) float64 {
	n := float64(len(x))
	if len(x) < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
