package compare

import (
	"math"
	"sort"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// A sequential check (gate check --sequential) judges the head's samples
// in batches: first those whose inputs are unchanged since the base (their
// judge answers are cached), then the others in a seeded random order, and
// after each batch it asks a Sequential whether the gate is decided. A
// Sequential is a SeqState (sequential.go: the statistics) over a base
// file and thresholds: it pairs each judged sample with the base, makes
// the family of gated metrics and segments, and says when to stop. The
// comparison replays the same looks from the results file (Sample.Seq,
// results.Sequential) and so reaches the same decisions.

// DefaultBatch is the default number of samples judged between two looks
// of a sequential check of n samples: 5% of them, at least 20 and at most
// 500.
func DefaultBatch(n int) int {
	return min(500, max(20, (n+19)/20))
}

// SeqSample is one head sample as a sequential check knows it before
// judging: its id, its metadata (for segments), and whether its inputs
// are those of the base.
type SeqSample struct {
	ID        string
	Metadata  map[string]string
	Unchanged bool
}

// SeqLook is the state of a sequential check after a look.
type SeqLook struct {
	// Decided: a test of a metric that fails the gate failed (the gate's
	// verdict cannot change), or every test is decided.
	Decided bool
	// Judged is the number of samples fed so far.
	Judged int
}

// Sequential decides the gated metrics of a sequential check, look after
// look. Feed it the judged samples in their order (Add) and look after
// each batch (Look).
type Sequential struct {
	base  *results.Table
	state *SeqState
	batch int
	fed   int
	last  SeqOutcome
	// levels gives each tested metric (and "metric|segment") its level.
	levels map[string]Level
	// fixedOnly names the gated metrics no confidence sequence can bound
	// (numeric user metrics, scores beyond [0, 1]): decided by the fixed
	// design at the end, so the check never stops before the end.
	fixedOnly []string
	// allKnown: every paired sample's inputs are unchanged; nothing is
	// sampled, the comparison keeps the fixed design.
	allKnown bool
}

// NewSequential starts the decisions of a sequential check of the samples
// all (every sample of the run, judged or not) against base, judged batch
// by batch under th. A head sample pairs with the first base sample of
// its id.
func NewSequential(base *results.Table, th Thresholds, batch int, all []SeqSample) *Sequential {
	q := &Sequential{base: base, batch: max(1, batch), levels: map[string]Level{}}
	def := th.resolvedDefaults()
	type seg struct{ key, value string }
	counts := map[seg]int{}
	total, known := 0, 0
	for _, s := range all {
		j, ok := base.Index(s.ID)
		if !ok {
			continue // new on head: never paired
		}
		total++
		if s.Unchanged {
			known++
		}
		if len(th.Segments) > 0 {
			md := base.Metadata(j)
			for _, key := range th.Segments {
				counts[seg{key, segValue(s.Metadata, md, key)}]++
			}
		}
	}
	q.allKnown = total > 0 && known == total
	cfg := SeqConfig{Total: max(1, total), MinSamples: def.MinSamples}
	for sg, n := range counts {
		cfg.Segments = append(cfg.Segments, SeqSegment{Key: sg.key, Value: sg.value, Samples: n})
	}
	sort.Slice(cfg.Segments, func(i, j int) bool {
		a, b := cfg.Segments[i], cfg.Segments[j]
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Value < b.Value
	})
	seen := map[string]bool{}
	for _, name := range base.File.Config.Metrics {
		m := CanonicalMetric(name)
		if seen[m] {
			continue
		}
		seen[m] = true
		cm, known := base.File.Metric(m)
		if !th.GatedMetric(m, cm, known) {
			continue
		}
		lo, hi := 0.0, 1.0
		dir := metrics.HigherIsBetter
		if known {
			lo, hi = cm.ScoreRange()
			dir = cm.Direction
		}
		numeric := lo < 0 || hi > 1 || math.IsInf(lo, 0) || math.IsInf(hi, 0)
		if numeric {
			q.fixedOnly = append(q.fixedOnly, m)
		}
		rule := th.For(m)
		cfg.Metrics = append(cfg.Metrics, SeqMetric{Name: m, Rule: rule, Lower: dir == metrics.LowerIsBetter, Numeric: numeric})
		level := metricLevel(false, rule.Level)
		q.levels[m] = level
		segLevel := level
		if def.SegmentLevel == LevelWarn {
			segLevel = LevelWarn
		}
		for _, sg := range cfg.Segments {
			q.levels[m+"|"+sg.Key+"="+sg.Value] = segLevel
		}
	}
	sort.Strings(q.fixedOnly)
	state, err := NewSeqState(cfg)
	if err != nil {
		// Thresholds are validated when read: a state that cannot be
		// made decides nothing early (the run judges every sample).
		q.fixedOnly = append(q.fixedOnly, "(thresholds)")
		return q
	}
	q.state = state
	return q
}

// segValue is a sample's value of a segment key, as segmentValue.
func segValue(head, base map[string]string, key string) string {
	v, _ := metadataValue(head, base, key)
	return v
}

// Add feeds one judged head sample, in the order judged; unchanged tells
// whether its inputs are those of the base (the samples judged first).
func (q *Sequential) Add(s *results.Sample, unchanged bool) {
	q.fed++
	j, ok := q.base.Index(s.ID)
	if !ok || q.state == nil {
		return
	}
	b := q.base.Lite(j)
	var err error
	if unchanged {
		err = q.state.AddKnown(*s, b)
	} else {
		err = q.state.Add(*s, b)
	}
	if err != nil {
		// A score out of its metric's range, or more samples than
		// planned: decide nothing early.
		q.state = nil
	}
}

// Look decides what the samples fed so far allow.
func (q *Sequential) Look() SeqLook {
	if q.state == nil || q.allKnown {
		return SeqLook{Judged: q.fed}
	}
	q.last = q.state.Decide()
	all, failed := true, false
	for _, r := range q.last.Results {
		switch r.Decision {
		case SeqUndecided:
			all = false
		case SeqFailed:
			key := r.Metric
			if r.Segment != "" {
				key += "|" + r.Segment
			}
			if q.levels[key] == LevelFail {
				failed = true
			}
		}
	}
	// A metric only the fixed design decides (numeric) needs every sample
	// to pass, but not to fail: a failure elsewhere decides the gate.
	all = all && len(q.fixedOnly) == 0
	return SeqLook{Decided: all || failed, Judged: q.fed}
}

// SeqVerdict is a gated metric's sequential decision, in the report.
type SeqVerdict struct {
	// Decision is failed, passed or, when the check stopped on another
	// metric's failure, undecided.
	Decision SeqDecision `json:"decision"`
	// Reason says why (SeqReason of the paired change test).
	Reason SeqReason `json:"reason,omitempty"`
	// DecidedAfter is the number of samples judged when it was decided.
	DecidedAfter int `json:"decided_after"`
	// Low and High bound the mean paired difference (oriented: negative
	// is worse) at the metric's share of alpha, at the decision.
	Low  results.Score `json:"low"`
	High results.Score `json:"high"`
	// Floor is the decision on min and max ("" when the metric has none),
	// FloorMean the head mean it read (stratified).
	Floor     SeqDecision   `json:"floor,omitempty"`
	FloorMean results.Score `json:"floor_mean,omitempty"`
	// Lost is the decision on lost scores.
	Lost SeqDecision `json:"lost"`
}

// SeqSummary is how a sequential check went, in the report.
type SeqSummary struct {
	Batch  int    `json:"batch"`
	Seed   uint64 `json:"seed"`
	Judged int    `json:"judged"`
	Total  int    `json:"total"`
	// DecidedAfter is the number of samples judged when the check was
	// decided (0: not before the end).
	DecidedAfter int `json:"decided_after"`
	// FixedOnly are gated metrics no confidence sequence bounds (numeric
	// user metrics): decided by the fixed design, at the end.
	FixedOnly []string `json:"fixed_only,omitempty"`
	// CallsMade are the head's chat calls; CallsFull estimates those of a
	// full check (0 for a judge that makes none: then the share of samples
	// left unjudged stands for what was saved).
	CallsMade int `json:"calls_made"`
	CallsFull int `json:"calls_full"`
}

// callsOf returns the chat calls the head made and an estimate of those a
// full check would have made: the base's, cached calls included, per
// sample, when the same judge scored it (it judged every sample, on the
// base's answers); else the head's calls per judged changed sample times the
// changed samples (unchanged ones are answered from the cache).
func callsOf(base, head *results.File, baseN int, sq *results.Sequential) (made, full int) {
	made = head.Usage.ChatCalls
	if made == 0 {
		return 0, 0
	}
	if base.Judge.Fingerprint == head.Judge.Fingerprint && baseN > 0 {
		if n := base.Usage.ChatCalls + base.Usage.CachedCalls; n > 0 {
			return made, max(made, int(math.Round(float64(n)*float64(sq.Total)/float64(baseN))))
		}
	}
	unchanged := sq.Unchanged
	if base.Judge.Fingerprint != head.Judge.Fingerprint {
		unchanged = 0 // another judge: no answer of the base's is cached
	}
	judgedChanged := sq.Judged - min(unchanged, sq.Judged)
	if judgedChanged <= 0 {
		return made, made
	}
	return made, max(made, int(math.Round(float64(made)*float64(sq.Total-unchanged)/float64(judgedChanged))))
}

// replaySequential replays the looks of a sequential head and overrides
// the verdicts of its gated metrics (and segments) with the sequential
// decisions.
func (cmp *comparison) replaySequential(segs *segmentRun) {
	sq := cmp.head.Config.Sequential
	if sq == nil || cmp.base == nil {
		return
	}
	// The looks read the samples as the tables hold them.
	ht, bt := cmp.hs.t, cmp.bs.t
	all := make([]SeqSample, ht.Len())
	var judged []int
	for i := range ht.Len() {
		j, ok := bt.Index(ht.ID(i))
		h := ht.InputHash(i)
		all[i] = SeqSample{ID: ht.ID(i), Metadata: ht.Metadata(i), Unchanged: ok && bt.InputHash(j) != "" && bt.InputHash(j) == h}
		if ht.Seq(i) > 0 {
			judged = append(judged, i)
		}
	}
	sort.Slice(judged, func(a, b int) bool { return ht.Seq(judged[a]) < ht.Seq(judged[b]) })
	// The looks are replayed over the segments the check decided over,
	// whatever this comparison's.
	th := cmp.th
	th.Segments = sq.Segments
	q := NewSequential(bt, th, sq.Batch, all)
	decided := 0
	for k, i := range judged {
		s := ht.Lite(i)
		q.Add(&s, all[i].Unchanged)
		if (k+1)%q.batch == 0 && q.Look().Decided {
			decided = k + 1
			break
		}
	}
	cmp.r.Sequential = &SeqSummary{Batch: sq.Batch, Seed: sq.Seed, Judged: sq.Judged, Total: sq.Total, DecidedAfter: decided, FixedOnly: q.fixedOnly}
	cmp.r.Sequential.CallsMade, cmp.r.Sequential.CallsFull = callsOf(cmp.base, cmp.head, bt.Len(), sq)
	if q.state == nil || q.allKnown {
		return // nothing was sampled: the fixed design decides
	}
	if decided == 0 {
		// Not decided early: the last look, final when every sample was
		// judged (the end rule decides what is left).
		q.last = q.state.Decide()
	}
	type key struct{ metric, segment string }
	byTest := map[key]map[SeqTest]SeqResult{}
	for _, r := range q.last.Results {
		k := key{r.Metric, r.Segment}
		if byTest[k] == nil {
			byTest[k] = map[SeqTest]SeqResult{}
		}
		byTest[k][r.Test] = r
	}
	for i := range cmp.r.Metrics {
		mr := &cmp.r.Metrics[i]
		tests := byTest[key{mr.Metric, ""}]
		if tests == nil {
			continue
		}
		ch := tests[SeqChange]
		v := &SeqVerdict{Decision: ch.Decision, Reason: ch.Reason, DecidedAfter: ch.DecidedAt,
			Low: results.Score(ch.Low), High: results.Score(ch.High), Lost: tests[SeqLost].Decision}
		v.FloorMean = results.NaN()
		if fl, ok := tests[SeqFloor]; ok {
			v.Floor, v.FloorMean = fl.Decision, results.Score(fl.Mean)
		}
		if v.Lost == SeqFailed || v.Floor == SeqFailed {
			v.Decision = SeqFailed
		}
		if l, f := tests[SeqLost].DecidedAt, tests[SeqFloor].DecidedAt; v.Decision != SeqUndecided {
			v.DecidedAfter = max(v.DecidedAfter, l, f)
		}
		mr.Sequential = v
		override(mr, tests)
	}
	for i, ms := range segs.results {
		k, s := segs.where[i][0], segs.where[i][1]
		seg := &segs.keys[k].Segments[s]
		for j := range ms {
			if tests := byTest[key{ms[j].Metric, seg.Key + "=" + seg.Value}]; tests != nil {
				override(&ms[j], tests)
			}
		}
	}
}

// override sets mr's paired verdict and lost scores from the sequential
// tests; an improvement the fixed design found is kept (it never fails the
// gate).
func override(mr *MetricResult, tests map[SeqTest]SeqResult) {
	mr.sequential = true
	if ch := tests[SeqChange]; isTested(mr.Change) && !math.IsNaN(ch.Mean) && !math.IsNaN(ch.Low) && !math.IsNaN(ch.High) {
		// The judged pairs over-represent the unchanged samples (judged
		// first): the change shown is the stratified estimate and its
		// confidence sequence, which the decision read. No fixed-design
		// p-value describes it.
		mr.Delta = results.Score(ch.Mean)
		mr.DeltaCI = Interval{Low: results.Score(ch.Low), High: results.Score(ch.High)}
		mr.RawDelta, mr.RawDeltaCI = mr.Delta, mr.DeltaCI
		if mr.Direction == metrics.LowerIsBetter.String() {
			mr.RawDelta = -mr.Delta
			mr.RawDeltaCI = Interval{Low: -mr.DeltaCI.High, High: -mr.DeltaCI.Low}
		}
		mr.PWorse, mr.PBetter, mr.PWorseAdj, mr.PBetterAdj = results.NaN(), results.NaN(), results.NaN(), results.NaN()
	}
	if isTested(mr.Change) {
		switch {
		case tests[SeqChange].Decision == SeqFailed:
			mr.Change = VerdictRegression
		case mr.Change == VerdictRegression:
			mr.Change = VerdictNoChange
		}
	}
	mr.LostScores = tests[SeqLost].Decision == SeqFailed
	if _, ok := tests[SeqLost]; ok {
		mr.PLost, mr.PLostAdj = results.NaN(), results.NaN() // decided by the e-process
	}
}
