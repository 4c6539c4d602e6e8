package report

import (
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// A changed user-defined metric definition is reported as such, with the
// judge change, not as a regression of the metric.
func TestJudgeChangedNamesUserMetrics(t *testing.T) {
	mk := func(hash, fp string) *results.File {
		return &results.File{Schema: results.Schema, Config: results.Config{Repeats: 1},
			Judge:   results.Judge{Provider: "openai", Model: "m", UserMetrics: hash, Fingerprint: fp},
			Samples: []results.Sample{{ID: "a", Scores: map[string]results.Score{"faithfulness": 1}}}}
	}
	r := compare.Compare(mk("aaaa", "fp1"), mk("bbbb", "fp2"), compare.DefaultThresholds())
	if md := Markdown(r, Options{}); !strings.Contains(md, "the user-defined metrics (metrics file) differ between the two") {
		t.Errorf("markdown does not say the definitions changed:\n%s", md)
	}
	r = compare.Compare(mk("aaaa", "fp1"), mk("aaaa", "fp2"), compare.DefaultThresholds())
	if md := Markdown(r, Options{}); strings.Contains(md, "user-defined metrics") {
		t.Errorf("same definitions reported as changed:\n%s", md)
	}
}
