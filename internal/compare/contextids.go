package compare

import (
	"slices"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// Context id turnover: when the corpus is re-chunked or re-indexed, every
// context id changes, and the metrics computed from ids (id-based context
// precision and recall) drop to nothing although retrieval may be
// untouched. When more than MaxContextIDTurnover of the distinct context
// ids the paired head samples retrieved were never retrieved by any base
// sample, those metrics are not comparable with this baseline: reported,
// and left out of the decision (no test, no lost scores, no floor).

// MaxContextIDTurnover is the share of the head's retrieved context ids
// never seen on base above which the id metrics are not compared.
const MaxContextIDTurnover = 0.5

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
	for i := range cmp.base.Samples {
		for _, id := range cmp.base.Samples[i].ContextIDs {
			seen[id] = true
		}
	}
	if len(seen) == 0 {
		return 0, 0
	}
	head := map[string]bool{}
	for _, p := range cmp.pairs {
		for _, id := range cmp.head.Samples[p.h].ContextIDs {
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

// idsChanged reports whether the id metrics are not comparable, and
// records the counts for the findings.
func (cmp *comparison) idsChanged() bool {
	unseen, total := cmp.idTurnover()
	cmp.ids = [2]int{unseen, total}
	return total > 0 && float64(unseen) > MaxContextIDTurnover*float64(total)+eps
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
