package offline

import (
	"fmt"
	"os"
	"testing"
)

func cos(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestExplore3(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	rows := load(t, "/work/shared/datasets/amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl")
	rows = append(rows, load(t, "/work/shared/datasets/fiqa/fiqa.jsonl")...)
	var sr, ss, sx float64
	for i, r := range rows {
		q, p, f := embed(r.Q, 256), embed(r.Resp, 256), embed(refString(r.Ref), 256)
		other := embed(rows[(i+7)%len(rows)].Resp, 256)
		sr += cos(q, p)
		ss += cos(p, f)
		sx += cos(q, other)
		if i%5 == 0 {
			fmt.Printf("%d rel=%.3f sim=%.3f unrelated=%.3f\n", i, cos(q, p), cos(p, f), cos(q, other))
		}
	}
	n := float64(len(rows))
	fmt.Printf("MEAN rel=%.3f sim=%.3f unrelated=%.3f\n", sr/n, ss/n, sx/n)
}
