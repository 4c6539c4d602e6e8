package agree

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
)

// Estimate is one figure with its bootstrap interval and the number of
// rows (or pairs) it rests on. Value, Low and High are NaN when the figure
// is undefined for the data (one class only, a constant side, no pairs).
type Estimate struct {
	Value float64
	Low   float64
	High  float64
	N     int
}

// Defined reports whether the figure has a value.
func (e Estimate) Defined() bool { return !math.IsNaN(e.Value) }

// MarshalJSON writes NaN as null.
func (e Estimate) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Value *float64 `json:"value"`
		Low   *float64 `json:"ci_low"`
		High  *float64 `json:"ci_high"`
		N     int      `json:"n"`
	}{num(e.Value), num(e.Low), num(e.High), e.N})
}

func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Options sets the bootstrap.
type Options struct {
	// Resamples is the number of bootstrap resamples (DefaultResamples when
	// 0 or less).
	Resamples int
	// Seed seeds the generator: the same seed and data give the same
	// intervals.
	Seed uint64
}

// DefaultResamples is the number of bootstrap resamples when none is set.
const DefaultResamples = 2000

// Level is the coverage of every interval.
const Level = 0.95

func (o Options) resamples() int {
	if o.Resamples <= 0 {
		return DefaultResamples
	}
	return o.Resamples
}

// Item is one labelled row: the judge's score (higher is better) and its
// label (binary: 1 positive, 0 negative; graded: the grade).
type Item struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	Label float64 `json:"label"`
	// Text is the label as written, for reading (optional).
	Text string `json:"-"`
}

// Cut is the classification at one threshold.
type Cut struct {
	// Threshold: a score at or above it predicts positive.
	Threshold        float64   `json:"threshold"`
	BalancedAccuracy Estimate  `json:"balanced_accuracy"`
	Kappa            Estimate  `json:"kappa"`
	Confusion        Confusion `json:"confusion"`
}

// BinaryResult is the agreement of scores with binary labels.
type BinaryResult struct {
	N         int      `json:"n"`
	Positives int      `json:"positives"`
	AUC       Estimate `json:"auc"`
	// At is the classification at the threshold asked for.
	At Cut `json:"at_threshold"`
	// Best is the classification at the threshold with the highest
	// balanced accuracy on these rows. Its interval is computed at that
	// threshold, chosen once on all rows, so it is optimistic: a threshold
	// tuned on the data flatters the data.
	Best Cut `json:"best_threshold"`
}

// Binary measures scores against binary labels (Label 1 is positive).
func Binary(items []Item, threshold float64, o Options) BinaryResult {
	scores, pos := binaryColumns(items)
	r := BinaryResult{N: len(items)}
	for _, p := range pos {
		if p {
			r.Positives++
		}
	}
	r.AUC = estimate(len(items), o, 0, func(idx []int) float64 {
		s, p := pick(scores, idx), pickBool(pos, idx)
		return AUC(s, p)
	})
	r.At = cut(scores, pos, threshold, o)
	best, _ := BestThreshold(scores, pos)
	if math.IsNaN(best) {
		best = threshold
	}
	r.Best = cut(scores, pos, best, o)
	return r
}

func cut(scores []float64, pos []bool, t float64, o Options) Cut {
	return Cut{
		Threshold: t,
		Confusion: ConfusionAt(scores, pos, t),
		BalancedAccuracy: estimate(len(scores), o, 1, func(idx []int) float64 {
			return ConfusionAt(pick(scores, idx), pickBool(pos, idx), t).BalancedAccuracy()
		}),
		Kappa: estimate(len(scores), o, 2, func(idx []int) float64 {
			return ConfusionAt(pick(scores, idx), pickBool(pos, idx), t).Kappa()
		}),
	}
}

func binaryColumns(items []Item) ([]float64, []bool) {
	scores := make([]float64, len(items))
	pos := make([]bool, len(items))
	for i, it := range items {
		scores[i], pos[i] = it.Score, it.Label == 1
	}
	return scores, pos
}

// GradedResult is the agreement of scores with graded labels.
type GradedResult struct {
	N           int      `json:"n"`
	Spearman    Estimate `json:"spearman"`
	KendallTauB Estimate `json:"kendall_tau_b"`
}

// Graded measures scores against graded labels (a higher grade is better).
func Graded(items []Item, o Options) GradedResult {
	x, y := make([]float64, len(items)), make([]float64, len(items))
	for i, it := range items {
		x[i], y[i] = it.Score, it.Label
	}
	return GradedResult{
		N: len(items),
		Spearman: estimate(len(items), o, 3, func(idx []int) float64 {
			return Spearman(pick(x, idx), pick(y, idx))
		}),
		KendallTauB: estimate(len(items), o, 4, func(idx []int) float64 {
			return KendallTauB(pick(x, idx), pick(y, idx))
		}),
	}
}

// Pair is two candidates of which the label prefers Better.
type Pair struct {
	Group  string `json:"group"`
	Better Item   `json:"better"`
	Worse  Item   `json:"worse"`
}

// PairwiseResult is the agreement of scores with pairwise preferences.
type PairwiseResult struct {
	N        int      `json:"n"`
	Accuracy Estimate `json:"accuracy"`
	// Wins: the judge scores the preferred candidate higher; Ties: equal
	// scores (counted half); Losses: the judge prefers the other.
	Wins   int `json:"wins"`
	Ties   int `json:"ties"`
	Losses int `json:"losses"`
}

// Pairwise measures scores against pairwise preferences.
func Pairwise(pairs []Pair, o Options) PairwiseResult {
	b, w := make([]float64, len(pairs)), make([]float64, len(pairs))
	r := PairwiseResult{N: len(pairs)}
	for i, p := range pairs {
		b[i], w[i] = p.Better.Score, p.Worse.Score
		switch pairCredit(b[i], w[i]) {
		case 1:
			r.Wins++
		case 0.5:
			r.Ties++
		default:
			r.Losses++
		}
	}
	r.Accuracy = estimate(len(pairs), o, 5, func(idx []int) float64 {
		return PairAccuracy(pick(b, idx), pick(w, idx))
	})
	return r
}

// estimate computes stat on all n rows and its percentile bootstrap
// interval over o's resamples of the rows, drawn with replacement from a
// generator seeded by o.Seed and stream (one stream per figure). Resamples
// where stat is undefined are left out; when more than half are, the
// interval is undefined.
func estimate(n int, o Options, stream uint64, stat func(idx []int) float64) Estimate {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	e := Estimate{Value: stat(all), Low: math.NaN(), High: math.NaN(), N: n}
	if n == 0 || math.IsNaN(e.Value) {
		e.Value = math.NaN()
		return e
	}
	rng := rand.New(rand.NewPCG(o.Seed, stream^0x9e3779b97f4a7c15))
	b := o.resamples()
	vals := make([]float64, 0, b)
	idx := make([]int, n)
	for range b {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		if v := stat(idx); !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if 2*len(vals) < b {
		return e
	}
	slices.Sort(vals)
	a := (1 - Level) / 2
	e.Low, e.High = quantile(vals, a), quantile(vals, 1-a)
	return e
}

// quantile of sorted xs with linear interpolation.
func quantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	f := pos - float64(lo)
	return xs[lo]*(1-f) + xs[lo+1]*f
}

func pick(xs []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

func pickBool(xs []bool, idx []int) []bool {
	out := make([]bool, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// Disagreement is a row (or pair) where judge and label disagree.
type Disagreement struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
	// Label is the label as written.
	Label string `json:"label"`
	// OtherID and OtherScore are the preferred candidate of a pair, empty
	// (nil) for a row. OtherScore is a pointer so that a preferred
	// candidate scored 0 still shows its score.
	OtherID    string   `json:"other_id,omitempty"`
	OtherScore *float64 `json:"other_score,omitempty"`
	// Gap is how far apart judge and label are: for a row, the distance of
	// its score and its label, each scaled to 0-1 (the score by its range,
	// the label by the lowest and highest label); for a pair, how much
	// higher the judge scored the worse candidate.
	Gap float64 `json:"gap"`
}

// RowDisagreements returns the k rows whose scaled score and scaled label
// are furthest apart, largest gap first (then by id); rows that agree
// exactly are left out. lo and hi are the range of the (oriented) scores.
func RowDisagreements(items []Item, k int, lo, hi float64) []Disagreement {
	if len(items) == 0 {
		return nil
	}
	llo, lhi := items[0].Label, items[0].Label
	for _, it := range items {
		llo, lhi = math.Min(llo, it.Label), math.Max(lhi, it.Label)
	}
	scale := func(x, a, b float64) float64 {
		if b <= a {
			return 0.5
		}
		return math.Max(0, math.Min(1, (x-a)/(b-a)))
	}
	var out []Disagreement
	for _, it := range items {
		if g := math.Abs(scale(it.Score, lo, hi) - scale(it.Label, llo, lhi)); g > 1e-9 {
			out = append(out, Disagreement{ID: it.ID, Score: it.Score, Label: labelText(it), Gap: g})
		}
	}
	return top(out, k)
}

func labelText(it Item) string {
	if it.Text != "" {
		return it.Text
	}
	return strconv.FormatFloat(it.Label, 'g', -1, 64)
}

// PairDisagreements returns the k pairs the judge orders against the
// label (ties included, gap 0), the widest gap first.
func PairDisagreements(pairs []Pair, k int) []Disagreement {
	var out []Disagreement
	for _, p := range pairs {
		if p.Better.Score > p.Worse.Score {
			continue
		}
		out = append(out, Disagreement{ID: p.Worse.ID, Score: p.Worse.Score, Label: labelText(p.Worse),
			OtherID: p.Better.ID, OtherScore: &p.Better.Score, Gap: p.Worse.Score - p.Better.Score})
	}
	return top(out, k)
}

func top(ds []Disagreement, k int) []Disagreement {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Gap != ds[j].Gap {
			return ds[i].Gap > ds[j].Gap
		}
		return ds[i].ID < ds[j].ID
	})
	if len(ds) > k {
		ds = ds[:k]
	}
	return ds
}
