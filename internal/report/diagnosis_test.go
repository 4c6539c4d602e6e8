package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/metrics"
)

// mr is a metric result with just the verdict fields the diagnosis reads.
func mr(name string, change compare.Verdict, floor compare.Floor) compare.MetricResult {
	dir := "higher"
	if m, ok := metrics.Lookup(name); ok {
		dir = m.Direction.String()
	}
	return compare.MetricResult{Metric: name, Direction: dir, Change: change, Floor: floor}
}

func TestDiagnose(t *testing.T) {
	const (
		reg  = compare.VerdictRegression
		imp  = compare.VerdictImprovement
		same = compare.VerdictNoChange
		few  = compare.VerdictInsufficientData
		none = compare.VerdictNoBaseline
	)
	const (
		cp  = metrics.ContextPrecisionName
		pk  = metrics.PrecisionAtKName
		cr  = metrics.ContextRecallName
		ff  = metrics.FaithfulnessName
		ar  = metrics.AnswerRelevancyName
		fc  = metrics.FactualCorrectnessName
		nsr = metrics.NoiseSensitivityRelevantName
		nsi = metrics.NoiseSensitivityIrrelevantName
	)
	// Patterns by their "likely cause", in the README's order.
	const (
		ranking  = "the ranking puts useless chunks first"
		topkNois = "the right chunk is on top, but the rest of the top-k is noise"
		topkSmal = "the top-k is too small, or the evidence is split across chunks"
		retrieve = "retrieval fails and the generator invents"
		wrongDoc = "answers are faithful to the wrong document"
		memory   = "answers come from the model's memory, ignoring the context"
		halluc   = "answers that sound plausible but are wrong (hallucination: the most important failure to catch)"
		leak     = "irrelevant chunks leak into answers"
		overgen  = "the generator over-generalises details of relevant chunks"
	)
	below, above, ok := compare.FloorBelowMin, compare.FloorAboveMax, compare.FloorOK
	tests := []struct {
		name    string
		metrics []compare.MetricResult
		want    []string
		when    string // the first finding's "when", if set
	}{
		{"nothing changed", []compare.MetricResult{mr(cp, same, ""), mr(cr, same, ok), mr(ff, same, "")}, nil, ""},
		{"improvements say nothing", []compare.MetricResult{mr(cp, imp, ""), mr(ff, imp, "")}, nil, ""},
		{"context_precision low", []compare.MetricResult{mr(cp, reg, "")}, []string{ranking}, "context_precision regressed"},
		{"context_precision below floor", []compare.MetricResult{mr(cp, same, below)}, []string{ranking}, "context_precision is below its floor"},
		{"precision_at_k low, context_precision high", []compare.MetricResult{mr(cp, same, ""), mr(pk, reg, "")}, []string{topkNois},
			"precision_at_k regressed while context_precision held"},
		{"both precisions low: ranking only", []compare.MetricResult{mr(cp, reg, ""), mr(pk, reg, "")}, []string{ranking}, ""},
		{"precision_at_k low, context_precision untested", []compare.MetricResult{mr(cp, few, ""), mr(pk, reg, "")}, nil, ""},
		{"context_recall low, context_precision high", []compare.MetricResult{mr(cp, imp, ""), mr(cr, reg, "")}, []string{topkSmal},
			"context_recall regressed while context_precision improved"},
		{"context_recall and faithfulness low", []compare.MetricResult{mr(cr, reg, ""), mr(ff, reg, below)}, []string{retrieve},
			"context_recall regressed and faithfulness regressed (now below its floor)"},
		{"faithfulness high, factual_correctness low", []compare.MetricResult{mr(ff, same, ""), mr(fc, reg, "")}, []string{wrongDoc}, ""},
		{"faithfulness low, factual_correctness high", []compare.MetricResult{mr(ff, reg, ""), mr(fc, same, "")}, []string{memory}, ""},
		{"faithfulness low, answer_relevancy high", []compare.MetricResult{mr(ff, reg, ""), mr(ar, same, "")}, []string{halluc},
			"faithfulness regressed while answer_relevancy held"},
		{"factual_correctness low, answer_relevancy high", []compare.MetricResult{mr(fc, reg, ""), mr(ar, imp, ""), mr(ff, same, "")},
			[]string{wrongDoc, halluc}, ""},
		{"faithfulness and answer_relevancy both low", []compare.MetricResult{mr(ff, reg, ""), mr(ar, reg, "")}, nil, ""},
		{"noise_sensitivity_irrelevant high", []compare.MetricResult{mr(nsi, reg, "")}, []string{leak}, "noise_sensitivity_irrelevant regressed"},
		{"noise_sensitivity_irrelevant above ceiling", []compare.MetricResult{mr(nsi, same, above)}, []string{leak},
			"noise_sensitivity_irrelevant is above its ceiling"},
		{"noise_sensitivity_relevant high", []compare.MetricResult{mr(nsr, reg, "")}, []string{overgen}, ""},
		{"no baseline: floors only", []compare.MetricResult{mr(cp, none, ok), mr(cr, none, below)}, []string{topkSmal},
			"context_recall is below its floor while context_precision meets its floor"},
		{"no baseline without floors says nothing", []compare.MetricResult{mr(cp, none, ""), mr(cr, none, below)}, nil, ""},
		{"insufficient data says nothing", []compare.MetricResult{mr(cp, few, ""), mr(ff, few, "")}, nil, ""},
		{"everything at once", []compare.MetricResult{mr(cp, same, ""), mr(pk, reg, ""), mr(cr, reg, ""), mr(ff, reg, ""), mr(ar, same, ""),
			mr(fc, same, ""), mr(nsr, reg, ""), mr(nsi, reg, "")},
			[]string{topkNois, topkSmal, retrieve, memory, halluc, leak, overgen}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := diagnose(&compare.Report{Metrics: tt.metrics})
			var got []string
			for _, f := range fs {
				got = append(got, f.cause)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("causes\n got %q\nwant %q", got, tt.want)
			}
			if tt.when != "" && (len(fs) == 0 || fs[0].when != tt.when) {
				t.Errorf("when = %q, want %q", fs, tt.when)
			}
		})
	}
}

// TestDiagnosisOnlyForSignificantChanges renders the diagnosis section only
// when a pattern matches.
func TestDiagnosisOnlyForSignificantChanges(t *testing.T) {
	for _, c := range cases {
		md := Markdown(c.make(t), opts)
		has := strings.Contains(md, "<summary>Diagnosis</summary>")
		want := c.name == "regression" || c.name == "no_baseline" || c.name == "untrusted"
		if has != want {
			t.Errorf("%s: diagnosis shown %v, want %v", c.name, has, want)
		}
	}
}
