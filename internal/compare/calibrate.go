package compare

import (
	"math"
	"sort"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// Calibration is the judge noise of one metric measured from repeated runs
// of the same data (`gate calibrate`).
type Calibration struct {
	Metric string `json:"metric"`
	// N counts the samples with at least two defined runs.
	N int `json:"n"`
	// Repeats is the number of runs per sample.
	Repeats int `json:"repeats"`
	// SampleNoise is the judge noise of one sample's score: the root mean
	// within-sample variance of its runs (sample variance, ddof 1).
	SampleNoise results.Score `json:"sample_noise"`
	// MeanNoise is the standard deviation of the difference of two
	// independent runs' means (an A/A comparison): sqrt(2) * SampleNoise /
	// sqrt(N).
	MeanNoise results.Score `json:"mean_noise"`
	// MDE is the minimum detectable effect at 80% power that judge noise
	// alone allows at this N and alpha; real changes of a pipeline add their
	// own per-sample spread on top.
	MDE results.Score `json:"mde"`
	// Tolerance is the suggested tolerance: the 95% band of A/A noise of the
	// mean (1.96 * MeanNoise), rounded up to 0.005, at least 0.01.
	Tolerance float64 `json:"suggested_tolerance"`
}

// Calibrate measures judge noise per metric from a results file whose
// samples carry runs (gate run --repeats k, k >= 2). The metrics scored
// on their own unbounded scale (OwnScale) are left out: they are read
// from the data, not judged, and a tolerance in score units means
// nothing on their scale.
func Calibrate(f *results.File, alpha float64) []Calibration {
	if alpha <= 0 || alpha >= 1 {
		alpha = 0.05
	}
	names := append([]string(nil), f.Config.Metrics...)
	sort.SliceStable(names, func(a, b int) bool { return metrics.Order(names[a]) < metrics.Order(names[b]) })
	out := make([]Calibration, 0, len(names))
	for _, name := range names {
		if ownScale(f, name) {
			continue
		}
		var sumVar float64
		n := 0
		for _, s := range f.Samples {
			var xs []float64
			for _, v := range s.Runs[name] {
				if !v.IsNaN() {
					xs = append(xs, v.Value())
				}
			}
			if len(xs) < 2 {
				continue
			}
			sumVar += sampleVariance(xs)
			n++
		}
		c := Calibration{Metric: name, N: n, Repeats: f.Config.Repeats,
			SampleNoise: results.NaN(), MeanNoise: results.NaN(), MDE: results.NaN(), Tolerance: 0.01}
		if n > 0 {
			sigma := math.Sqrt(sumVar / float64(n))
			mean := math.Sqrt2 * sigma / math.Sqrt(float64(n))
			c.SampleNoise = results.Score(sigma)
			c.MeanNoise = results.Score(mean)
			c.MDE = results.Score(MinDetectableEffect(math.Sqrt2*sigma, n, alpha, 0.8))
			c.Tolerance = math.Max(0.01, math.Ceil(1.96*mean/0.005-1e-9)*0.005)
		}
		out = append(out, c)
	}
	return out
}

// OwnScale lists the metrics of f scored on their own unbounded scale
// (numeric metrics: milliseconds, tokens, or their log), which Calibrate
// leaves out.
func OwnScale(f *results.File) []string {
	var out []string
	for _, name := range f.Config.Metrics {
		if ownScale(f, name) {
			out = append(out, name)
		}
	}
	return out
}

func ownScale(f *results.File, name string) bool {
	m, ok := f.Metric(name)
	if !ok {
		return false
	}
	lo, hi := m.ScoreRange()
	return math.IsInf(lo, 0) || math.IsInf(hi, 0)
}

func sampleVariance(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return ss / float64(len(xs)-1)
}
