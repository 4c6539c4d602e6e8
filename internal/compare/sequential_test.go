package compare

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// seqPair builds a head and a base sample with one score each of metric m
// (NaN: undefined, with reason kind k).
func seqPair(id, m string, head, base float64, k results.UndefinedKind) (results.Sample, results.Sample) {
	mk := func(v float64) results.Sample {
		s := results.Sample{ID: id, Scores: map[string]results.Score{m: results.Score(v)}}
		if math.IsNaN(v) {
			s.Undefined = map[string]string{m: "judge returned invalid JSON"}
			s.UndefinedKind = map[string]results.UndefinedKind{m: k}
		}
		return s
	}
	return mk(head), mk(base)
}

func faithRule() MetricRule { return MetricRule{Metric: "faithfulness", Tolerance: 0.02, Alpha: 0.05} }

func newSeq(t *testing.T, total int, ms ...SeqMetric) *SeqState {
	t.Helper()
	if len(ms) == 0 {
		ms = []SeqMetric{{Name: "faithfulness", Rule: faithRule()}}
	}
	s, err := NewSeqState(SeqConfig{Metrics: ms, Total: total})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// result returns the outcome's result of metric m's test.
func result(t *testing.T, o SeqOutcome, m string, test SeqTest) SeqResult {
	t.Helper()
	for _, r := range o.Results {
		if r.Metric == m && r.Test == test && r.Segment == "" {
			return r
		}
	}
	t.Fatalf("no %s result for %s in %+v", test, m, o.Results)
	return SeqResult{}
}

// feed adds n pairs with the given scores and returns the number of pairs
// after which the gate was first decided (a look after every pair), or -1.
func feed(t *testing.T, s *SeqState, n int, head, base func(i int) float64) (int, SeqOutcome) {
	t.Helper()
	var o SeqOutcome
	for i := range n {
		h, b := seqPair(fmt.Sprint(i), "faithfulness", head(i), base(i), results.KindJudge)
		if err := s.Add(h, b); err != nil {
			t.Fatal(err)
		}
		if o = s.Decide(); o.Decision != SeqUndecided {
			return i + 1, o
		}
	}
	return -1, o
}

func TestSeqConfigErrors(t *testing.T) {
	cases := []struct {
		cfg  SeqConfig
		want string
	}{
		{SeqConfig{Total: 0}, "the run has 0 samples"},
		{SeqConfig{Total: 5, Metrics: []SeqMetric{{Name: "faithfulness", Rule: MetricRule{Alpha: 0, Tolerance: 0.02}}}}, `metric "faithfulness" needs a name, alpha in (0, 1)`},
		{SeqConfig{Total: 5, Metrics: []SeqMetric{{Rule: faithRule()}}}, `metric "" needs a name`},
	}
	for _, c := range cases {
		if _, err := NewSeqState(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestSeqFamily: every change and lost-scores test of every metric, on the
// whole set and on every segment with at least MinSamples samples, shares
// alpha (Bonferroni); floors are a family of their own.
func TestSeqFamily(t *testing.T) {
	lo := 0.7
	s, err := NewSeqState(SeqConfig{Total: 100, MinSamples: 10,
		Metrics: []SeqMetric{
			{Name: "faithfulness", Rule: MetricRule{Tolerance: 0.02, Alpha: 0.05, Min: &lo}},
			{Name: "context_recall", Rule: MetricRule{Tolerance: 0.02, Alpha: 0.05}},
		},
		Segments: []SeqSegment{{"topic", "billing", 60}, {"topic", "rare", 9}}})
	if err != nil {
		t.Fatal(err)
	}
	o := s.Decide()
	// 2 metrics x (whole set + billing) x (change + lost) = 8 tests; the
	// rare segment (9 < 10 samples) is not tested; one floor.
	var change, floor int
	for _, r := range o.Results {
		switch r.Test {
		case SeqFloor:
			floor++
			if r.Alpha != 0.05 {
				t.Errorf("floor alpha %g, want 0.05", r.Alpha)
			}
		default:
			change++
			if math.Abs(r.Alpha-0.05/8) > 1e-15 {
				t.Errorf("%s %s %s: alpha %g, want 0.05/8", r.Metric, r.Segment, r.Test, r.Alpha)
			}
			if r.Segment == "topic=rare" {
				t.Errorf("segment with 9 samples was tested")
			}
		}
	}
	if change != 8 || floor != 1 {
		t.Errorf("%d change/lost tests and %d floors, want 8 and 1", change, floor)
	}
	if o.Decision != SeqUndecided || o.Final || o.Judged != 0 || o.Total != 100 {
		t.Errorf("empty run: %+v", o)
	}
}

// TestSeqBrokenHeadFailsEarly: every answer lost its faithfulness (1 ->
// 0): the change is shown below 0 and its estimate -1 is beyond the
// tolerance at the first look MinSamples allows.
func TestSeqBrokenHeadFailsEarly(t *testing.T) {
	s := newSeq(t, 1000)
	n, o := feed(t, s, 1000, func(int) float64 { return 0 }, func(int) float64 { return 1 })
	r := result(t, o, "faithfulness", SeqChange)
	if n != 10 || o.Decision != SeqFailed || r.Decision != SeqFailed || r.Reason != ReasonWorse {
		t.Fatalf("decided after %d: %s, change %s (%s); want failed at 10 (MinSamples) as worse", n, o.Decision, r.Decision, r.Reason)
	}
	if r.Mean != -1 || r.N != 10 || !(r.High < 0) || r.Low > -1+1e-9 || r.Low < -1 {
		t.Errorf("estimate %g over %d, bounds [%g, %g]; want -1 over 10, upper bound below 0", r.Mean, r.N, r.Low, r.High)
	}
	if o.Judged != 10 || o.Final || r.DecidedAt != 10 {
		t.Errorf("judged %d, final %v", o.Judged, o.Final)
	}
}

// TestSeqUnchangedHeadPasses: every pair equal (difference 0, nothing
// lost): both tests pass once the lower bound clears -0.02 and the net
// share lost is below 0.02. With two tests at 0.025 each and bets capped
// at 0.9/0.49 of the capital per unit of the range, no bet passes before
// log(40) / log(1 + 0.9/0.49 * 0.01) = 202.7 observations: the gate
// passes after 203 to 230 pairs, a fifth to a quarter of 1,000.
func TestSeqUnchangedHeadPasses(t *testing.T) {
	s := newSeq(t, 1000)
	n, o := feed(t, s, 1000, func(int) float64 { return 0.8 }, func(int) float64 { return 0.8 })
	t.Logf("unchanged head, every difference 0: passed after %d of 1,000 pairs", n)
	if o.Decision != SeqPassed || n < 203 || n > 230 {
		t.Fatalf("decided %s after %d pairs; want passed after 203 to 230", o.Decision, n)
	}
	for _, test := range []SeqTest{SeqChange, SeqLost} {
		if r := result(t, o, "faithfulness", test); r.Decision != SeqPassed || r.Mean != 0 {
			t.Errorf("%s: %s (%s), estimate %g", test, r.Decision, r.Reason, r.Mean)
		}
	}
	if r := result(t, o, "faithfulness", SeqChange); r.Reason != ReasonNotWorse || !(r.Low > -0.02-1e-9) {
		// The grid's bound is its last point ruled out: -0.02 itself.
		t.Errorf("change: %s, low %g; want not worse with low at -0.02 or above", r.Reason, r.Low)
	}
}

// TestSeqEndRule: a run too short to decide passes at the end as "not
// shown" (as today's ~), or as too few pairs under MinSamples; a numeric
// metric is never decided early and takes the fixed design at the end.
func TestSeqEndRule(t *testing.T) {
	s := newSeq(t, 30)
	n, o := feed(t, s, 30, func(i int) float64 { return 0.5 + 0.4*float64(i%2) }, func(i int) float64 { return 0.5 + 0.4*float64((i+1)%2) })
	if n != 30 || !o.Final || o.Decision != SeqPassed {
		t.Fatalf("decided after %d (final %v): %s; want passed at 30, final", n, o.Final, o.Decision)
	}
	if r := result(t, o, "faithfulness", SeqChange); r.Reason != ReasonNotShown {
		t.Errorf("change reason %s, want not shown", r.Reason)
	}
	s = newSeq(t, 5)
	_, o = feed(t, s, 5, func(int) float64 { return 0 }, func(int) float64 { return 1 })
	if r := result(t, o, "faithfulness", SeqChange); o.Decision != SeqPassed || r.Reason != ReasonTooFew {
		t.Errorf("5 pairs of 5: %s, change %s; want passed, too few pairs", o.Decision, r.Reason)
	}

	// Numeric: a clear drop in every pair is never decided before the end
	// (the lost-scores test passes, the change waits), then fails.
	num := SeqMetric{Name: "faithfulness", Rule: MetricRule{Tolerance: 0.1, Alpha: 0.05}, Numeric: true}
	s = newSeq(t, 300, num)
	n, o = feed(t, s, 300, func(i int) float64 { return 100 + float64(i%7) }, func(i int) float64 { return 150 + float64(i%5) })
	r := result(t, o, "faithfulness", SeqChange)
	if n != 300 || o.Decision != SeqFailed || r.Reason != ReasonFixedDesign || r.Decision != SeqFailed {
		t.Errorf("numeric drop: decided after %d: %s, change %s (%s); want failed at 300 by the fixed design", n, o.Decision, r.Decision, r.Reason)
	}
}

// TestSeqLowerIsBetter: for a lower-is-better metric a higher head score
// is worse.
func TestSeqLowerIsBetter(t *testing.T) {
	s := newSeq(t, 100, SeqMetric{Name: "faithfulness", Rule: faithRule(), Lower: true})
	_, o := feed(t, s, 100, func(int) float64 { return 1 }, func(int) float64 { return 0 })
	if r := result(t, o, "faithfulness", SeqChange); r.Decision != SeqFailed || r.Mean != -1 {
		t.Errorf("lower-is-better metric rose 0 -> 1: %s, estimate %g; want failed, -1", r.Decision, r.Mean)
	}
}

// TestSeqKnownStratum: 900 samples known unchanged (difference 0) weigh
// 0.9 of the set, so the rest only has to be shown above -0.02/0.1 = -0.2:
// the gate passes after a few dozen judged samples instead of two hundred.
// Known samples after a judged one are refused.
func TestSeqKnownStratum(t *testing.T) {
	s := newSeq(t, 1000)
	for i := range 900 {
		h, b := seqPair(fmt.Sprint("k", i), "faithfulness", 0.8, 0.8, "")
		if err := s.AddKnown(h, b); err != nil {
			t.Fatal(err)
		}
	}
	if o := s.Decide(); o.Decision != SeqUndecided {
		t.Fatalf("known samples alone decided %s: they say nothing of the rest", o.Decision)
	}
	n, o := feed(t, s, 100, func(i int) float64 { return 0.8 }, func(int) float64 { return 0.8 })
	t.Logf("900 known unchanged, then unchanged judged samples: passed after %d judged", n)
	if o.Decision != SeqPassed || n > 60 {
		t.Fatalf("decided %s after %d judged; want passed within 60", o.Decision, n)
	}
	r := result(t, o, "faithfulness", SeqChange)
	if r.N != 900+n || r.Low < -0.02 || r.Low > 0 {
		t.Errorf("change over %d pairs, low %g; want %d pairs, low in [-0.02, 0]", r.N, r.Low, 900+n)
	}
	h, b := seqPair("late", "faithfulness", 0.8, 0.8, "")
	if err := s.AddKnown(h, b); err == nil || !strings.Contains(err.Error(), "add the known samples first") {
		t.Errorf("known after judged: %v", err)
	}
}

// TestSeqLostScores: a head whose judge fails on every sample loses every
// score: the lost-scores test fails (the change test has no pair); scores
// undefined for want of data count on neither side.
func TestSeqLostScores(t *testing.T) {
	s := newSeq(t, 200)
	_, o := feed(t, s, 200, func(int) float64 { return math.NaN() }, func(int) float64 { return 0.9 })
	r := result(t, o, "faithfulness", SeqLost)
	if o.Decision != SeqFailed || r.Decision != SeqFailed || r.Reason != ReasonLosesScores || r.Mean != 1 || !(r.E >= 40) {
		t.Fatalf("every score lost: %s, lost test %s (%s), net share %g, e-value %g", o.Decision, r.Decision, r.Reason, r.Mean, r.E)
	}
	if r.N > 12 {
		t.Errorf("decided after %d pairs; 40 needs (2^(n+1) - 1)/(n+1) >= 40: n = 9, MinSamples 10", r.N)
	}
	s = newSeq(t, 50)
	for i := range 50 {
		h, b := seqPair(fmt.Sprint(i), "faithfulness", math.NaN(), 0.9, results.KindData)
		if err := s.Add(h, b); err != nil {
			t.Fatal(err)
		}
	}
	if r := result(t, s.Decide(), "faithfulness", SeqLost); r.Decision != SeqPassed || r.N != 0 || r.Reason != ReasonTooFew {
		t.Errorf("undefined for want of data: lost test %s (%s) over %d pairs; want passed, too few, 0 pairs", r.Decision, r.Reason, r.N)
	}
}

// TestSeqFloors: the head mean's confidence sequence decides a floor
// early; at the end an undecided floor takes today's rule on the head mean.
func TestSeqFloors(t *testing.T) {
	floor := func(min float64, total int, head float64) SeqOutcome {
		m := SeqMetric{Name: "faithfulness", Rule: MetricRule{Tolerance: 0.02, Alpha: 0.05, Min: &min}}
		s := newSeq(t, total, m)
		_, o := feed(t, s, total, func(int) float64 { return head }, func(int) float64 { return head })
		return o
	}
	o := floor(0.8, 1000, 0.5)
	if r := result(t, o, "faithfulness", SeqFloor); o.Decision != SeqFailed || r.Reason != ReasonBelowFloor || r.N > 20 {
		t.Errorf("head 0.5, min 0.8: %s, floor %s after %d", o.Decision, r.Reason, r.N)
	}
	o = floor(0.2, 1000, 0.9)
	if r := result(t, o, "faithfulness", SeqFloor); r.Decision != SeqPassed || r.Reason != ReasonWithinFloors || r.DecidedAt > 50 {
		t.Errorf("head 0.9, min 0.2: floor %s (%s) after %d", r.Decision, r.Reason, r.DecidedAt)
	}
	o = floor(0.8, 20, 0.79)
	if r := result(t, o, "faithfulness", SeqFloor); !o.Final || r.Decision != SeqFailed || r.Reason != ReasonBelowFloor {
		t.Errorf("head 0.79, min 0.8, 20 samples: floor %s (%s), final %v; want failed at the end", r.Decision, r.Reason, o.Final)
	}
}

// TestSeqBadInput: a bounded metric scored outside [0, 1] and more samples
// than the run's total are errors saying what to do.
func TestSeqBadInput(t *testing.T) {
	s := newSeq(t, 2)
	h, b := seqPair("x", "faithfulness", 1.5, 0.5, "")
	if err := s.Add(h, b); err == nil || !strings.Contains(err.Error(), `metric faithfulness scored outside [0, 1] on sample "x": declare it numeric`) {
		t.Errorf("score 1.5: %v", err)
	}
	h, b = seqPair("y", "faithfulness", 0.5, 0.5, "")
	for range 2 {
		if err := s.Add(h, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Add(h, b); err == nil || !strings.Contains(err.Error(), "more samples added than the run's 2") {
		t.Errorf("third sample of 2: %v", err)
	}
}

// TestSeqSegments: a segment's tests see only its samples, so a drop on
// one segment fails it while the whole set may still be undecided.
func TestSeqSegments(t *testing.T) {
	s, err := NewSeqState(SeqConfig{Total: 400, Metrics: []SeqMetric{{Name: "faithfulness", Rule: faithRule()}},
		Segments: []SeqSegment{{"topic", "billing", 40}, {"topic", NoSegmentValue, 360}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		hv, bv := 0.8, 0.8
		h, b := seqPair(fmt.Sprint(i), "faithfulness", hv, bv, "")
		if i%10 == 0 {
			h.Scores["faithfulness"] = 0
			h.Metadata = map[string]string{"topic": "billing"}
		}
		if err := s.Add(h, b); err != nil {
			t.Fatal(err)
		}
		if o := s.Decide(); o.Decision == SeqFailed {
			var seg SeqResult
			for _, r := range o.Results {
				if r.Segment == "topic=billing" && r.Test == SeqChange {
					seg = r
				}
			}
			if seg.Decision != SeqFailed || seg.Mean != -0.8 {
				t.Fatalf("failed after %d by %+v; want the billing segment's change at -0.8", i+1, seg)
			}
			return
		}
	}
	t.Fatal("a segment that lost 0.8 on every sample never failed")
}
