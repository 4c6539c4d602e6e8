package results

import (
	"strings"
	"testing"
)

// Evidence read with the texts is checked: a marker is {"more": N} with N
// at least 1, alone and last; a verdict is 0 or 1.
func TestEvidenceChecked(t *testing.T) {
	file := func(evidence string) []byte {
		return []byte(`{"schema": "raggate.results/v1", "judge": {"provider": "offline", "fingerprint": "f"}, "config": {"metrics": ["faithfulness"]},
"samples": [{"id": "a", "scores": {"faithfulness": 0.5}, "response": "r", "evidence": {"faithfulness": ` + evidence + `}}]}`)
	}
	for _, tc := range []struct{ evidence, want string }{
		{`[{"text": "x", "verdict": 1}, {"more": -5}]`, "more -5"},
		{`[{"text": "x", "verdict": 1, "more": 3}]`, "holds nothing else"},
		{`[{"more": 2}, {"text": "x", "verdict": 1}]`, "ends the list"},
		{`[{"text": "x", "verdict": 7}]`, "verdict 7"},
	} {
		_, err := ParseWith(file(tc.evidence), ReadOptions{Texts: AllTexts})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.evidence, err, tc.want)
		}
	}
	if _, err := ParseWith(file(`[{"text": "x", "verdict": 0, "reason": "no"}, {"more": 4}]`), ReadOptions{Texts: AllTexts}); err != nil {
		t.Errorf("a list ending with its marker: %v", err)
	}
}

// A judge temperature outside [0, 2] was not written by a run: refused.
func TestJudgeTemperatureChecked(t *testing.T) {
	for _, v := range []string{"-5", "1e300"} {
		data := []byte(`{"schema": "raggate.results/v1", "judge": {"provider": "openai", "fingerprint": "f", "temperature": 0, "sample_temperature": ` + v + `}, "config": {"metrics": ["faithfulness"]}, "samples": [{"id": "a", "scores": {"faithfulness": 0.5}}]}`)
		if _, err := Parse(data); err == nil || !strings.Contains(err.Error(), "sample_temperature") {
			t.Errorf("sample_temperature %s: err = %v", v, err)
		}
	}
}
