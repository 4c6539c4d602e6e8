package compare

import (
	"math"
	"sort"

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

// Compare compares head with base (nil: no baseline, floors only) under th.
// head must not be nil. It runs the steps of a comparison in order: pair
// the samples, test every metric, correct the p-values for multiplicity,
// apply the rules, check the situations, and list the most regressed
// samples.
func (c Config) Compare(base, head *results.File, th Thresholds) *Report {
	if head == nil {
		head = &results.File{}
	}
	var bt *results.Table
	if base != nil {
		bt = results.TableOf(base)
	}
	r := c.CompareTables(bt, results.TableOf(head), th)
	if tableCheck != nil {
		tableCheck(c, base, head, th, r)
	}
	return r
}

// tableCheck, set by the tests, sees every comparison of files in memory
// and its report (it compares the same files read from their bytes).
var tableCheck func(c Config, base, head *results.File, th Thresholds, r *Report)

// CompareTables is Compare of results files held by columns (see
// results.Table): base nil is no baseline; head must not be nil.
func (c Config) CompareTables(base, head *results.Table, th Thresholds) *Report {
	if sq := head.File.Config.Sequential; sq != nil && base != nil {
		// A sequential check decided over its segments: the comparison
		// shows and replays them, whatever segments it was given.
		th = th.WithSegments(sq.Segments...)
	}
	cmp := c.newComparison(base, head, th)
	cmp.pairSamples()
	cmp.testMetrics()
	segs := cmp.st.compareSegments(th.Segments, cmp.hs, cmp.bs, cmp.pairs, cmp.r.Metrics)
	cmp.adjust(segs)
	cmp.replaySequential(segs)
	cmp.applyRules()
	cmp.segmentFindings(segs)
	cmp.situations(segs)
	cmp.decide()
	cmp.topRegressed()
	return cmp.r
}

// comparison is the state of one Compare call, shared by its steps.
type comparison struct {
	r   *Report
	th  Thresholds
	def Defaults
	st  statsConfig
	// base and head are the headers (base nil without a baseline).
	base, head *results.File
	hs, bs     *side // bs is nil without a baseline
	pairs      []pair
	// order lists the metrics either side scored, in catalogue order.
	order []string
	// perMetric holds the metrics whose differences were computed, for
	// the per-sample view; worstD and worstM are each pair's most negative
	// oriented difference over them and its metric (an index of order),
	// folded in as each metric is tested.
	perMetric map[string]bool
	worstD    []float64
	worstM    []int32
	// tested indexes the metrics of r whose sign-flip test ran.
	tested []int
	// findings collects the findings in report order; few, weak and
	// reportOnly are notes gathered on the way and placed later.
	findings, few, weak, reportOnly []Finding
	// incomparable holds the finding of each metric that is not
	// comparable, recorded with its metric's reasons.
	incomparable map[string]Finding
	// ids counts the distinct context ids the paired head samples
	// retrieved that base never did, and all of them; idFindings are the
	// id metrics left out because most of those ids are new.
	ids        [2]int
	idFindings []Finding
}

// newComparison resolves the settings, starts the report and indexes the
// sides.
func (c Config) newComparison(base, head *results.Table, th Thresholds) *comparison {
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
		Findings:     []Finding{},
		Metrics:      []MetricResult{},
		TopRegressed: []SampleDelta{},
		New:          []SampleRef{},
		Removed:      []SampleRef{},
		HasBaseline:  base != nil,
		Settings: Settings{Thresholds: th.Source, Defaults: def, Bootstrap: boot,
			PermutationDraws: draws, CILevel: ciLevel, Power: mdePower},
	}
	cmp := &comparison{r: r, th: th, def: def, head: head.File, hs: newSide(head),
		st: statsConfig{boot: boot, draws: draws, minSamples: def.MinSamples}, perMetric: map[string]bool{},
		incomparable: map[string]Finding{}}
	r.Head = cmp.hs.info()
	r.Counts.Head = head.Len()
	if base != nil {
		cmp.base = base.File
		cmp.bs = newSide(base)
		info := cmp.bs.info()
		r.Base = &info
		r.Counts.Base = base.Len()
	}
	cmp.order = metricOrder(cmp.hs, cmp.bs)
	return cmp
}

// pairSamples pairs the samples by id (the first of a duplicated id
// counts) and lists the new and removed ones.
func (cmp *comparison) pairSamples() {
	r, hs, bs := cmp.r, cmp.hs, cmp.bs
	if bs == nil {
		return
	}
	ht, bt := hs.t, bs.t
	cmp.pairs = make([]pair, 0, min(ht.Len(), bt.Len()))
	var added, removed []int
	for i := range ht.Len() {
		id := ht.ID(i)
		if first, _ := ht.Index(id); first != i {
			continue // duplicate id: the first one counts
		}
		j, ok := bt.Index(id)
		if !ok {
			added = append(added, i)
			continue
		}
		cmp.pairs = append(cmp.pairs, pair{int32(i), int32(j)})
		if h, b := ht.InputHash(i), bt.InputHash(j); h != "" && b != "" && h != b {
			r.Counts.InputsChanged++
		}
	}
	for j := range bt.Len() {
		id := bt.ID(j)
		if first, _ := bt.Index(id); first != j {
			continue
		}
		if _, ok := ht.Index(id); !ok {
			removed = append(removed, j)
		}
	}
	// The questions are read back from the files, in one pass each.
	for k, q := range ht.Questions(added) {
		r.New = append(r.New, SampleRef{ID: ht.ID(added[k]), Question: q})
	}
	for k, q := range bt.Questions(removed) {
		r.Removed = append(r.Removed, SampleRef{ID: bt.ID(removed[k]), Question: q})
	}
	r.Counts.Paired, r.Counts.New, r.Counts.Removed = len(cmp.pairs), len(r.New), len(r.Removed)
}

// metricOrder lists the metrics either side scored, in catalogue order
// (unknown metrics last, by name).
func metricOrder(hs, bs *side) []string {
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
	metrics.SortByOrder(order)
	return order
}

// testMetrics describes every metric on each side and runs the paired
// test where both sides scored it.
func (cmp *comparison) testMetrics() {
	idsChanged := cmp.idsChanged()
	for mi, m := range cmp.order {
		mr := cmp.describeMetric(m)
		switch {
		case cmp.bs == nil:
			mr.Change = VerdictNoBaseline
		case !cmp.hs.present[m]:
			mr.Change = VerdictNotInHead
		case !cmp.bs.present[m]:
			mr.Change = VerdictNewMetric
		case idsChanged && readsContextIDs(m):
			cmp.st.testPairs(&mr, cmp.hs, cmp.bs, cmp.pairs, m) // for the table
			cmp.idFindings = append(cmp.idFindings, cmp.leaveOut(&mr))
		default:
			dd, ok := cmp.st.testPairs(&mr, cmp.hs, cmp.bs, cmp.pairs, m)
			cmp.foldWorst(mi, dd)
			if !ok {
				if f := cmp.untested(&mr); f.Kind == KindNotComparable {
					cmp.incomparable[m] = f
				} else {
					cmp.few = append(cmp.few, f)
				}
				break
			}
			cmp.tested = append(cmp.tested, len(cmp.r.Metrics))
		}
		cmp.r.Metrics = append(cmp.r.Metrics, mr)
	}
}

// describeMetric is metric m's result before the paired test: its rule and
// each side's all-sample view.
func (cmp *comparison) describeMetric(m string) MetricResult {
	cm, known := cmp.head.Metric(m)
	if !known && cmp.base != nil {
		cm, known = cmp.base.Metric(m)
	}
	dir := cmp.th.DirectionOf(m, cm, known)
	gated := cmp.th.GatedMetric(m, cm, known)
	mr := newMetricResult(m, dir.String(), cmp.th.For(m), !gated)
	if cmp.hs.present[m] {
		xs := cmp.hs.defined(m)
		mr.HeadN, mr.HeadUndefined = len(xs), cmp.hs.t.Len()-cmp.hs.notJudged-len(xs)
		mr.HeadMean, mr.HeadDist = results.Score(mean(xs)), dist(xs)
		mr.HeadJudgeNoise = cmp.hs.noiseOf(m)
	}
	if cmp.bs != nil && cmp.bs.present[m] {
		xs := cmp.bs.defined(m)
		mr.BaseN, mr.BaseUndefined = len(xs), cmp.bs.t.Len()-len(xs)
		mr.BaseMean, mr.BaseDist = results.Score(mean(xs)), dist(xs)
		mr.BaseJudgeNoise = cmp.bs.noiseOf(m)
	}
	return mr
}

// adjust corrects the p-values of the whole-set and segment tests for
// multiplicity and decides their paired verdicts.
func (cmp *comparison) adjust(segs *segmentRun) {
	ptrs, flags := pointers(cmp.r.Metrics, cmp.tested)
	ptrs, flags = append(ptrs, segs.ptrs...), append(flags, segs.tested...)
	adjustHypotheses(ptrs, flags, cmp.def.Correction)
	decideHypotheses(ptrs, flags)
}

// applyRules sets every metric's verdict, floor and status and records
// its findings.
func (cmp *comparison) applyRules() {
	for i := range cmp.r.Metrics {
		mr := &cmp.r.Metrics[i]
		mr.Verdict = mr.Change
		if mr.NotComparable == NotComparableContextIDs {
			continue // out of the decision, floors included
		}
		reasons := cmp.metricReasons(mr)
		cmp.flush(mr, reasons)
		if mr.Change == VerdictNotInHead {
			cmp.findings = append(cmp.findings, Finding{Kind: KindNotInHead, Level: LevelWarn, Metric: mr.Metric})
		}
		if f, ok := cmp.judgeFailed(mr); ok {
			cmp.flush(mr, []Finding{f})
		} else if f, ok := cmp.incomparable[mr.Metric]; ok {
			// Its level is set: a base that only lacked the data warns.
			mr.Status = statusOf(f.Level)
			cmp.findings = append(cmp.findings, f)
		}
		if isTested(mr.Change) && !mr.MDE.IsNaN() && mr.MDE.Value() > mr.Rule.Tolerance+eps {
			cmp.weak = append(cmp.weak, Finding{Kind: KindWeakPower, Level: LevelNote, Metric: mr.Metric, Value: mr.MDE.Value()})
		}
	}
}

// metricReasons returns the regression, floor and lost-scores findings of
// mr (their Level still unset) and sets its verdict and floor; a floor
// that cannot be checked is recorded at once.
func (cmp *comparison) metricReasons(mr *MetricResult) []Finding {
	var reasons []Finding
	if mr.Change == VerdictRegression {
		p, seq := pOf(mr, mr.PWorseAdj)
		reasons = append(reasons, Finding{Kind: KindRegression, Metric: mr.Metric, Value: -mr.Delta.Value(), P: p, Sequential: seq})
	}
	if f, ok := cmp.checkFloor(mr); ok {
		reasons = append(reasons, f)
		if mr.Change != VerdictRegression {
			mr.Verdict = VerdictBelowFloor
		}
	}
	if mr.LostScores {
		reasons = append(reasons, lostFinding(mr, ""))
		if mr.Change != VerdictRegression {
			mr.Verdict = VerdictLostScores
		}
	}
	return reasons
}

// checkFloor checks the head mean against the metric's min and max, sets
// mr.Floor, and returns the breach, if any.
func (cmp *comparison) checkFloor(mr *MetricResult) (Finding, bool) {
	if mr.Rule.Min == nil && mr.Rule.Max == nil {
		return Finding{}, false
	}
	hm := mr.HeadMean.Value()
	if sq := mr.Sequential; sq != nil && sq.Floor != "" && sq.Floor != SeqUndecided && cmp.hs.present[mr.Metric] && mr.HeadN > 0 &&
		cmp.r.Sequential != nil && cmp.r.Sequential.Judged < cmp.r.Sequential.Total {
		// A sequential check judged a sample of the head: its floors
		// are decided by the confidence sequence of the head's mean.
		if !sq.FloorMean.IsNaN() {
			hm = sq.FloorMean.Value() // the stratified head mean the decision read
		}
		switch {
		case sq.Floor == SeqPassed:
			mr.Floor = FloorOK
		case mr.Rule.Min != nil && (mr.Rule.Max == nil || hm < *mr.Rule.Min):
			mr.Floor = FloorBelowMin
			return Finding{Kind: KindBelowFloor, Metric: mr.Metric, Value: hm, Bound: *mr.Rule.Min}, true
		default:
			mr.Floor = FloorAboveMax
			return Finding{Kind: KindAboveCeiling, Metric: mr.Metric, Value: hm, Bound: *mr.Rule.Max}, true
		}
		return Finding{}, false
	}
	switch {
	case !cmp.hs.present[mr.Metric] || mr.HeadN == 0:
		cmp.findings = append(cmp.findings, Finding{Kind: KindFloorNotChecked, Level: LevelWarn, Metric: mr.Metric})
	case mr.Rule.Min != nil && hm < *mr.Rule.Min-eps:
		mr.Floor = FloorBelowMin
		return Finding{Kind: KindBelowFloor, Metric: mr.Metric, Value: hm, Bound: *mr.Rule.Min}, true
	case mr.Rule.Max != nil && hm > *mr.Rule.Max+eps:
		mr.Floor = FloorAboveMax
		return Finding{Kind: KindAboveCeiling, Metric: mr.Metric, Value: hm, Bound: *mr.Rule.Max}, true
	default:
		mr.Floor = FloorOK
	}
	return Finding{}, false
}

// judgeFailed returns the finding of a judge that failed on most head
// samples but not on most base samples: it must not turn the gate green by
// leaving too few pairs to test.
func (cmp *comparison) judgeFailed(mr *MetricResult) (Finding, bool) {
	hn, bn := mr.HeadN+mr.HeadUndefined, mr.BaseN+mr.BaseUndefined
	if cmp.bs == nil || !cmp.hs.present[mr.Metric] || bn == 0 || hn == 0 {
		return Finding{}, false
	}
	// Only the judge's own failures: a score undefined by the metric's
	// definition (a response with no statements, an answer the offline
	// judge has nothing to check in) is the pipeline's, and counts as a
	// lost score instead.
	hj, bj := cmp.hs.judgeUndefined(mr.Metric), cmp.bs.judgeUndefined(mr.Metric)
	if 2*hj <= hn || 2*bj > bn {
		return Finding{}, false
	}
	_, reason := cmp.hs.unscored(mr.Metric)
	return Finding{Kind: KindJudgeFailed, Metric: mr.Metric, N: hj, Of: hn,
		BaseN: bj, BaseOf: bn, Reason: reason}, true
}

// flush gives a metric's reasons their level, sets its status, and
// records them: report-only ones are held for the report-only note.
func (cmp *comparison) flush(mr *MetricResult, reasons []Finding) {
	if len(reasons) == 0 {
		return
	}
	level := metricLevel(mr.ReportOnly, mr.Rule.Level)
	for i := range reasons {
		reasons[i].Level, reasons[i].ReportOnly = level, mr.ReportOnly
	}
	if mr.ReportOnly {
		cmp.reportOnly = append(cmp.reportOnly, reasons...)
		return
	}
	mr.Status = statusOf(level)
	cmp.findings = append(cmp.findings, reasons...)
}

// segmentFindings records the segments' verdicts and keeps the segment
// keys in the report.
func (cmp *comparison) segmentFindings(segs *segmentRun) {
	gated, reportOnly := segs.verdicts(cmp.def.SegmentLevel)
	cmp.findings = append(cmp.findings, gated...)
	cmp.reportOnly = append(cmp.reportOnly, reportOnly...)
	cmp.findings = append(cmp.findings, segs.warnings...)
	if len(cmp.th.Segments) > 0 && cmp.bs != nil {
		cmp.r.Segments = segs.keys
	}
}

// situations records the findings about the comparison as a whole, in
// report order.
func (cmp *comparison) situations(segs *segmentRun) {
	if cmp.base == nil {
		cmp.add(cmp.noBaseline()...)
	} else {
		cmp.add(cmp.baseSituations()...)
		cmp.add(cmp.idFindings...)
		cmp.add(cmp.few...)
		cmp.add(segs.notes...)
		cmp.add(segs.untested(cmp.def.MinSamples)...)
		cmp.add(cmp.weak...)
	}
	cmp.add(headCompleteness(cmp.r, cmp.bs, cmp.hs)...)
	if cmp.head.Shard != "" {
		cmp.add(Finding{Kind: KindShardOnly, Level: LevelWarn, Side: "head", Reason: cmp.head.Shard})
	}
	cmp.add(cmp.reportOnly...)
	cmp.add(cmp.unusedRules()...)
}

func (cmp *comparison) add(fs ...Finding) { cmp.findings = append(cmp.findings, fs...) }

// noBaseline is the note (and, under on_missing_baseline: fail, the
// failure) of a comparison without a baseline.
func (cmp *comparison) noBaseline() []Finding {
	fs := []Finding{{Kind: KindNoBaseline, Level: LevelNote}}
	if cmp.def.OnMissingBaseline == ActionFail {
		fs = append(fs, Finding{Kind: KindMissingBaseline, Level: LevelFail})
	}
	return fs
}

// baseSituations checks what differs between the sides beyond the scores:
// judge, dataset, inputs, an incomplete or sharded base, repeats.
func (cmp *comparison) baseSituations() []Finding {
	base, head, r := cmp.base, cmp.head, cmp.r
	var fs []Finding
	if base.Judge.Fingerprint != head.Judge.Fingerprint {
		r.JudgeChanged = true
		level := LevelWarn
		if cmp.def.OnJudgeChange == ActionFail {
			level = LevelFail
		}
		fs = append(fs, Finding{Kind: KindJudgeChanged, Level: level})
	}
	if base.Dataset.SHA256 != "" && head.Dataset.SHA256 != "" && base.Dataset.SHA256 != head.Dataset.SHA256 {
		r.DatasetChanged = true
		fs = append(fs, Finding{Kind: KindDatasetChanged, Level: LevelNote})
	}
	if r.Counts.InputsChanged > 0 {
		fs = append(fs, Finding{Kind: KindInputsChanged, Level: LevelNote, N: r.Counts.InputsChanged, Of: r.Counts.Paired})
	}
	if base.Incomplete != "" {
		fs = append(fs, Finding{Kind: KindIncomplete, Level: LevelWarn, Side: "base", Reason: base.Incomplete, N: cmp.bs.t.Len()})
	}
	if base.Shard != "" {
		fs = append(fs, Finding{Kind: KindShardOnly, Level: LevelWarn, Side: "base", Reason: base.Shard})
	}
	if base.Config.Repeats != head.Config.Repeats && base.Config.Repeats > 0 && head.Config.Repeats > 0 {
		fs = append(fs, Finding{Kind: KindRepeatsDiffer, Level: LevelNote, BaseN: base.Config.Repeats, N: head.Config.Repeats})
	}
	return fs
}

// unusedRules notes the metrics the thresholds set rules for that neither
// side scored, in catalogue order.
func (cmp *comparison) unusedRules() []Finding {
	scored := map[string]bool{}
	for _, m := range cmp.order {
		scored[m] = true
	}
	var unused []string
	for m := range cmp.th.Metrics {
		if cm := CanonicalMetric(m); !scored[cm] {
			unused = append(unused, cm)
		}
	}
	sort.Slice(unused, func(i, j int) bool { return metrics.Order(unused[i]) < metrics.Order(unused[j]) })
	fs := make([]Finding, 0, len(unused))
	for _, m := range unused {
		fs = append(fs, Finding{Kind: KindThresholdsUnused, Level: LevelNote, Metric: m})
	}
	return fs
}

// decide sets the gate's verdict from the findings' levels.
func (cmp *comparison) decide() {
	r := cmp.r
	r.Findings = append(r.Findings, cmp.findings...)
	fail, warn := false, false
	for _, f := range r.Findings {
		fail = fail || f.Level == LevelFail
		warn = warn || f.Level == LevelWarn
	}
	switch {
	case fail:
		r.Passed, r.Verdict = false, VerdictFail
	case warn:
		r.Passed, r.Verdict = true, VerdictPassWithWarnings
	default:
		r.Passed, r.Verdict = true, VerdictPass
	}
}

// worst is a pair's most negative oriented difference and its metric.
type worst struct {
	metric string
	d      float64
}

// foldWorst records metric order[mi]'s differences in each pair's
// worst; ties go to the first metric in catalogue order (the order the
// metrics are tested in).
func (cmp *comparison) foldWorst(mi int, dd diffs) {
	cmp.perMetric[cmp.order[mi]] = true
	if cmp.worstD == nil {
		cmp.worstD, cmp.worstM = make([]float64, len(cmp.pairs)), make([]int32, len(cmp.pairs))
		for i := range cmp.worstD {
			cmp.worstD[i], cmp.worstM[i] = math.Inf(1), -1
		}
	}
	for k, pi := range dd.pairIdx {
		if dd.d[k] < cmp.worstD[pi] {
			cmp.worstD[pi], cmp.worstM[pi] = dd.d[k], int32(mi)
		}
	}
}

// topRegressed lists the paired samples that got worse, worst first (ties
// by id), at most topRegressed of them.
func (cmp *comparison) topRegressed() {
	if cmp.bs == nil || cmp.worstD == nil {
		return
	}
	wd := cmp.worstD
	var idx []int32
	for pi := range cmp.pairs {
		if wd[pi] < -zeroDiff {
			idx = append(idx, int32(pi))
		}
	}
	ids := func(pi int32) string { return cmp.hs.t.ID(int(cmp.pairs[pi].h)) }
	sort.SliceStable(idx, func(a, b int) bool {
		if wd[idx[a]] != wd[idx[b]] {
			return wd[idx[a]] < wd[idx[b]]
		}
		return ids(idx[a]) < ids(idx[b])
	})
	if len(idx) > topRegressed {
		idx = idx[:topRegressed]
	}
	for _, pi := range idx {
		w := worst{cmp.order[cmp.worstM[pi]], wd[pi]}
		cmp.r.TopRegressed = append(cmp.r.TopRegressed, cmp.sampleDelta(cmp.pairs[pi], w))
	}
}

// sampleDelta is pair p's change: its worst metric and every tested
// metric whose score changed.
func (cmp *comparison) sampleDelta(p pair, w worst) SampleDelta {
	hs, bs := cmp.hs, cmp.bs
	sd := SampleDelta{ID: hs.t.ID(int(p.h)), Question: hs.question(int(p.h)), WorstMetric: w.metric,
		WorstDelta: results.Score(w.d), Metrics: []SampleMetric{}, Segments: sampleSegments(cmp.th.Segments, hs, bs, p)}
	if sd.Question == "" {
		sd.Question = bs.question(int(p.b))
	}
	for _, m := range cmp.order {
		if !cmp.perMetric[m] {
			continue
		}
		h, b := hs.scores[m].At(int(p.h)), bs.scores[m].At(int(p.b))
		if math.IsNaN(h) || math.IsNaN(b) || math.Abs(h-b) <= zeroDiff {
			continue
		}
		sm := SampleMetric{Metric: m, Base: results.Score(b), Head: results.Score(h), Delta: results.Score(h - b)}
		sm.Reason = hs.reason(int(p.h), m)
		sd.Metrics = append(sd.Metrics, sm)
	}
	return sd
}
