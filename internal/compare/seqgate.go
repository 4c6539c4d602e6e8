package compare

import (
	"math"
	"sort"
	"strings"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// Sequential decisions (gate check --sequential; docs/statistics.md,
// "Sequential decisions"). A sequential check judges the head's samples in
// batches: first those whose inputs are unchanged since the base (their
// judge answers are cached), then the others in a seeded random order, and
// after each batch it asks a Sequential whether every gated metric is
// decided. The comparison replays the same looks from the results file
// (Sample.Seq, results.Sequential) and so reaches the same decisions.
//
// Each gated metric (and each gated segment of one) is a member of the
// family. Its paired differences d (oriented: negative is worse) are split
// into the unchanged samples U, judged first and in full, and the changed
// ones C, judged in random order. The mean difference over the run is
// Delta = wU * mean(d over U) + wC * mu_C, with wU and wC the shares of
// U and C samples; mu_C, the mean of a random draw, is bounded by a
// confidence sequence, valid at every look at once. A member fails when
// the sequence shows Delta below 0 and its estimate is at most -tolerance
// (today's rule, with a time-uniform test in place of the sign-flip test);
// it passes when the sequence shows Delta above -tolerance
// (non-inferiority). Lost scores (the net share of pairs that lost their
// score) and floors (the head's mean against min and max) are decided the
// same way. Every test of the family is made at alpha divided by its
// size (Bonferroni: valid whatever the dependence between metrics).

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

// SeqDecision is what a sequential test says of a member.
type SeqDecision string

// Sequential decisions.
const (
	SeqUndecided SeqDecision = ""
	SeqFailed    SeqDecision = "failed"
	SeqPassed    SeqDecision = "passed"
)

// SeqLook is the state of a sequential check after a look.
type SeqLook struct {
	// Decided: every member is decided, or one that fails the gate
	// failed (the gate's verdict cannot change).
	Decided bool
	// Judged is the number of samples fed so far.
	Judged int
}

// Sequential decides the gated metrics of a sequential check, look after
// look. Feed it the judged samples in their order (Add) and look after
// each batch (Look).
type Sequential struct {
	base    map[string]*results.Sample
	baseF   *results.File
	th      Thresholds
	batch   int
	members []*seqMember
	fed     int
	looks   int
	// fixedOnly names the gated metrics no confidence sequence can bound
	// (numeric user metrics): they are left to the fixed design, so the
	// check never stops before the end.
	fixedOnly []string
}

// seqMember is one gated metric over the whole set or over one segment.
type seqMember struct {
	metric, segKey, segValue string
	lower                    bool // lower is better
	rule                     MetricRule
	level                    Level
	lo, hi                   float64 // score range
	alpha                    float64
	nU, nC                   int // samples of the member in U and in C
	uSeen                    int // samples of U fed

	uDiff, uHead, uLost sum1
	cDiff, cHead, cLost meanSeq

	diff, lost, floor SeqDecision
	decidedAt         int // samples fed when the member was decided
}

// sum1 is a running sum and count.
type sum1 struct {
	s float64
	n int
}

func (a *sum1) add(x float64) { a.s += x; a.n++ }
func (a sum1) mean() float64 {
	if a.n == 0 {
		return 0
	}
	return a.s / float64(a.n)
}

// NewSequential starts the decisions of a sequential check of the samples
// all (every sample of the run, judged or not) against base, judged batch
// by batch under th.
func NewSequential(base *results.File, th Thresholds, batch int, all []SeqSample) *Sequential {
	q := &Sequential{base: map[string]*results.Sample{}, baseF: base, th: th, batch: max(1, batch)}
	for i := range base.Samples {
		if _, dup := q.base[base.Samples[i].ID]; !dup {
			q.base[base.Samples[i].ID] = &base.Samples[i]
		}
	}
	def := th.resolvedDefaults()
	var names []string
	for _, m := range base.Config.Metrics {
		names = append(names, CanonicalMetric(m))
	}
	sort.Strings(names)
	names = compactStrings(names)
	type seg struct{ key, value string }
	counts := map[seg][2]int{} // segment -> samples in U, in C
	for _, s := range all {
		if _, ok := q.base[s.ID]; !ok {
			continue // new on head: never paired
		}
		k := 1
		if s.Unchanged {
			k = 0
		}
		c := counts[seg{}]
		c[k]++
		counts[seg{}] = c
		for _, key := range th.Segments {
			v := segValue(s.Metadata, q.base[s.ID].Metadata, key)
			c := counts[seg{key, v}]
			c[k]++
			counts[seg{key, v}] = c
		}
	}
	segs := make([]seg, 0, len(counts))
	for sg := range counts {
		segs = append(segs, sg)
	}
	sort.Slice(segs, func(i, j int) bool {
		if segs[i].key != segs[j].key {
			return segs[i].key < segs[j].key
		}
		return segs[i].value < segs[j].value
	})
	for _, m := range names {
		cm, known := base.Metric(m)
		if !th.GatedMetric(m, cm, known) {
			continue
		}
		lo, hi := 0.0, 1.0
		dir := metrics.HigherIsBetter
		if known {
			lo, hi = cm.ScoreRange()
			dir = cm.Direction
		}
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			q.fixedOnly = append(q.fixedOnly, m)
			continue
		}
		rule := th.For(m)
		for _, sg := range segs {
			c := counts[sg]
			level := metricLevel(false, rule.Level)
			if sg.key != "" && def.SegmentLevel == LevelWarn {
				level = LevelWarn
			}
			q.members = append(q.members, &seqMember{metric: m, segKey: sg.key, segValue: sg.value, lower: dir == metrics.LowerIsBetter,
				rule: rule, level: level, lo: lo, hi: hi, nU: c[0], nC: c[1]})
		}
	}
	// Bonferroni over the family: each member's paired test and lost-
	// scores test. Floors are checked at alpha, as today (they are not
	// part of the family).
	k := max(1, 2*len(q.members))
	for _, mb := range q.members {
		a := mb.rule.Alpha / float64(k)
		mb.alpha = a
		w := mb.hi - mb.lo
		mb.cDiff = newEBSeq(-w, w, a)
		mb.cLost = newEBSeq(-1, 1, a)
		mb.cHead = newEBSeq(mb.lo, mb.hi, mb.rule.Alpha)
	}
	return q
}

func compactStrings(xs []string) []string {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// segValue is a sample's value of a segment key: the head's metadata,
// else the base's, else NoSegmentValue (as segmentValue).
func segValue(head, base map[string]string, key string) string {
	for _, md := range []map[string]string{head, base} {
		if v, ok := md[key]; ok && strings.TrimSpace(v) != "" {
			return v
		}
	}
	return NoSegmentValue
}

// Add feeds one judged head sample, in the order judged; unchanged tells
// whether its inputs are those of the base (the samples judged first).
func (q *Sequential) Add(s *results.Sample, unchanged bool) {
	q.fed++
	b, ok := q.base[s.ID]
	if !ok {
		return
	}
	for _, mb := range q.members {
		if mb.segKey != "" && segValue(s.Metadata, b.Metadata, mb.segKey) != mb.segValue {
			continue
		}
		mb.add(s, b, unchanged)
	}
}

// score returns sample s's score of canonical metric m and the kind of its
// undefined score ("" when defined; data when it has none).
func score(s *results.Sample, m string) (float64, results.UndefinedKind) {
	for k, v := range s.Scores {
		if CanonicalMetric(k) != m {
			continue
		}
		if !v.IsNaN() {
			return v.Value(), ""
		}
		kind := s.KindOf(k)
		if kind == results.KindNotJudged {
			kind = results.KindData
		}
		return math.NaN(), kind
	}
	return math.NaN(), results.KindData
}

func (mb *seqMember) add(h, b *results.Sample, unchanged bool) {
	if unchanged {
		mb.uSeen++
	}
	hv, hk := score(h, mb.metric)
	bv, bk := score(b, mb.metric)
	if hk == "" {
		if unchanged {
			mb.uHead.add(hv)
		} else {
			mb.cHead.Add(hv)
		}
	}
	if hk != results.KindData && bk != results.KindData {
		y := 0.0
		switch {
		case hk != "" && bk == "":
			y = 1
		case hk == "" && bk != "":
			y = -1
		}
		if unchanged {
			mb.uLost.add(y)
		} else {
			mb.cLost.Add(y)
		}
	}
	if hk == "" && bk == "" {
		d := hv - bv
		if mb.lower {
			d = -d
		}
		if unchanged {
			mb.uDiff.add(d)
		} else {
			mb.cDiff.Add(d)
		}
	}
}

// stratified combines the exact mean over U with the confidence sequence
// over C: the estimate and the bounds of the mean over the member's
// samples, weighted by their numbers of samples. Before any C sample the
// bounds are the whole range and the estimate NaN (nothing can fail).
func (mb *seqMember) stratified(u sum1, c meanSeq) (est, lo, hi float64) {
	nU, nC := float64(mb.nU), float64(mb.nC)
	if u.n == 0 {
		nU = 0
	}
	switch {
	case nC == 0 && nU == 0:
		return math.NaN(), math.Inf(-1), math.Inf(1)
	case nC == 0:
		return u.mean(), u.mean(), u.mean()
	}
	w := nU / (nU + nC)
	l, h := c.Interval()
	cm := c.Mean()
	return w*u.mean() + (1-w)*cm, w*u.mean() + (1-w)*l, w*u.mean() + (1-w)*h
}

// decide updates the member's decisions; final decides what is still
// undecided (every sample judged).
func (mb *seqMember) decide(final bool) {
	if mb.uSeen < mb.nU && !final {
		// The mean over U is exact only once all of U is judged.
		return
	}
	tol := mb.rule.Tolerance
	if mb.diff == SeqUndecided {
		est, lo, hi := mb.stratified(mb.uDiff, mb.cDiff)
		switch {
		case hi < 0 && est <= -tol+eps:
			mb.diff = SeqFailed
		case lo > -tol || final:
			mb.diff = SeqPassed
		}
	}
	if mb.lost == SeqUndecided {
		est, lo, hi := mb.stratified(mb.uLost, mb.cLost)
		switch {
		case lo > 0 && est >= tol-eps:
			mb.lost = SeqFailed
		case hi < tol || final:
			mb.lost = SeqPassed
		}
	}
	if mb.floor == SeqUndecided {
		mb.floor = SeqPassed
		if mb.rule.Min != nil || mb.rule.Max != nil {
			mb.floor = SeqUndecided
			_, lo, hi := mb.stratified(mb.uHead, mb.cHead)
			below := mb.rule.Min != nil && hi < *mb.rule.Min-eps
			above := mb.rule.Max != nil && lo > *mb.rule.Max+eps
			inside := (mb.rule.Min == nil || lo >= *mb.rule.Min-eps) && (mb.rule.Max == nil || hi <= *mb.rule.Max+eps)
			switch {
			case below || above:
				mb.floor = SeqFailed
			case inside || final:
				mb.floor = SeqPassed
			}
		}
	}
}

func (mb *seqMember) decision() SeqDecision {
	switch {
	case mb.diff == SeqFailed || mb.lost == SeqFailed || mb.floor == SeqFailed:
		return SeqFailed
	case mb.diff == SeqPassed && mb.lost == SeqPassed && mb.floor == SeqPassed:
		return SeqPassed
	}
	return SeqUndecided
}

// Look decides what the samples fed so far allow.
func (q *Sequential) Look() SeqLook {
	q.looks++
	all := len(q.fixedOnly) == 0
	failed := false
	for _, mb := range q.members {
		if mb.decision() == SeqUndecided {
			mb.decide(false)
			if mb.decision() != SeqUndecided {
				mb.decidedAt = q.fed
			}
		}
		switch mb.decision() {
		case SeqUndecided:
			all = false
		case SeqFailed:
			if mb.level == LevelFail {
				failed = true
			}
		}
	}
	return SeqLook{Decided: all || failed, Judged: q.fed}
}

// finish decides every member still undecided, with the samples fed.
func (q *Sequential) finish() {
	for _, mb := range q.members {
		if mb.decision() == SeqUndecided {
			mb.decide(true)
			mb.decidedAt = q.fed
		}
	}
}

// SeqMetric is a gated metric's sequential decision, in the report.
type SeqMetric struct {
	// Decision is failed or passed.
	Decision SeqDecision `json:"decision"`
	// DecidedAfter is the number of samples judged when it was decided.
	DecidedAfter int `json:"decided_after"`
	// Low and High bound the mean paired difference (oriented: negative
	// is worse) at the metric's share of alpha, at the decision.
	Low  results.Score `json:"low"`
	High results.Score `json:"high"`
	// Floor is the decision on min and max ("" when the metric has none).
	Floor SeqDecision `json:"floor,omitempty"`
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
}

// replaySequential replays the looks of a sequential head and overrides
// the verdicts of its gated metrics (and segments) with the sequential
// decisions.
func (cmp *comparison) replaySequential(segs *segmentRun) {
	sq := cmp.head.Config.Sequential
	if sq == nil || cmp.base == nil {
		return
	}
	baseHash := make(map[string]string, len(cmp.base.Samples))
	for i := range cmp.base.Samples {
		baseHash[cmp.base.Samples[i].ID] = cmp.base.Samples[i].InputHash
	}
	all := make([]SeqSample, len(cmp.head.Samples))
	var judged []int
	for i := range cmp.head.Samples {
		s := &cmp.head.Samples[i]
		h, ok := baseHash[s.ID]
		all[i] = SeqSample{ID: s.ID, Metadata: s.Metadata, Unchanged: ok && h != "" && h == s.InputHash}
		if s.Seq > 0 {
			judged = append(judged, i)
		}
	}
	sort.Slice(judged, func(a, b int) bool { return cmp.head.Samples[judged[a]].Seq < cmp.head.Samples[judged[b]].Seq })
	q := NewSequential(cmp.base, cmp.th, sq.Batch, all)
	decided := 0
	for k, i := range judged {
		q.Add(&cmp.head.Samples[i], all[i].Unchanged)
		if (k+1)%q.batch == 0 && q.Look().Decided {
			decided = k + 1
			break
		}
	}
	q.finish()
	cmp.r.Sequential = &SeqSummary{Batch: sq.Batch, Seed: sq.Seed, Judged: sq.Judged, Total: sq.Total, DecidedAfter: decided, FixedOnly: q.fixedOnly}
	members := map[[3]string]*seqMember{}
	for _, mb := range q.members {
		members[[3]string{mb.metric, mb.segKey, mb.segValue}] = mb
	}
	for i := range cmp.r.Metrics {
		mr := &cmp.r.Metrics[i]
		if mb := members[[3]string{mr.Metric, "", ""}]; mb != nil {
			_, lo, hi := mb.stratified(mb.uDiff, mb.cDiff)
			mr.Sequential = &SeqMetric{Decision: mb.decision(), DecidedAfter: mb.decidedAt, Low: results.Score(lo), High: results.Score(hi), Lost: mb.lost}
			if mr.Rule.Min != nil || mr.Rule.Max != nil {
				mr.Sequential.Floor = mb.floor
			}
			mb.override(mr)
		}
	}
	for i, ms := range segs.results {
		k, s := segs.where[i][0], segs.where[i][1]
		seg := &segs.keys[k].Segments[s]
		for j := range ms {
			if mb := members[[3]string{ms[j].Metric, seg.Key, seg.Value}]; mb != nil {
				mb.override(&ms[j])
			}
		}
	}
}

// override sets mr's paired verdict and lost scores from the member's
// decisions; an improvement the fixed design found is kept (it never
// fails the gate).
func (mb *seqMember) override(mr *MetricResult) {
	if isTested(mr.Change) {
		switch {
		case mb.diff == SeqFailed:
			mr.Change = VerdictRegression
		case mr.Change == VerdictRegression:
			mr.Change = VerdictNoChange
		}
	}
	mr.LostScores = mb.lost == SeqFailed
}
