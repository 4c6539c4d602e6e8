package usermetric

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/raggate/raggate/metrics"
)

func TestParseKinds(t *testing.T) {
	defs, err := Parse("m.yaml", []byte(`version: 1
metrics:
  tone:
    kind: rubric
    description: tone
    reads: [response, topic]
    definition: the tone
    rubric: {3: warm, 1: rude, 2: curt}
  latency:
    kind: numeric
    description: latency
    reads: [latency_ms]
    direction: lower
`))
	if err != nil {
		t.Fatal(err)
	}
	tone, lat := defs[0], defs[1]
	if tone.Rubric[0].Score != 1 || tone.Rubric[2].Description != "warm" || tone.Direction != metrics.HigherIsBetter {
		t.Errorf("rubric %+v", tone)
	}
	if got := tone.Columns(); len(got) != 1 || got[0] != "topic" {
		t.Errorf("columns %v", got)
	}
	if lat.Transform != metrics.TransformNone || lat.Direction != metrics.LowerIsBetter {
		t.Errorf("numeric %+v", lat)
	}
	if lo, hi := lat.Metric().ScoreRange(); !(lo < -1e300 && hi > 1e300) {
		t.Errorf("numeric range [%v, %v]", lo, hi)
	}
}

func TestParseErrors(t *testing.T) {
	cases := map[string]string{
		"version: 2\nmetrics: {}\n":                      "m.yaml:1:10: version: 2 is not supported",
		"metrics: {}\n":                                  `missing "version: 1"`,
		"version: 1\nmetrics:\n  Tone: {kind: critic}\n": `metric name "Tone"`,
		"version: 1\nmetrics:\n  x: {kind: critc}\n":     `did you mean "critic"?`,
		"version: 1\nmetrics:\n  x: {kind: rubric, description: d, reads: [response], definition: d, rubric: {1: a}}\n": "one level; a rubric needs at least two",
		"version: 1\nmetrics:\n  x: {kind: numeric, description: d, reads: [response], direction: lower}\n":             "response is a text field",
		"version: 1\nmetrics:\n  x: {kind: critic, description: d, reads: [question], definition: d}\n":                 `"question" is the old name of user_input`,
		"version: 1\nmetrics:\n  response_relevancy: {kind: critic}\n":                                                  "is a built-in metric (answer_relevancy)",
		"version: 1\n---\nversion: 1\n": "a second YAML document",
	}
	for in, want := range cases {
		_, err := Parse("m.yaml", []byte(in))
		if !errors.Is(err, ErrMetricsFile) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

func TestParseRubricColumn(t *testing.T) {
	levels, err := ParseRubric(`{"2": "states the rule", "1": "misses it"}`)
	if err != nil || len(levels) != 2 || levels[0].Score != 1 {
		t.Fatalf("%+v %v", levels, err)
	}
	for _, bad := range []string{`{"1": "only"}`, `not json`, `{"a": "x", "b": "y"}`} {
		if _, err := ParseRubric(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("../../metrics.example.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("version: 1\nmetrics:\n  x: {kind: critic, description: d, reads: [response], definition: d, votes: 3}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defs, err := Parse("f.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		for _, d := range defs {
			if d.Kind.LLM() && d.Definition == "" || d.Votes%2 == 0 && d.Votes != 0 {
				t.Fatalf("accepted %+v", d)
			}
		}
	})
}

// Rubric levels are bounded and unique at parse time: levels of ±5e18
// overflowed the normalisation into a score outside [0, 1] that compare
// then refused, long after the judge calls were paid for.
func TestParseRubricLevelsBounded(t *testing.T) {
	cases := map[string]string{
		"version: 1\nmetrics:\n  x: {kind: rubric, description: d, reads: [response], definition: d, rubric: {-5000000000000000000: bad, 5000000000000000000: good}}\n": "m.yaml:3:80: metrics.x.rubric level: -5000000000000000000 is out of range (levels are integers from -1000000 to 1000000)",
		"version: 1\nmetrics:\n  x: {kind: rubric, description: d, reads: [response], definition: d, rubric: {1: bad, 1000001: good}}\n":                                "m.yaml:3:88: metrics.x.rubric level: 1000001 is out of range",
	}
	for in, want := range cases {
		_, err := Parse("m.yaml", []byte(in))
		if !errors.Is(err, ErrMetricsFile) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	if _, err := Parse("m.yaml", []byte("version: 1\nmetrics:\n  x: {kind: rubric, description: d, reads: [response], definition: d, rubric: {-1000000: bad, 1000000: good}}\n")); err != nil {
		t.Errorf("levels at the bounds: %v", err)
	}
	for bad, want := range map[string]string{
		`{"-5000000000000000000": "bad", "5000000000000000000": "good"}`: "out of range",
		`{"1": "bad", " 1": "also bad", "2": "good"}`:                    "level 1 is listed twice",
		`{"01": "bad", "1": "also bad", "2": "good"}`:                    "level 1 is listed twice",
	} {
		if _, err := ParseRubric(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseRubric(%s): %v, want %q", bad, err, want)
		}
	}
}
