package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// Findings in words: package compare decides and records typed findings;
// this file is the one place that turns them into sentences, for every
// renderer and for the JSON report's failures, warnings, notes and reasons.

// Fill fills r's sentence lists (Failures, Warnings, Notes) and every
// metric's and segment metric's Reasons from r.Findings, for the JSON
// report and for callers that annotate with the sentences. Filling twice
// gives the same report.
func Fill(r *compare.Report) {
	if r == nil {
		return
	}
	r.Failures = sentences(r, compare.LevelFail, nil)
	r.Warnings = sentences(r, compare.LevelWarn, nil)
	r.Notes = sentences(r, compare.LevelNote, nil)
	for i := range r.Metrics {
		m := &r.Metrics[i]
		m.Reasons = reasonsOf(r, m.Metric, "")
	}
	for k := range r.Segments {
		for s := range r.Segments[k].Segments {
			seg := &r.Segments[k].Segments[s]
			for j := range seg.Metrics {
				seg.Metrics[j].Reasons = reasonsOf(r, seg.Metrics[j].Metric, seg.Key+"="+seg.Value)
			}
		}
	}
}

// reasonsOf words the reasons of metric on segment ("" for the whole set).
func reasonsOf(r *compare.Report, metric, segment string) []string {
	var out []string
	for _, f := range r.Findings {
		if f.IsMetricReason() && f.Metric == metric && f.Segment == segment {
			out = append(out, Sentence(r, f))
		}
	}
	return out
}

// sentences words r's findings at level that keep accepts (nil: all), in
// order. Consecutive findings of a listing kind join into one sentence:
// the metrics with too few pairs, with weak power, the unused rules, the
// untested segments, and the report-only metrics' findings.
func sentences(r *compare.Report, level compare.Level, keep func(compare.Finding) bool) []string {
	// A listing kind is one sentence however its findings are spread
	// (the context ids warning once, not once per id metric): each group
	// is worded where its first finding stands.
	groups := map[string][]compare.Finding{}
	var order []string // a group name, or "" for a finding of its own
	var alone []compare.Finding
	for _, f := range r.Findings {
		if f.Level != level || (keep != nil && !keep(f)) {
			continue
		}
		if g := groupOf(f); g != "" {
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			groups[g] = append(groups[g], f)
			continue
		}
		order = append(order, "")
		alone = append(alone, f)
	}
	out := []string{}
	for _, g := range order {
		if g == "" {
			out = append(out, Sentence(r, alone[0]))
			alone = alone[1:]
			continue
		}
		out = append(out, groupSentence(r, groups[g]))
	}
	return out
}

// groupOf names the listing sentence f joins, or "" when it stands alone.
func groupOf(f compare.Finding) string {
	if f.ReportOnly {
		return "report_only"
	}
	switch f.Kind {
	case compare.KindFewPairs, compare.KindWeakPower, compare.KindThresholdsUnused, compare.KindSegmentFewPairs, compare.KindContextIDsChanged:
		return string(f.Kind)
	}
	return ""
}

// groupSentence words a run of findings of one listing kind.
func groupSentence(r *compare.Report, fs []compare.Finding) string {
	items := make([]string, len(fs))
	f := fs[0]
	switch {
	case f.ReportOnly:
		for i, g := range fs {
			items[i] = Sentence(r, g)
		}
		return "report-only metrics (not gated, see the thresholds' gate and report_only): " + strings.Join(items, "; ")
	case f.Kind == compare.KindFewPairs:
		var few, none []string // zero pairs is not "too few": said apart
		for _, g := range fs {
			if g.N == 0 {
				none = append(none, g.Metric)
			} else {
				few = append(few, fmt.Sprintf("%s (%d)", g.Metric, g.N))
			}
		}
		var out []string
		if len(few) > 0 {
			out = append(out, fmt.Sprintf("fewer than %d paired samples, reported but not tested: %s", f.Of, strings.Join(few, ", ")))
		}
		if len(none) > 0 {
			out = append(out, "no paired sample, not tested: "+strings.Join(none, ", "))
		}
		return strings.Join(out, "; ")
	case f.Kind == compare.KindWeakPower:
		for i, g := range fs {
			items[i] = g.Metric + " " + sayDelta(g.Value)
		}
		return "with these samples, changes smaller than the minimum detectable effect (80% power) may show as ~: " + strings.Join(items, ", ")
	case f.Kind == compare.KindThresholdsUnused:
		for i, g := range fs {
			items[i] = g.Metric
		}
		return "the thresholds set rules for metrics neither side scored: " + strings.Join(items, ", ")
	case f.Kind == compare.KindContextIDsChanged:
		for i, g := range fs {
			items[i] = g.Metric
		}
		return fmt.Sprintf("context ids changed: id metrics not comparable with this baseline (%d of the %d context ids retrieved on head were never retrieved on base, and they miss the reference_context_ids): %s left out of the decision. Either the corpus was re-chunked and the dataset's reference_context_ids are stale (update them to the new ids, then store a baseline of the re-indexed corpus with `gate baseline put`), or the retriever broke (check the text-based context metrics, such as context_recall or nonllm_context_recall, which do not read ids)",
			f.N, f.Of, strings.Join(items, ", "))
	}
	return untestedSegments(fs)
}

// untestedSegments words the segments with too few pairs, the first ten
// of them.
func untestedSegments(fs []compare.Finding) string {
	const shown = 10
	more := ""
	if len(fs) > shown {
		more = fmt.Sprintf(" and %d more", len(fs)-shown)
		fs = fs[:shown]
	}
	items := make([]string, len(fs))
	for i, g := range fs {
		items[i] = fmt.Sprintf("%s (%d)", g.Segment, g.N)
	}
	return fmt.Sprintf("segments with fewer than %d paired samples, listed but not tested: %s%s", fs[0].Of, strings.Join(items, ", "), more)
}

// Sentence words one finding of r on its own ("faithfulness regressed by
// 0.12 (p=0.003)"). Numbers follow the sentence rules of format.go.
func Sentence(r *compare.Report, f compare.Finding) string {
	if s, ok := metricSentence(f); ok {
		return s
	}
	if s, ok := sideSentence(r, f); ok {
		return s
	}
	return segmentKeySentence(f)
}

// metricSentence words the findings about one metric.
func metricSentence(f compare.Finding) (string, bool) {
	subject := f.Metric
	if f.Segment != "" {
		subject += " on " + f.Segment
	}
	switch f.Kind {
	case compare.KindRegression:
		if f.Segment != "" {
			return fmt.Sprintf("%s regressed by %s on %s (%s)", f.Metric, sayDelta(f.Value), f.Segment, sayFindingP(f)), true
		}
		return fmt.Sprintf("%s regressed by %s (%s)", f.Metric, sayDelta(f.Value), sayFindingP(f)), true
	case compare.KindLostScores:
		s := fmt.Sprintf("%s lost its score on %d paired samples (scored on base, undefined on head; %d the other way, %s)",
			subject, f.N, f.Regained, sayFindingP(f))
		if f.Reason != "" {
			s += ", most often: " + f.Reason
		}
		return s, true
	case compare.KindBelowFloor:
		return fmt.Sprintf("%s %s below floor %s", f.Metric, sayVs(f.Value, f.Bound), FormatBound(f.Bound)), true
	case compare.KindAboveCeiling:
		return fmt.Sprintf("%s %s above ceiling %s", f.Metric, sayVs(f.Value, f.Bound), FormatBound(f.Bound)), true
	case compare.KindFloorNotChecked:
		return f.Metric + " has a floor in the thresholds but no defined score on head; floor not checked", true
	case compare.KindNotInHead:
		return f.Metric + " was scored on base but not on head", true
	case compare.KindJudgeFailed:
		where := "most head samples"
		switch {
		case f.Of == 1:
			where = "the only head sample"
		case f.N == f.Of:
			where = "every head sample"
		}
		if f.Reason != "" {
			where += " (" + f.Reason + ")"
		}
		return fmt.Sprintf("%s is undefined for %d of %d head samples (base: %d of %d): the judge failed on %s, see the results' undefined reasons",
			f.Metric, f.N, f.Of, f.BaseN, f.BaseOf, where), true
	case compare.KindNotComparable:
		return notComparable(f), true
	case compare.KindFewPairs, compare.KindWeakPower, compare.KindThresholdsUnused, compare.KindSegmentFewPairs, compare.KindContextIDsChanged:
		return groupSentence(nil, []compare.Finding{f}), true
	}
	return "", false
}

// notComparable words a gated metric with no pair to compare.
func notComparable(f compare.Finding) string {
	s := f.Metric + " is not comparable: "
	most := ""
	if f.Reason != "" {
		most = "; most often: " + f.Reason
	}
	switch f.Side {
	case "base":
		s += fmt.Sprintf("the baseline has no score for it (0 of %d base samples scored%s)", f.Of, most)
		if f.Level == compare.LevelWarn {
			return s + "; the base's data lacked what it needs: store a baseline of this dataset with `gate baseline put`"
		}
		return s + "; store a baseline whose run scored it (re-run the base branch with a working target and judge)"
	case "head":
		return s + fmt.Sprintf("the head has no score for it (0 of %d head samples scored%s); see the results' undefined reasons", f.Of, most)
	case "both":
		return s + fmt.Sprintf("neither side has a score for it (%d head samples%s); see the results' undefined reasons", f.Of, most)
	}
	return s + fmt.Sprintf("no sample is scored on both sides (head scored %d of %d, base %d of %d); re-run both on the same dataset", f.N, f.Of, f.BaseN, f.BaseOf)
}

// sideSentence words the findings about the results files.
func sideSentence(r *compare.Report, f compare.Finding) (string, bool) {
	switch f.Kind {
	case compare.KindNoBaseline:
		return "no baseline: only floors were checked (store one with `gate baseline put` on the base branch)", true
	case compare.KindMissingBaseline:
		return "no baseline to compare with (on_missing_baseline: fail)", true
	case compare.KindJudgeChanged:
		return judgeChanged(r, f), true
	case compare.KindDatasetChanged:
		var from string
		if r.Base != nil {
			from = short(r.Base.Dataset.SHA256)
		}
		both := fmt.Sprintf("the %s on both sides are compared", plural(r.Counts.Paired, "sample", "samples"))
		if q := r.Sequential; q != nil && q.Judged < q.Total {
			both = fmt.Sprintf("the %s on both sides pair, %s of them judged (sequential check)", plural(r.Counts.Paired, "sample", "samples"), FormatInt(q.Judged))
		}
		return fmt.Sprintf("dataset changed (sha256 %s -> %s): %d new and %d removed samples; %s",
			from, short(r.Head.Dataset.SHA256), r.Counts.New, r.Counts.Removed, both), true
	case compare.KindInputsChanged:
		return fmt.Sprintf("%d of %d paired samples have changed inputs", f.N, f.Of), true
	case compare.KindIncomplete:
		s := fmt.Sprintf("%s run is incomplete (%s): %s scored", f.Side, f.Reason, plural(f.N, "sample", "samples"))
		switch {
		case f.Side == "head" && r.Sequential != nil:
			s += "; an incomplete run cannot pass, re-run `gate check --sequential` (raise --max-duration, or wait for the judge to recover)"
		case f.Side == "head":
			s += "; an incomplete run cannot pass, re-run `gate run` to completion (raise --max-duration, or wait for the judge to recover)"
		}
		return s, true
	case compare.KindHeadEmpty:
		return "head has no scored samples: nothing was compared; re-run `gate run` to completion on the dataset", true
	case compare.KindHeadTooSmall:
		s := fmt.Sprintf("head pairs with only %d of the base's %d samples (at least half must pair)", f.N, f.Of)
		if f.DatasetChanged {
			return s + ": the dataset changed; store a baseline of the new dataset with `gate baseline put`", true
		}
		return s + ": the head run scored too few samples to stand for the base; re-run `gate run` on the whole dataset (not one --shard; merge shards with `gate merge`)", true
	case compare.KindShardOnly:
		return fmt.Sprintf("%s holds only shard %s; merge the shards with `gate merge` before comparing", f.Side, f.Reason), true
	case compare.KindRepeatsDiffer:
		return fmt.Sprintf("repeats differ: base %d, head %d", f.BaseN, f.N), true
	}
	return "", false
}

// judgeChanged words a judge change, naming both judges.
func judgeChanged(r *compare.Report, f compare.Finding) string {
	var base results.Judge
	if r.Base != nil {
		base = r.Base.Judge
	}
	s := fmt.Sprintf("judge changed: base was judged by %s, head by %s; score differences may come from the judge rather than from the change (re-create the baseline with this judge)",
		judgeDesc(base), judgeDesc(r.Head.Judge))
	if d := judgeDiffers(base, r.Head.Judge); d != "" {
		s += "; what differs: " + d
	}
	if base.UserMetrics != r.Head.Judge.UserMetrics {
		// A changed definition is a changed yardstick, not a regression.
		s += "; the user-defined metrics (metrics file) differ between the two"
	}
	if f.Level == compare.LevelFail {
		s += " (on_judge_change: fail)"
	}
	return s
}

// segmentKeySentence words the findings about a segment key.
func segmentKeySentence(f compare.Finding) string {
	switch f.Kind {
	case compare.KindSegmentKeyMissing:
		s := fmt.Sprintf("segment key %q is in no paired sample's metadata, so no segment was compared", f.Key)
		switch {
		case f.Suggestion != "":
			return s + fmt.Sprintf("; did you mean %q? (keys are column names as written, case included)", f.Suggestion)
		case len(f.Known) == 0:
			return s + " (the results carry no metadata: segment keys are extra dataset columns, see README \"Segments\")"
		}
		return s + "; metadata keys: " + strings.Join(f.Known, ", ")
	case compare.KindSegmentKeyOneValue:
		return fmt.Sprintf("segment key %q has one value among the paired samples: nothing to compare beyond the whole set", f.Key)
	case compare.KindSegmentValuesCapped:
		return fmt.Sprintf("segment key %q has %d values: only the %d with the most paired samples are compared (README \"Segments\")", f.Key, f.N, f.Of)
	}
	return string(f.Kind) // a kind this renderer does not know yet
}

// judgeDiffers says which parts of two judges' identities besides the
// provider and model differ ("temperature 0 → 0.2"); prompts are named whole when they are
// not a hash (an imported file's tool and version, "promptfoo 0.118.10").
// "" when none of them does (the fingerprints differ by the user
// metrics, said apart, or by what only the hash covers).
func judgeDiffers(a, b results.Judge) string {
	var d []string
	add := func(what, x, y string) {
		if x != y {
			d = append(d, fmt.Sprintf("%s %s → %s", what, orNone(x), orNone(y)))
		}
	}
	// The provider and model are in the sentence already.
	add("embedding model", a.EmbeddingModel, b.EmbeddingModel)
	if a.Temperature != b.Temperature {
		add("temperature", strconv.FormatFloat(a.Temperature, 'f', -1, 64), strconv.FormatFloat(b.Temperature, 'f', -1, 64))
	}
	if a.Prompts != b.Prompts {
		if isHash(a.Prompts) && isHash(b.Prompts) {
			d = append(d, "the prompts")
		} else {
			add("prompts", a.Prompts, b.Prompts)
		}
	}
	return strings.Join(d, ", ")
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none"
	}
	return s
}

// isHash reports whether s is a hex hash (a prompts hash), which reports
// cut to 12 digits; other values are shown whole.
func isHash(s string) bool {
	if len(s) < 12 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// judgeDesc names a judge: "openai gpt-4o-mini (fingerprint 0123456789ab)".
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

// sayFindingP words a finding's evidence: its p-value, or, for a
// sequential check's decision, the test that showed it.
func sayFindingP(f compare.Finding) string {
	if f.Sequential {
		return "shown by the sequential test"
	}
	return sayP(f.P)
}
