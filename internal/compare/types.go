package compare

import (
	"time"

	"github.com/raggate/raggate/internal/results"
)

// ReportSchema identifies the JSON form of Report.
const ReportSchema = "raggate.compare/v1"

// Verdict is the outcome of one metric, or of the whole gate.
type Verdict string

// Metric verdicts.
const (
	// VerdictRegression: mean delta <= -tolerance and adjusted p < alpha.
	VerdictRegression Verdict = "regression"
	// VerdictImprovement: mean delta >= tolerance and adjusted p < alpha.
	VerdictImprovement Verdict = "improvement"
	// VerdictNoChange: no significant change ("~", as in benchstat).
	VerdictNoChange Verdict = "~"
	// VerdictBelowFloor: the head mean is below the metric's min or above
	// its max (the headline verdict; Change still tells what the paired
	// comparison found).
	VerdictBelowFloor Verdict = "below_floor"
	// VerdictInsufficientData: fewer than min_samples paired samples; the
	// metric is reported and never fails the comparison (floors still apply).
	VerdictInsufficientData Verdict = "insufficient_data"
	// VerdictNoBaseline: there is no baseline; only floors were checked.
	VerdictNoBaseline Verdict = "no_baseline"
	// VerdictNewMetric: the metric is scored on head but not on base.
	VerdictNewMetric Verdict = "new_metric"
	// VerdictNotInHead: the metric is scored on base but not on head.
	VerdictNotInHead Verdict = "not_in_head"
	// VerdictLostScores: significantly more paired samples lost their
	// score (defined on base, undefined on head) than gained one.
	VerdictLostScores Verdict = "lost_scores"
	// VerdictNotComparable: a gated metric scored on both sides has no
	// paired sample to compare (one side has no score for it), or its
	// scores cannot be compared (MetricResult.NotComparable says why). It
	// fails the gate unless the rule's level is warn or the base only
	// lacked the data.
	VerdictNotComparable Verdict = "not_comparable"
)

// Overall verdicts of the gate.
const (
	VerdictPass             Verdict = "pass"
	VerdictFail             Verdict = "fail"
	VerdictPassWithWarnings Verdict = "pass with warnings"
)

// Status is what a metric does to the gate.
type Status string

// Metric statuses.
const (
	StatusOK   Status = "ok"
	StatusWarn Status = "warn"
	StatusFail Status = "fail"
)

// Floor is the result of checking the head mean against min and max.
type Floor string

// Floor results.
const (
	// FloorNone: the metric has no min or max, or no defined head score.
	FloorNone Floor = ""
	FloorOK   Floor = "ok"
	// FloorBelowMin: the head mean is below min.
	FloorBelowMin Floor = "below_min"
	// FloorAboveMax: the head mean is above max.
	FloorAboveMax Floor = "above_max"
)

// Report is the result of a comparison, and the JSON report format. Every
// float that can be undefined is a results.Score (JSON null when NaN).
//
// Means: BaseMean and HeadMean (in MetricResult) are over every sample
// defined on that side; floors are checked against HeadMean. PairedBaseMean,
// PairedHeadMean and RawDelta are over the samples defined on both sides, so
// PairedHeadMean - PairedBaseMean == RawDelta. A diff table should show the
// paired means next to the delta (so that its columns add up) and the
// all-sample head mean where it quotes a floor; the two coincide when both
// sides scored the same samples.
type Report struct {
	Schema string `json:"schema"`
	// Passed is false when the gate fails (the CLI exits 1).
	Passed bool `json:"passed"`
	// Verdict is "pass", "fail" or "pass with warnings".
	Verdict Verdict `json:"verdict"`
	// Failures are the reasons the gate failed, one human sentence each
	// naming the metric ("faithfulness regressed by 0.12 (p=0.003)"): the
	// findings at LevelFail, worded by package report.
	Failures []string `json:"failures"`
	// Warnings are problems that do not fail the gate: level-warn rules,
	// incomplete runs, a judge change under on_judge_change: warn.
	Warnings []string `json:"warnings"`
	// Notes explain the comparison: no baseline, dataset changed, metrics
	// with too few pairs, minimum detectable effects.
	Notes []string `json:"notes"`
	// Findings are the failures, warnings and notes as typed values, in
	// the order the report shows them. Compare fills Findings and leaves
	// the three sentence lists empty; package report words the findings
	// (report.Fill fills Failures, Warnings, Notes and every metric's
	// Reasons before the report is written as JSON).
	Findings []Finding `json:"findings"`

	// HasBaseline is false when Compare got no base results.
	HasBaseline bool `json:"has_baseline"`
	// JudgeChanged is true when base and head have different judge
	// fingerprints.
	JudgeChanged bool `json:"judge_changed"`
	// DatasetChanged is true when base and head have different dataset
	// hashes.
	DatasetChanged bool  `json:"dataset_changed"`
	Base           *Side `json:"base,omitempty"`
	Head           Side  `json:"head"`

	Counts Counts `json:"counts"`
	// Metrics are in catalogue order (metrics.Order), unknown metrics last.
	Metrics []MetricResult `json:"metrics"`
	// TopRegressed are the paired samples with the worst per-sample delta
	// across metrics (at most 10, worst first; only samples that got worse).
	TopRegressed []SampleDelta `json:"top_regressed"`
	// New are the samples only in head, Removed those only in base, in file
	// order. Neither is a regression.
	New     []SampleRef `json:"new"`
	Removed []SampleRef `json:"removed"`
	// Segments compares the metrics per value of each segment key
	// (Thresholds.Segments), one entry per key; omitted without keys.
	Segments []SegmentKey `json:"segments,omitempty"`

	// Settings are the resolved defaults the comparison used.
	Settings Settings `json:"settings"`
	// Sequential is set when the head is a sequential check's results
	// (gate check --sequential): how many samples it judged and when it
	// decided.
	Sequential *SeqSummary `json:"sequential,omitempty"`
}

// Side describes one results file of the comparison.
type Side struct {
	Git        *results.Git    `json:"git,omitempty"`
	CreatedAt  time.Time       `json:"created_at"`
	Dataset    results.Dataset `json:"dataset"`
	Judge      results.Judge   `json:"judge"`
	Repeats    int             `json:"repeats"`
	Samples    int             `json:"samples"`
	Usage      results.Usage   `json:"usage"`
	Incomplete string          `json:"incomplete,omitempty"`
	Shard      string          `json:"shard,omitempty"`
}

// Counts counts samples.
type Counts struct {
	Base int `json:"base"`
	Head int `json:"head"`
	// Paired samples have the same id on both sides.
	Paired  int `json:"paired"`
	New     int `json:"new"`
	Removed int `json:"removed"`
	// InputsChanged counts paired samples whose input hashes differ (both
	// known); the others were judged on unchanged inputs.
	InputsChanged int `json:"inputs_changed"`
}

// Settings records what the comparison used.
type Settings struct {
	Thresholds string   `json:"thresholds,omitempty"`
	Defaults   Defaults `json:"defaults"`
	// Bootstrap is the number of bootstrap resamples (0: CI not computed).
	Bootstrap int `json:"bootstrap"`
	// PermutationDraws is the Monte Carlo draws used beyond ExactLimit
	// non-zero differences.
	PermutationDraws int `json:"permutation_draws"`
	// CILevel is the confidence level of the intervals (0.95).
	CILevel float64 `json:"ci_level"`
	// Power is the power at which MDE is computed (0.8).
	Power float64 `json:"power"`
}

// Interval is a confidence interval.
type Interval struct {
	Low  results.Score `json:"low"`
	High results.Score `json:"high"`
}

// Distribution summarises the per-sample scores of one side.
type Distribution struct {
	P10    results.Score `json:"p10"`
	Median results.Score `json:"median"`
	P90    results.Score `json:"p90"`
}

// MetricResult is the comparison of one metric.
type MetricResult struct {
	Metric string `json:"metric"`
	// Direction is "higher" or "lower" (is better).
	Direction string     `json:"direction"`
	Rule      MetricRule `json:"rule"`
	// Verdict is the headline: Change, except that a breached floor shows
	// as VerdictBelowFloor unless the metric also regressed.
	Verdict Verdict `json:"verdict"`
	// Change is what the paired comparison found.
	Change Verdict `json:"change"`
	// Sequential is the sequential decision of a gated metric of a
	// sequential check (nil otherwise): it sets Change and LostScores.
	Sequential *SeqVerdict `json:"sequential,omitempty"`
	// sequential: a sequential test decided Change and LostScores (the
	// whole set's or a segment's), so findings quote no p-value.
	sequential bool
	Floor      Floor `json:"floor"`
	// Status is what the metric does to the gate, after its level.
	Status Status `json:"status"`
	// Reasons are this metric's failure or warning sentences, worded by
	// package report from the metric's findings (Finding.IsMetricReason).
	Reasons []string `json:"reasons,omitempty"`

	// All-sample view (each side over every sample defined there).
	BaseMean      results.Score `json:"base_mean"`
	HeadMean      results.Score `json:"head_mean"`
	BaseN         int           `json:"base_n"`
	HeadN         int           `json:"head_n"`
	BaseUndefined int           `json:"base_undefined"`
	HeadUndefined int           `json:"head_undefined"`
	BaseDist      Distribution  `json:"base_dist"`
	HeadDist      Distribution  `json:"head_dist"`
	// BaseJudgeNoise and HeadJudgeNoise are the mean within-sample standard
	// deviations of repeated runs (null without repeats).
	BaseJudgeNoise results.Score `json:"base_judge_noise"`
	HeadJudgeNoise results.Score `json:"head_judge_noise"`

	// Paired view: samples defined on both sides (JSON: the fields of
	// Paired, inline).
	Paired
	// Exact is true when the p-values enumerate every sign pattern.
	Exact bool `json:"exact"`
	// MDE is the minimum detectable effect at 80% power for this n and SD,
	// at the metric's alpha before any Holm adjustment (so a lower bound
	// when several metrics are tested).
	MDE results.Score `json:"mde"`
	// Unpaired counts paired samples scored on only one side for this metric.
	Unpaired int `json:"unpaired"`

	// ReportOnly is true for a metric outside the gated family (see
	// Thresholds.Gated): it is compared and shown, with p-values corrected
	// among the report-only metrics, and never fails the gate.
	ReportOnly bool `json:"report_only"`
	// Lost counts paired samples scored on base and undefined on head,
	// Regained the reverse; a score undefined for reasons of the data (kind
	// data: a missing or empty golden field) counts in neither.
	Lost     int `json:"lost"`
	Regained int `json:"regained"`
	// LostShare is (Lost - Regained) over the paired samples counted.
	LostShare results.Score `json:"lost_share"`
	// PLost is the exact one-sided sign (McNemar) test of Lost against
	// Regained, PLostAdj the same corrected within the metric's family
	// (with the PWorse values). Null when untested: with fewer transitions
	// than could ever reach alpha the test is left out of the family.
	PLost    results.Score `json:"p_lost"`
	PLostAdj results.Score `json:"p_lost_adj"`
	// LostScores is true when the loss is significant: PLostAdj < alpha
	// and LostShare >= tolerance.
	LostScores bool `json:"lost_scores"`
	// LostReason is the most frequent head reason among the lost samples.
	LostReason string `json:"lost_reason,omitempty"`
	// NotComparable says why the metric was not compared (Change is
	// VerdictNotComparable): one of the NotComparable* values.
	NotComparable string `json:"not_comparable,omitempty"`
}

// Why a metric is not comparable (MetricResult.NotComparable).
const (
	// NotComparableBase: the base has no score for the metric.
	NotComparableBase = "base_unscored"
	// NotComparableHead: the head has no score for the metric.
	NotComparableHead = "head_unscored"
	// NotComparableBoth: neither side has a score for the metric.
	NotComparableBoth = "unscored"
	// NotComparableDisjoint: both sides scored it, on no common sample.
	NotComparableDisjoint = "no_common_samples"
)

// SampleRef names a sample.
type SampleRef struct {
	ID       string `json:"id"`
	Question string `json:"question,omitempty"`
}

// SampleDelta is one paired sample's change.
type SampleDelta struct {
	ID       string `json:"id"`
	Question string `json:"question,omitempty"`
	// WorstMetric and WorstDelta name the metric with the most negative
	// oriented difference (negative is worse).
	WorstMetric string        `json:"worst_metric"`
	WorstDelta  results.Score `json:"worst_delta"`
	// Metrics lists the metrics whose score changed, in catalogue order.
	Metrics []SampleMetric `json:"metrics"`
	// Segments are the sample's values of the segment keys it has.
	Segments map[string]string `json:"segments,omitempty"`
}

// SampleMetric is one metric of one sample, base -> head.
type SampleMetric struct {
	Metric string        `json:"metric"`
	Base   results.Score `json:"base"`
	Head   results.Score `json:"head"`
	// Delta is head - base.
	Delta results.Score `json:"delta"`
	// Reason is the head sample's explanation, where known.
	Reason string `json:"reason,omitempty"`
}

// Paired is the paired comparison of one metric over a set of pairs (every
// pair, or one segment's): the samples defined on both sides. MetricResult
// and SegmentMetric embed it, so that the two views cannot drift.
type Paired struct {
	N              int           `json:"n"`
	PairedBaseMean results.Score `json:"paired_base_mean"`
	PairedHeadMean results.Score `json:"paired_head_mean"`
	// RawDelta is mean(head - base), for display.
	RawDelta   results.Score `json:"raw_delta"`
	RawDeltaCI Interval      `json:"raw_delta_ci"`
	// Delta is the mean oriented difference: RawDelta for higher-is-better
	// metrics, -RawDelta for lower-is-better ones; positive is better.
	Delta   results.Score `json:"delta"`
	DeltaCI Interval      `json:"delta_ci"`
	// SD is the standard deviation of the oriented differences.
	SD results.Score `json:"sd"`
	// Worse, Better and Same count paired samples by their difference.
	Worse  int `json:"worse"`
	Better int `json:"better"`
	Same   int `json:"same"`
	// PWorse and PBetter are the raw one-sided p-values of the sign-flip
	// test; the Adj versions are Holm-adjusted across the tested metrics
	// (equal to the raw ones under correction: none). Null when untested.
	PWorse     results.Score `json:"p_worse"`
	PBetter    results.Score `json:"p_better"`
	PWorseAdj  results.Score `json:"p_worse_adj"`
	PBetterAdj results.Score `json:"p_better_adj"`
}
