package report

import (
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// A sequential check's report says when it decided and what it saved, per
// metric when they were decided at different points, and what a full run
// would have cost in chat calls.
func TestSequentialLineAndUsage(t *testing.T) {
	r := &compare.Report{
		HasBaseline: true,
		Head:        compare.Side{Usage: results.Usage{ChatCalls: 824}},
		Sequential:  &compare.SeqSummary{Batch: 50, Judged: 412, Total: 1000, DecidedAfter: 400, CallsMade: 824, CallsFull: 2000},
		Metrics: []compare.MetricResult{
			{Metric: "faithfulness", Sequential: &compare.SeqVerdict{Decision: compare.SeqFailed, DecidedAfter: 400}},
			{Metric: "answer_relevancy", Sequential: &compare.SeqVerdict{Decision: compare.SeqUndecided, DecidedAfter: 0}},
			{Metric: "context_recall", Sequential: &compare.SeqVerdict{Decision: compare.SeqPassed, DecidedAfter: 350}},
		},
	}
	line := SequentialLine(r)
	for _, want := range []string{"decided after 400 of 1,000 samples", "59% of judge calls saved", "context_recall after 350, faithfulness after 400", "Not decided when the check stopped on a failure: answer_relevancy"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	md := Markdown(r, Options{})
	if !strings.Contains(md, "824 chat calls made for 412 of 1,000 samples; a full check would have made about 2,000") {
		t.Errorf("usage does not compare with a full run:\n%s", md)
	}
	// Without calls (the offline judge) the share of samples stands for
	// what was saved.
	r.Sequential.CallsMade, r.Sequential.CallsFull = 0, 0
	if line := SequentialLine(r); !strings.Contains(line, "(59% of the samples not judged)") {
		t.Errorf("offline: %q", line)
	}
	// A run stopped before deciding says so.
	r.Sequential.DecidedAfter = 0
	if line := SequentialLine(r); !strings.Contains(line, "stopped before deciding, 412 of 1,000 samples judged") {
		t.Errorf("stopped: %q", line)
	}
	r.Sequential.Judged = 1000
	if line := SequentialLine(r); !strings.Contains(line, "not decided early; all 1,000 samples judged") {
		t.Errorf("undecided: %q", line)
	}
	r.Sequential.Judged, r.Sequential.Total = 1, 1
	if line := SequentialLine(r); !strings.Contains(line, "its 1 sample judged") {
		t.Errorf("one sample: %q", line)
	}
}
