package compare

import "github.com/raggate/raggate/internal/results"

// Finding is one thing the comparison found: why the gate fails, a warning,
// or a note that explains the comparison. Compare decides and records the
// numbers; package report words them (report.Sentence), so a renderer or
// the action tells a floor breach from a judge change by Kind, never by
// text. Report.Findings lists them in the order the report shows them.
//
// Numbers that do not apply to a Kind are zero and omitted from JSON.
type Finding struct {
	Kind Kind `json:"kind"`
	// Level is LevelFail, LevelWarn or LevelNote.
	Level Level `json:"level"`
	// Metric names the metric the finding is about, if any.
	Metric string `json:"metric,omitempty"`
	// Segment is "key=value" for a finding about one segment's pairs.
	Segment string `json:"segment,omitempty"`
	// Key is the segment key of a finding about a key (KindSegmentKey*).
	Key string `json:"key,omitempty"`
	// ReportOnly is true for a finding about a metric outside the gated
	// family: it is a note and never fails the gate.
	ReportOnly bool `json:"report_only,omitempty"`
	// Side is "base" or "head" for a finding about one results file.
	Side string `json:"side,omitempty"`

	// Value is the measured number: how much worse (a regression, positive),
	// the head mean (a floor or ceiling), the minimum detectable effect
	// (KindWeakPower).
	Value float64 `json:"value,omitempty"`
	// Bound is the floor or ceiling Value breached.
	Bound float64 `json:"bound,omitempty"`
	// P is the adjusted p-value (KindRegression, KindLostScores).
	P float64 `json:"p,omitempty"`
	// Sequential is set when a sequential check's anytime-valid test
	// decided it (gate check --sequential): P is then left out.
	Sequential bool `json:"sequential,omitempty"`
	// N counts what the finding is about, out of Of: lost scores, undefined
	// head samples, changed inputs, paired samples, segment values, head
	// repeats, scored samples of an incomplete run.
	N  int `json:"n,omitempty"`
	Of int `json:"of,omitempty"`
	// BaseN and BaseOf are the base's counts where the finding compares
	// the sides: undefined base samples (KindJudgeFailed), base repeats
	// (KindRepeatsDiffer, with BaseN only).
	BaseN  int `json:"base_n,omitempty"`
	BaseOf int `json:"base_of,omitempty"`
	// Regained counts the scores regained the other way (KindLostScores).
	Regained int `json:"regained,omitempty"`
	// Reason is the most frequent head reason (KindLostScores,
	// KindJudgeFailed), why a run
	// is incomplete (KindIncomplete) or the shard it holds (KindShardOnly).
	Reason string `json:"reason,omitempty"`
	// Suggestion is the nearest metadata key (KindSegmentKeyMissing); Known
	// lists the metadata keys when none is near.
	Suggestion string   `json:"suggestion,omitempty"`
	Known      []string `json:"known,omitempty"`
	// DatasetChanged is set on KindHeadTooSmall when the dataset changed and
	// head scored all of it (then the finding only warns).
	DatasetChanged bool `json:"dataset_changed,omitempty"`
}

// LevelNote is a finding that explains the comparison and changes nothing.
const LevelNote Level = "note"

// Kind says what a Finding is about.
type Kind string

// Finding kinds.
const (
	// KindRegression: a metric (or a metric on a segment) got significantly
	// worse by more than its tolerance.
	KindRegression Kind = "regression"
	// KindLostScores: significantly more paired samples lost their score
	// than gained one.
	KindLostScores Kind = "lost_scores"
	// KindBelowFloor and KindAboveCeiling: the head mean breached the
	// metric's min or max.
	KindBelowFloor   Kind = "below_floor"
	KindAboveCeiling Kind = "above_ceiling"
	// KindFloorNotChecked: a floor or ceiling is set but head has no
	// defined score to check it against.
	KindFloorNotChecked Kind = "floor_not_checked"
	// KindNotInHead: base scored the metric, head did not.
	KindNotInHead Kind = "not_in_head"
	// KindJudgeFailed: the metric is undefined on most head samples but
	// not on most base samples.
	KindJudgeFailed Kind = "judge_failed"
	// KindNoBaseline: no baseline, only floors were checked (a note).
	KindNoBaseline Kind = "no_baseline"
	// KindMissingBaseline: no baseline under on_missing_baseline: fail.
	KindMissingBaseline Kind = "missing_baseline"
	// KindJudgeChanged: the sides have different judge fingerprints
	// (Report.Base.Judge and Report.Head.Judge say which).
	KindJudgeChanged Kind = "judge_changed"
	// KindDatasetChanged: the sides have different dataset hashes.
	KindDatasetChanged Kind = "dataset_changed"
	// KindInputsChanged: N of Of paired samples have changed inputs.
	KindInputsChanged Kind = "inputs_changed"
	// KindIncomplete: the Side's run is incomplete (Reason), N samples
	// scored.
	KindIncomplete Kind = "incomplete"
	// KindHeadEmpty: head has no scored sample.
	KindHeadEmpty Kind = "head_empty"
	// KindHeadTooSmall: head pairs with N of the base's Of samples, fewer
	// than half.
	KindHeadTooSmall Kind = "head_too_small"
	// KindShardOnly: the Side holds one shard (Reason) of a sharded run.
	KindShardOnly Kind = "shard_only"
	// KindRepeatsDiffer: base ran BaseN repeats, head N.
	KindRepeatsDiffer Kind = "repeats_differ"
	// KindFewPairs: the metric has N paired samples, fewer than Of
	// (min_samples): reported but not tested. A warning for a gated metric
	// with at least one pair, else a note.
	KindFewPairs Kind = "few_pairs"
	// KindNotComparable: a gated metric has no paired sample because Side
	// ("base", "head", "both", or "" when both scored it on different
	// samples) has no score for it: N of Of samples of that side scored,
	// Reason the most frequent reason there.
	KindNotComparable Kind = "not_comparable"
	// KindContextIDsChanged: N of the Of distinct context ids the paired
	// head samples retrieved were never retrieved on base (more than
	// MaxContextIDTurnover): the Metric, computed from ids, is not
	// compared and left out of the decision.
	KindContextIDsChanged Kind = "context_ids_changed"
	// KindWeakPower: the metric's minimum detectable effect (Value) exceeds
	// its tolerance.
	KindWeakPower Kind = "weak_power"
	// KindThresholdsUnused: the thresholds set a rule for a metric neither
	// side scored.
	KindThresholdsUnused Kind = "thresholds_unused"
	// KindSegmentKeyMissing: no paired sample has the segment Key.
	KindSegmentKeyMissing Kind = "segment_key_missing"
	// KindSegmentKeyOneValue: the Key has one value among the pairs.
	KindSegmentKeyOneValue Kind = "segment_key_one_value"
	// KindSegmentValuesCapped: the Key has N values; only Of are compared.
	KindSegmentValuesCapped Kind = "segment_values_capped"
	// KindSegmentFewPairs: the Segment has N pairs, fewer than Of.
	KindSegmentFewPairs Kind = "segment_few_pairs"
)

// IsMetricReason reports whether f is one of its metric's reasons
// (MetricResult.Reasons, SegmentMetric.Reasons): what the metric does to
// the gate, as opposed to a situation of the comparison.
func (f Finding) IsMetricReason() bool {
	switch f.Kind {
	case KindRegression, KindLostScores, KindBelowFloor, KindAboveCeiling, KindJudgeFailed, KindNotComparable:
		return true
	}
	return false
}

// metricLevel is the level of a metric's reason: a note for a report-only
// metric, else the rule's level.
func metricLevel(reportOnly bool, level Level) Level {
	switch {
	case reportOnly:
		return LevelNote
	case level == LevelWarn:
		return LevelWarn
	}
	return LevelFail
}

// statusOf is what a reason at level does to its metric's status.
func statusOf(level Level) Status {
	switch level {
	case LevelFail:
		return StatusFail
	case LevelWarn:
		return StatusWarn
	}
	return StatusOK
}

// pOf is the p-value a finding about mr quotes, and whether a sequential
// test decided it instead (P left out: no fixed-design p-value describes
// a sequential decision).
func pOf(mr *MetricResult, p results.Score) (float64, bool) {
	if mr.sequential {
		return 0, true
	}
	return p.Value(), false
}
