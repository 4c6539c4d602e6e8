package compare

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// Config tunes the statistics; the zero value is the default.
type Config struct {
	// Bootstrap is the number of bootstrap resamples for the confidence
	// interval of the mean delta: 0 means 10,000; negative skips the
	// interval (the verdict never depends on it).
	Bootstrap int
	// PermutationDraws is the number of Monte Carlo sign patterns when a
	// metric has more than ExactLimit non-zero differences: 0 means 20,000.
	PermutationDraws int
}

const (
	defaultBootstrap = 10000
	defaultDraws     = 20000
	ciLevel          = 0.95
	mdePower         = 0.8
	topRegressed     = 10
	// eps absorbs floating-point error in threshold comparisons.
	eps = 1e-12
)

// Compare compares head with base (nil: no baseline, floors only) under
// th, with the default Config.
func Compare(base, head *results.File, th Thresholds) *Report {
	return Config{}.Compare(base, head, th)
}

// side is one results file indexed for the comparison.
type side struct {
	f       *results.File
	byID    map[string]int
	present map[string]bool      // metrics this side scored
	scores  map[string][]float64 // metric -> score per sample (NaN undefined)
	noise   map[string]float64   // metric -> judge noise
	reasons []map[string]string  // per sample, canonical metric -> reason
	// undef is, per sample, canonical metric -> the results key of an
	// undefined score (for its kind and reason).
	undef []map[string]string
}

// pair is a paired sample: its index in head and in base.
type pair struct{ h, b int }

func newSide(f *results.File) *side {
	s := &side{f: f, byID: map[string]int{}, present: map[string]bool{},
		scores: map[string][]float64{}, noise: map[string]float64{}}
	for _, m := range f.Config.Metrics {
		s.present[CanonicalMetric(m)] = true
	}
	for m := range f.Summary {
		s.present[CanonicalMetric(m)] = true
	}
	n := len(f.Samples)
	col := func(m string) []float64 {
		c, ok := s.scores[m]
		if !ok {
			c = make([]float64, n)
			for i := range c {
				c[i] = math.NaN()
			}
			s.scores[m] = c
		}
		return c
	}
	noiseSum, noiseN := map[string]float64{}, map[string]int{}
	s.reasons = make([]map[string]string, n)
	s.undef = make([]map[string]string, n)
	for i, smp := range f.Samples {
		if _, dup := s.byID[smp.ID]; !dup {
			s.byID[smp.ID] = i
		}
		for k, v := range smp.Scores {
			m := CanonicalMetric(k)
			s.present[m] = true
			if !v.IsNaN() && !math.IsInf(v.Value(), 0) {
				col(m)[i] = v.Value()
			} else {
				col(m)
			}
		}
		for k := range smp.Undefined {
			m := CanonicalMetric(k)
			s.present[m] = true
			col(m)
		}
		for k, runs := range smp.Runs {
			m := CanonicalMetric(k)
			s.present[m] = true
			var xs []float64
			for _, r := range runs {
				if !r.IsNaN() && !math.IsInf(r.Value(), 0) {
					xs = append(xs, r.Value())
				}
			}
			if len(runs) == 0 {
				continue // no runs recorded: keep the score
			}
			col(m)[i] = mean(xs)
			if len(xs) >= 2 {
				noiseSum[m] += stddev(xs)
				noiseN[m]++
			}
		}
		s.undef[i] = undefinedKeys(smp, s.scores, i)
		if len(smp.Reasons) > 0 {
			s.reasons[i] = map[string]string{}
			for k, v := range smp.Reasons {
				s.reasons[i][CanonicalMetric(k)] = v
			}
		}
	}
	for m, sum := range noiseSum {
		s.noise[m] = sum / float64(noiseN[m])
	}
	return s
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

// Compare compares head with base (nil: no baseline, floors only) under th.
// head must not be nil.
func (c Config) Compare(base, head *results.File, th Thresholds) *Report {
	if head == nil {
		head = &results.File{}
	}
	def := th.resolvedDefaults()
	boot := c.Bootstrap
	if boot == 0 {
		boot = defaultBootstrap
	}
	if boot < 0 {
		boot = 0
	}
	draws := c.PermutationDraws
	if draws <= 0 {
		draws = defaultDraws
	}
	r := &Report{
		Schema:       ReportSchema,
		Failures:     []string{},
		Warnings:     []string{},
		Notes:        []string{},
		Metrics:      []MetricResult{},
		TopRegressed: []SampleDelta{},
		New:          []SampleRef{},
		Removed:      []SampleRef{},
		HasBaseline:  base != nil,
		Settings: Settings{Thresholds: th.Source, Defaults: def, Bootstrap: boot,
			PermutationDraws: draws, CILevel: ciLevel, Power: mdePower},
	}
	hs := newSide(head)
	r.Head = hs.info()
	r.Counts.Head = len(head.Samples)
	var bs *side
	if base != nil {
		bs = newSide(base)
		info := bs.info()
		r.Base = &info
		r.Counts.Base = len(base.Samples)
	}

	// Pair samples by id.
	var pairs []pair
	for i, smp := range head.Samples {
		if bs == nil {
			continue
		}
		if hi := hs.byID[smp.ID]; hi != i {
			continue // duplicate id: the first one counts
		}
		if j, ok := bs.byID[smp.ID]; ok {
			pairs = append(pairs, pair{i, j})
			if smp.InputHash != "" && base.Samples[j].InputHash != "" && smp.InputHash != base.Samples[j].InputHash {
				r.Counts.InputsChanged++
			}
		} else {
			r.New = append(r.New, SampleRef{ID: smp.ID, Question: smp.Question})
		}
	}
	if bs != nil {
		for j, smp := range base.Samples {
			if bs.byID[smp.ID] != j {
				continue
			}
			if _, ok := hs.byID[smp.ID]; !ok {
				r.Removed = append(r.Removed, SampleRef{ID: smp.ID, Question: smp.Question})
			}
		}
	}
	r.Counts.Paired, r.Counts.New, r.Counts.Removed = len(pairs), len(r.New), len(r.Removed)

	// The metrics, in catalogue order.
	names := map[string]bool{}
	for m := range hs.present {
		names[m] = true
	}
	if bs != nil {
		for m := range bs.present {
			names[m] = true
		}
	}
	order := make([]string, 0, len(names))
	for m := range names {
		order = append(order, m)
	}
	sort.Slice(order, func(i, j int) bool {
		oi, oj := metrics.Order(order[i]), metrics.Order(order[j])
		if oi != oj {
			return oi < oj
		}
		return order[i] < order[j]
	})

	// Per-metric oriented differences, kept for the per-sample view.
	st := statsConfig{boot: boot, draws: draws, minSamples: def.MinSamples}
	perMetric := map[string]diffs{}
	var tested []int // indexes into r.Metrics of tested metrics
	var few []string
	for _, m := range order {
		rule := th.For(m)
		dir := metrics.HigherIsBetter
		if cm, ok := metrics.Lookup(m); ok {
			dir = cm.Direction
		}
		mr := newMetricResult(m, dir.String(), rule, !th.Gated(m))
		inHead, inBase := hs.present[m], bs != nil && bs.present[m]
		if inHead {
			xs := hs.defined(m)
			mr.HeadN, mr.HeadUndefined = len(xs), len(head.Samples)-len(xs)
			mr.HeadMean, mr.HeadDist = results.Score(mean(xs)), dist(xs)
			mr.HeadJudgeNoise = hs.noiseOf(m)
		}
		if inBase {
			xs := bs.defined(m)
			mr.BaseN, mr.BaseUndefined = len(xs), len(base.Samples)-len(xs)
			mr.BaseMean, mr.BaseDist = results.Score(mean(xs)), dist(xs)
			mr.BaseJudgeNoise = bs.noiseOf(m)
		}
		switch {
		case bs == nil:
			mr.Change = VerdictNoBaseline
		case !inHead:
			mr.Change = VerdictNotInHead
		case !inBase:
			mr.Change = VerdictNewMetric
		default:
			dd, ok := st.testPairs(&mr, hs, bs, pairs, m)
			perMetric[m] = dd
			if !ok {
				few = append(few, fmt.Sprintf("%s (%d)", m, mr.N))
				break
			}
			tested = append(tested, len(r.Metrics))
		}
		r.Metrics = append(r.Metrics, mr)
	}

	segs := st.compareSegments(th.Segments, hs, bs, pairs, r.Metrics)
	ptrs, flags := pointers(r.Metrics, tested)
	ptrs, flags = append(ptrs, segs.ptrs...), append(flags, segs.tested...)
	adjustHypotheses(ptrs, flags, def.Correction)
	decideHypotheses(ptrs, flags)

	// Verdicts, floors, levels.
	var fail, warn []string
	var weak, reportOnly []string
	for i := range r.Metrics {
		mr := &r.Metrics[i]
		mr.Verdict = mr.Change
		var reasons []string
		if mr.Change == VerdictRegression {
			reasons = append(reasons, fmt.Sprintf("%s regressed by %s (%s)", mr.Metric,
				fmtDelta(math.Abs(mr.Delta.Value())), fmtP(mr.PWorseAdj.Value())))
		}
		if mr.Rule.Min != nil || mr.Rule.Max != nil {
			hm := mr.HeadMean.Value()
			switch {
			case !hs.present[mr.Metric] || mr.HeadN == 0:
				warn = append(warn, fmt.Sprintf("%s has a floor in the thresholds but no defined score on head; floor not checked", mr.Metric))
			case mr.Rule.Min != nil && hm < *mr.Rule.Min-eps:
				mr.Floor = FloorBelowMin
				reasons = append(reasons, fmt.Sprintf("%s %s below floor %s", mr.Metric, fmtVs(hm, *mr.Rule.Min), fmtScore(*mr.Rule.Min)))
			case mr.Rule.Max != nil && hm > *mr.Rule.Max+eps:
				mr.Floor = FloorAboveMax
				reasons = append(reasons, fmt.Sprintf("%s %s above ceiling %s", mr.Metric, fmtVs(hm, *mr.Rule.Max), fmtScore(*mr.Rule.Max)))
			default:
				mr.Floor = FloorOK
			}
		}
		if mr.Floor == FloorBelowMin || mr.Floor == FloorAboveMax {
			if mr.Change != VerdictRegression {
				mr.Verdict = VerdictBelowFloor
			}
		}
		if mr.LostScores {
			reasons = append(reasons, lostMessage(mr))
			if mr.Change != VerdictRegression {
				mr.Verdict = VerdictLostScores
			}
		}
		if len(reasons) > 0 {
			mr.Reasons = reasons
			switch {
			case mr.ReportOnly:
				reportOnly = append(reportOnly, reasons...)
			case mr.Rule.Level == LevelWarn:
				mr.Status = StatusWarn
				warn = append(warn, reasons...)
			default:
				mr.Status = StatusFail
				fail = append(fail, reasons...)
			}
		}
		if mr.Change == VerdictNotInHead {
			warn = append(warn, fmt.Sprintf("%s was scored on base but not on head", mr.Metric))
		}
		// A judge that fails on most samples must not turn the gate green
		// by leaving too few pairs to test.
		if hn, bn := mr.HeadN+mr.HeadUndefined, mr.BaseN+mr.BaseUndefined; bs != nil && hs.present[mr.Metric] && bn > 0 && hn > 0 &&
			2*mr.HeadUndefined > hn && 2*mr.BaseUndefined <= bn {
			msg := fmt.Sprintf("%s is undefined for %d of %d head samples (base: %d of %d): the judge failed on most samples, see the results' undefined reasons",
				mr.Metric, mr.HeadUndefined, hn, mr.BaseUndefined, bn)
			mr.Reasons = append(mr.Reasons, msg)
			if mr.ReportOnly {
				reportOnly = append(reportOnly, msg)
			} else if mr.Rule.Level == LevelWarn {
				mr.Status = StatusWarn
				warn = append(warn, msg)
			} else {
				mr.Status = StatusFail
				fail = append(fail, msg)
			}
		}
		if isTested(mr.Change) && !mr.MDE.IsNaN() && mr.MDE.Value() > mr.Rule.Tolerance+eps {
			weak = append(weak, fmt.Sprintf("%s %s", mr.Metric, fmtDelta(mr.MDE.Value())))
		}
	}

	sf, sw, so := segs.verdicts(def.SegmentLevel)
	fail, warn, reportOnly = append(fail, sf...), append(warn, sw...), append(reportOnly, so...)
	warn = append(warn, segs.warnings...)
	if len(th.Segments) > 0 && bs != nil {
		r.Segments = segs.keys
	}

	// Situations.
	if base == nil {
		r.Notes = append(r.Notes, "no baseline: only floors were checked (store one with `gate baseline put` on the base branch)")
		if def.OnMissingBaseline == ActionFail {
			fail = append(fail, "no baseline to compare with (on_missing_baseline: fail)")
		}
	} else {
		if base.Judge.Fingerprint != head.Judge.Fingerprint {
			r.JudgeChanged = true
			msg := fmt.Sprintf("judge changed: base was judged by %s, head by %s; score differences may come from the judge rather than from the change (re-create the baseline with this judge)",
				judgeDesc(base.Judge), judgeDesc(head.Judge))
			if def.OnJudgeChange == ActionFail {
				fail = append(fail, msg+" (on_judge_change: fail)")
			} else {
				warn = append(warn, msg)
			}
		}
		if base.Dataset.SHA256 != "" && head.Dataset.SHA256 != "" && base.Dataset.SHA256 != head.Dataset.SHA256 {
			r.DatasetChanged = true
			r.Notes = append(r.Notes, fmt.Sprintf("dataset changed (sha256 %s -> %s): %d new and %d removed samples; the %d samples on both sides are compared",
				short(base.Dataset.SHA256), short(head.Dataset.SHA256), r.Counts.New, r.Counts.Removed, r.Counts.Paired))
		}
		if r.Counts.InputsChanged > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%d of %d paired samples have changed inputs", r.Counts.InputsChanged, r.Counts.Paired))
		}
		if base.Incomplete != "" {
			warn = append(warn, fmt.Sprintf("base run is incomplete (%s): %d samples scored", base.Incomplete, len(base.Samples)))
		}
		if base.Shard != "" {
			warn = append(warn, fmt.Sprintf("base holds only shard %s; merge the shards with `gate merge` before comparing", base.Shard))
		}
		if base.Config.Repeats != head.Config.Repeats && base.Config.Repeats > 0 && head.Config.Repeats > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("repeats differ: base %d, head %d", base.Config.Repeats, head.Config.Repeats))
		}
		if len(few) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("fewer than %d paired samples, reported but not tested: %s", def.MinSamples, strings.Join(few, ", ")))
		}
		r.Notes = append(r.Notes, segs.notes...)
		if n := segs.untestedNote(def.MinSamples); n != "" {
			r.Notes = append(r.Notes, n)
		}
		if len(weak) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("with these samples, changes smaller than the minimum detectable effect (80%% power) may show as ~: %s", strings.Join(weak, ", ")))
		}
	}
	hf, hw := headCompleteness(r, base, head)
	fail, warn = append(fail, hf...), append(warn, hw...)
	if head.Shard != "" {
		warn = append(warn, fmt.Sprintf("head holds only shard %s; merge the shards with `gate merge` before comparing", head.Shard))
	}
	if len(reportOnly) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("report-only metrics (not gated, see the thresholds' gate and report_only): %s", strings.Join(reportOnly, "; ")))
	}
	var unused []string
	for m := range th.Metrics {
		if cm := CanonicalMetric(m); !names[cm] {
			unused = append(unused, cm)
		}
	}
	if len(unused) > 0 {
		sort.Slice(unused, func(i, j int) bool { return metrics.Order(unused[i]) < metrics.Order(unused[j]) })
		r.Notes = append(r.Notes, fmt.Sprintf("the thresholds set rules for metrics neither side scored: %s", strings.Join(unused, ", ")))
	}

	r.Failures = append(r.Failures, fail...)
	r.Warnings = append(r.Warnings, warn...)
	switch {
	case len(r.Failures) > 0:
		r.Passed, r.Verdict = false, VerdictFail
	case len(r.Warnings) > 0:
		r.Passed, r.Verdict = true, VerdictPassWithWarnings
	default:
		r.Passed, r.Verdict = true, VerdictPass
	}

	// The most regressed samples.
	if bs != nil {
		type worst struct {
			metric string
			d      float64
		}
		w := make([]worst, len(pairs))
		for i := range w {
			w[i].d = math.Inf(1)
		}
		for _, m := range order { // catalogue order: ties go to the first metric
			dd := perMetric[m]
			for k, pi := range dd.pairIdx {
				if dd.d[k] < w[pi].d {
					w[pi] = worst{m, dd.d[k]}
				}
			}
		}
		var idx []int
		for pi := range pairs {
			if w[pi].d < -zeroDiff {
				idx = append(idx, pi)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool {
			if w[idx[a]].d != w[idx[b]].d {
				return w[idx[a]].d < w[idx[b]].d
			}
			return head.Samples[pairs[idx[a]].h].ID < head.Samples[pairs[idx[b]].h].ID
		})
		if len(idx) > topRegressed {
			idx = idx[:topRegressed]
		}
		for _, pi := range idx {
			p := pairs[pi]
			hsmp, bsmp := head.Samples[p.h], base.Samples[p.b]
			sd := SampleDelta{ID: hsmp.ID, Question: hsmp.Question, WorstMetric: w[pi].metric,
				WorstDelta: results.Score(w[pi].d), Metrics: []SampleMetric{}, Segments: sampleSegments(th.Segments, hs, bs, p)}
			if sd.Question == "" {
				sd.Question = bsmp.Question
			}
			for _, m := range order {
				if _, ok := perMetric[m]; !ok {
					continue
				}
				h, b := hs.scores[m][p.h], bs.scores[m][p.b]
				if math.IsNaN(h) || math.IsNaN(b) || math.Abs(h-b) <= zeroDiff {
					continue
				}
				sm := SampleMetric{Metric: m, Base: results.Score(b), Head: results.Score(h), Delta: results.Score(h - b)}
				if rs := hs.reasons[p.h]; rs != nil {
					sm.Reason = rs[m]
				}
				sd.Metrics = append(sd.Metrics, sm)
			}
			r.TopRegressed = append(r.TopRegressed, sd)
		}
	}
	return r
}

// diffs are a metric's oriented differences over a set of pairs, each with
// its index in that set.
type diffs struct {
	pairIdx []int
	d       []float64
}

// statsConfig is what the paired statistics of one metric need.
type statsConfig struct{ boot, draws, minSamples int }

// testPairs fills mr's paired statistics over pairs (every pair, or one
// segment's): the paired means and delta, its interval, the worse / same /
// better counts, the MDE, the lost-scores counts and test, and with at
// least minSamples differences the sign-flip test (else the change is
// VerdictInsufficientData). label names the random streams. It returns the
// differences and whether the sign-flip test ran.
func (st statsConfig) testPairs(mr *MetricResult, hs, bs *side, pairs []pair, label string) (diffs, bool) {
	m, lower := mr.Metric, mr.Direction == metrics.LowerIsBetter.String()
	dd, hv, bv, raw := pairDiffs(mr, hs.scores[m], bs.scores[m], pairs, lower)
	testLost(mr, hs, bs, pairs)
	mr.N = len(dd.d)
	if mr.N > 0 {
		mr.PairedBaseMean, mr.PairedHeadMean = results.Score(mean(bv)), results.Score(mean(hv))
		mr.RawDelta, mr.Delta = results.Score(mean(raw)), results.Score(mean(dd.d))
		mr.SD = results.Score(stddev(dd.d))
		countSigns(mr, dd.d)
		if st.boot > 0 && mr.N >= 2 {
			lo, hi := BootstrapMeanCI(dd.d, ciLevel, st.boot, seedOf("bootstrap:"+label, dd.d))
			mr.DeltaCI = Interval{Low: results.Score(lo), High: results.Score(hi)}
			mr.RawDeltaCI = mr.DeltaCI
			if lower {
				mr.RawDeltaCI = Interval{Low: results.Score(-hi), High: results.Score(-lo)}
			}
		}
		mr.MDE = results.Score(MinDetectableEffect(stddev(dd.d), mr.N, mr.Rule.Alpha, mdePower))
	}
	if mr.N < st.minSamples {
		mr.Change = VerdictInsufficientData
		return dd, false
	}
	sf := SignFlipTest(dd.d, st.draws, seedOf("signflip:"+label, dd.d))
	mr.PWorse, mr.PBetter, mr.Exact = results.Score(sf.PWorse), results.Score(sf.PBetter), sf.Exact
	return dd, true
}

// pairDiffs returns the oriented differences of the pairs where both
// scores are defined, with the head, base and raw differences, and counts
// in mr the pairs scored on one side only.
func pairDiffs(mr *MetricResult, hcol, bcol []float64, pairs []pair, lower bool) (dd diffs, hv, bv, raw []float64) {
	for pi, p := range pairs {
		h, b := hcol[p.h], bcol[p.b]
		if math.IsNaN(h) != math.IsNaN(b) {
			mr.Unpaired++
		}
		if math.IsNaN(h) || math.IsNaN(b) {
			continue
		}
		x := h - b
		if lower {
			x = -x
		}
		dd.pairIdx = append(dd.pairIdx, pi)
		dd.d = append(dd.d, x)
		hv, bv, raw = append(hv, h), append(bv, b), append(raw, h-b)
	}
	return dd, hv, bv, raw
}

// countSigns counts the worse, same and better differences.
func countSigns(mr *MetricResult, d []float64) {
	for _, x := range d {
		switch {
		case x > zeroDiff:
			mr.Better++
		case x < -zeroDiff:
			mr.Worse++
		default:
			mr.Same++
		}
	}
}

// newMetricResult is a metric's result before any statistic: every number
// undefined, status ok.
func newMetricResult(m, dir string, rule MetricRule, reportOnly bool) MetricResult {
	return MetricResult{
		Metric: m, Direction: dir, Rule: rule, Status: StatusOK, ReportOnly: reportOnly,
		LostShare: results.NaN(), PLost: results.NaN(), PLostAdj: results.NaN(),
		BaseMean: results.NaN(), HeadMean: results.NaN(),
		BaseJudgeNoise: results.NaN(), HeadJudgeNoise: results.NaN(),
		PairedBaseMean: results.NaN(), PairedHeadMean: results.NaN(),
		RawDelta: results.NaN(), Delta: results.NaN(), SD: results.NaN(),
		RawDeltaCI: nanInterval(), DeltaCI: nanInterval(),
		PWorse: results.NaN(), PBetter: results.NaN(), PWorseAdj: results.NaN(), PBetterAdj: results.NaN(),
		MDE: results.NaN(), BaseDist: nanDist(), HeadDist: nanDist(),
	}
}

func isTested(v Verdict) bool {
	return v == VerdictRegression || v == VerdictImprovement || v == VerdictNoChange
}

func nanInterval() Interval { return Interval{Low: results.NaN(), High: results.NaN()} }

func nanDist() Distribution {
	return Distribution{P10: results.NaN(), Median: results.NaN(), P90: results.NaN()}
}

func dist(xs []float64) Distribution {
	if len(xs) == 0 {
		return nanDist()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return Distribution{
		P10:    results.Score(quantileSorted(s, 0.1)),
		Median: results.Score(quantileSorted(s, 0.5)),
		P90:    results.Score(quantileSorted(s, 0.9)),
	}
}

func judgeDesc(j results.Judge) string {
	parts := []string{}
	if j.Provider != "" {
		parts = append(parts, j.Provider)
	}
	if j.Model != "" {
		parts = append(parts, j.Model)
	}
	desc := strings.Join(parts, " ")
	if desc == "" {
		desc = "an unnamed judge"
	}
	fp := short(j.Fingerprint)
	if fp == "" {
		fp = "none"
	}
	return fmt.Sprintf("%s (fingerprint %s)", desc, fp)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// fmtScore formats a mean or a floor with two decimals.
func fmtScore(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// fmtVs formats x with enough decimals to differ from the bound it is
// compared with ("0.799" rather than "0.80" against a floor of 0.80).
func fmtVs(x, bound float64) string {
	for prec := 2; prec < 6; prec++ {
		if s := strconv.FormatFloat(x, 'f', prec, 64); s != strconv.FormatFloat(bound, 'f', prec, 64) {
			return s
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// fmtDelta formats a difference with two decimals, or three when two would
// show 0.00.
func fmtDelta(x float64) string {
	if s := strconv.FormatFloat(x, 'f', 2, 64); s != "0.00" && s != "-0.00" {
		return s
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// fmtP formats a p-value as "p=0.003", or "p<0.001" below that.
func fmtP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return "p=" + strconv.FormatFloat(p, 'f', 3, 64)
}
