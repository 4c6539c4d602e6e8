package compare

import (
	"fmt"
	"math"

	"github.com/raggate/raggate/internal/anytime"
	"github.com/raggate/raggate/internal/results"
)

// Sequential decisions (docs/statistics.md, "Sequential decisions"): the
// gate judges the head's samples in batches and, after every batch, asks
// a SeqState whether each gated metric is decided. The statistics are
// anytime-valid (package anytime), so looking after every batch and
// stopping at the first decision keeps the error rates of the fixed
// design:
//
//   - change: the mean paired difference (oriented, in [-1, 1]) fails when
//     its confidence sequence shows it below 0 and its running estimate is
//     at or below -tolerance (today's "significant and at least the
//     tolerance"), and passes when the sequence's lower bound is above
//     -tolerance (non-inferiority);
//   - lost scores: fails when the sign e-process of lost against regained
//     scores reaches 1/alpha and the net share lost is at least the
//     tolerance; passes when the confidence sequence of the net share
//     (lost +1, regained -1, else 0 per pair) is below the tolerance;
//   - floor: the head mean's confidence sequence below min (above max)
//     fails, above min (below max) passes.
//
// Every change and lost-scores test, of every gated metric on the whole
// set and on every segment, runs at alpha/K (Bonferroni over the K tests
// of the family; the floors are a family of their own). A test still
// undecided when every sample is judged passes: it was never shown worse
// (floors: the head mean over every sample against the bound, today's
// rule). Numeric metrics (unbounded scores) are never decided early: the
// run judges every sample while one is gated, and at the end they take
// today's sign-flip test at their share alpha/K.

// SeqMetric is a gated metric of a sequential run.
type SeqMetric struct {
	// Name is the metric's canonical name (CanonicalMetric).
	Name string
	// Rule holds the tolerance, alpha and floors (Thresholds.For).
	Rule MetricRule
	// Lower is true for a lower-is-better metric: its differences are
	// base - head, so that negative always means worse.
	Lower bool
	// Numeric marks scores that are not bounded in [0, 1] (numeric
	// user-defined metrics): decided only at the end, by the fixed design.
	Numeric bool
}

// SeqSegment is one segment of the dataset (metadata key = value, the
// value NoSegmentValue for samples without it) and how many of the run's
// samples are in it. A segment with fewer than MinSamples samples is not
// tested, as in Compare.
type SeqSegment struct {
	Key, Value string
	Samples    int
}

// SeqConfig describes a sequential run.
type SeqConfig struct {
	Metrics  []SeqMetric
	Segments []SeqSegment
	// Total is the number of samples the full run would judge (paired
	// with the base).
	Total int
	// MinSamples is the number of pairs a test needs before it decides
	// (Defaults.MinSamples; 10 when 0).
	MinSamples int
}

// SeqTest names what a sequential result tests.
type SeqTest string

// The tests of a gated metric.
const (
	SeqChange SeqTest = "change"
	SeqLost   SeqTest = "lost_scores"
	SeqFloor  SeqTest = "floor"
)

// SeqDecision is the state of a test, or of the gate.
type SeqDecision string

// The decisions.
const (
	SeqUndecided SeqDecision = "undecided"
	SeqPassed    SeqDecision = "passed"
	SeqFailed    SeqDecision = "failed"
)

// SeqReason says why a test is decided (package report words it).
type SeqReason string

// The reasons.
const (
	// ReasonWorse: the change is shown below 0 and estimated at or below
	// -tolerance.
	ReasonWorse SeqReason = "worse"
	// ReasonNotWorse: the change is shown above -tolerance.
	ReasonNotWorse SeqReason = "not_worse"
	// ReasonLosesScores: more scores are shown lost than regained, and the
	// net share lost is at least the tolerance.
	ReasonLosesScores SeqReason = "loses_scores"
	// ReasonKeepsScores: the net share lost is shown below the tolerance.
	ReasonKeepsScores SeqReason = "keeps_scores"
	// ReasonBelowFloor and ReasonAboveCeiling: the head mean is shown
	// below min or above max (at the end: is).
	ReasonBelowFloor   SeqReason = "below_floor"
	ReasonAboveCeiling SeqReason = "above_ceiling"
	// ReasonWithinFloors: the head mean is shown within min and max (at
	// the end: is).
	ReasonWithinFloors SeqReason = "within_floors"
	// ReasonNotShown: every sample judged and the test never decided: it
	// passes, as today's "~".
	ReasonNotShown SeqReason = "not_shown"
	// ReasonTooFew: every sample judged and fewer than MinSamples pairs:
	// passes, as today's "insufficient data".
	ReasonTooFew SeqReason = "too_few_pairs"
	// ReasonFixedDesign: a numeric metric, decided at the end by the
	// sign-flip test at its share of alpha.
	ReasonFixedDesign SeqReason = "fixed_design"
)

// SeqResult is one test of a gated metric after a look.
type SeqResult struct {
	Metric string
	// Segment is "" for the whole set, else "key=value".
	Segment  string
	Test     SeqTest
	Decision SeqDecision
	Reason   SeqReason // "" while undecided
	// N counts the test's observations so far: the pairs (change), the
	// pairs where neither side lacks data (lost scores), the head scores
	// (floor).
	N int
	// Mean is the estimate: the mean difference (change), the net share
	// of scores lost (lost scores), the head mean (floor).
	Mean float64
	// Low and High are the bounds of the confidence sequence of Mean's
	// quantity, each one-sided at Alpha (NaN for numeric metrics).
	Low, High float64
	// Alpha is the test's share of the run's alpha.
	Alpha float64
	// E is the lost-scores e-value reached (NaN for the other tests).
	E float64
	// DecidedAt is the number of samples judged (Judged) at the look that
	// decided the test; 0 while undecided.
	DecidedAt int
}

// SeqOutcome is the result of a look: the gate's decision (failed when
// any test failed, passed when every test passed) and every test's.
type SeqOutcome struct {
	Decision SeqDecision
	// Judged counts the samples added (known ones included), of Total.
	Judged, Total int
	// Final is true when every sample is judged: nothing is undecided.
	Final   bool
	Results []SeqResult
}

// SeqState accumulates the judged pairs of a sequential run. Add the
// samples whose scores are known without judging (the cache) first with
// AddKnown, then the judged samples with Add in a random order (each
// prefix a random sample of the rest), and call Decide after every batch.
// The known samples are a stratum of their own, weighted by their share
// of the samples: a test's quantity is w * (the known samples' mean) +
// (1 - w) * (the mean of the rest), and only the rest is estimated.
type SeqState struct {
	cfg     SeqConfig
	members []*seqMember
	judged  int
	random  int // samples added with Add
	segIdx  map[[2]string]int
	// failAtTolerance switches the change rule to "upper bound below
	// -tolerance" (the simulation compares the two rules).
	failAtTolerance bool
}

// seqMember is one test: a stratified mean with its confidence sequence
// (change, lost scores, floor), the sign e-process (lost scores) and,
// for numeric metrics, every difference for the final fixed test.
type seqMember struct {
	res      SeqResult
	metric   int
	seg      int // -1: the whole set
	numeric  bool
	tol      float64
	min, max *float64
	samples  int // samples in the member's set
	known    int // known samples of the set
	kSum     float64
	kN       int
	// points are the member's decision points on the full scale; the
	// confidence sequence of the rest tracks them mapped (pointsU).
	points    []float64
	lo, hi    float64
	cs        *anytime.CS
	w, kMean  float64
	mapped    []float64 // points on the rest's scale (may fall outside [lo, hi])
	sign      *anytime.SignE
	diffs     []float64
	headSum   float64 // floors at the end: every head score
	headCount int
}

// NewSeqState starts a sequential run. It returns an error for a metric
// without a name, a tolerance or alpha it cannot use, or a Total below 1.
func NewSeqState(cfg SeqConfig) (*SeqState, error) {
	if cfg.Total < 1 {
		return nil, fmt.Errorf("sequential: the run has %d samples; it needs at least 1", cfg.Total)
	}
	if cfg.MinSamples <= 0 {
		cfg.MinSamples = 10
	}
	s := &SeqState{cfg: cfg, segIdx: map[[2]string]int{}}
	for i, sg := range cfg.Segments {
		s.segIdx[[2]string{sg.Key, sg.Value}] = i
	}
	var change, floors []*seqMember
	for mi, m := range cfg.Metrics {
		r := m.Rule
		if m.Name == "" || !(r.Alpha > 0 && r.Alpha < 1) || !(r.Tolerance >= 0) || r.Tolerance > 1 {
			return nil, fmt.Errorf("sequential: metric %q needs a name, alpha in (0, 1) and a tolerance in [0, 1]", m.Name)
		}
		for seg := -1; seg < len(cfg.Segments); seg++ {
			n, name := cfg.Total, ""
			if seg >= 0 {
				n, name = cfg.Segments[seg].Samples, cfg.Segments[seg].Key+"="+cfg.Segments[seg].Value
				if n < cfg.MinSamples {
					continue
				}
			}
			base := seqMember{metric: mi, seg: seg, tol: r.Tolerance, samples: n,
				res: SeqResult{Metric: m.Name, Segment: name, Decision: SeqUndecided, E: math.NaN()}}
			ch := base
			ch.res.Test, ch.numeric, ch.lo, ch.hi = SeqChange, m.Numeric, -1, 1
			ch.points = []float64{-r.Tolerance, 0} // pass above -tol; fail below 0 (or below -tol)
			lost := base
			lost.res.Test, lost.lo, lost.hi, lost.sign = SeqLost, -1, 1, &anytime.SignE{}
			lost.points = []float64{r.Tolerance}
			change = append(change, &ch, &lost)
			if seg < 0 && (r.Min != nil || r.Max != nil) {
				fl := base
				fl.res.Test, fl.numeric, fl.lo, fl.hi, fl.min, fl.max = SeqFloor, m.Numeric, 0, 1, r.Min, r.Max
				for _, b := range []*float64{r.Min, r.Max} {
					if b != nil {
						fl.points = append(fl.points, math.Min(1, math.Max(0, *b)))
					}
				}
				floors = append(floors, &fl)
			}
		}
	}
	for _, fam := range [][]*seqMember{change, floors} {
		for _, mb := range fam {
			mb.res.Alpha = anytime.Bonferroni(cfg.Metrics[mb.metric].Rule.Alpha, len(fam))
		}
	}
	s.members = append(change, floors...)
	return s, nil
}

// seqObs is one sample's values for every metric of the run: the head
// and base scores (NaN undefined) and the kinds of the undefined ones,
// and the segments the sample is in.
type seqObs struct {
	head, base []float64
	hk, bk     []results.UndefinedKind
	segs       []int
}

// AddKnown adds a sample whose scores were known without judging (every
// judge answer in the cache). Known samples come before every judged one.
func (s *SeqState) AddKnown(head, base results.Sample) error {
	if s.random > 0 {
		return fmt.Errorf("sequential: known sample %q added after %d judged ones: add the known samples first", head.ID, s.random)
	}
	return s.addSample(head, base, true)
}

// Add adds a judged sample, in the run's random order.
func (s *SeqState) Add(head, base results.Sample) error { return s.addSample(head, base, false) }

func (s *SeqState) addSample(head, base results.Sample, known bool) error {
	o := seqObs{}
	for _, m := range s.cfg.Metrics {
		h, hk := sampleScore(head, m.Name)
		b, bk := sampleScore(base, m.Name)
		if !m.Numeric {
			for _, v := range []float64{h, b} {
				if v < -1e-9 || v > 1+1e-9 {
					return fmt.Errorf("sequential: metric %s scored outside [0, 1] on sample %q: declare it numeric", m.Name, head.ID)
				}
			}
		}
		o.head, o.base = append(o.head, h), append(o.base, b)
		o.hk, o.bk = append(o.hk, hk), append(o.bk, bk)
	}
	for i, sg := range s.cfg.Segments {
		v := head.Metadata[sg.Key]
		if v == "" {
			v = base.Metadata[sg.Key]
		}
		if v == "" {
			v = NoSegmentValue
		}
		if v == sg.Value {
			o.segs = append(o.segs, i)
		}
	}
	return s.add(o, known)
}

// sampleScore returns a sample's score of metric m (the mean of its
// defined runs where runs were recorded), or NaN and the kind of the
// undefined score (KindData when the sample has no entry for m, as in
// Compare).
func sampleScore(smp results.Sample, m string) (float64, results.UndefinedKind) {
	var key string
	for k, runs := range smp.Runs {
		if CanonicalMetric(k) != m || len(runs) == 0 {
			continue
		}
		var xs []float64
		for _, r := range runs {
			if !r.IsNaN() && !math.IsInf(r.Value(), 0) {
				xs = append(xs, r.Value())
			}
		}
		if len(xs) > 0 {
			return mean(xs), ""
		}
		key = k
	}
	for k, v := range smp.Scores {
		if CanonicalMetric(k) != m {
			continue
		}
		if !v.IsNaN() && !math.IsInf(v.Value(), 0) {
			return v.Value(), ""
		}
		key = k
	}
	for k := range smp.Undefined {
		if CanonicalMetric(k) == m {
			key = k
		}
	}
	if key == "" {
		return math.NaN(), results.KindData
	}
	k := smp.KindOf(key)
	if k == "" {
		k = results.KindJudge
	}
	return math.NaN(), k
}

// add feeds one sample to every test whose set holds it.
func (s *SeqState) add(o seqObs, known bool) error {
	if s.judged >= s.cfg.Total {
		return fmt.Errorf("sequential: more samples added than the run's %d", s.cfg.Total)
	}
	s.judged++
	if !known {
		s.random++
	}
	for _, mb := range s.members {
		if mb.seg >= 0 && !containsInt(o.segs, mb.seg) {
			continue
		}
		m := s.cfg.Metrics[mb.metric]
		h, b, hk, bk := o.head[mb.metric], o.base[mb.metric], o.hk[mb.metric], o.bk[mb.metric]
		var v float64
		switch mb.res.Test {
		case SeqChange:
			if math.IsNaN(h) || math.IsNaN(b) {
				mb.count(known)
				continue
			}
			v = h - b
			if m.Lower {
				v = -v
			}
			if mb.numeric {
				mb.diffs = append(mb.diffs, v)
			}
		case SeqLost:
			if hk == results.KindData || bk == results.KindData {
				mb.count(known)
				continue
			}
			switch {
			case hk != "" && bk == "":
				v = 1
				mb.sign.Add(true)
			case hk == "" && bk != "":
				v = -1
				mb.sign.Add(false)
			}
		case SeqFloor:
			if math.IsNaN(h) {
				mb.count(known)
				continue
			}
			v = h
			mb.headSum += h
			mb.headCount++
		}
		if err := mb.observe(v, known); err != nil {
			return err
		}
	}
	return nil
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// count counts a sample of the member's set that gave no observation.
func (mb *seqMember) count(known bool) {
	if known {
		mb.known++
	}
}

// observe adds one observation to the member: to the known stratum, or to
// the confidence sequence of the rest (started at the first one, when the
// known stratum is complete).
func (mb *seqMember) observe(v float64, known bool) error {
	mb.res.N++
	if known {
		mb.known++
		mb.kSum += v
		mb.kN++
		return nil
	}
	if mb.numeric && mb.res.Test != SeqLost {
		return nil
	}
	if mb.cs == nil {
		if mb.kN > 0 {
			mb.w = math.Min(1, float64(mb.known)/float64(mb.samples))
			mb.kMean = mb.kSum / float64(mb.kN)
		}
		var inRange []float64
		mb.mapped = make([]float64, len(mb.points))
		for i, p := range mb.points {
			mb.mapped[i] = (p - mb.w*mb.kMean) / (1 - mb.w)
			if mb.mapped[i] >= mb.lo && mb.mapped[i] <= mb.hi {
				inRange = append(inRange, mb.mapped[i])
			}
		}
		cs, err := anytime.NewCS(mb.lo, mb.hi, inRange...)
		if err != nil {
			return err
		}
		mb.cs = cs
	}
	return mb.cs.Add(v)
}

// above reports whether the member is shown above its i-th point (a point
// the known stratum alone puts below the rest's range is passed for sure;
// one above it never is). below is the mirror image.
func (mb *seqMember) above(i int) bool {
	if mb.cs == nil {
		return false
	}
	switch p := mb.mapped[i]; {
	case p < mb.lo:
		return true
	case p > mb.hi:
		return false
	}
	return mb.cs.AboveAt(mb.csIndex(i), mb.res.Alpha)
}

func (mb *seqMember) below(i int) bool {
	if mb.cs == nil {
		return false
	}
	switch p := mb.mapped[i]; {
	case p > mb.hi:
		return true
	case p < mb.lo:
		return false
	}
	return mb.cs.BelowAt(mb.csIndex(i), mb.res.Alpha)
}

// csIndex is the index in the confidence sequence of the i-th point.
func (mb *seqMember) csIndex(i int) int {
	k := 0
	for j := range i {
		if mb.mapped[j] >= mb.lo && mb.mapped[j] <= mb.hi {
			k++
		}
	}
	return k
}

// estimate is the stratified estimate of the member's quantity.
func (mb *seqMember) estimate() float64 {
	switch {
	case mb.cs != nil:
		return mb.w*mb.kMean + (1-mb.w)*mb.cs.Mean()
	case mb.kN > 0:
		return mb.kSum / float64(mb.kN)
	}
	return math.NaN()
}

// Decide looks at every test after a batch and returns the decisions.
// When every sample is judged (Judged == Total) it is final: a test still
// undecided is decided by the end rule (package doc of this file).
func (s *SeqState) Decide() SeqOutcome { return s.decide(true) }

// decide is Decide, computing the intervals only when asked (the
// simulation decides without them).
func (s *SeqState) decide(intervals bool) SeqOutcome {
	final := s.judged >= s.cfg.Total
	out := SeqOutcome{Judged: s.judged, Total: s.cfg.Total, Final: final}
	anyFailed, allPassed := false, true
	for _, mb := range s.members {
		mb.decide(s.cfg.MinSamples, final, s.failAtTolerance)
		if mb.res.Decision != SeqUndecided && mb.res.DecidedAt == 0 {
			mb.res.DecidedAt = s.judged
		}
		r := mb.res
		r.Mean = mb.estimate()
		r.Low, r.High = math.NaN(), math.NaN()
		if intervals && mb.cs != nil {
			lo, hi := mb.cs.Interval(r.Alpha)
			r.Low, r.High = mb.w*mb.kMean+(1-mb.w)*lo, mb.w*mb.kMean+(1-mb.w)*hi
		}
		if mb.sign != nil {
			r.E = mb.sign.MaxE()
		}
		anyFailed = anyFailed || r.Decision == SeqFailed
		allPassed = allPassed && r.Decision == SeqPassed
		out.Results = append(out.Results, r)
	}
	switch {
	case anyFailed:
		out.Decision = SeqFailed
	case allPassed:
		out.Decision = SeqPassed
	default:
		out.Decision = SeqUndecided
	}
	return out
}

// decide sets the member's decision, once: a decided test stays decided.
func (mb *seqMember) decide(minSamples int, final, failAtTolerance bool) {
	if mb.res.Decision != SeqUndecided {
		return
	}
	set := func(d SeqDecision, r SeqReason) { mb.res.Decision, mb.res.Reason = d, r }
	enough := mb.res.N >= minSamples
	switch mb.res.Test {
	case SeqChange:
		if mb.numeric {
			if final {
				mb.decideFixed(enough)
			}
			return
		}
		worse := mb.below(1) && mb.estimate() <= -mb.tol+eps
		if failAtTolerance {
			worse = mb.below(0)
		}
		switch {
		case !enough:
		case worse:
			set(SeqFailed, ReasonWorse)
		case mb.above(0):
			set(SeqPassed, ReasonNotWorse)
		}
	case SeqLost:
		switch {
		case !enough:
		case mb.sign.Rejects(mb.res.Alpha) && mb.estimate() >= mb.tol-eps:
			set(SeqFailed, ReasonLosesScores)
		case mb.below(0):
			set(SeqPassed, ReasonKeepsScores)
		}
	case SeqFloor:
		if !enough || mb.numeric {
			break
		}
		i := 0
		var belowMin, aboveMax, okMin, okMax bool = false, false, mb.min == nil, mb.max == nil
		if mb.min != nil {
			belowMin, okMin = mb.below(i), mb.above(i)
			i++
		}
		if mb.max != nil {
			aboveMax, okMax = mb.above(i), mb.below(i)
		}
		switch {
		case belowMin:
			set(SeqFailed, ReasonBelowFloor)
		case aboveMax:
			set(SeqFailed, ReasonAboveCeiling)
		case okMin && okMax:
			set(SeqPassed, ReasonWithinFloors)
		}
		if final && mb.res.Decision == SeqUndecided {
			mb.decideFloorAtEnd()
		}
		return
	}
	if final && mb.res.Decision == SeqUndecided {
		if enough {
			set(SeqPassed, ReasonNotShown)
		} else {
			set(SeqPassed, ReasonTooFew)
		}
	}
}

// decideFixed decides a numeric metric at the end: today's one-sided
// sign-flip test on every pair, significant at the member's share of
// alpha, and the mean difference at or below -tolerance.
func (mb *seqMember) decideFixed(enough bool) {
	mb.res.Decision, mb.res.Reason = SeqPassed, ReasonFixedDesign
	if !enough {
		mb.res.Reason = ReasonTooFew
		return
	}
	sf := SignFlipTest(mb.diffs, defaultDraws, seedOf("sequential:"+mb.res.Metric+":"+mb.res.Segment, mb.diffs))
	if sf.PWorse < mb.res.Alpha && mean(mb.diffs) <= -mb.tol+eps {
		mb.res.Decision = SeqFailed
	}
}

// decideFloorAtEnd applies today's floor rule to the head mean over every
// sample.
func (mb *seqMember) decideFloorAtEnd() {
	if mb.headCount == 0 {
		mb.res.Decision, mb.res.Reason = SeqPassed, ReasonTooFew
		return
	}
	hm := mb.headSum / float64(mb.headCount)
	switch {
	case mb.min != nil && hm < *mb.min-eps:
		mb.res.Decision, mb.res.Reason = SeqFailed, ReasonBelowFloor
	case mb.max != nil && hm > *mb.max+eps:
		mb.res.Decision, mb.res.Reason = SeqFailed, ReasonAboveCeiling
	default:
		mb.res.Decision, mb.res.Reason = SeqPassed, ReasonWithinFloors
	}
}
