package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// file builds a results file judged with fingerprint "fp" on dataset "ds".
func file(samples ...results.Sample) *results.File {
	return &results.File{
		Schema:  results.Schema,
		Dataset: results.Dataset{Path: "golden.jsonl", SHA256: "ds", Samples: len(samples)},
		Judge:   results.Judge{Provider: "openai", Model: "gpt-4o-mini", Fingerprint: "fp"},
		Config:  results.Config{Repeats: 1},
		Samples: samples,
	}
}

// sample builds a sample from metric/score pairs; NaN scores are undefined.
func sample(id string, kv ...any) results.Sample {
	s := results.Sample{ID: id, Question: "question " + id, Scores: map[string]results.Score{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.Scores[kv[i].(string)] = results.Score(kv[i+1].(float64))
	}
	return s
}

// pairOfFiles builds n samples with one metric whose base scores come from
// baseScore and head scores from headScore.
func pairOfFiles(n int, metric string, baseScore, headScore func(i int) float64) (*results.File, *results.File) {
	var bs, hs []results.Sample
	for i := range n {
		id := fmt.Sprintf("q-%03d", i)
		bs = append(bs, sample(id, metric, baseScore(i)))
		hs = append(hs, sample(id, metric, headScore(i)))
	}
	return file(bs...), file(hs...)
}

func metricOf(t *testing.T, r *Report, name string) MetricResult {
	t.Helper()
	for _, m := range r.Metrics {
		if m.Metric == name {
			return m
		}
	}
	t.Fatalf("no metric %s in report", name)
	return MetricResult{}
}

func noisy(seed uint64, center float64) func(int) float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	vals := make([]float64, 1000)
	for i := range vals {
		vals[i] = math.Max(0, math.Min(1, center+rng.NormFloat64()*0.1))
	}
	return func(i int) float64 { return vals[i] }
}

func TestCompareVerdicts(t *testing.T) {
	base := noisy(1, 0.8)
	tests := []struct {
		name       string
		metric     string
		n          int
		head       func(int) float64
		th         func(*Thresholds)
		change     Verdict
		verdict    Verdict
		status     Status
		passed     bool
		overall    Verdict
		reasonLike string
	}{
		{
			name: "clear regression", metric: "faithfulness", n: 40,
			head:   func(i int) float64 { return base(i) - 0.15 },
			change: VerdictRegression, verdict: VerdictRegression, status: StatusFail, passed: false, overall: VerdictFail,
			reasonLike: "faithfulness regressed by 0.15 (p<0.001)",
		},
		{
			name: "regression smaller than the tolerance", metric: "faithfulness", n: 40,
			head: func(i int) float64 { return base(i) - 0.01 },
			th: func(th *Thresholds) {
				th.Metrics["faithfulness"] = MetricConfig{Tolerance: ptr(0.03)}
			},
			change: VerdictNoChange, verdict: VerdictNoChange, status: StatusOK, passed: true, overall: VerdictPass,
		},
		{
			name: "identical", metric: "faithfulness", n: 40, head: base,
			change: VerdictNoChange, verdict: VerdictNoChange, status: StatusOK, passed: true, overall: VerdictPass,
		},
		{
			name: "improvement", metric: "context_recall", n: 40,
			head:   func(i int) float64 { return base(i) + 0.1 },
			change: VerdictImprovement, verdict: VerdictImprovement, status: StatusOK, passed: true, overall: VerdictPass,
		},
		{
			name: "lower is better: an increase is a regression", metric: "noise_sensitivity_relevant", n: 40,
			head: func(i int) float64 { return base(i) + 0.1 },
			th: func(th *Thresholds) {
				th.Gate = []string{"noise_sensitivity_relevant"}
			},
			change: VerdictRegression, verdict: VerdictRegression, status: StatusFail, passed: false, overall: VerdictFail,
			reasonLike: "noise_sensitivity_relevant regressed by 0.10",
		},
		{
			name: "lower is better: a decrease is an improvement", metric: "noise_sensitivity_relevant", n: 40,
			head:   func(i int) float64 { return base(i) - 0.1 },
			change: VerdictImprovement, verdict: VerdictImprovement, status: StatusOK, passed: true, overall: VerdictPass,
		},
		{
			name: "level warn", metric: "answer_relevancy", n: 40,
			head: func(i int) float64 { return base(i) - 0.15 },
			th: func(th *Thresholds) {
				th.Metrics["answer_relevancy"] = MetricConfig{Level: LevelWarn}
			},
			change: VerdictRegression, verdict: VerdictRegression, status: StatusWarn, passed: true, overall: VerdictPassWithWarnings,
			reasonLike: "answer_relevancy regressed by 0.15",
		},
		{
			name: "too few pairs never fail, and warn", metric: "faithfulness", n: 6,
			head:   func(i int) float64 { return base(i) - 0.3 },
			change: VerdictInsufficientData, verdict: VerdictInsufficientData, status: StatusOK, passed: true, overall: VerdictPassWithWarnings,
		},
		{
			name: "below floor without a regression", metric: "context_recall", n: 40,
			head: base,
			th: func(th *Thresholds) {
				th.Metrics["context_recall"] = MetricConfig{Min: ptr(0.9)}
			},
			change: VerdictNoChange, verdict: VerdictBelowFloor, status: StatusFail, passed: false, overall: VerdictFail,
			reasonLike: "context_recall 0.82 below floor 0.90",
		},
		{
			name: "above ceiling", metric: "noise_sensitivity_relevant", n: 40,
			head: func(i int) float64 { return base(i) - 0.4 },
			th: func(th *Thresholds) {
				th.Metrics["noise_sensitivity_relevant"] = MetricConfig{Max: ptr(0.3)}
			},
			change: VerdictImprovement, verdict: VerdictBelowFloor, status: StatusFail, passed: false, overall: VerdictFail,
			reasonLike: "noise_sensitivity_relevant 0.42 above ceiling 0.30",
		},
		{
			name: "report-only: a regression never fails", metric: "noise_sensitivity_relevant", n: 40,
			head:   func(i int) float64 { return base(i) + 0.1 },
			change: VerdictRegression, verdict: VerdictRegression, status: StatusOK, passed: true, overall: VerdictPass,
		},
		{
			name: "report-only by report_only", metric: "faithfulness", n: 40,
			head: func(i int) float64 { return base(i) - 0.15 },
			th: func(th *Thresholds) {
				th.ReportOnly = []string{"faithfulness"}
			},
			change: VerdictRegression, verdict: VerdictRegression, status: StatusOK, passed: true, overall: VerdictPass,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := DefaultThresholds()
			if tt.th != nil {
				tt.th(&th)
			}
			b, h := pairOfFiles(tt.n, tt.metric, base, tt.head)
			r := compareWords(b, h, th)
			m := metricOf(t, r, tt.metric)
			if m.Change != tt.change || m.Verdict != tt.verdict || m.Status != tt.status {
				t.Errorf("change %s verdict %s status %s, want %s %s %s (delta %v p %v)",
					m.Change, m.Verdict, m.Status, tt.change, tt.verdict, tt.status, m.Delta, m.PWorseAdj)
			}
			if r.Passed != tt.passed || r.Verdict != tt.overall {
				t.Errorf("passed %v verdict %q, want %v %q; failures %q warnings %q", r.Passed, r.Verdict, tt.passed, tt.overall, r.Failures, r.Warnings)
			}
			all := strings.Join(append(append([]string{}, r.Failures...), r.Warnings...), "\n")
			if tt.reasonLike != "" && !strings.Contains(all, tt.reasonLike) {
				t.Errorf("reasons %q do not contain %q", all, tt.reasonLike)
			}
			if m.N != tt.n || r.Counts.Paired != tt.n {
				t.Errorf("n %d paired %d, want %d", m.N, r.Counts.Paired, tt.n)
			}
		})
	}
}

func TestCompareDeltaOrientation(t *testing.T) {
	b, h := pairOfFiles(20, "noise_sensitivity_irrelevant",
		func(i int) float64 { return 0.2 },
		func(i int) float64 { return 0.3 })
	m := metricOf(t, compareWords(b, h, DefaultThresholds()), "noise_sensitivity_irrelevant")
	if math.Abs(m.RawDelta.Value()-0.1) > 1e-12 || math.Abs(m.Delta.Value()+0.1) > 1e-12 {
		t.Errorf("raw delta %v delta %v, want 0.1 and -0.1", m.RawDelta, m.Delta)
	}
	if m.Direction != "lower" || m.Worse != 20 || m.Better != 0 {
		t.Errorf("direction %s worse %d better %d", m.Direction, m.Worse, m.Better)
	}
	if m.RawDeltaCI.Low != 0.1 || m.RawDeltaCI.High != 0.1 || m.DeltaCI.Low != -0.1 {
		// every difference is the same: the bootstrap cannot vary
		if math.Abs(m.RawDeltaCI.Low.Value()-0.1) > 1e-9 || math.Abs(m.DeltaCI.High.Value()+0.1) > 1e-9 {
			t.Errorf("CIs raw %+v oriented %+v", m.RawDeltaCI, m.DeltaCI)
		}
	}
	// 20 identical negative differences: exact p = 2^-20.
	if !m.Exact || m.PWorse.Value() != math.Ldexp(1, -20) {
		t.Errorf("p(worse) %v exact %v", m.PWorse, m.Exact)
	}
}

// With noisy differences the two intervals of a lower-is-better metric
// mirror each other: raw [lo, hi] is oriented [-hi, -lo], each contains its
// own mean, and the raw one lies above zero when head got worse.
func TestCompareIntervalOrientationWithNoise(t *testing.T) {
	b, h := pairOfFiles(30, "noise_sensitivity_relevant",
		func(i int) float64 { return 0.2 },
		func(i int) float64 { return 0.2 + 0.1 + 0.05*float64(i%5-2) }) // head worse by 0.1 +- 0.1
	m := metricOf(t, compareWords(b, h, DefaultThresholds()), "noise_sensitivity_relevant")
	raw, or := m.RawDeltaCI, m.DeltaCI
	if !(raw.Low.Value() < raw.High.Value()) {
		t.Fatalf("raw interval %+v has no width: the test needs noisy differences", raw)
	}
	if math.Abs(raw.Low.Value()+or.High.Value()) > 1e-12 || math.Abs(raw.High.Value()+or.Low.Value()) > 1e-12 {
		t.Errorf("raw %+v is not the mirror of oriented %+v", raw, or)
	}
	if !(raw.Low.Value() <= m.RawDelta.Value() && m.RawDelta.Value() <= raw.High.Value()) || raw.Low.Value() <= 0 {
		t.Errorf("raw delta %v, interval %+v: want the interval above 0 and around the delta", m.RawDelta, raw)
	}
	if !(or.Low.Value() <= m.Delta.Value() && m.Delta.Value() <= or.High.Value()) || or.High.Value() >= 0 {
		t.Errorf("oriented delta %v, interval %+v: want the interval below 0 and around the delta", m.Delta, or)
	}
}

func TestCompareHolm(t *testing.T) {
	// Three metrics with the same differences: five samples 0.1 worse, two
	// 0.05 better, five unchanged.
	mk := func(worse int) (func(int) float64, func(int) float64) {
		return func(i int) float64 { return 0.8 },
			func(i int) float64 {
				if i < worse {
					return 0.7
				}
				if i < worse+2 {
					return 0.85
				}
				return 0.8
			}
	}
	var bs, hs []results.Sample
	names := []string{"faithfulness", "context_recall", "context_precision"}
	for i := range 12 {
		id := fmt.Sprintf("q%02d", i)
		b, h := sample(id), sample(id)
		for _, m := range names {
			bf, hf := mk(5)
			b.Scores[m], h.Scores[m] = results.Score(bf(i)), results.Score(hf(i))
		}
		bs, hs = append(bs, b), append(hs, h)
	}
	// Per metric: 7 non-zero differences, 128 sign patterns; observed sum
	// -0.5 + 0.1 = -0.4. Patterns with sum <= -0.4:
	//   all five 0.1s negative (-0.5), the two 0.05s ++ (-0.4), +- (-0.5),
	//   -+ (-0.5) or -- (-0.6): 4 patterns;
	//   one of the five 0.1s positive (-0.3, 5 ways), the 0.05s -- (-0.4):
	//   5 patterns;
	//   two or more positive (>= -0.1 before the 0.05s, >= -0.2 after): none.
	// p(worse) = 9/128 = 0.0703. At alpha 0.1 each metric alone regresses;
	// Holm multiplies the smallest of three equal p-values by 3: 27/128 =
	// 0.211, and the others are raised to it by monotonicity.
	th := DefaultThresholds()
	th.Defaults.Alpha = 0.1
	r := compareWords(file(bs...), file(hs...), th)
	for _, name := range names {
		m := metricOf(t, r, name)
		if math.Abs(m.PWorse.Value()-9.0/128) > 1e-12 {
			t.Fatalf("%s raw p %v, want 9/128", name, m.PWorse)
		}
		if math.Abs(m.PWorseAdj.Value()-3*9.0/128) > 1e-12 || m.Change != VerdictNoChange {
			t.Errorf("%s Holm p %v change %s, want 27/128 and ~", name, m.PWorseAdj, m.Change)
		}
	}
	if !r.Passed {
		t.Errorf("Holm: gate failed: %q", r.Failures)
	}
	th.Defaults.Correction = CorrectionNone
	r = compareWords(file(bs...), file(hs...), th)
	if r.Passed || len(r.Failures) != 3 {
		t.Errorf("no correction: want 3 failures, got %q", r.Failures)
	}
	if m := metricOf(t, r, "faithfulness"); m.PWorseAdj != m.PWorse {
		t.Errorf("correction none: adjusted %v != raw %v", m.PWorseAdj, m.PWorse)
	}
}

func TestCompareNoBaseline(t *testing.T) {
	var hs []results.Sample
	for i := range 10 {
		hs = append(hs, sample(fmt.Sprint(i), "context_recall", 0.71, "faithfulness", 0.9))
	}
	th := DefaultThresholds()
	th.Metrics["context_recall"] = MetricConfig{Min: ptr(0.80)}
	th.Metrics["faithfulness"] = MetricConfig{Min: ptr(0.85)}
	r := compareWords(nil, file(hs...), th)
	if r.Passed || r.HasBaseline || r.Base != nil {
		t.Fatalf("want a failed gate without baseline, got %+v", r)
	}
	if len(r.Failures) != 1 || r.Failures[0] != "context_recall 0.71 below floor 0.80" {
		t.Errorf("failures %q", r.Failures)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "no baseline: only floors were checked") {
		t.Errorf("notes %q", r.Notes)
	}
	if m := metricOf(t, r, "faithfulness"); m.Change != VerdictNoBaseline || m.Floor != FloorOK || m.Status != StatusOK {
		t.Errorf("faithfulness %+v", m)
	}
	if m := metricOf(t, r, "context_recall"); m.Verdict != VerdictBelowFloor || m.Floor != FloorBelowMin {
		t.Errorf("context_recall verdict %s floor %s", m.Verdict, m.Floor)
	}

	// on_missing_baseline: fail, floors fine.
	th = DefaultThresholds()
	th.Defaults.OnMissingBaseline = ActionFail
	r = compareWords(nil, file(hs...), th)
	if r.Passed || len(r.Failures) != 1 || !strings.Contains(r.Failures[0], "no baseline") {
		t.Errorf("on_missing_baseline fail: %q", r.Failures)
	}
}

func TestCompareFloorFormatting(t *testing.T) {
	var hs []results.Sample
	for i := range 10 {
		v := 0.8
		if i == 0 {
			v = 0.79
		}
		hs = append(hs, sample(fmt.Sprint(i), "context_recall", v))
	}
	th := DefaultThresholds()
	th.Metrics["context_recall"] = MetricConfig{Min: ptr(0.80)}
	r := compareWords(nil, file(hs...), th)
	if len(r.Failures) != 1 || r.Failures[0] != "context_recall 0.799 below floor 0.80" {
		t.Errorf("failures %q", r.Failures)
	}
}

func TestCompareJudgeAndDataset(t *testing.T) {
	b, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
	h.Judge.Fingerprint, h.Judge.Model = "fp2", "gpt-4o"
	h.Dataset.SHA256 = "ds2"
	r := compareWords(b, h, DefaultThresholds())
	if r.Passed || !r.JudgeChanged || !r.DatasetChanged {
		t.Fatalf("passed %v judge %v dataset %v", r.Passed, r.JudgeChanged, r.DatasetChanged)
	}
	if len(r.Failures) != 1 || !strings.Contains(r.Failures[0], "judge changed: base was judged by openai gpt-4o-mini (fingerprint fp), head by openai gpt-4o (fingerprint fp2)") {
		t.Errorf("failures %q", r.Failures)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "dataset changed (sha256 ds -> ds2)") {
		t.Errorf("notes %q", r.Notes)
	}
	th := DefaultThresholds()
	th.Defaults.OnJudgeChange = ActionWarn
	r = compareWords(b, h, th)
	if !r.Passed || r.Verdict != VerdictPassWithWarnings || len(r.Warnings) != 1 {
		t.Errorf("on_judge_change warn: %v %q %q", r.Passed, r.Verdict, r.Warnings)
	}
}

func TestCompareIncompleteAndShard(t *testing.T) {
	b, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
	h.Shard = "2/8"
	r := compareWords(b, h, DefaultThresholds())
	if !r.Passed || r.Verdict != VerdictPassWithWarnings || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "shard 2/8") {
		t.Fatalf("%v %q %q", r.Passed, r.Verdict, r.Warnings)
	}
}

// TestIncompleteHeadFails: an incomplete, empty or much smaller head
// cannot pass, with or without a baseline.
func TestIncompleteHeadFails(t *testing.T) {
	drop := func(f *results.File, keep int) *results.File { f.Samples = f.Samples[:keep]; return f }
	tests := []struct {
		name   string
		make   func() (*results.File, *results.File)
		failed string // "" = passes
		warned string
	}{
		{"incomplete", func() (*results.File, *results.File) {
			b, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
			h.Incomplete = "cancelled: 16 of 20 samples judged"
			return b, drop(h, 16)
		}, "head run is incomplete (cancelled: 16 of 20 samples judged): 16 samples scored; an incomplete run cannot pass, re-run `gate run` to completion", ""},
		{"incomplete without a baseline", func() (*results.File, *results.File) {
			_, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
			h.Incomplete = "time budget --max-duration=1m reached: 3 of 20 samples judged"
			return nil, drop(h, 3)
		}, "head run is incomplete (time budget --max-duration=1m reached", ""},
		{"no samples", func() (*results.File, *results.File) {
			b, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
			return b, drop(h, 0)
		}, "head has no scored samples", ""},
		{"far fewer samples", func() (*results.File, *results.File) {
			b, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
			return b, drop(h, 9)
		}, "head pairs with only 9 of the base's 20 samples (at least half must pair): the head run scored too few samples", ""},
		{"half the samples pass", func() (*results.File, *results.File) {
			b, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
			return b, drop(h, 10)
		}, "", ""},
		{"a shrunk dataset warns", func() (*results.File, *results.File) {
			b, h := pairOfFiles(20, "faithfulness", noisy(3, 0.8), noisy(3, 0.8))
			h = drop(h, 5)
			h.Dataset.SHA256, h.Dataset.Samples = "ds-small", 5
			return b, h
		}, "", "head pairs with only 5 of the base's 20 samples (at least half must pair): the dataset changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, h := tt.make()
			r := compareWords(b, h, DefaultThresholds())
			if tt.failed == "" {
				if !r.Passed {
					t.Fatalf("failed: %q", r.Failures)
				}
			} else if r.Passed || !strings.Contains(strings.Join(r.Failures, "\n"), tt.failed) {
				t.Fatalf("passed %v, failures %q, want one containing %q", r.Passed, r.Failures, tt.failed)
			}
			if tt.warned != "" && !strings.Contains(strings.Join(r.Warnings, "\n"), tt.warned) {
				t.Errorf("warnings %q, want one containing %q", r.Warnings, tt.warned)
			}
		})
	}
}

func TestCompareNewRemovedAndTopRegressed(t *testing.T) {
	var bs, hs []results.Sample
	for i := range 15 {
		id := fmt.Sprintf("q%02d", i)
		bs = append(bs, sample(id, "faithfulness", 0.9, "context_recall", 0.8, "noise_sensitivity_relevant", 0.1))
		h := sample(id, "faithfulness", 0.9, "context_recall", 0.8, "noise_sensitivity_relevant", 0.1)
		switch i {
		case 3:
			h.Scores["faithfulness"] = 0.5
			h.Reasons = map[string]string{"faithfulness": "claims the warranty is 5 years"}
		case 7:
			h.Scores["noise_sensitivity_relevant"] = 0.7 // lower is better: oriented -0.6
			h.Scores["context_recall"] = 0.6
		case 9:
			h.Scores["context_recall"] = 1 // better: not listed
		case 11:
			h.Scores["faithfulness"] = results.NaN() // undefined on head
		}
		hs = append(hs, h)
	}
	bs = append(bs, sample("gone", "faithfulness", 0.9))
	hs = append(hs, sample("fresh", "faithfulness", 0.2))
	r := compareWords(file(bs...), file(hs...), DefaultThresholds())
	if r.Counts != (Counts{Base: 16, Head: 16, Paired: 15, New: 1, Removed: 1}) {
		t.Errorf("counts %+v", r.Counts)
	}
	if len(r.New) != 1 || r.New[0] != (SampleRef{ID: "fresh", Question: "question fresh"}) ||
		len(r.Removed) != 1 || r.Removed[0].ID != "gone" {
		t.Errorf("new %+v removed %+v", r.New, r.Removed)
	}
	if len(r.TopRegressed) != 2 {
		t.Fatalf("top regressed %+v", r.TopRegressed)
	}
	first, second := r.TopRegressed[0], r.TopRegressed[1]
	if first.ID != "q07" || first.WorstMetric != "noise_sensitivity_relevant" || math.Abs(first.WorstDelta.Value()+0.6) > 1e-12 {
		t.Errorf("first %+v", first)
	}
	// Catalogue order: context_recall before noise_sensitivity_relevant.
	if len(first.Metrics) != 2 || first.Metrics[0].Metric != "context_recall" || first.Metrics[1].Metric != "noise_sensitivity_relevant" ||
		math.Abs(first.Metrics[1].Delta.Value()-0.6) > 1e-12 {
		t.Errorf("first metrics %+v", first.Metrics)
	}
	if second.ID != "q03" || second.Question != "question q03" || second.Metrics[0].Reason != "claims the warranty is 5 years" {
		t.Errorf("second %+v", second)
	}
	m := metricOf(t, r, "faithfulness")
	if m.N != 14 || m.Unpaired != 1 || m.HeadN != 15 || m.HeadUndefined != 1 || m.BaseN != 16 {
		t.Errorf("faithfulness counts n=%d unpaired=%d headN=%d headUndef=%d baseN=%d", m.N, m.Unpaired, m.HeadN, m.HeadUndefined, m.BaseN)
	}
	// Paired means add up to the delta; the all-sample head mean includes "fresh".
	if math.Abs(m.PairedHeadMean.Value()-m.PairedBaseMean.Value()-m.RawDelta.Value()) > 1e-12 {
		t.Errorf("paired means %v %v delta %v", m.PairedBaseMean, m.PairedHeadMean, m.RawDelta)
	}
	if math.Abs(m.HeadMean.Value()-(13*0.9+0.5+0.2)/15) > 1e-12 {
		t.Errorf("head mean %v", m.HeadMean)
	}
	// Catalogue order of the metric table.
	var order []string
	for _, m := range r.Metrics {
		order = append(order, m.Metric)
	}
	if got := strings.Join(order, ","); got != "context_recall,faithfulness,noise_sensitivity_relevant" {
		t.Errorf("order %s", got)
	}
}

func TestCompareRepeats(t *testing.T) {
	var bs, hs []results.Sample
	for i := range 12 {
		id := fmt.Sprint(i)
		b := sample(id, "faithfulness", 0.0) // Scores are ignored when runs exist
		b.Runs = map[string][]results.Score{"faithfulness": {0.8, 0.9, 1.0}}
		h := sample(id, "faithfulness", 0.0)
		h.Runs = map[string][]results.Score{"faithfulness": {0.7, 0.7, results.NaN()}}
		bs, hs = append(bs, b), append(hs, h)
	}
	r := compareWords(file(bs...), file(hs...), DefaultThresholds())
	m := metricOf(t, r, "faithfulness")
	if math.Abs(m.BaseMean.Value()-0.9) > 1e-12 || math.Abs(m.HeadMean.Value()-0.7) > 1e-12 {
		t.Errorf("means %v %v, want the means of runs 0.9 0.7", m.BaseMean, m.HeadMean)
	}
	if math.Abs(m.BaseJudgeNoise.Value()-0.1) > 1e-12 || m.HeadJudgeNoise.Value() != 0 {
		t.Errorf("judge noise %v %v, want 0.1 and 0", m.BaseJudgeNoise, m.HeadJudgeNoise)
	}
	if m.Change != VerdictRegression {
		t.Errorf("change %s", m.Change)
	}
	// Without repeats the judge noise is null in JSON.
	b2, h2 := pairOfFiles(12, "faithfulness", noisy(1, 0.8), noisy(1, 0.8))
	js, err := json.Marshal(metricOf(t, compareWords(b2, h2, DefaultThresholds()), "faithfulness"))
	if err != nil || !bytes.Contains(js, []byte(`"head_judge_noise":null`)) {
		t.Errorf("json %s, %v", js, err)
	}
}

func TestCompareAliasesAndMissingMetrics(t *testing.T) {
	var bs, hs []results.Sample
	for i := range 12 {
		id := fmt.Sprint(i)
		bs = append(bs, sample(id, "response_relevancy", 0.9, "semantic_similarity", 0.8))
		hs = append(hs, sample(id, "answer_relevancy", 0.9, "exact_match", 1.0))
	}
	th := DefaultThresholds()
	th.Metrics["context_recall"] = MetricConfig{Min: ptr(0.8)}
	r := compareWords(file(bs...), file(hs...), th)
	if m := metricOf(t, r, "answer_relevancy"); m.N != 12 || m.Change != VerdictNoChange {
		t.Errorf("alias not paired: %+v", m)
	}
	if m := metricOf(t, r, "semantic_similarity"); m.Change != VerdictNotInHead {
		t.Errorf("semantic_similarity %s", m.Change)
	}
	if m := metricOf(t, r, "exact_match"); m.Change != VerdictNewMetric {
		t.Errorf("exact_match %s", m.Change)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "semantic_similarity was scored on base but not on head") {
		t.Errorf("warnings %q", r.Warnings)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "metrics neither side scored: context_recall") {
		t.Errorf("notes %q", r.Notes)
	}
}

func TestReportJSONAndDeterminism(t *testing.T) {
	b, h := pairOfFiles(60, "faithfulness", noisy(5, 0.8), noisy(6, 0.75))
	b.Samples[0].Scores["faithfulness"] = results.NaN()
	h.Samples = append(h.Samples, sample("only-head", "context_recall", 0.5))
	js1, err := json.Marshal(compareWords(b, h, DefaultThresholds()))
	if err != nil {
		t.Fatalf("report is not JSON-serialisable: %v", err)
	}
	js2, _ := json.Marshal(compareWords(b, h, DefaultThresholds()))
	if !bytes.Equal(js1, js2) {
		t.Error("two comparisons of the same data differ")
	}
	var back map[string]any
	if err := json.Unmarshal(js1, &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "passed", "verdict", "failures", "warnings", "notes", "metrics", "counts", "top_regressed", "new", "removed", "head", "base", "settings"} {
		if _, ok := back[k]; !ok {
			t.Errorf("JSON report lacks %q", k)
		}
	}
	m := metricOf(t, compareWords(b, h, DefaultThresholds()), "faithfulness")
	if m.N != 59 || m.Exact || m.DeltaCI.Low.IsNaN() || !(m.DeltaCI.Low.Value() <= m.Delta.Value() && m.Delta.Value() <= m.DeltaCI.High.Value()) {
		t.Errorf("n %d exact %v CI %+v delta %v", m.N, m.Exact, m.DeltaCI, m.Delta)
	}
	if m.MDE.IsNaN() || m.MDE.Value() <= 0 {
		t.Errorf("MDE %v", m.MDE)
	}
}

func TestCompareEmpty(t *testing.T) {
	r := compareWords(file(), file(), DefaultThresholds())
	if r.Passed || r.Verdict != VerdictFail {
		t.Errorf("%v %q %q", r.Passed, r.Verdict, r.Failures)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Error(err)
	}
	r = compareWords(nil, nil, Thresholds{})
	if r.Settings.Defaults != DefaultThresholds().Defaults {
		t.Errorf("zero thresholds: %+v", r.Settings.Defaults)
	}
}

func TestCompareSkipBootstrap(t *testing.T) {
	b, h := pairOfFiles(30, "faithfulness", noisy(5, 0.8), noisy(6, 0.8))
	r := Config{Bootstrap: -1}.compareWords(b, h, DefaultThresholds())
	m := metricOf(t, r, "faithfulness")
	if !m.DeltaCI.Low.IsNaN() || r.Settings.Bootstrap != 0 {
		t.Errorf("bootstrap not skipped: %+v", m.DeltaCI)
	}
	full := metricOf(t, compareWords(b, h, DefaultThresholds()), "faithfulness")
	if m.PWorse != full.PWorse || m.Change != full.Change {
		t.Error("skipping the bootstrap changed the test")
	}
}

func ptr(x float64) *float64 { return &x }

// A head whose judge failed on most samples fails the gate instead of
// passing for want of pairs.
func TestMostlyUndefinedHeadFails(t *testing.T) {
	mk := func(undefined int) *results.File {
		f := &results.File{Schema: results.Schema, Judge: results.Judge{Fingerprint: "j"}}
		for i := 0; i < 20; i++ {
			s := results.Sample{ID: fmt.Sprintf("s%02d", i), Scores: map[string]results.Score{"faithfulness": 0.9}}
			if i < undefined {
				s.Scores["faithfulness"] = results.NaN()
				s.Undefined = map[string]string{"faithfulness": "judge refused"}
			}
			f.Samples = append(f.Samples, s)
		}
		return f
	}
	r := compareWords(mk(0), mk(18), DefaultThresholds())
	if r.Passed || !strings.Contains(strings.Join(r.Failures, "\n"), "faithfulness is undefined for 18 of 20 head samples (base: 0 of 20)") {
		t.Fatalf("passed %v, failures %q", r.Passed, r.Failures)
	}
	// Half undefined, or a base that was as bad: no such failure (half
	// undefined still fails for the lost scores, see TestLostScores).
	if r := compareWords(mk(0), mk(10), DefaultThresholds()); strings.Contains(strings.Join(r.Failures, "\n"), "judge failed on most samples") {
		t.Errorf("10 of 20: failures %q", r.Failures)
	}
	if r := compareWords(mk(15), mk(18), DefaultThresholds()); len(r.Failures) != 0 {
		t.Errorf("base as bad: failures %q", r.Failures)
	}
}

// lostFiles builds 20 paired samples scored 0.9 on base; on head, the
// first lost samples are undefined for metric with reason (and kind, when
// given), and the first regained samples of base are undefined instead.
func lostFiles(metric string, lost, regained int, reason string, kind results.UndefinedKind) (*results.File, *results.File) {
	var bs, hs []results.Sample
	undef := func(s *results.Sample) {
		s.Scores[metric] = results.NaN()
		s.Undefined = map[string]string{metric: reason}
		if kind != "" {
			s.UndefinedKind = map[string]results.UndefinedKind{metric: kind}
		}
	}
	for i := range 20 {
		id := fmt.Sprintf("q-%03d", i)
		b, h := sample(id, metric, 0.9), sample(id, metric, 0.9)
		if i < lost {
			undef(&h)
		} else if i < lost+regained {
			undef(&b)
		}
		bs, hs = append(bs, b), append(hs, h)
	}
	return file(bs...), file(hs...)
}

// TestLostScores: samples scored on base and undefined on head (for a
// reason other than the data) are evidence: tested against the reverse
// transitions (p = 2^-8 here, Holm-adjusted with the metric's paired test
// to 0.008), they fail the gate when significant.
func TestLostScores(t *testing.T) {
	tests := []struct {
		name           string
		metric         string
		lost, regained int
		reason         string
		kind           results.UndefinedKind
		th             func(*Thresholds)
		lostScores     bool
		status         Status
		tested         bool
	}{
		{name: "garbage answers", metric: "faithfulness", lost: 8, reason: "no statements in response",
			lostScores: true, status: StatusFail, tested: true},
		{name: "judge failures", metric: "faithfulness", lost: 8, reason: "judge returned invalid JSON", kind: results.KindJudge,
			lostScores: true, status: StatusFail, tested: true},
		{name: "missing data does not count", metric: "faithfulness", lost: 8, reason: "missing field response",
			status: StatusOK},
		{name: "empty golden field does not count", metric: "faithfulness", lost: 8, reason: "empty field reference", kind: results.KindData,
			status: StatusOK},
		{name: "too few transitions to test", metric: "faithfulness", lost: 4, reason: "no statements in response",
			status: StatusOK},
		{name: "balanced transitions", metric: "faithfulness", lost: 6, regained: 6, reason: "no statements in response",
			status: StatusOK, tested: true},
		{name: "level warn", metric: "faithfulness", lost: 8, reason: "no statements in response",
			th:         func(th *Thresholds) { th.Metrics["faithfulness"] = MetricConfig{Level: LevelWarn} },
			lostScores: true, status: StatusWarn, tested: true},
		{name: "report-only never fails", metric: "semantic_similarity", lost: 8, reason: "undefined",
			lostScores: true, status: StatusOK, tested: true},
		{name: "large tolerance", metric: "faithfulness", lost: 8, reason: "no statements in response",
			th:     func(th *Thresholds) { th.Metrics["faithfulness"] = MetricConfig{Tolerance: ptr(0.5)} },
			status: StatusOK, tested: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := DefaultThresholds()
			if tt.th != nil {
				tt.th(&th)
			}
			b, h := lostFiles(tt.metric, tt.lost, tt.regained, tt.reason, tt.kind)
			r := compareWords(b, h, th)
			m := metricOf(t, r, tt.metric)
			if m.LostScores != tt.lostScores || m.Status != tt.status || m.PLost.IsNaN() == tt.tested {
				t.Fatalf("lost %d regained %d p %v adj %v: lost_scores %v status %s, want %v %s (tested %v)",
					m.Lost, m.Regained, m.PLost, m.PLostAdj, m.LostScores, m.Status, tt.lostScores, tt.status, tt.tested)
			}
			if tt.status == StatusFail {
				if r.Passed || m.Verdict != VerdictLostScores {
					t.Errorf("passed %v verdict %s", r.Passed, m.Verdict)
				}
				want := fmt.Sprintf("%s lost its score on %d paired samples (scored on base, undefined on head; 0 the other way, p=0.008), most often: %s", tt.metric, tt.lost, tt.reason)
				if len(r.Failures) != 1 || r.Failures[0] != want {
					t.Errorf("failures %q, want %q", r.Failures, want)
				}
			}
			if tt.status == StatusOK && !r.Passed {
				t.Errorf("failed: %q", r.Failures)
			}
			if tt.status == StatusOK && tt.lostScores && !strings.Contains(strings.Join(r.Notes, "\n"), "report-only metrics (not gated") {
				t.Errorf("notes %q lack the report-only finding", r.Notes)
			}
		})
	}
}

// TestFamilyLeavesReportOnlyMetricsOut: a drop on 8 of 20 samples (exact
// p = 1/256) is significant among the five gated core metrics, but would
// not be after Holm over 16 metrics; report-only metrics do not dilute it.
func TestFamilyLeavesReportOnlyMetricsOut(t *testing.T) {
	others := []string{"context_precision", "context_recall", "faithfulness", "answer_relevancy",
		"precision_at_k", "noise_sensitivity_relevant", "noise_sensitivity_irrelevant", "semantic_similarity",
		"id_context_precision", "id_context_recall", "nonllm_context_precision", "nonllm_context_recall",
		"string_similarity", "exact_match", "string_presence"}
	var bs, hs []results.Sample
	for i := range 20 {
		id := fmt.Sprintf("q-%03d", i)
		b, h := sample(id, "factual_correctness", 0.9), sample(id, "factual_correctness", 0.9)
		if i < 8 {
			h.Scores["factual_correctness"] = 0.1
		}
		for _, m := range others {
			b.Scores[m], h.Scores[m] = 0.8, 0.8
		}
		bs, hs = append(bs, b), append(hs, h)
	}
	b, h := file(bs...), file(hs...)
	r := compareWords(b, h, DefaultThresholds())
	m := metricOf(t, r, "factual_correctness")
	if r.Passed || m.Change != VerdictRegression || m.PWorseAdj.Value() > 5.0/256+1e-9 {
		t.Errorf("default family: passed %v change %s p_adj %v, want a regression at p = 5/256", r.Passed, m.Change, m.PWorseAdj)
	}
	if s := metricOf(t, r, "string_similarity"); !s.ReportOnly || metricOf(t, r, "faithfulness").ReportOnly {
		t.Error("report-only flags wrong")
	}
	all := DefaultThresholds()
	all.Gate = append([]string{"factual_correctness"}, others...)
	r = compareWords(b, h, all)
	if m := metricOf(t, r, "factual_correctness"); !r.Passed || m.Change != VerdictNoChange {
		t.Errorf("16 gated metrics: passed %v change %s p_adj %v, want ~ (16/256 > 0.05)", r.Passed, m.Change, m.PWorseAdj)
	}
}

// TestUnrecordedScoreIsNotLost: a head sample with no entry at all for a
// metric (not scored for it) says nothing about the change.
func TestUnrecordedScoreIsNotLost(t *testing.T) {
	b, h := lostFiles("faithfulness", 8, 0, "no statements in response", "")
	for i := range 8 {
		delete(h.Samples[i].Scores, "faithfulness")
		h.Samples[i].Undefined = nil
	}
	r := compareWords(b, h, DefaultThresholds())
	if m := metricOf(t, r, "faithfulness"); m.Lost != 0 || !r.Passed {
		t.Errorf("lost %d, passed %v, failures %q", m.Lost, r.Passed, r.Failures)
	}
}
