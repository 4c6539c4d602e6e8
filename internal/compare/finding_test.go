package compare

import (
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// TestSituationFindings: each situation of a comparison is one typed
// finding at its level, with the numbers it concerns, so that a renderer
// or the action tells them apart without reading sentences.
func TestSituationFindings(t *testing.T) {
	same := func() (*results.File, *results.File) {
		return pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
	}
	tests := []struct {
		name  string
		setup func() (*results.File, *results.File, Thresholds)
		want  Finding
	}{
		{"judge changed fails", func() (*results.File, *results.File, Thresholds) {
			b, h := same()
			h.Judge.Fingerprint = "fp2"
			return b, h, DefaultThresholds()
		}, Finding{Kind: KindJudgeChanged, Level: LevelFail}},
		{"judge changed warns", func() (*results.File, *results.File, Thresholds) {
			b, h := same()
			h.Judge.Fingerprint = "fp2"
			th := DefaultThresholds()
			th.Defaults.OnJudgeChange = ActionWarn
			return b, h, th
		}, Finding{Kind: KindJudgeChanged, Level: LevelWarn}},
		{"head shard", func() (*results.File, *results.File, Thresholds) {
			b, h := same()
			h.Shard = "2/8"
			return b, h, DefaultThresholds()
		}, Finding{Kind: KindShardOnly, Level: LevelWarn, Side: "head", Reason: "2/8"}},
		{"base incomplete", func() (*results.File, *results.File, Thresholds) {
			b, h := same()
			b.Incomplete = "cancelled"
			return b, h, DefaultThresholds()
		}, Finding{Kind: KindIncomplete, Level: LevelWarn, Side: "base", Reason: "cancelled", N: 20}},
		{"head too small", func() (*results.File, *results.File, Thresholds) {
			b, h := same()
			h.Samples = h.Samples[:5]
			return b, h, DefaultThresholds()
		}, Finding{Kind: KindHeadTooSmall, Level: LevelFail, N: 5, Of: 20}},
		{"repeats differ", func() (*results.File, *results.File, Thresholds) {
			b, h := same()
			h.Config.Repeats = 3
			return b, h, DefaultThresholds()
		}, Finding{Kind: KindRepeatsDiffer, Level: LevelNote, BaseN: 1, N: 3}},
		{"missing baseline", func() (*results.File, *results.File, Thresholds) {
			_, h := same()
			th := DefaultThresholds()
			th.Defaults.OnMissingBaseline = ActionFail
			return nil, h, th
		}, Finding{Kind: KindMissingBaseline, Level: LevelFail}},
		{"unused rule", func() (*results.File, *results.File, Thresholds) {
			b, h := same()
			th := DefaultThresholds()
			th.Metrics["context_recall"] = MetricConfig{Min: ptr(0.5)}
			return b, h, th
		}, Finding{Kind: KindThresholdsUnused, Level: LevelNote, Metric: "context_recall"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, h, th := tt.setup()
			r := Config{Bootstrap: -1}.Compare(b, h, th)
			found := false
			for _, f := range r.Findings {
				if f.Kind == tt.want.Kind {
					found = true
					if f.Level != tt.want.Level || f.Side != tt.want.Side || f.Reason != tt.want.Reason ||
						f.N != tt.want.N || f.Of != tt.want.Of || f.BaseN != tt.want.BaseN || f.Metric != tt.want.Metric {
						t.Errorf("finding %+v, want %+v", f, tt.want)
					}
				}
			}
			if !found {
				t.Fatalf("findings %+v lack %s", r.Findings, tt.want.Kind)
			}
			if len(r.Failures)+len(r.Warnings)+len(r.Notes) != 0 {
				t.Errorf("compare worded its findings: %q %q %q", r.Failures, r.Warnings, r.Notes)
			}
			if failed := tt.want.Level == LevelFail; r.Passed == failed {
				t.Errorf("passed %v with a %s finding", r.Passed, tt.want.Level)
			}
		})
	}
}
