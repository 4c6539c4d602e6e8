package compare

import (
	"math"

	"github.com/raggate/raggate/internal/results"
)

// side is one results file indexed for the comparison.
type side struct {
	f       *results.File
	byID    map[string]int
	present map[string]bool      // metrics this side scored
	scores  map[string][]float64 // metric -> score per sample (NaN undefined)
	noise   map[string]float64   // metric -> judge noise
	// undef is, per sample, canonical metric -> the results key of an
	// undefined score (for its kind and reason).
	undef []map[string]string
	// notJudged counts the samples a sequential check left unjudged: they
	// are neither defined nor undefined.
	notJudged int
}

// pair is a paired sample: its index in head and in base.
type pair struct{ h, b int }

// newSide indexes f: its samples by id (the first of a duplicated id), the
// metrics it scored, each metric's column of scores (the mean of the runs
// where runs were recorded), its judge noise and undefined keys.
func newSide(f *results.File) *side {
	n := len(f.Samples)
	s := &side{f: f, byID: map[string]int{}, present: map[string]bool{},
		scores: map[string][]float64{}, noise: map[string]float64{},
		undef: make([]map[string]string, n)}
	// A metric the file names but no sample records still gets its
	// column (every score undefined): the paired test reads it.
	for _, m := range f.Config.Metrics {
		s.column(CanonicalMetric(m))
	}
	for m := range f.Summary {
		s.column(CanonicalMetric(m))
	}
	var noise noiseSums
	for i, smp := range f.Samples {
		if _, dup := s.byID[smp.ID]; !dup {
			s.byID[smp.ID] = i
		}
		s.addScores(i, smp)
		s.addRuns(i, smp, &noise)
		s.undef[i] = undefinedKeys(smp, s.scores, i)
		if smp.Seq == 0 && f.Config.Sequential != nil {
			s.notJudged++
		}
	}
	for m, sum := range noise.sum {
		s.noise[m] = sum / float64(noise.n[m])
	}
	return s
}

// reason returns sample i's reason for metric m (canonical), cut to a
// sentence; "" when it has none. Looked up when a report needs it (the
// few samples it lists), not copied for every sample.
func (s *side) reason(i int, m string) string {
	rs := s.f.Samples[i].Reasons
	if v, ok := rs[m]; ok {
		return results.ClipReason(v)
	}
	for k, v := range rs {
		if CanonicalMetric(k) == m {
			return results.ClipReason(v)
		}
	}
	return ""
}

// column returns metric m's scores, one per sample, creating the column
// (every score undefined) and marking m present on first use.
func (s *side) column(m string) []float64 {
	s.present[m] = true
	c, ok := s.scores[m]
	if !ok {
		c = make([]float64, len(s.f.Samples))
		for i := range c {
			c[i] = math.NaN()
		}
		s.scores[m] = c
	}
	return c
}

// addScores records sample i's scores; an undefined score keeps its
// metric's column (and the metric present).
func (s *side) addScores(i int, smp results.Sample) {
	for k, v := range smp.Scores {
		col := s.column(CanonicalMetric(k))
		if !v.IsNaN() && !math.IsInf(v.Value(), 0) {
			col[i] = v.Value()
		}
	}
	for k := range smp.Undefined {
		s.column(CanonicalMetric(k))
	}
}

// noiseSums accumulates the within-sample standard deviations of repeated
// runs per metric.
type noiseSums struct {
	sum map[string]float64
	n   map[string]int
}

// addRuns replaces sample i's score of every metric with recorded runs by
// the mean of its defined runs, and adds their spread to noise.
func (s *side) addRuns(i int, smp results.Sample, noise *noiseSums) {
	for k, runs := range smp.Runs {
		col := s.column(CanonicalMetric(k))
		if len(runs) == 0 {
			continue // no runs recorded: keep the score
		}
		var xs []float64
		for _, r := range runs {
			if !r.IsNaN() && !math.IsInf(r.Value(), 0) {
				xs = append(xs, r.Value())
			}
		}
		col[i] = mean(xs)
		if len(xs) >= 2 {
			if noise.sum == nil {
				noise.sum, noise.n = map[string]float64{}, map[string]int{}
			}
			m := CanonicalMetric(k)
			noise.sum[m] += stddev(xs)
			noise.n[m]++
		}
	}
}

func (s *side) info() Side {
	return Side{Git: s.f.Git, CreatedAt: s.f.CreatedAt, Dataset: s.f.Dataset, Judge: s.f.Judge,
		Repeats: s.f.Config.Repeats, Samples: len(s.f.Samples), Usage: s.f.Usage,
		Incomplete: s.f.Incomplete, Shard: s.f.Shard}
}

// defined returns the defined scores of a metric.
func (s *side) defined(m string) []float64 {
	return dropNaN(s.scores[m])
}

func (s *side) noiseOf(m string) results.Score {
	if v, ok := s.noise[m]; ok {
		return results.Score(v)
	}
	return results.NaN()
}

// undefinedKeys maps the canonical name of every metric undefined on
// sample i to the sample's key for it.
func undefinedKeys(smp results.Sample, scores map[string][]float64, i int) map[string]string {
	var out map[string]string
	add := func(k string) {
		m := CanonicalMetric(k)
		if col, ok := scores[m]; ok && math.IsNaN(col[i]) {
			if out == nil {
				out = map[string]string{}
			}
			if _, dup := out[m]; !dup {
				out[m] = k
			}
		}
	}
	for k := range smp.Undefined {
		add(k)
	}
	for k := range smp.Scores {
		add(k)
	}
	return out
}

// kindOf returns the kind of metric m's undefined score on sample i ("" when
// defined). A sample without any entry for the metric was not scored for
// it, and a sample a sequential check left unjudged was not either: like
// missing data, that says nothing about the change.
func (s *side) kindOf(i int, m string) results.UndefinedKind {
	if col, ok := s.scores[m]; ok && !math.IsNaN(col[i]) {
		return ""
	}
	k, ok := s.undef[i][m]
	if !ok {
		return results.KindData
	}
	kind := s.f.Samples[i].KindOf(k)
	if kind == results.KindNotJudged {
		// A sequential check decided before judging the sample: like
		// missing data, that says nothing about the change.
		return results.KindData
	}
	return kind
}
