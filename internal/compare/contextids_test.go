package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// idSides builds 20 paired samples scored on the id metrics (base 0.8,
// head headScore) and faithfulness (0.8 on both); base retrieves ids
// "c<i>-a" and "c<i>-b", head the same ids except that the first renamed
// samples retrieve "v2-c<i>-a" and "v2-c<i>-b" instead.
func idSides(renamed int, headScore float64) (base, head *results.File) {
	var bs, hs []results.Sample
	for i := range 20 {
		id := fmt.Sprintf("q-%03d", i)
		b := sample(id, "id_context_precision", 0.8, "id_context_recall", 0.8, "faithfulness", 0.8)
		h := sample(id, "id_context_precision", headScore, "id_context_recall", headScore, "faithfulness", 0.8)
		b.ContextIDs = []string{fmt.Sprintf("c%d-a", i), fmt.Sprintf("c%d-b", i)}
		h.ContextIDs = b.ContextIDs
		if i < renamed {
			h.ContextIDs = []string{fmt.Sprintf("v2-c%d-a", i), fmt.Sprintf("v2-c%d-b", i)}
		}
		bs, hs = append(bs, b), append(hs, h)
	}
	return file(bs...), file(hs...)
}

// TestContextIDTurnover (issue 22, item 4; review finding 7): when most
// context ids the head retrieved were never seen on base and they miss the
// head's reference ids (a re-chunk with stale reference ids, or a broken
// retriever), the metrics computed from ids are not comparable: said
// once, and left out of the decision (here gated, they would regress); at
// half the ids or fewer, without recorded ids, or when the new ids still
// hit the reference at a normal rate (the reference was updated with the
// corpus), they are compared (and gated) as before.
func TestContextIDTurnover(t *testing.T) {
	th := DefaultThresholds()
	th.Metrics["id_context_precision"] = MetricConfig{Min: ptr(0.5)}
	th.Metrics["id_context_recall"] = MetricConfig{}
	th.Segments = []string{"topic"}

	base, head := idSides(20, 0)
	for _, f := range []*results.File{base, head} {
		for i := range f.Samples {
			f.Samples[i].Metadata = map[string]string{"topic": []string{"x", "y"}[i%2]}
		}
	}
	r := compareWords(base, head, th)
	if !r.Passed || r.Verdict != VerdictPassWithWarnings {
		t.Fatalf("passed %v, verdict %q; failures %q", r.Passed, r.Verdict, r.Failures)
	}
	for _, m := range []string{"id_context_precision", "id_context_recall"} {
		mr := metricOf(t, r, m)
		if mr.Change != VerdictNotComparable || mr.NotComparable != NotComparableContextIDs || mr.Status != StatusWarn || mr.Floor != FloorNone {
			t.Errorf("%s: change %q (%s), status %q, floor %q; want not comparable (context ids), a warning, no floor", m, mr.Change, mr.NotComparable, mr.Status, mr.Floor)
		}
	}
	if mr := metricOf(t, r, "faithfulness"); mr.Change != VerdictNoChange {
		t.Errorf("faithfulness: %q, want compared (~)", mr.Change)
	}
	want := "context ids changed: id metrics not comparable with this baseline (40 of the 40 context ids retrieved on head were never retrieved on base, and they miss the reference_context_ids): id_context_precision, id_context_recall left out of the decision"
	if !strings.Contains(strings.Join(r.Warnings, "\n"), want) {
		t.Errorf("warnings lack %q:\n%q", want, r.Warnings)
	}
	if n := strings.Count(strings.Join(r.Warnings, "\n"), "context ids changed"); n != 1 {
		t.Errorf("the context ids warning is said %d times, want once:\n%q", n, r.Warnings)
	}

	for _, tt := range []struct {
		name  string
		files func() (*results.File, *results.File)
	}{
		{"half the ids renamed", func() (*results.File, *results.File) { return idSides(10, 0) }},
		{"renamed ids that hit the updated reference", func() (*results.File, *results.File) { return idSides(20, 0.1) }},
		{"no ids recorded", func() (*results.File, *results.File) {
			b, h := idSides(20, 0)
			for i := range h.Samples {
				b.Samples[i].ContextIDs, h.Samples[i].ContextIDs = nil, nil
			}
			return b, h
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, h := tt.files()
			r := compareWords(b, h, th)
			if mr := metricOf(t, r, "id_context_recall"); r.Passed || mr.Change != VerdictRegression {
				t.Errorf("passed %v, id_context_recall %q: want a regression", r.Passed, mr.Change)
			}
		})
	}
}
