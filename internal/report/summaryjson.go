package report

import "github.com/raggate/raggate/internal/compare"

// SummaryJSON is the action's compact summary-json output of a comparison:
// the verdict, whether the gate passed, the failure sentences and, per
// metric, its verdict, status, all-sample means, paired difference and the
// p-value the tables show (PValue: in the direction of the change).
// Undefined numbers marshal as null. It fills r's sentences first (Fill).
//
// It is a map so that the action can still override "passed" and
// "verdict" when a decided comparison could not be published.
func SummaryJSON(r *compare.Report) map[string]any {
	Fill(r)
	ms := make([]map[string]any, 0, len(r.Metrics))
	for _, m := range r.Metrics {
		ms = append(ms, map[string]any{
			"metric": m.Metric, "verdict": m.Verdict, "status": m.Status,
			"base": m.BaseMean, "head": m.HeadMean, "delta": m.RawDelta, "p": PValue(m.Paired),
		})
	}
	return map[string]any{"passed": r.Passed, "verdict": r.Verdict, "failures": r.Failures, "metrics": ms}
}
