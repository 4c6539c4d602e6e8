package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/judgetest"
	"github.com/raggate/raggate/metrics"
)

// A metric judges at most MaxStatements statements of a text, the first
// ones, whatever the judge split it into, and its reason says so: a huge
// response cannot cost a verification of thousands of statements.
func TestStatementsAreCapped(t *testing.T) {
	stmts := make([]string, 3*MaxStatements)
	for i := range stmts {
		stmts[i] = fmt.Sprintf("Statement %d.", i+1)
	}
	verdicts := make([]int, MaxStatements)
	for i := range verdicts {
		verdicts[i] = 1
	}
	f := judgetest.New(t)
	f.OnStatements("long", stmts...).OnVerify("ctx", stmts[:MaxStatements], verdicts...)
	var s metrics.Sample
	s.ID = "x"
	s.Set(metrics.UserInput, "q")
	s.SetList(metrics.RetrievedContexts, []string{"ctx"})
	s.Set(metrics.Response, "long")
	res, err := Run(context.Background(), judge.Memo(f), []metrics.Sample{s}, Options{Metrics: mustResolve(t, "faithfulness")})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Samples[0]
	if v := got.Scores[metrics.FaithfulnessName]; v != 1 {
		t.Errorf("faithfulness = %v, want 1 (the first %d statements, all supported)", v, MaxStatements)
	}
	want := fmt.Sprintf("only the first %d of %d statements were judged", MaxStatements, len(stmts))
	if r := got.Reasons[metrics.FaithfulnessName]; !strings.Contains(r, want) {
		t.Errorf("reason %q does not say %q", r, want)
	}
}
