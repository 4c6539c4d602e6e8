package compare

import (
	"math"
	"slices"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// Context id turnover: when the corpus is re-chunked or re-indexed, every
// context id changes, and the metrics computed from ids (id-based context
// precision and recall) drop to nothing although retrieval may be
// untouched. Two things are measured on the paired samples: the share of
// the distinct context ids the head retrieved that no base sample
// retrieved, and how often each side's retrieved ids hit its own
// reference_context_ids (an id metric above 0 on the sample).
//
//   - Few unseen ids: the id metrics are compared as usual.
//   - Mostly unseen ids that still hit the head's reference at a normal
//     rate (at least MinContextIDHitShare of the base's rate): the ids
//     turned over with an updated reference, and the metrics are compared
//     (and gated) as usual.
//   - Mostly unseen ids that miss the reference: ambiguous, a re-chunk
//     with stale reference ids or a broken retriever. The id metrics are
//     not comparable with this baseline: reported, and left out of the
//     decision (no test, no lost scores, no floor), with a warning saying
//     both and how to tell them apart.

// MaxContextIDTurnover is the share of the head's retrieved context ids
// never seen on base above which the id metrics may not be compared: a
// re-chunked corpus changes (nearly) every id, while a retriever that
// breaks on some samples still returns the base's ids on the others, and
// its drop is compared and gated.
const MaxContextIDTurnover = 0.9

// NotComparableContextIDs: the context ids changed (MetricResult.NotComparable).
const NotComparableContextIDs = "context_ids_changed"

// idTurnover counts the distinct context ids the paired head samples
// retrieved (total) and those no base sample retrieved (unseen); both 0
// when either side records no ids.
func (cmp *comparison) idTurnover() (unseen, total int) {
	if cmp.bs == nil {
		return 0, 0
	}
	seen := map[string]bool{}
	for i := range cmp.bs.t.Len() {
		for _, id := range cmp.bs.t.ContextIDs(i) {
			seen[id] = true
		}
	}
	if len(seen) == 0 {
		return 0, 0
	}
	head := map[string]bool{}
	for _, p := range cmp.pairs {
		for _, id := range cmp.hs.t.ContextIDs(int(p.h)) {
			if !head[id] {
				head[id] = true
				if !seen[id] {
					unseen++
				}
			}
		}
	}
	return unseen, len(head)
}

// MinContextIDHitShare: the head's retrieved ids hit its reference ids at
// a normal rate when on at least this share of the base's rate.
const MinContextIDHitShare = 0.5

// idsChanged reports whether the id metrics are not comparable (mostly
// unseen ids that miss the reference), and records the counts for the
// findings.
func (cmp *comparison) idsChanged() bool {
	unseen, total := cmp.idTurnover()
	cmp.ids = [2]int{unseen, total}
	if total == 0 || float64(unseen) <= MaxContextIDTurnover*float64(total)+eps {
		return false
	}
	headHits, baseHits := cmp.idHits()
	return float64(headHits) < MinContextIDHitShare*float64(baseHits)-eps
}

// idHits counts the paired samples whose retrieved ids hit the reference
// ids, on each side: an id metric scored above 0.
func (cmp *comparison) idHits() (head, base int) {
	hit := func(s *side, i int) bool {
		for m, col := range s.scores {
			if x := col.At(i); readsContextIDs(m) && !math.IsNaN(x) && x > 0 {
				return true
			}
		}
		return false
	}
	for _, p := range cmp.pairs {
		if hit(cmp.hs, int(p.h)) {
			head++
		}
		if hit(cmp.bs, int(p.b)) {
			base++
		}
	}
	return head, base
}

// readsContextIDs reports whether metric m is computed from the ids of
// the retrieved contexts.
func readsContextIDs(m string) bool {
	cm, ok := metrics.Lookup(m)
	return ok && slices.Contains(cm.Needs, metrics.RetrievedContextIDs)
}

// leaveOut marks metric mr, whose paired statistics are computed, not
// comparable because the context ids changed: no p-value, no lost-scores
// test, nothing for the decision. It returns the finding that says so.
func (cmp *comparison) leaveOut(mr *MetricResult) Finding {
	mr.Change, mr.NotComparable = VerdictNotComparable, NotComparableContextIDs
	mr.PWorse, mr.PBetter, mr.PLost, mr.LostShare = results.NaN(), results.NaN(), results.NaN(), results.NaN()
	level := LevelWarn
	if mr.ReportOnly {
		level = LevelNote
	} else {
		mr.Status = StatusWarn
	}
	return Finding{Kind: KindContextIDsChanged, Level: level, Metric: mr.Metric, N: cmp.ids[0], Of: cmp.ids[1]}
}
