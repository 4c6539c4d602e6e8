package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// sideOf builds n samples of metric: the first scored ones score 0.8, the
// others are undefined with reason and kind.
func sideOf(n, scored int, metric, reason string, kind results.UndefinedKind) *results.File {
	var ss []results.Sample
	for i := range n {
		s := sample(fmt.Sprintf("q-%03d", i), metric, 0.8)
		if i >= scored {
			s.Scores[metric] = results.NaN()
			s.Undefined = map[string]string{metric: reason}
			s.UndefinedKind = map[string]results.UndefinedKind{metric: kind}
		}
		ss = append(ss, s)
	}
	f := file(ss...)
	f.Config.Metrics = []string{metric}
	return f
}

// TestZeroPairsIsNotComparable (issue 22, item 1): a gated metric with no
// paired sample because one side has no score is "not comparable" and
// fails the gate; one that no side could score for want of data is a
// note; a base that lacked the data warns; 1 to min_samples-1 pairs pass
// with a warning (never silently); a report-only metric only notes.
func TestZeroPairsIsNotComparable(t *testing.T) {
	const m = "faithfulness"
	scored := sideOf(20, 20, m, "", "")
	tests := []struct {
		name       string
		base, head *results.File
		th         func(*Thresholds)
		verdict    Verdict
		change     Verdict
		status     Status
		level      Level
		want       string
	}{
		{"base target failures everywhere", sideOf(20, 0, m, "target call failed: connection refused", results.KindTarget), scored, nil,
			VerdictFail, VerdictNotComparable, StatusFail, LevelFail,
			"faithfulness is not comparable: the baseline has no score for it (0 of 20 base samples scored; most often: target call failed: connection refused); store a baseline whose run scored it"},
		{"neither side scored (not for want of data)", sideOf(20, 0, m, "judge refused", results.KindJudge), sideOf(20, 0, m, "no statements in response", results.KindMetric), nil,
			VerdictFail, VerdictNotComparable, StatusFail, LevelFail,
			"faithfulness is not comparable: neither side has a score for it"},
		{"no sample scored on both sides", sideOf(20, 10, m, "judge refused", results.KindJudge), reversed(sideOf(20, 10, m, "judge refused", results.KindJudge)), nil,
			VerdictFail, VerdictNotComparable, StatusFail, LevelFail,
			"faithfulness is not comparable: no sample is scored on both sides"},
		{"level warn", sideOf(20, 0, m, "judge refused", results.KindJudge), scored, func(th *Thresholds) { th.Metrics[m] = MetricConfig{Level: LevelWarn} },
			VerdictPassWithWarnings, VerdictNotComparable, StatusWarn, LevelWarn, "faithfulness is not comparable"},
		{"the base lacked the data", sideOf(20, 0, m, "missing field reference", results.KindData), scored, nil,
			VerdictPassWithWarnings, VerdictNotComparable, StatusWarn, LevelWarn,
			"faithfulness is not comparable: the baseline has no score for it (0 of 20 base samples scored; most often: missing field reference)"},
		{"neither side has the data", sideOf(20, 0, m, "missing field reference", results.KindData), sideOf(20, 0, m, "missing field reference", results.KindData), nil,
			VerdictPass, VerdictInsufficientData, StatusOK, LevelNote, "no paired sample, not tested: faithfulness"},
		{"3 pairs", sideOf(20, 3, m, "missing field reference", results.KindData), scored, nil,
			VerdictPassWithWarnings, VerdictInsufficientData, StatusOK, LevelWarn, "fewer than 10 paired samples, reported but not tested: faithfulness (3)"},
		{"report-only", sideOf(20, 0, m, "judge refused", results.KindJudge), scored, func(th *Thresholds) { th.ReportOnly = []string{m} },
			VerdictPass, VerdictInsufficientData, StatusOK, LevelNote, "no paired sample, not tested: faithfulness"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := DefaultThresholds()
			if tt.th != nil {
				tt.th(&th)
			}
			r := compareWords(tt.base, tt.head, th)
			mr := metricOf(t, r, m)
			if r.Verdict != tt.verdict || mr.Change != tt.change || mr.Status != tt.status {
				t.Errorf("verdict %q, change %q, status %q; want %q, %q, %q", r.Verdict, mr.Change, mr.Status, tt.verdict, tt.change, tt.status)
			}
			var got []string
			switch tt.level {
			case LevelFail:
				got = r.Failures
			case LevelWarn:
				got = r.Warnings
			default:
				got = r.Notes
			}
			if !strings.Contains(strings.Join(got, "\n"), tt.want) {
				t.Errorf("%s sentences lack %q:\nfailures %q\nwarnings %q\nnotes %q", tt.level, tt.want, r.Failures, r.Warnings, r.Notes)
			}
		})
	}
}

// reversed swaps which samples of f are scored: the scored ones become
// undefined and the undefined ones scored.
func reversed(f *results.File) *results.File {
	for i := range f.Samples {
		s := &f.Samples[i]
		for k, v := range s.Scores {
			if v.IsNaN() {
				s.Scores[k] = 0.8
				s.Undefined, s.UndefinedKind = nil, nil
			} else {
				s.Scores[k] = results.NaN()
				s.Undefined = map[string]string{k: "judge refused"}
				s.UndefinedKind = map[string]results.UndefinedKind{k: results.KindJudge}
			}
		}
	}
	return f
}

// TestMetricWithoutScoresDoesNotCrash: a file whose config or summary
// names a metric that no sample records compares it as unscored (it used
// to index an absent column and panic): a gated metric with no score on
// either side, and no sample saying its data lacked it, is not comparable
// and fails (review of issue 22, finding 4: no samples or no scores is
// never "the data lacked what it needs").
func TestMetricWithoutScoresDoesNotCrash(t *testing.T) {
	base := sideOf(20, 20, "faithfulness", "", "")
	head := sideOf(20, 20, "faithfulness", "", "")
	base.Config.Metrics = append(base.Config.Metrics, "context_recall")
	head.Summary = map[string]results.Sum{"context_recall": {}}
	r := compareWords(base, head, DefaultThresholds())
	if mr := metricOf(t, r, "context_recall"); mr.N != 0 || mr.Change != VerdictNotComparable || r.Passed {
		t.Errorf("context_recall: n %d, change %q, passed %v; want 0 pairs, not comparable, a failure", mr.N, mr.Change, r.Passed)
	}
}

// TestEmptyBaselineIsNotComparable (review 4): a baseline with no samples,
// or whose samples carry no scores, lacked nothing: every gated metric is
// not comparable and fails, never a warning blaming the base's data.
func TestEmptyBaselineIsNotComparable(t *testing.T) {
	for name, base := range map[string]*results.File{
		"no samples": func() *results.File { f := sideOf(20, 20, "faithfulness", "", ""); f.Samples = nil; return f }(),
		"no scores": func() *results.File {
			f := sideOf(20, 20, "faithfulness", "", "")
			for i := range f.Samples {
				f.Samples[i].Scores = map[string]results.Score{}
			}
			return f
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			head := sideOf(20, 20, "faithfulness", "", "")
			r := compareWords(base, head, DefaultThresholds())
			if r.Passed {
				t.Errorf("passed; want a failure")
			}
			mr := metricOf(t, r, "faithfulness")
			if mr.Change != VerdictNotComparable || mr.Status != StatusFail {
				t.Errorf("faithfulness: change %q status %q; want not comparable, fail", mr.Change, mr.Status)
			}
		})
	}
}
