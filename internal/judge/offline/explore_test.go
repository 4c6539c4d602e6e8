package offline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/raggate/raggate/metrics"
)

type row struct {
	Q    string   `json:"user_input"`
	Ref  any      `json:"reference"`
	Resp string   `json:"response"`
	Ctx  []string `json:"retrieved_contexts"`
}

func load(t *testing.T, p string) []row {
	f, err := os.Open(p)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func refString(r any) string {
	switch v := r.(type) {
	case string:
		return v
	case []any:
		var s []string
		for _, x := range v {
			s = append(s, x.(string))
		}
		return strings.Join(s, "\n")
	}
	return ""
}

func frac(o *metrics.VerifyOutput) float64 {
	n := 0
	for _, v := range o.Verdicts {
		n += v.Verdict
	}
	if len(o.Verdicts) == 0 {
		return -1
	}
	return float64(n) / float64(len(o.Verdicts))
}

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	ctx := context.Background()
	for _, p := range []string{"/work/shared/datasets/amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl", "/work/shared/datasets/fiqa/fiqa.jsonl"} {
		rows := load(t, p)
		var sumR, sumF float64
		for i, r := range rows {
			ref := refString(r.Ref)
			joined := strings.Join(r.Ctx, "\n")
			rs := splitStatements(ref)
			ps := splitStatements(r.Resp)
			vr, _ := verify(ctx, metrics.VerifyInput{Statements: rs, Evidence: joined}, DefaultVerifyThreshold)
			vp, _ := verify(ctx, metrics.VerifyInput{Statements: ps, Evidence: joined}, DefaultVerifyThreshold)
			var us []string
			for _, c := range r.Ctx {
				u := useful(metrics.UsefulInput{Question: r.Q, Context: c, Answer: ref}, DefaultUsefulThreshold)
				us = append(us, fmt.Sprintf("%d(%s)", u.Verdict, u.Reason[len("context has "):strings.Index(u.Reason, " content")]))
			}
			fmt.Printf("%d recall=%.2f (%d) faith=%.2f (%d) useful=%v nc=%v\n", i, frac(vr), len(rs), frac(vp), len(ps), us, noncommittal(r.Resp))
			sumR += frac(vr)
			sumF += frac(vp)
			if os.Getenv("EXPLORE") == "v" {
				for _, v := range vr.Verdicts {
					fmt.Printf("   R %d %q -- %s\n", v.Verdict, v.Statement, v.Reason)
				}
				for _, v := range vp.Verdicts {
					fmt.Printf("   P %d %q -- %s\n", v.Verdict, v.Statement, v.Reason)
				}
			}
		}
		fmt.Printf("MEAN recall=%.3f faith=%.3f\n", sumR/float64(len(rows)), sumF/float64(len(rows)))
	}
}
