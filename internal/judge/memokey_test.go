package judge

import (
	"strings"
	"testing"

	"github.com/raggate/raggate/metrics"
)

// The memo key is the step, the count and the input's compact JSON
// without HTML escaping, separated by NUL bytes: requests that differ in
// any of them are different entries, whatever buffer encoded an earlier key.
func TestAskKey(t *testing.T) {
	long := strings.Repeat("evidence <b> & more ", 1000)
	for range 3 {
		for _, tt := range []struct {
			req  Request
			want string
		}{
			{Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: "q", Text: "a <b> & c"}}, "statements\x001\x00" + `{"question":"q","text":"a <b> & c"}`},
			{Request{Step: metrics.StepVerify, Input: metrics.VerifyInput{Statements: []string{"s"}, Evidence: long}}, "verify\x001\x00" + `{"statements":["s"],"evidence":"` + long + `"}`},
			{Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: "q", Text: "x"}}, "statements\x001\x00" + `{"question":"q","text":"x"}`},
		} {
			got, err := askKey(tt.req)
			if err != nil || got != tt.want {
				t.Errorf("askKey(%v) = %.80q, %v; want %.80q", tt.req.Step, got, err, tt.want)
			}
		}
	}
}
