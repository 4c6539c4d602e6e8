package offline

import (
	"fmt"
	"os"
	"testing"
)

func TestExplore2(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	rows := load(t, "/work/shared/datasets/amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl")
	rows = append(rows, load(t, "/work/shared/datasets/fiqa/fiqa.jsonl")...)
	for _, i := range []int{0, 1, 15, 23, 26} {
		fmt.Println("=== ", i)
		for _, s := range splitStatements(rows[i].Resp) {
			fmt.Printf("  %q\n", s)
		}
	}
}
