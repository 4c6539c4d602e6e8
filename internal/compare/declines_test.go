package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// declineFiles builds 20 samples scored 0.9 on base; on head the first
// declined are undefined with kind metric (an answer the offline judge
// has nothing to check in). judge and inputs set the head's fingerprint
// and whether its inputs differ from the base's.
func declineFiles(declined int, headJudge string, inputsChanged bool) (base, head *results.File) {
	mk := func(fp string) *results.File {
		return &results.File{Schema: results.Schema, Judge: results.Judge{Fingerprint: fp}, Config: results.Config{Metrics: []string{"faithfulness"}}}
	}
	base, head = mk("old"), mk(headJudge)
	for i := 0; i < 20; i++ {
		id := fmt.Sprintf("s%02d", i)
		b := results.Sample{ID: id, InputHash: "in-" + id, Scores: map[string]results.Score{"faithfulness": 0.9}}
		h := results.Sample{ID: id, InputHash: "in-" + id, Scores: map[string]results.Score{"faithfulness": 0.9}}
		if inputsChanged {
			h.InputHash = "new-" + id
		}
		if i < declined {
			h.Scores["faithfulness"] = results.NaN()
			h.Undefined = map[string]string{"faithfulness": "nothing to check offline: the answer has no content words"}
			h.UndefinedKind = map[string]results.UndefinedKind{"faithfulness": results.KindMetric}
		}
		base.Samples, head.Samples = append(base.Samples, b), append(head.Samples, h)
	}
	return base, head
}

// An answer the judge has nothing to check in is the pipeline's doing: a
// lost score (with the same judge, on changed inputs), never "the judge
// failed".
func TestDeclinesAreNotJudgeFailures(t *testing.T) {
	base, head := declineFiles(15, "old", true)
	r := compareWords(base, head, DefaultThresholds())
	all := strings.Join(append(r.Failures, r.Warnings...), "\n")
	if strings.Contains(all, "judge failed") || strings.Contains(all, "undefined for 15 of 20 head samples") {
		t.Errorf("declines reported as judge failures:\n%s", all)
	}
	if !strings.Contains(all, "lost its score on 15 paired samples") {
		t.Errorf("15 answers turned unscorable on changed inputs: want lost scores, got\n%s", all)
	}
}

// With another judge, samples whose inputs did not change can only lose
// their scores by the judge's doing: reported as the judge change (a
// warning under on_judge_change: warn), not as lost scores.
func TestJudgeChangeIsNotLostScores(t *testing.T) {
	th := DefaultThresholds()
	th.Defaults.OnJudgeChange = ActionWarn
	base, head := declineFiles(7, "new", false)
	r := compareWords(base, head, th)
	if !r.Passed || strings.Contains(strings.Join(r.Failures, "\n"), "lost its score") {
		t.Errorf("judge change on unchanged inputs: passed %v, failures %q", r.Passed, r.Failures)
	}
	// The same change of judge with changed inputs still counts them.
	base, head = declineFiles(7, "new", true)
	if r := compareWords(base, head, th); !strings.Contains(strings.Join(r.Failures, "\n"), "lost its score on 7 paired samples") {
		t.Errorf("judge change on changed inputs: failures %q, want the lost scores", r.Failures)
	}
}
