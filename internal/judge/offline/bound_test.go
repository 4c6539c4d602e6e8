package offline

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// A huge text (a 15 MiB response) is worked on up to MaxText bytes only:
// splitting it into statements and claims, embedding it and verifying
// against it allocate a bounded amount, not gigabytes. Allocation is
// counted, not time.
func TestHugeTextsAreBounded(t *testing.T) {
	huge := strings.Repeat("The Kestrel K2 stores energy and delivers power to the house every day. ", 15<<20/72)
	j := New(Options{})
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a, err := j.Ask(ctx, judge.Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: "How much?", Text: huge}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Ask(ctx, judge.Request{Step: metrics.StepClaims, Input: metrics.ClaimsInput{Text: huge}}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Ask(ctx, judge.Request{Step: metrics.StepVerify, Input: metrics.VerifyInput{Statements: []string{"The K2 stores energy."}, Evidence: huge}}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Embed(ctx, []string{huge}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 200<<20 {
		t.Errorf("judging a 15 MiB text allocated %d MiB; the text worked on is not bounded", got>>20)
	}
	n := 0
	for _, s := range a.Statements.Statements {
		n += len(s)
	}
	if n > MaxText {
		t.Errorf("the statements hold %d bytes, more than MaxText (%d)", n, MaxText)
	}
}
