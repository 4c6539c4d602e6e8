package compare

import (
	"math"

	"github.com/raggate/raggate/internal/results"
)

// side is one results file indexed for the comparison.
type side struct {
	t       *results.Table
	f       *results.File              // the header
	present map[string]bool            // metrics this side scored
	scores  map[string]*results.Column // metric -> score per sample (NaN undefined)
	// keys are the file's keys of each metric (the aliases it was
	// recorded under), in the order the table met them.
	keys  map[string][]*results.TableKey
	noise map[string]float64 // metric -> judge noise
	// notJudged counts the samples a sequential check left unjudged: they
	// are neither defined nor undefined.
	notJudged int
}

// pair is a paired sample: its index in head and in base.
type pair struct{ h, b int32 }

// newSide indexes t: the metrics it scored, each metric's column of
// scores (the mean of the runs where runs were recorded), its judge
// noise. A metric recorded under one key and without runs reads the
// table's column as it is.
func newSide(t *results.Table) *side {
	f := t.File
	s := &side{t: t, f: f, present: map[string]bool{}, scores: map[string]*results.Column{},
		keys: map[string][]*results.TableKey{}, noise: map[string]float64{}}
	for _, k := range t.Keys() {
		if k.InScores || k.InUndefined || k.InRuns {
			m := CanonicalMetric(k.Name)
			s.keys[m] = append(s.keys[m], k)
		}
	}
	// A metric the file names but no sample records still gets its
	// column (every score undefined): the paired test reads it.
	for _, m := range f.Config.Metrics {
		s.present[CanonicalMetric(m)] = true
	}
	for m := range f.Summary {
		s.present[CanonicalMetric(m)] = true
	}
	for m := range s.keys {
		s.present[m] = true
	}
	var noise noiseSums
	for m := range s.present {
		s.scores[m] = s.column(m, &noise)
	}
	for m, sum := range noise.sum {
		s.noise[m] = sum / float64(noise.n[m])
	}
	if f.Config.Sequential != nil {
		for i := range t.Len() {
			if t.Seq(i) == 0 {
				s.notJudged++
			}
		}
	}
	return s
}

// column returns metric m's scores, one per sample: its keys' scores,
// replaced by the mean of the defined runs where a sample recorded runs.
func (s *side) column(m string, noise *noiseSums) *results.Column {
	keys := s.keys[m]
	scored, runs := 0, false
	for _, k := range keys {
		if k.InScores {
			scored++
		}
		runs = runs || k.InRuns
	}
	if scored == 1 && !runs {
		for _, k := range keys {
			if k.InScores {
				return k.Scores // read only
			}
		}
	}
	col := make([]float64, s.t.Len())
	for i := range col {
		col[i] = math.NaN()
	}
	for _, k := range keys {
		if !k.InScores {
			continue
		}
		for i := range col {
			if v := k.Scores.At(i); !math.IsNaN(v) {
				col[i] = v
			}
		}
	}
	for _, k := range keys {
		if !k.InRuns {
			continue
		}
		var xs []float64
		for i := range col {
			rs := s.t.Runs(k, i)
			if len(rs) == 0 {
				continue // no runs recorded: keep the score
			}
			xs = xs[:0]
			for _, r := range rs {
				if !math.IsNaN(r) && !math.IsInf(r, 0) {
					xs = append(xs, r)
				}
			}
			col[i] = mean(xs)
			if len(xs) >= 2 {
				noise.add(m, stddev(xs))
			}
		}
	}
	return results.Floats(col)
}

// reason returns sample i's reason for metric m (canonical), cut to a
// sentence; "" when it has none. Looked up when a report needs it (the
// few samples it lists), not held for every sample.
func (s *side) reason(i int, m string) string {
	rs := s.t.Sample(i).Reasons
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

// question is sample i's question (read back when a report lists it).
func (s *side) question(i int) string { return s.t.Sample(i).Question }

// noiseSums accumulates the within-sample standard deviations of repeated
// runs per metric.
type noiseSums struct {
	sum map[string]float64
	n   map[string]int
}

func (n *noiseSums) add(m string, sd float64) {
	if n.sum == nil {
		n.sum, n.n = map[string]float64{}, map[string]int{}
	}
	n.sum[m] += sd
	n.n[m]++
}

func (s *side) info() Side {
	return Side{Git: s.f.Git, CreatedAt: s.f.CreatedAt, Dataset: s.f.Dataset, Judge: s.f.Judge,
		Repeats: s.f.Config.Repeats, Samples: s.t.Len(), Usage: s.f.Usage,
		Incomplete: s.f.Incomplete, Shard: s.f.Shard}
}

// defined returns the defined scores of a metric.
func (s *side) defined(m string) []float64 {
	if c, ok := s.scores[m]; ok {
		return c.Defined()
	}
	return []float64{}
}

func (s *side) noiseOf(m string) results.Score {
	if v, ok := s.noise[m]; ok {
		return results.Score(v)
	}
	return results.NaN()
}

// undefined returns what sample i records of its undefined score of
// metric m (canonical), under the first key that has the metric in its
// undefined reasons, else in its scores; ok false when the score is
// defined or the sample has no entry for the metric.
func (s *side) undefined(i int, m string) (results.UndefinedEntry, bool) {
	col, ok := s.scores[m]
	if !ok || !math.IsNaN(col.At(i)) {
		return results.UndefinedEntry{}, false
	}
	keys := s.keys[m]
	for _, k := range keys {
		if e, ok := s.t.Undefined(k, i); ok && e.InUndefined {
			return e, true
		}
	}
	for _, k := range keys {
		if e, ok := s.t.Undefined(k, i); ok && e.InScores {
			return e, true
		}
		if !math.IsNaN(k.Scores.At(i)) {
			// Scored, but its runs are all undefined: no kind.
			return results.UndefinedEntry{InScores: true}, true
		}
	}
	return results.UndefinedEntry{}, false
}

// kindOf returns the kind of metric m's undefined score on sample i ("" when
// defined). A sample without any entry for the metric was not scored for
// it, and a sample a sequential check left unjudged was not either: like
// missing data, that says nothing about the change.
func (s *side) kindOf(i int, m string) results.UndefinedKind {
	if col, ok := s.scores[m]; ok && !math.IsNaN(col.At(i)) {
		return ""
	}
	e, ok := s.undefined(i, m)
	if !ok {
		return results.KindData
	}
	if e.Kind == results.KindNotJudged {
		// A sequential check decided before judging the sample: like
		// missing data, that says nothing about the change.
		return results.KindData
	}
	return e.Kind
}
