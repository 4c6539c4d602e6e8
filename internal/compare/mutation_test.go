package compare

// Boundary tests found by mutation testing (bench/mutation.sh): each one
// pins a limit a user relies on, at the limit and just past it.

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// TestThresholdsRangeBoundaries: the documented ranges are closed or open
// exactly as the error messages say: tolerance, min and max in [0, 1],
// alpha in (0, 1), min_samples at least 1, min equal to max allowed.
func TestThresholdsRangeBoundaries(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr string // "" when the file is valid
		check   func(t *testing.T, th Thresholds)
	}{
		{name: "default tolerance 0", yaml: "defaults: {tolerance: 0}",
			check: func(t *testing.T, th Thresholds) { wantFloat(t, th.For("faithfulness").Tolerance, 0) }},
		{name: "default tolerance 1", yaml: "defaults: {tolerance: 1}",
			check: func(t *testing.T, th Thresholds) { wantFloat(t, th.For("faithfulness").Tolerance, 1) }},
		{name: "default tolerance below 0", yaml: "defaults: {tolerance: -0.001}", wantErr: "defaults.tolerance: -0.001 is outside [0, 1]"},
		{name: "default tolerance above 1", yaml: "defaults: {tolerance: 1.001}", wantErr: "defaults.tolerance: 1.001 is outside [0, 1]"},
		{name: "default alpha just above 0", yaml: "defaults: {alpha: 0.001}",
			check: func(t *testing.T, th Thresholds) { wantFloat(t, th.For("faithfulness").Alpha, 0.001) }},
		{name: "default alpha just below 1", yaml: "defaults: {alpha: 0.999}",
			check: func(t *testing.T, th Thresholds) { wantFloat(t, th.For("faithfulness").Alpha, 0.999) }},
		{name: "min_samples 1", yaml: "defaults: {min_samples: 1}",
			check: func(t *testing.T, th Thresholds) {
				if th.Defaults.MinSamples != 1 {
					t.Errorf("min_samples %d, want 1", th.Defaults.MinSamples)
				}
			}},
		{name: "metric min 0 and max 1", yaml: "metrics: {faithfulness: {min: 0, max: 1}}",
			check: func(t *testing.T, th Thresholds) {
				r := th.For("faithfulness")
				if r.Min == nil || *r.Min != 0 || r.Max == nil || *r.Max != 1 {
					t.Errorf("rule %+v, want min 0 and max 1", r)
				}
			}},
		{name: "metric min 1", yaml: "metrics: {faithfulness: {min: 1}}",
			check: func(t *testing.T, th Thresholds) { wantFloat(t, *th.For("faithfulness").Min, 1) }},
		{name: "metric max 0", yaml: "metrics: {noise_sensitivity_relevant: {max: 0}}",
			check: func(t *testing.T, th Thresholds) { wantFloat(t, *th.For("noise_sensitivity_relevant").Max, 0) }},
		{name: "metric min below 0", yaml: "metrics: {faithfulness: {min: -0.01}}", wantErr: "metrics.faithfulness.min: -0.01 is outside [0, 1]"},
		{name: "metric max above 1", yaml: "metrics: {faithfulness: {max: 1.01}}", wantErr: "metrics.faithfulness.max: 1.01 is outside [0, 1]"},
		{name: "metric min equal to max", yaml: "metrics: {faithfulness: {min: 0.5, max: 0.5}}",
			check: func(t *testing.T, th Thresholds) {
				r := th.For("faithfulness")
				if *r.Min != 0.5 || *r.Max != 0.5 {
					t.Errorf("rule %+v", r)
				}
			}},
		{name: "metric min just above max", yaml: "metrics: {faithfulness: {min: 0.51, max: 0.5}}", wantErr: "min 0.51 is greater than max 0.5"},
		{name: "metric tolerance 0 and alpha 0.5", yaml: "metrics: {faithfulness: {tolerance: 0, alpha: 0.5}}",
			check: func(t *testing.T, th Thresholds) {
				r := th.For("faithfulness")
				wantFloat(t, r.Tolerance, 0)
				wantFloat(t, r.Alpha, 0.5)
			}},
		{name: "metric alpha 0", yaml: "metrics: {faithfulness: {alpha: 0}}", wantErr: "metrics.faithfulness.alpha: 0 is outside (0, 1)"},
		{name: "metric alpha 1", yaml: "metrics: {faithfulness: {alpha: 1}}", wantErr: "metrics.faithfulness.alpha: 1 is outside (0, 1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := ParseThresholds("t.yaml", []byte("version: 1\n"+tt.yaml+"\n"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, th)
		})
	}
}

func wantFloat(t *testing.T, got, want float64) {
	t.Helper()
	if got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestProgrammaticThresholdsBoundaries: thresholds built in code (the CLI's
// flags, tests) take the same ranges as the file, and fall back to the
// defaults outside them.
func TestProgrammaticThresholdsBoundaries(t *testing.T) {
	x := func(v float64) *float64 { return &v }
	tests := []struct {
		name           string
		mc             MetricConfig
		tol, alpha     float64
		minSet, maxSet bool
	}{
		{"tolerance 0 is kept", MetricConfig{Tolerance: x(0)}, 0, 0.05, false, false},
		{"negative tolerance falls back", MetricConfig{Tolerance: x(-0.01)}, 0.02, 0.05, false, false},
		{"infinite tolerance falls back", MetricConfig{Tolerance: x(math.Inf(1))}, 0.02, 0.05, false, false},
		{"alpha 0 falls back", MetricConfig{Alpha: x(0)}, 0.02, 0.05, false, false},
		{"alpha 1 falls back", MetricConfig{Alpha: x(1)}, 0.02, 0.05, false, false},
		{"alpha 0.5 is kept", MetricConfig{Alpha: x(0.5)}, 0.02, 0.5, false, false},
		{"NaN floors are ignored", MetricConfig{Min: x(math.NaN()), Max: x(math.NaN())}, 0.02, 0.05, false, false},
		{"floors are kept", MetricConfig{Min: x(0.3), Max: x(0.9)}, 0.02, 0.05, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := DefaultThresholds()
			// Keyed by an alias in another case: For still finds the rule.
			th.Metrics["Response_Relevancy"] = tt.mc
			r := th.For("answer_relevancy")
			if r.Tolerance != tt.tol || r.Alpha != tt.alpha || (r.Min != nil) != tt.minSet || (r.Max != nil) != tt.maxSet {
				t.Errorf("rule %+v, want tolerance %v alpha %v min set %v max set %v", r, tt.tol, tt.alpha, tt.minSet, tt.maxSet)
			}
		})
	}
	// Defaults built in code: tolerance 0 and min_samples 1 are valid and
	// kept; invalid values fall back one by one.
	th := Thresholds{Defaults: Defaults{Tolerance: 0, Alpha: 1, MinSamples: 1, Correction: "bonferroni",
		OnMissingBaseline: ActionWarn, OnJudgeChange: ActionPass}}
	want := Defaults{Tolerance: 0, Alpha: 0.05, Correction: CorrectionHolm, MinSamples: 1,
		OnMissingBaseline: ActionPass, OnJudgeChange: ActionFail}
	if d := th.resolvedDefaults(); d != want {
		t.Errorf("resolved defaults %+v, want %+v", d, want)
	}
	th.Defaults = Defaults{Tolerance: -1, Alpha: 0.5, MinSamples: 0, Correction: CorrectionNone,
		OnMissingBaseline: ActionFail, OnJudgeChange: ActionWarn}
	want = Defaults{Tolerance: 0.02, Alpha: 0.5, Correction: CorrectionNone, MinSamples: 10,
		OnMissingBaseline: ActionFail, OnJudgeChange: ActionWarn}
	if d := th.resolvedDefaults(); d != want {
		t.Errorf("resolved defaults %+v, want %+v", d, want)
	}
	th.Defaults = Defaults{Alpha: 0, MinSamples: 5}
	want = Defaults{Tolerance: 0, Alpha: 0.05, Correction: CorrectionHolm, MinSamples: 5,
		OnMissingBaseline: ActionPass, OnJudgeChange: ActionFail}
	if d := th.resolvedDefaults(); d != want {
		t.Errorf("resolved defaults %+v, want %+v", d, want)
	}
}

// TestProblemsAtOnePlace: problems found at the same line and column keep
// the order in which they were found.
func TestProblemsAtOnePlace(t *testing.T) {
	_, err := ParseThresholds("t.yaml", []byte("version: 1\ngate: [faithfulness]\nreport_only: [faithfulness]\nmetrics:\n  faithfulness: {min: 0.5}\n"))
	want := "t.yaml:3:15: faithfulness is both in report_only and in gate (line 2); keep it in one\n" +
		"t.yaml:3:15: faithfulness is in report_only but has a rule under metrics (line 5)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}

// TestCalibrateSuggestions: the suggested tolerance is the 95% band of the
// A/A drift rounded up to 0.005 (a band that is already a multiple stays),
// at least 0.01; an alpha outside (0, 1) means 0.05.
func TestCalibrateSuggestions(t *testing.T) {
	// n samples with runs {c-h, c+h}: each sample variance is 2h^2, so
	// sigma = h*sqrt(2) and the A/A noise of the mean is 2h/sqrt(n).
	runs := func(n int, h float64) *results.File {
		f := &results.File{Config: results.Config{Metrics: []string{"faithfulness"}, Repeats: 2}}
		for i := range n {
			f.Samples = append(f.Samples, results.Sample{ID: string(rune('a' + i)),
				Runs: map[string][]results.Score{"faithfulness": {results.Score(0.5 - h), results.Score(0.5 + h)}}})
		}
		return f
	}
	// Band 1.96 * 2h/sqrt(4) = 1.96h: exactly 0.03 for h = 0.03/1.96.
	exact := Calibrate(runs(4, 0.03/1.96), 0.05)[0]
	if !(math.Abs(exact.Tolerance-0.03) <= 1e-12) {
		t.Errorf("band of exactly 0.03: tolerance %v, want 0.03", exact.Tolerance)
	}
	above := Calibrate(runs(4, 0.0301/1.96), 0.05)[0]
	if !(math.Abs(above.Tolerance-0.035) <= 1e-12) {
		t.Errorf("band of 0.0301: tolerance %v, want 0.035", above.Tolerance)
	}
	if tiny := Calibrate(runs(4, 0.001), 0.05)[0]; tiny.Tolerance != 0.01 {
		t.Errorf("band of 0.002: tolerance %v, want the floor 0.01", tiny.Tolerance)
	}
	// The sample noise is the root mean variance over the n samples.
	if !(math.Abs(exact.SampleNoise.Value()-0.03/1.96*math.Sqrt2) <= 1e-12) || exact.N != 4 {
		t.Errorf("sample noise %v over %d samples", exact.SampleNoise, exact.N)
	}
	for _, alpha := range []float64{0, 1, -1, 2} {
		got, want := Calibrate(runs(4, 0.01), alpha)[0].MDE, Calibrate(runs(4, 0.01), 0.05)[0].MDE
		if got != want {
			t.Errorf("alpha %v: MDE %v, want %v (alpha 0.05)", alpha, got, want)
		}
	}
	if a := Calibrate(runs(4, 0.01), 0.2)[0].MDE; a >= Calibrate(runs(4, 0.01), 0.05)[0].MDE {
		t.Errorf("alpha 0.2 must detect smaller effects than 0.05: MDE %v", a)
	}
	// Three runs (the default of gate calibrate): {0.4, 0.5, 0.6} has the
	// sample variance 0.01.
	three := &results.File{Config: results.Config{Metrics: []string{"faithfulness"}, Repeats: 3},
		Samples: []results.Sample{{ID: "a", Runs: map[string][]results.Score{"faithfulness": {0.4, 0.5, 0.6}}}}}
	if c := Calibrate(three, 0.05)[0]; !(math.Abs(c.SampleNoise.Value()-0.1) <= 1e-12) {
		t.Errorf("three runs: sample noise %v, want 0.1", c.SampleNoise)
	}
	// Metrics outside the catalogue follow the catalogue's, in the order
	// the run listed them.
	three.Config.Metrics = []string{"zz_custom", "aa_custom", "faithfulness"}
	var order []string
	for _, c := range Calibrate(three, 0.05) {
		order = append(order, c.Metric)
	}
	if strings.Join(order, " ") != "faithfulness zz_custom aa_custom" {
		t.Errorf("order %v", order)
	}
	// Without any sample holding two runs there is no measurement, and the
	// suggestion is the floor.
	none := Calibrate(runs(0, 0.01), 0.05)[0]
	if none.N != 0 || !none.MeanNoise.IsNaN() || !none.MDE.IsNaN() || none.Tolerance != 0.01 {
		t.Errorf("no runs: %+v, want NaN noise and tolerance 0.01", none)
	}
}

// constDrop builds n paired samples of faithfulness at 0.9 on base; the
// head loses drop on every sample.
func constDrop(n int, drop float64) (*results.File, *results.File) {
	return pairOfFiles(n, "faithfulness", func(int) float64 { return 0.9 }, func(int) float64 { return 0.9 - drop })
}

// TestMinSamplesBoundary: a metric with exactly min_samples pairs is
// tested (and here regresses); one pair fewer is reported, never failed
// (a warning).
func TestMinSamplesBoundary(t *testing.T) {
	tests := []struct {
		name       string
		n          int
		minSamples int // 0: the default, 10
		change     Verdict
		passed     bool
	}{
		{"default min_samples exactly", 10, 0, VerdictRegression, false},
		{"one below the default", 9, 0, VerdictInsufficientData, true},
		{"min_samples 5 exactly", 5, 5, VerdictRegression, false},
		{"one below min_samples 5", 4, 5, VerdictInsufficientData, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := DefaultThresholds()
			if tt.minSamples > 0 {
				th.Defaults.MinSamples = tt.minSamples
			}
			b, h := constDrop(tt.n, 0.3)
			r := compareWords(b, h, th)
			m := metricOf(t, r, "faithfulness")
			if m.Change != tt.change || r.Passed != tt.passed || m.N != tt.n {
				t.Fatalf("n %d: change %s passed %v, want %s %v", m.N, m.Change, r.Passed, tt.change, tt.passed)
			}
			// A gated metric with too few pairs passes with a warning.
			warnings := strings.Join(r.Warnings, "\n")
			few := fmt.Sprintf("fewer than %d paired samples, reported but not tested: faithfulness (%d)", th.Defaults.MinSamples, tt.n)
			if strings.Contains(warnings, few) != (tt.change == VerdictInsufficientData) {
				t.Errorf("warnings %q: want the insufficient-data warning only when untested", r.Warnings)
			}
			if tt.change == VerdictInsufficientData && !m.PWorse.IsNaN() {
				t.Errorf("an untested metric has p_worse %v", m.PWorse)
			}
		})
	}
}

// TestWorseSameBetterCounts: the counts printed next to each metric. A
// difference of at most 1e-12 in magnitude is "same"; for a lower-is-better
// metric a higher head score is worse.
func TestWorseSameBetterCounts(t *testing.T) {
	pairs := [][2]float64{ // base, head
		{0.5, 0.3}, {0.5, 0.4}, {0.5, 0.45}, {0.5, 0.6}, {0.5, 0.8},
		{0.5, 0.5}, {0, 1e-12}, {1e-12, 0}, {0, 2e-12}, {0.7, 0.7}, {0.5, 0.2},
	}
	for _, tt := range []struct {
		metric              string
		worse, same, better int
	}{
		{"faithfulness", 4, 4, 3},
		{"noise_sensitivity_relevant", 3, 4, 4},
	} {
		t.Run(tt.metric, func(t *testing.T) {
			b, h := pairOfFiles(len(pairs), tt.metric, func(i int) float64 { return pairs[i][0] }, func(i int) float64 { return pairs[i][1] })
			m := metricOf(t, compareWords(b, h, DefaultThresholds()), tt.metric)
			if m.Worse != tt.worse || m.Same != tt.same || m.Better != tt.better {
				t.Errorf("worse/same/better %d/%d/%d, want %d/%d/%d", m.Worse, m.Same, m.Better, tt.worse, tt.same, tt.better)
			}
		})
	}
}

// TestInputsChangedCount: a paired sample counts as changed only when both
// sides recorded an input hash and the hashes differ; the count is noted.
func TestInputsChangedCount(t *testing.T) {
	hashes := [][2]string{{"a", "a"}, {"a", "b"}, {"", "b"}, {"a", ""}, {"c", "d"}, {"", ""}}
	var bs, hs []results.Sample
	for i, hh := range hashes {
		b, h := sample(fmt.Sprint(i), "faithfulness", 0.8), sample(fmt.Sprint(i), "faithfulness", 0.8)
		b.InputHash, h.InputHash = hh[0], hh[1]
		bs, hs = append(bs, b), append(hs, h)
	}
	r := compareWords(file(bs...), file(hs...), DefaultThresholds())
	if r.Counts.InputsChanged != 2 {
		t.Errorf("inputs changed %d, want 2", r.Counts.InputsChanged)
	}
	if !hasNote(r.Notes, "2 of 6 paired samples have changed inputs") {
		t.Errorf("notes %q", r.Notes)
	}
	// Unchanged inputs: no count, no note.
	r = compareWords(file(bs[:1]...), file(hs[:1]...), DefaultThresholds())
	if r.Counts.InputsChanged != 0 || strings.Contains(strings.Join(r.Notes, "\n"), "changed inputs") {
		t.Errorf("unchanged inputs: count %d, notes %q", r.Counts.InputsChanged, r.Notes)
	}
}

// TestCleanComparisonHasNoNotes: the same scores on both sides, enough
// pairs: nothing to note, warn or fail.
func TestCleanComparisonHasNoNotes(t *testing.T) {
	b, h := pairOfFiles(30, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
	r := compareWords(b, h, DefaultThresholds())
	if len(r.Notes) != 0 || len(r.Warnings) != 0 || len(r.Failures) != 0 || r.Verdict != VerdictPass {
		t.Errorf("verdict %s, notes %q, warnings %q, failures %q", r.Verdict, r.Notes, r.Warnings, r.Failures)
	}
}

// TestSettingsReported: the report records the bootstrap and permutation
// settings it used; zero means the defaults.
func TestSettingsReported(t *testing.T) {
	b, h := constDrop(12, 0.1)
	for _, tt := range []struct {
		c           Config
		boot, draws int
	}{
		{Config{}, 10000, 20000},
		{Config{Bootstrap: -1, PermutationDraws: -3}, 0, 20000},
		{Config{Bootstrap: 200, PermutationDraws: 500}, 200, 500},
	} {
		s := tt.c.compareWords(b, h, DefaultThresholds()).Settings
		if s.Bootstrap != tt.boot || s.PermutationDraws != tt.draws || s.CILevel != 0.95 || s.Power != 0.8 {
			t.Errorf("%+v: settings %+v, want bootstrap %d draws %d", tt.c, s, tt.boot, tt.draws)
		}
	}
}

// TestMetricOrder: catalogue order first, then metrics outside the
// catalogue by name, whatever the order of the files.
func TestMetricOrder(t *testing.T) {
	s := sample("q", "zeta_custom", 0.5, "faithfulness", 0.5, "alpha_custom", 0.5, "string_presence", 1.0, "context_precision", 0.5)
	r := compareWords(file(s), file(s), DefaultThresholds())
	var got []string
	for _, m := range r.Metrics {
		got = append(got, m.Metric)
	}
	want := "context_precision faithfulness string_presence alpha_custom zeta_custom"
	if strings.Join(got, " ") != want {
		t.Errorf("order %q, want %q", got, want)
	}
}

// TestTwoPairsGetAnInterval: the bootstrap interval needs two pairs.
func TestTwoPairsGetAnInterval(t *testing.T) {
	b, h := pairOfFiles(2, "faithfulness", func(int) float64 { return 0.5 }, func(i int) float64 { return 0.4 + 0.1*float64(i) })
	m := metricOf(t, compareWords(b, h, DefaultThresholds()), "faithfulness")
	if m.DeltaCI.Low.IsNaN() || m.DeltaCI.High.IsNaN() || m.DeltaCI.Low.Value() > m.DeltaCI.High.Value() {
		t.Errorf("two pairs: interval %+v", m.DeltaCI)
	}
	b, h = pairOfFiles(1, "faithfulness", func(int) float64 { return 0.5 }, func(int) float64 { return 0.4 })
	if m := metricOf(t, compareWords(b, h, DefaultThresholds()), "faithfulness"); !m.DeltaCI.Low.IsNaN() {
		t.Errorf("one pair: interval %+v", m.DeltaCI)
	}
}

// TestMostlyUndefinedHeadBoundaries: the head fails when more than half of
// its samples are undefined while at most half of the base's were (counted
// over each side's samples, defined or not); a metric new on head has no
// base to fall from.
func TestMostlyUndefinedHeadBoundaries(t *testing.T) {
	mk := func(metric string, undefined int) *results.File {
		f := &results.File{Schema: results.Schema, Judge: results.Judge{Fingerprint: "j"}}
		for i := range 10 {
			s := results.Sample{ID: fmt.Sprintf("s%02d", i), Scores: map[string]results.Score{metric: 0.9, "context_recall": 0.9}}
			if i >= 10-undefined {
				s.Scores[metric] = results.NaN()
				s.Undefined = map[string]string{metric: "judge refused"}
			}
			f.Samples = append(f.Samples, s)
		}
		return f
	}
	const failed = "the judge failed on most samples"
	tests := []struct {
		name       string
		base, head *results.File
		want       string // "" when no such failure
	}{
		{"base 4 of 10 undefined", mk("faithfulness", 4), mk("faithfulness", 6), "faithfulness is undefined for 6 of 10 head samples (base: 4 of 10)"},
		{"base exactly half undefined", mk("faithfulness", 5), mk("faithfulness", 9), "faithfulness is undefined for 9 of 10 head samples (base: 5 of 10)"},
		{"base more than half undefined", mk("faithfulness", 6), mk("faithfulness", 9), ""},
		{"metric new on head", mk("context_recall", 0), mk("faithfulness", 9), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := compareWords(tt.base, tt.head, DefaultThresholds())
			all := strings.Join(r.Failures, "\n")
			if tt.want == "" {
				if strings.Contains(all, failed) {
					t.Errorf("failures %q", r.Failures)
				}
				return
			}
			if !strings.Contains(all, tt.want) {
				t.Errorf("failures %q, want %q", r.Failures, tt.want)
			}
		})
	}
}

// TestWeakMetricNote: a tested metric whose minimum detectable effect is
// larger than its tolerance is named in a note; one whose MDE equals the
// tolerance is not.
func TestWeakMetricNote(t *testing.T) {
	b, h := pairOfFiles(12, "faithfulness", noisy(7, 0.7), noisy(8, 0.7))
	r := compareWords(b, h, DefaultThresholds())
	m := metricOf(t, r, "faithfulness")
	if m.MDE.Value() <= 0.02 {
		t.Fatalf("MDE %v: the test needs a noisy metric", m.MDE)
	}
	if f, ok := findingOf(r, KindWeakPower, "faithfulness"); !ok || f.Level != LevelNote || f.Value != m.MDE.Value() {
		t.Errorf("findings %+v lack the weak metric with its MDE %v", r.Findings, m.MDE)
	}
	if !hasNote(r.Notes, "minimum detectable effect (80% power) may show as ~: faithfulness 0.") {
		t.Errorf("notes %q lack the weak metric", r.Notes)
	}
	th := DefaultThresholds()
	th.Metrics["faithfulness"] = MetricConfig{Tolerance: ptr(m.MDE.Value())}
	if r := compareWords(b, h, th); hasNote(r.Notes, "minimum detectable effect") {
		t.Errorf("MDE equal to the tolerance: notes %q", r.Notes)
	}
}

// TestRepeatsNote: repeats that differ are noted, unless a side does not
// record them.
func TestRepeatsNote(t *testing.T) {
	for _, tt := range []struct {
		base, head int
		note       bool
	}{{1, 3, true}, {3, 1, true}, {3, 3, false}, {0, 3, false}, {3, 0, false}} {
		b, h := constDrop(12, 0)
		b.Config.Repeats, h.Config.Repeats = tt.base, tt.head
		r := compareWords(b, h, DefaultThresholds())
		want := fmt.Sprintf("repeats differ: base %d, head %d", tt.base, tt.head)
		if hasNote(r.Notes, want) != tt.note {
			t.Errorf("repeats %d -> %d: notes %q, want note %v", tt.base, tt.head, r.Notes, tt.note)
		}
	}
}

// TestUnusedRulesNote: rules for metrics neither side scored are named,
// in catalogue order.
func TestUnusedRulesNote(t *testing.T) {
	b, h := constDrop(12, 0)
	th := DefaultThresholds()
	for _, m := range []string{"string_presence", "answer_correctness", "context_recall", "faithfulness"} {
		th.Metrics[m] = MetricConfig{Min: ptr(0.1)}
	}
	r := compareWords(b, h, th)
	if !hasNote(r.Notes, "the thresholds set rules for metrics neither side scored: context_recall, answer_correctness, string_presence") {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestTopRegressedTies: equal worst deltas are ordered by sample id, and a
// sample's worst metric on a tie is the first in catalogue order.
func TestTopRegressedTies(t *testing.T) {
	var bs, hs []results.Sample
	for _, id := range []string{"q-3", "q-1", "q-2"} {
		bs = append(bs, sample(id, "faithfulness", 0.9, "context_precision", 0.9))
		hs = append(hs, sample(id, "faithfulness", 0.4, "context_precision", 0.4))
	}
	r := compareWords(file(bs...), file(hs...), DefaultThresholds())
	if len(r.TopRegressed) != 3 {
		t.Fatalf("top regressed %+v", r.TopRegressed)
	}
	for i, id := range []string{"q-1", "q-2", "q-3"} {
		if sd := r.TopRegressed[i]; sd.ID != id || sd.WorstMetric != "context_precision" {
			t.Errorf("top regressed %d: %s worst %s, want %s worst context_precision", i, sd.ID, sd.WorstMetric, id)
		}
	}
}

// hasNote reports whether a line of notes contains s.
func hasNote(notes []string, s string) bool {
	return strings.Contains(strings.Join(notes, "\n"), s)
}

// TestWeakNoteOnlyForTestedMetrics: a metric with too few pairs to be
// tested is in the insufficient-data note, not in the MDE note.
func TestWeakNoteOnlyForTestedMetrics(t *testing.T) {
	b, h := pairOfFiles(6, "faithfulness", noisy(7, 0.7), noisy(8, 0.7))
	r := compareWords(b, h, DefaultThresholds())
	m := metricOf(t, r, "faithfulness")
	if m.Change != VerdictInsufficientData || m.MDE.Value() <= 0.02 {
		t.Fatalf("change %s MDE %v: the test needs an untested noisy metric", m.Change, m.MDE)
	}
	if hasNote(r.Notes, "minimum detectable effect") {
		t.Errorf("notes %q name an untested metric as weak", r.Notes)
	}
}

// TestDistributions: p10, median and p90 of each side's defined scores.
func TestDistributions(t *testing.T) {
	b, h := pairOfFiles(11, "faithfulness", func(i int) float64 { return float64(i) / 10 }, func(i int) float64 { return 1 - float64(i)/20 })
	m := metricOf(t, compareWords(b, h, DefaultThresholds()), "faithfulness")
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"base p10", m.BaseDist.P10.Value(), 0.1}, {"base median", m.BaseDist.Median.Value(), 0.5}, {"base p90", m.BaseDist.P90.Value(), 0.9},
		{"head p10", m.HeadDist.P10.Value(), 0.55}, {"head median", m.HeadDist.Median.Value(), 0.75}, {"head p90", m.HeadDist.P90.Value(), 0.95},
	} {
		if !(math.Abs(c.got-c.want) <= 1e-12) {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestFloorMessageDecimals: a head mean is shown with as many decimals as
// it takes to differ from the floor, up to its full precision.
func TestFloorMessageDecimals(t *testing.T) {
	for _, tt := range []struct {
		mean float64
		want string
	}{
		{0.79, "context_recall 0.79 below floor 0.80"},
		{0.7999, "context_recall 0.7999 below floor 0.80"},
		{0.799999, "context_recall 0.799999 below floor 0.80"},
		{0.7999994, "context_recall 0.7999994 below floor 0.80"},
	} {
		h := file(sample("a", "context_recall", tt.mean))
		th := DefaultThresholds()
		th.Metrics["context_recall"] = MetricConfig{Min: ptr(0.80)}
		if r := compareWords(nil, h, th); len(r.Failures) != 1 || r.Failures[0] != tt.want {
			t.Errorf("mean %v: failures %q, want %q", tt.mean, r.Failures, tt.want)
		}
	}
}

// TestFloorSentenceShowsBoundAsWritten: a floor or ceiling with three
// decimals is quoted as written, not rounded to two (a floor of 0.825 once
// read "below floor 0.82"), and the finding carries both numbers.
func TestFloorSentenceShowsBoundAsWritten(t *testing.T) {
	for _, tt := range []struct {
		min, max *float64
		mean     float64
		kind     Kind
		want     string
	}{
		{min: ptr(0.825), mean: 0.82, kind: KindBelowFloor, want: "context_recall 0.820 below floor 0.825"},
		{max: ptr(0.125), mean: 0.13, kind: KindAboveCeiling, want: "context_recall 0.13 above ceiling 0.125"},
	} {
		h := file(sample("a", "context_recall", tt.mean))
		th := DefaultThresholds()
		th.Metrics["context_recall"] = MetricConfig{Min: tt.min, Max: tt.max}
		r := compareWords(nil, h, th)
		if len(r.Failures) != 1 || r.Failures[0] != tt.want {
			t.Errorf("failures %q, want %q", r.Failures, tt.want)
		}
		if f, ok := findingOf(r, tt.kind, "context_recall"); !ok || f.Level != LevelFail || f.Value != tt.mean {
			t.Errorf("findings %+v, want %s of %v", r.Findings, tt.kind, tt.mean)
		}
	}
}

// TestTopRegressedQuestionFromBase: a head sample without its question
// shows the base's.
func TestTopRegressedQuestionFromBase(t *testing.T) {
	b, h := constDrop(12, 0.3)
	h.Samples[0].Question = ""
	r := compareWords(b, h, DefaultThresholds())
	if len(r.TopRegressed) == 0 || r.TopRegressed[0].ID != "q-000" || r.TopRegressed[0].Question != "question q-000" {
		t.Errorf("top regressed %+v", r.TopRegressed)
	}
}

// TestLostShareAndBoundaries: the net share of lost scores, a loss whose
// share equals the tolerance (fails: "at least the tolerance"), an
// adjusted p equal to alpha (does not: "p < alpha"), and a transition test
// that could at best reach alpha exactly (left out).
func TestLostShareAndBoundaries(t *testing.T) {
	b, h := lostFiles("faithfulness", 8, 2, "no statements in response", "")
	m := metricOf(t, compareWords(b, h, DefaultThresholds()), "faithfulness")
	if m.Lost != 8 || m.Regained != 2 || !(math.Abs(m.LostShare.Value()-0.3) <= 1e-12) {
		t.Errorf("lost %d regained %d share %v, want 8, 2, 0.3", m.Lost, m.Regained, m.LostShare)
	}

	b, h = lostFiles("faithfulness", 8, 0, "no statements in response", "")
	base := metricOf(t, compareWords(b, h, DefaultThresholds()), "faithfulness")
	if !base.LostScores {
		t.Fatalf("8 of 20 lost: not flagged (p_adj %v)", base.PLostAdj)
	}
	th := DefaultThresholds()
	th.Metrics["faithfulness"] = MetricConfig{Tolerance: ptr(base.LostShare.Value())}
	if m := metricOf(t, compareWords(b, h, th), "faithfulness"); !m.LostScores {
		t.Errorf("share %v equal to the tolerance: not flagged", m.LostShare)
	}
	th.Metrics["faithfulness"] = MetricConfig{Alpha: ptr(base.PLostAdj.Value())}
	if m := metricOf(t, compareWords(b, h, th), "faithfulness"); m.PLostAdj != base.PLostAdj || m.LostScores {
		t.Errorf("p_adj %v equal to alpha: flagged %v", m.PLostAdj, m.LostScores)
	}

	// At alpha 1/16, four transitions can at best give p = 1/16: untested.
	th.Metrics["faithfulness"] = MetricConfig{Alpha: ptr(0.0625)}
	for _, tt := range []struct {
		lost   int
		tested bool
	}{{4, false}, {5, true}} {
		b, h := lostFiles("faithfulness", tt.lost, 0, "no statements in response", "")
		if m := metricOf(t, compareWords(b, h, th), "faithfulness"); m.PLost.IsNaN() == tt.tested {
			t.Errorf("%d transitions at alpha 1/16: p_lost %v, want tested %v", tt.lost, m.PLost, tt.tested)
		}
	}
}

// TestDecisionBoundaries: a change of exactly the tolerance counts ("Δ <=
// −tolerance"), and an adjusted p equal to alpha does not ("p < alpha").
func TestDecisionBoundaries(t *testing.T) {
	for _, tt := range []struct {
		name   string
		drop   float64
		change Verdict
	}{{"regression", 0.3, VerdictRegression}, {"improvement", -0.05, VerdictImprovement}} {
		t.Run(tt.name, func(t *testing.T) {
			b, h := constDrop(12, tt.drop)
			m := metricOf(t, compareWords(b, h, DefaultThresholds()), "faithfulness")
			if m.Change != tt.change {
				t.Fatalf("change %s, want %s", m.Change, tt.change)
			}
			th := DefaultThresholds()
			th.Metrics["faithfulness"] = MetricConfig{Tolerance: ptr(math.Abs(m.Delta.Value()))}
			if got := metricOf(t, compareWords(b, h, th), "faithfulness"); got.Change != tt.change {
				t.Errorf("|delta| %v equal to the tolerance: change %s, want %s", m.Delta, got.Change, tt.change)
			}
			th.Metrics["faithfulness"] = MetricConfig{Tolerance: ptr(math.Abs(m.Delta.Value()) + 0.001)}
			if got := metricOf(t, compareWords(b, h, th), "faithfulness"); got.Change != VerdictNoChange {
				t.Errorf("|delta| %v below the tolerance: change %s, want ~", m.Delta, got.Change)
			}
			p := m.PWorseAdj
			if tt.change == VerdictImprovement {
				p = m.PBetterAdj
			}
			th.Metrics["faithfulness"] = MetricConfig{Alpha: ptr(p.Value())}
			if got := metricOf(t, compareWords(b, h, th), "faithfulness"); got.Change != VerdictNoChange {
				t.Errorf("p %v equal to alpha: change %s, want ~", p, got.Change)
			}
		})
	}
}

// TestShrunkDatasetNeedsItsSize: a head that pairs with too few base
// samples only warns when it scored its whole (changed) dataset; a head
// whose dataset size is unknown fails.
func TestShrunkDatasetNeedsItsSize(t *testing.T) {
	b, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
	h.Samples = h.Samples[:5]
	h.Dataset.SHA256, h.Dataset.Samples = "ds-small", 0
	r := compareWords(b, h, DefaultThresholds())
	if r.Passed || !hasNote(r.Failures, "head pairs with only 5 of the base's 20 samples") {
		t.Errorf("passed %v, failures %q", r.Passed, r.Failures)
	}
}

// TestLostReasonMostFrequent: the reason quoted for lost scores is the most
// frequent one among the lost samples, the first by name on a tie.
func TestLostReasonMostFrequent(t *testing.T) {
	for _, tt := range []struct {
		name    string
		reasons []string
		want    string
	}{
		{"most frequent", []string{"b", "b", "b", "b", "a", "a", "a", "c"}, "b"},
		{"tie", []string{"b", "b", "b", "c", "a", "a", "a", "c"}, "a"},
		{"tie with the last", []string{"c", "c", "c", "b", "b", "b", "a", "a"}, "b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, h := lostFiles("faithfulness", len(tt.reasons), 0, "", "")
			for i, r := range tt.reasons {
				h.Samples[i].Undefined["faithfulness"] = r
			}
			// Map order varies between runs: ask several times.
			for range 20 {
				m := metricOf(t, Config{Bootstrap: -1}.compareWords(b, h, DefaultThresholds()), "faithfulness")
				if m.LostReason != tt.want {
					t.Fatalf("reason %q, want %q", m.LostReason, tt.want)
				}
			}
		})
	}
}

// TestSignFlipZeroBoundary: a difference of at most 1e-12 in magnitude is
// a zero (no information, not counted); anything larger counts.
func TestSignFlipZeroBoundary(t *testing.T) {
	st := SignFlipTest([]float64{1e-12, -1e-12, 0, 0.5}, 0, 1)
	if st.NonZero != 1 || !st.Exact || st.PWorse != 1 || st.PBetter != 0.5 {
		t.Errorf("%+v, want one non-zero difference, p_worse 1, p_better 0.5", st)
	}
	st = SignFlipTest([]float64{2e-12, -0.5}, 0, 1)
	if st.NonZero != 2 || st.PWorse != 0.5 || st.PBetter != 1 {
		t.Errorf("%+v, want two non-zero differences", st)
	}
}

// TestSignFlipMonteCarloBounds: beyond ExactLimit the p-values are
// (k+1)/(B+1): never 0, and 1 when every draw is at least as extreme.
func TestSignFlipMonteCarloBounds(t *testing.T) {
	d := repeat(0.1, ExactLimit+5)
	st := SignFlipTest(d, 999, 7)
	if st.Exact || st.Draws != 999 || st.PBetter != 1.0/1000 || st.PWorse != 1 {
		t.Errorf("%+v, want p_better 1/1000 and p_worse 1", st)
	}
	st = SignFlipTest(repeat(-0.1, ExactLimit+5), 999, 7)
	if st.PWorse != 1.0/1000 || st.PBetter != 1 {
		t.Errorf("%+v, want p_worse 1/1000 and p_better 1", st)
	}
}

// TestSignFlipMonteCarloTies: drawn patterns whose sum ties the observed
// one count on both sides ("at least as extreme"), as in the exact test.
func TestSignFlipMonteCarloTies(t *testing.T) {
	// 25 differences of equal size, 13 positive: a pattern ties the
	// observed sum when it has 13 positives too.
	d := append(repeat(0.1, 13), repeat(-0.1, 12)...)
	st := SignFlipTest(d, 20000, 3)
	worse, better := 1-BinomialUpperHalf(14, 25), BinomialUpperHalf(13, 25)
	if st.Exact || !(math.Abs(st.PWorse-worse) <= 0.02) || !(math.Abs(st.PBetter-better) <= 0.02) {
		t.Errorf("p_worse %v p_better %v, want about %.3f and %.3f", st.PWorse, st.PBetter, worse, better)
	}
}

// TestNormalQuantileInvertsTheCDF: in all three regions of the
// approximation (tails below 0.02425 and above 0.97575, the centre), the
// normal CDF of the quantile gives p back to near machine precision; a
// NaN is never accepted.
func TestNormalQuantileInvertsTheCDF(t *testing.T) {
	for _, p := range []float64{1e-300, 1e-10, 1e-5, 0.001, 0.02, 0.02425, 0.03, 0.3, 0.5, 0.7, 0.97, 0.98, 0.999, 1 - 1e-6} {
		x := NormalQuantile(p)
		// Compare the smaller tail, where p keeps its precision.
		got, want := 0.5*math.Erfc(-x/math.Sqrt2), p
		if p > 0.5 {
			got, want = 0.5*math.Erfc(x/math.Sqrt2), 1-p
		}
		tol := 1e-13
		if p > 0.5 {
			// Halley's step measures the error as Phi(x) - p, which near 1
			// has an absolute resolution of 1e-16.
			tol = 1e-15 / want
		}
		if rel := math.Abs(got-want) / want; !(rel <= tol) {
			t.Errorf("NormalQuantile(%v) = %v: tail %v, want %v (relative error %.2g)", p, x, got, want, rel)
		}
	}
}

// TestMinDetectableEffectOnePair: one pair is enough for an MDE (the sd
// then comes from elsewhere, as in calibrate); none is not.
func TestMinDetectableEffectOnePair(t *testing.T) {
	want := (NormalQuantile(0.95) + NormalQuantile(0.8)) * 0.1
	if got := MinDetectableEffect(0.1, 1, 0.05, 0.8); !(math.Abs(got-want) <= 1e-15) {
		t.Errorf("n 1: MDE %v, want %v", got, want)
	}
	if got := MinDetectableEffect(0.1, 0, 0.05, 0.8); !math.IsNaN(got) {
		t.Errorf("n 0: MDE %v, want NaN", got)
	}
}

// TestClosestBySubstring: a name of four letters or more that only one
// metric contains is suggested; shorter fragments are not.
func TestClosestBySubstring(t *testing.T) {
	names := metrics.Names()
	for in, want := range map[string]string{"utili": "context_utilization", "util": "context_utilization", "uti": "", "recall": ""} {
		if got := closest(in, names); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFloorAtTheBound: a head mean exactly at min or max is within bounds
// ("below min", "above max").
func TestFloorAtTheBound(t *testing.T) {
	th := DefaultThresholds()
	th.Metrics["context_recall"] = MetricConfig{Min: ptr(0.8)}
	th.Metrics["noise_sensitivity_relevant"] = MetricConfig{Max: ptr(0.3)}
	h := file(sample("a", "context_recall", 0.8, "noise_sensitivity_relevant", 0.3))
	r := compareWords(nil, h, th)
	if !r.Passed || metricOf(t, r, "context_recall").Floor != FloorOK || metricOf(t, r, "noise_sensitivity_relevant").Floor != FloorOK {
		t.Errorf("passed %v, failures %q", r.Passed, r.Failures)
	}
	h = file(sample("a", "context_recall", 0.799, "noise_sensitivity_relevant", 0.301))
	r = compareWords(nil, h, th)
	if r.Passed || metricOf(t, r, "context_recall").Floor != FloorBelowMin || metricOf(t, r, "noise_sensitivity_relevant").Floor != FloorAboveMax {
		t.Errorf("just outside: passed %v, failures %q", r.Passed, r.Failures)
	}
}

// TestTopRegressedIgnoresZeroChanges: a change of at most 1e-12 is no
// change: such a sample is not among the most regressed, and such a metric
// is not listed under a sample that is.
func TestTopRegressedIgnoresZeroChanges(t *testing.T) {
	b := file(sample("q-1", "faithfulness", 1e-12, "context_recall", 0.9), sample("q-2", "faithfulness", 0.9, "context_recall", 1e-12))
	h := file(sample("q-1", "faithfulness", 0.0, "context_recall", 0.9), sample("q-2", "faithfulness", 0.5, "context_recall", 0.0))
	r := compareWords(b, h, DefaultThresholds())
	if len(r.TopRegressed) != 1 || r.TopRegressed[0].ID != "q-2" {
		t.Fatalf("top regressed %+v, want q-2 alone", r.TopRegressed)
	}
	if ms := r.TopRegressed[0].Metrics; len(ms) != 1 || ms[0].Metric != "faithfulness" {
		t.Errorf("q-2 metrics %+v, want faithfulness alone", ms)
	}
}

// TestSignFlipScaleInvariant: the p-values do not depend on the unit of
// the differences (a metric on a scale of 1e-6 is tested like one of 1).
func TestSignFlipScaleInvariant(t *testing.T) {
	d := []float64{0.3, 0.2, -0.1, 0.4, 0.25, -0.05, 0.15}
	small := make([]float64, len(d))
	for i, x := range d {
		small[i] = x * 1e-6
	}
	a, b := SignFlipTest(d, 0, 1), SignFlipTest(small, 0, 1)
	if a.PWorse != b.PWorse || a.PBetter != b.PBetter || a.PBetter >= 0.1 {
		t.Errorf("scale 1: %+v, scale 1e-6: %+v", a, b)
	}
}
