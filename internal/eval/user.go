package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/usermetric"
	"github.com/raggate/raggate/metrics"
)

// user scores a user-defined metric. A numeric metric reads its column; a
// critic or rubric asks the judge. Data problems (a missing column, a
// value that is not a number, an unusable per-sample rubric) and a judge
// that cannot answer such a step (the offline judge) leave the score
// undefined with kind data; other judge failures with kind judge. Only
// fatal and context errors are returned.
func (e *sampleEval) user(d *metrics.Definition) (score, error) {
	if d.Kind == metrics.KindNumeric {
		return numeric(d, e.s), nil
	}
	req, err := usermetric.Request(d, e.s)
	var de *usermetric.DataError
	if errors.As(err, &de) {
		return score{v: nan, reason: de.Reason, kind: results.KindData}, nil
	}
	if err != nil {
		return score{}, err
	}
	a, err := e.j.Ask(e.ctx, req)
	switch {
	case err == nil:
	case judge.IsFatal(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return score{}, err
	case errors.Is(err, judge.ErrNeedsLLM):
		return score{v: nan, reason: judge.ReasonOf(err), kind: results.KindData}, nil
	default:
		return score{v: nan, reason: judge.ReasonOf(err), kind: results.KindJudge}, nil
	}
	if d.Kind == metrics.KindCritic {
		return critic(a.Critic), nil
	}
	return rubric(a.Rubric, req), nil
}

// numeric reads a numeric metric's column; the raw value is kept.
func numeric(d *metrics.Definition, s *metrics.Sample) score {
	col := d.Reads[0]
	text, ok := s.Metadata[col]
	if !ok {
		return score{v: nan, reason: "missing field " + col, kind: results.KindData}
	}
	v, err := metrics.NumericValue(text, d.Transform)
	if err != nil {
		return score{v: nan, reason: fmt.Sprintf("%s: %v", col, err), kind: results.KindData}
	}
	raw, _ := metrics.NumericValue(text, metrics.TransformNone)
	return score{v: v, raw: &raw}
}

// critic takes the majority of the votes and keeps the reason of a vote
// that agrees with it.
func critic(votes []metrics.CriticOutput) score {
	vs := make([]int, len(votes))
	for i, c := range votes {
		vs[i] = c.Verdict
	}
	v, first := metrics.Majority(vs)
	if first < 0 {
		return score{v: nan, reason: "no votes", kind: results.KindJudge}
	}
	reason := votes[first].Reason
	if len(votes) > 1 {
		yes := 0
		for _, x := range vs {
			yes += x
		}
		reason = fmt.Sprintf("%d of %d votes yes: %s", yes, len(votes), reason)
	}
	return score{v: v, reason: results.ClipReason(reason)}
}

// rubric normalises the level to [0, 1]; the level itself is kept.
func rubric(out *metrics.RubricOutput, req judge.Request) score {
	if out == nil {
		return score{v: nan, reason: "no rubric answer", kind: results.KindJudge}
	}
	in, _ := judge.InputAs[metrics.RubricInput](req.Input)
	v := metrics.RubricScore(out.Score, in.Levels)
	raw := float64(out.Score)
	lo, hi := in.Levels[0].Score, in.Levels[len(in.Levels)-1].Score
	return score{v: v, raw: &raw, reason: results.ClipReason(fmt.Sprintf("level %d of %d-%d: %s", out.Score, lo, hi, out.Reason))}
}
