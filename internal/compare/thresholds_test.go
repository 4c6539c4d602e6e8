package compare

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseThresholdsErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // the error's lines, in order
	}{
		{
			name: "unknown key in defaults",
			yaml: "version: 1\ndefaults:\n  tolerence: 0.02\n",
			want: []string{`t.yaml:3:3: unknown key "tolerence" in defaults; did you mean "tolerance"?`},
		},
		{
			name: "key in the wrong case",
			yaml: "version: 1\ndefaults:\n  Tolerance: 0.1\n",
			want: []string{`t.yaml:3:3: unknown key "Tolerance" in defaults; did you mean "tolerance"?`},
		},
		{
			name: "unknown top-level key and duplicate",
			yaml: "version: 1\nversion: 1\nmetric: {}\n",
			want: []string{
				`t.yaml:2:1: duplicate key "version" at top level (first at line 1)`,
				`t.yaml:3:1: unknown key "metric" at top level; did you mean "metrics"?`,
			},
		},
		{
			name: "unknown key without a suggestion",
			yaml: "version: 1\nfoo: bar\n",
			want: []string{`t.yaml:2:1: unknown key "foo" at top level; valid keys: version, defaults, metrics`},
		},
		{
			name: "unknown key in a metric",
			yaml: "version: 1\nmetrics:\n  faithfulness: {mn: 0.8}\n",
			want: []string{`t.yaml:3:18: unknown key "mn" in metrics.faithfulness; did you mean "min"?`},
		},
		{
			name: "unknown metric",
			yaml: "version: 1\nmetrics:\n  faithfulnes: {min: 0.8}\n",
			want: []string{`t.yaml:3:3: unknown metric "faithfulnes" in metrics; did you mean "faithfulness"?`},
		},
		{
			name: "unknown metric by substring",
			yaml: "version: 1\nmetrics:\n  utilization: {min: 0.8}\n",
			want: []string{`t.yaml:3:3: unknown metric "utilization" in metrics; did you mean "context_utilization"?`},
		},
		{
			name: "unknown metric without a suggestion lists the metrics",
			yaml: "version: 1\nmetrics:\n  bleu: {min: 0.8}\n",
			want: []string{`t.yaml:3:3: unknown metric "bleu" in metrics; known metrics: answer_correctness, answer_relevancy, `},
		},
		{
			name: "alias and name of the same metric",
			yaml: "version: 1\nmetrics:\n  response_relevancy: {min: 0.8}\n  answer_relevancy: {min: 0.7}\n",
			want: []string{`t.yaml:4:3: duplicate metric "answer_relevancy" in metrics ("response_relevancy" is the same metric), first at line 3`},
		},
		{
			name: "version",
			yaml: "version: 2\n",
			want: []string{`t.yaml:1:10: version: 2 is not supported; this gate reads version 1`},
		},
		{
			name: "version as a string",
			yaml: "version: \"1\"\n",
			want: []string{`t.yaml:1:10: version: "1" is not an integer`},
		},
		{
			name: "missing version",
			yaml: "defaults: {}\n",
			want: []string{`t.yaml:1:1: missing "version: 1"`},
		},
		{
			name: "empty file",
			yaml: "# nothing\n",
			want: []string{`t.yaml: the thresholds file is empty; it needs at least "version: 1"`},
		},
		{
			name: "not a mapping",
			yaml: "- a\n- b\n",
			want: []string{`t.yaml:1:1: expected a mapping with keys version, defaults, metrics, gate, report_only, segments, sequential, got a list`},
		},
		{
			name: "invalid YAML",
			yaml: "version: 1\n  bad: [\n",
			want: []string{`t.yaml:2:1: invalid YAML: mapping values are not allowed in this context`},
		},
		{
			name: "every defaults problem at once",
			yaml: "version: 1\ndefaults:\n  alpha: 0\n  tolerance: -1\n  correction: bonferroni\n  min_samples: 2.5\n  on_missing_baseline: warn\n  on_judge_change: ignore\n",
			want: []string{
				`t.yaml:3:10: defaults.alpha: 0 is outside (0, 1); 0.05 is the usual choice`,
				`t.yaml:4:14: defaults.tolerance: -1 is outside [0, 1]`,
				`t.yaml:5:15: defaults.correction: "bonferroni" is not one of holm | none`,
				`t.yaml:6:16: defaults.min_samples: 2.5 is not an integer`,
				`t.yaml:7:24: defaults.on_missing_baseline: "warn" is not one of pass | fail`,
				`t.yaml:8:20: defaults.on_judge_change: "ignore" is not one of fail | warn`,
			},
		},
		{
			name: "alpha 1 and min_samples 0",
			yaml: "version: 1\ndefaults: {alpha: 1, min_samples: 0}\n",
			want: []string{
				`t.yaml:2:19: defaults.alpha: 1 is outside (0, 1); 0.05 is the usual choice`,
				`t.yaml:2:35: defaults.min_samples: 0 must be at least 1`,
			},
		},
		{
			name: "enum typo gets a suggestion",
			yaml: "version: 1\ndefaults: {correction: hlom}\n",
			want: []string{`t.yaml:2:24: defaults.correction: "hlom" is not one of holm | none; did you mean "holm"?`},
		},
		{
			name: "metric floor out of range",
			yaml: "version: 1\nmetrics:\n  faithfulness: {min: 1.5}\n",
			want: []string{`t.yaml:3:23: metrics.faithfulness.min: 1.5 is outside [0, 1]`},
		},
		{
			name: "metric problems",
			yaml: "version: 1\nmetrics:\n  faithfulness:\n    min: 0.9\n    max: 0.5\n    level: block\n    alpha: abc\n    tolerance: 2\n",
			want: []string{
				`t.yaml:5:10: metrics.faithfulness: min 0.9 is greater than max 0.5`,
				`t.yaml:6:12: metrics.faithfulness.level: "block" is not one of fail | warn`,
				`t.yaml:7:12: metrics.faithfulness.alpha: "abc" is not a number`,
				`t.yaml:8:16: metrics.faithfulness.tolerance: 2 is outside [0, 1]`,
			},
		},
		{
			name: "metric rule is not a mapping",
			yaml: "version: 1\nmetrics:\n  faithfulness: 0.85\n",
			want: []string{`t.yaml:3:17: metrics.faithfulness: expected a mapping such as {min: 0.8, tolerance: 0.03}, got 0.85`},
		},
		{
			name: "sections of the wrong type",
			yaml: "version: 1\ndefaults: 3\nmetrics: [a]\n",
			want: []string{
				`t.yaml:2:11: defaults: expected a mapping such as {tolerance: 0.02, alpha: 0.05}, got 3`,
				`t.yaml:3:10: metrics: expected a mapping of metric names to rules, such as {faithfulness: {min: 0.85}}, got a list`,
			},
		},
		{
			name: "NaN and infinity",
			yaml: "version: 1\nmetrics:\n  faithfulness: {tolerance: .nan, min: .inf}\n",
			want: []string{
				`t.yaml:3:29: metrics.faithfulness.tolerance: .nan is not a finite number`,
				`t.yaml:3:40: metrics.faithfulness.min: .inf is not a finite number`,
			},
		},
		{
			name: "missing value",
			yaml: "version: 1\ndefaults:\n  alpha:\n",
			want: []string{`t.yaml:3:9: defaults.alpha: expected a number, got nothing`},
		},
		{
			name: "unknown metric in gate",
			yaml: "version: 1\ngate: [faithfulnes, context_recall]\n",
			want: []string{`t.yaml:2:8: unknown metric "faithfulnes" in gate; did you mean "faithfulness"?`},
		},
		{
			name: "report_only not a list",
			yaml: "version: 1\nreport_only: exact_match\n",
			want: []string{`t.yaml:2:14: report_only: expected a list of metric names, such as [faithfulness, context_recall], got "exact_match"`},
		},
		{
			name: "duplicate in report_only",
			yaml: "version: 1\nreport_only:\n  - exact_match\n  - Exact_Match\n",
			want: []string{`t.yaml:4:5: duplicate metric "Exact_Match" in report_only, first at line 3`},
		},
		{
			name: "both gated and report-only",
			yaml: "version: 1\ngate: [faithfulness]\nreport_only: [response_relevancy, faithfulness]\nmetrics:\n  answer_relevancy: {min: 0.5}\n",
			want: []string{
				`t.yaml:3:15: answer_relevancy is in report_only but has a rule under metrics (line 5)`,
				`t.yaml:3:35: faithfulness is both in report_only and in gate (line 2); keep it in one`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseThresholds("t.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			var te *ThresholdsError
			if !errors.As(err, &te) || !errors.Is(err, ErrThresholds) {
				t.Fatalf("error %T is not a *ThresholdsError matching ErrThresholds", err)
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tt.want) || len(te.Problems) != len(tt.want) {
				t.Fatalf("got %d problems:\n%s\nwant %d:\n%s", len(lines), err, len(tt.want), strings.Join(tt.want, "\n"))
			}
			for i := range lines {
				if !strings.HasPrefix(lines[i], tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s", i, lines[i], tt.want[i])
				}
			}
		})
	}
}

func TestParseThresholdsValid(t *testing.T) {
	src := `
version: 1
defaults:
  tolerance: 0.01
  alpha: 0.1
  correction: none
  min_samples: 20
  on_missing_baseline: fail
  on_judge_change: warn
metrics:
  Faithfulness: {min: 0.85, tolerance: 0.03}
  response_relevancy: {min: 0.8, level: warn, alpha: 0.01}
  noise_sensitivity_relevant: {max: 0.3}
  context_recall:
  base: &b {min: 0.5}
`
	// "base" is not a metric: make sure anchors do not hide problems, then
	// parse the file without that line.
	if _, err := ParseThresholds("t.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), `unknown metric "base"`) {
		t.Fatalf("want an unknown metric error, got %v", err)
	}
	src = strings.Replace(src, "  base: &b {min: 0.5}\n", "  exact_match: &b {min: 0.5}\n  string_presence: *b\n", 1)
	th, err := ParseThresholds("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults{Tolerance: 0.01, Alpha: 0.1, Correction: CorrectionNone, MinSamples: 20,
		OnMissingBaseline: ActionFail, OnJudgeChange: ActionWarn}
	if th.Defaults != want || th.Version != 1 || th.Source != "t.yaml" {
		t.Errorf("got %+v, want defaults %+v", th, want)
	}
	f := th.For("faithfulness")
	if *f.Min != 0.85 || f.Tolerance != 0.03 || f.Alpha != 0.1 || f.Level != LevelFail || f.Max != nil {
		t.Errorf("faithfulness rule %+v", f)
	}
	a := th.For("response_relevancy") // alias, normalised
	if a.Metric != "answer_relevancy" || *a.Min != 0.8 || a.Level != LevelWarn || a.Alpha != 0.01 || a.Tolerance != 0.01 {
		t.Errorf("answer_relevancy rule %+v", a)
	}
	if _, ok := th.Metrics["answer_relevancy"]; !ok {
		t.Errorf("alias not normalised: %v", th.Metrics)
	}
	n := th.For("noise_sensitivity_relevant")
	if n.Min != nil || *n.Max != 0.3 {
		t.Errorf("noise rule %+v", n)
	}
	if r := th.For("context_recall"); r.Min != nil || r.Tolerance != 0.01 {
		t.Errorf("empty rule %+v", r)
	}
	if r := th.For("string_presence"); r.Min == nil || *r.Min != 0.5 {
		t.Errorf("alias node rule %+v", r)
	}
	// For hands out copies.
	*f.Min = 0
	if *th.For("faithfulness").Min != 0.85 {
		t.Error("For returned a pointer into the thresholds")
	}
}

// TestGatedFamily: by default the core judge metrics and every metric with
// a rule are gated; gate: replaces the core list, report_only: removes.
func TestGatedFamily(t *testing.T) {
	tests := []struct {
		name        string
		yaml        string
		gated, only []string
	}{
		{"defaults", "version: 1\n",
			[]string{"context_precision", "context_recall", "faithfulness", "answer_relevancy", "response_relevancy", "factual_correctness"},
			[]string{"semantic_similarity", "exact_match", "noise_sensitivity_relevant", "string_similarity", "my_metric"}},
		{"a rule gates", "version: 1\nmetrics:\n  noise_sensitivity_relevant: {max: 0.3}\n  exact_match:\n",
			[]string{"faithfulness", "noise_sensitivity_relevant", "exact_match"}, []string{"semantic_similarity"}},
		{"gate replaces the core list", "version: 1\ngate: [faithfulness, semantic_similarity]\nmetrics:\n  context_recall: {min: 0.5}\n",
			[]string{"faithfulness", "semantic_similarity", "context_recall"}, []string{"answer_relevancy", "factual_correctness"}},
		{"report_only removes", "version: 1\nreport_only: [answer_relevancy]\n",
			[]string{"faithfulness"}, []string{"answer_relevancy", "response_relevancy"}},
		{"empty gate", "version: 1\ngate: []\n", nil, []string{"faithfulness"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := ParseThresholds("t.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range tt.gated {
				if !th.Gated(m) {
					t.Errorf("%s is report-only, want gated", m)
				}
			}
			for _, m := range tt.only {
				if th.Gated(m) {
					t.Errorf("%s is gated, want report-only", m)
				}
			}
		})
	}
	if !(Thresholds{}).Gated("faithfulness") || (Thresholds{}).Gated("exact_match") {
		t.Error("the zero Thresholds must gate the core metrics alone")
	}
}

func TestDefaultThresholds(t *testing.T) {
	th := DefaultThresholds()
	want := Defaults{Tolerance: 0.02, Alpha: 0.05, Correction: CorrectionHolm, MinSamples: 10,
		OnMissingBaseline: ActionPass, OnJudgeChange: ActionFail}
	if th.Defaults != want || th.Version != 1 || len(th.Metrics) != 0 {
		t.Errorf("got %+v", th)
	}
	th.Metrics["faithfulness"] = MetricConfig{}
	if len(DefaultThresholds().Metrics) != 0 {
		t.Error("DefaultThresholds shares its map between calls")
	}
	// "version: 1" alone is the defaults.
	parsed, err := ParseThresholds("t.yaml", []byte("version: 1\n"))
	if err != nil || parsed.Defaults != want {
		t.Errorf("version-only file: %+v, %v", parsed, err)
	}
	// The zero value behaves like the defaults.
	r := Thresholds{}.For("faithfulness")
	if r.Tolerance != 0.02 || r.Alpha != 0.05 || r.Level != LevelFail || r.Min != nil {
		t.Errorf("zero Thresholds rule %+v", r)
	}
	if d := (Thresholds{}).resolvedDefaults(); d != want {
		t.Errorf("zero Thresholds defaults %+v", d)
	}
}

func TestExampleThresholdsFile(t *testing.T) {
	path := filepath.Join("..", "..", "thresholds.example.yaml")
	th, err := LoadThresholds(path)
	if err != nil {
		t.Fatal(err)
	}
	if th.Defaults != DefaultThresholds().Defaults {
		t.Errorf("the example's defaults %+v differ from DefaultThresholds %+v", th.Defaults, DefaultThresholds().Defaults)
	}
	floors := map[string]float64{
		"context_recall":    0.80,
		"context_precision": 0.70,
		"faithfulness":      0.85,
		"answer_relevancy":  0.80,
	}
	for m, want := range floors {
		r := th.For(m)
		if r.Min == nil || *r.Min != want {
			t.Errorf("%s: min %v, want %v", m, r.Min, want)
		}
	}
	if r := th.For("noise_sensitivity_relevant"); r.Max == nil || *r.Max != 0.30 {
		t.Errorf("noise_sensitivity_relevant: max %v, want 0.30", r.Max)
	}
	// The example's family is the default one.
	for _, m := range []string{"context_precision", "faithfulness", "factual_correctness", "noise_sensitivity_relevant", "semantic_similarity", "exact_match"} {
		if th.Gated(m) != DefaultThresholds().Gated(m) && m != "noise_sensitivity_relevant" {
			t.Errorf("%s: gated %v in the example, %v by default", m, th.Gated(m), DefaultThresholds().Gated(m))
		}
	}
	if !th.Gated("noise_sensitivity_relevant") || th.Gated("semantic_similarity") {
		t.Error("the example must gate noise_sensitivity_relevant (it has a rule) and not semantic_similarity")
	}
}

func TestLoadThresholdsMissingFile(t *testing.T) {
	_, err := LoadThresholds(filepath.Join(t.TempDir(), "nope.yaml"))
	var te *ThresholdsError
	if !errors.As(err, &te) || !errors.Is(err, os.ErrNotExist) || !errors.Is(err, ErrThresholds) {
		t.Fatalf("got %v (%T)", err, err)
	}
}

func TestClosest(t *testing.T) {
	cands := []string{"tolerance", "alpha", "min", "max"}
	for _, c := range []struct{ in, want string }{
		{"tolerence", "tolerance"}, {"TOLERANCE", "tolerance"}, {"alfa", "alpha"},
		{"mn", "min"}, {"maximum", "max"}, {"zzzzzzzz", ""}, {"", ""},
	} {
		if got := closest(c.in, cands); got != c.want {
			t.Errorf("closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzParseThresholds(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "thresholds.example.yaml")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"version: 1\n",
		"version: 1\ndefaults: {tolerance: 0.02, alpha: 0.05, correction: holm, min_samples: 10}\n",
		"version: 1\nmetrics:\n  faithfulness: {min: 0.85, max: 0.9, level: warn}\n  response_relevancy: {}\n",
		"version: 1\nmetrics: &a {faithfulness: *a}\n",
		"version: 1\ndefaults:\n  tolerence: 0.02\n",
		"a: b: c",
		"{",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		th, err := ParseThresholds("f.yaml", data)
		if err != nil {
			var te *ThresholdsError
			if !errors.As(err, &te) || len(te.Problems) == 0 || err.Error() == "" {
				t.Fatalf("error without problems: %v (%T)", err, err)
			}
			return
		}
		d := th.Defaults
		if th.Version != 1 || !(d.Alpha > 0 && d.Alpha < 1) || !(d.Tolerance >= 0 && d.Tolerance <= 1) || d.MinSamples < 1 {
			t.Fatalf("accepted invalid defaults %+v", th)
		}
		for name := range th.Metrics {
			r := th.For(name)
			if r.Metric != name || !(r.Alpha > 0 && r.Alpha < 1) || math.IsNaN(r.Tolerance) {
				t.Fatalf("bad rule for %s: %+v", name, r)
			}
			if r.Min != nil && r.Max != nil && *r.Min > *r.Max {
				t.Fatalf("accepted min > max for %s", name)
			}
		}
	})
}

func TestThresholdsRejectSecondDocument(t *testing.T) {
	_, err := ParseThresholds("t.yaml", []byte("version: 1\n---\nmetrics:\n  faithfulness: {min: 0.9}\n"))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:2:1:") || !strings.Contains(err.Error(), "second YAML document") {
		t.Fatalf("err = %v, want the second document refused with its line", err)
	}
}
