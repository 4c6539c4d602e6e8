package openaicompat

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/metrics"
)

// Several questions (answer relevancy's strictness) are sampled at a
// non-zero temperature, as in Ragas, so that they vary; when the server
// refuses or ignores n, the separate calls also get their own seeds.
func TestQuestionsAreSampled(t *testing.T) {
	tests := []struct {
		name  string
		opts  []openaitest.Option
		n     int
		calls int       // requests the server answered
		temps []float64 // temperature of every request sent
		seeds []int     // seed of every request sent
	}{
		{"n=1 at temperature 0", nil, 1, 1, []float64{0}, []int{42}},
		{"n=3 in one call", nil, 3, 1, []float64{0.3}, []int{42}},
		{"n refused: separate calls vary", []openaitest.Option{openaitest.RejectN(true)}, 3, 3, []float64{0.3, 0.3, 0.3, 0.3}, []int{42, 42, 43, 44}},
		{"n ignored: fill-in calls vary", []openaitest.Option{openaitest.IgnoreN(true)}, 3, 3, []float64{0.3, 0.3, 0.3}, []int{42, 43, 44}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, tt.opts)
			a, err := e.j.Ask(context.Background(), questionReq(tt.n))
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Questions) != tt.n {
				t.Fatalf("%d questions, want %d", len(a.Questions), tt.n)
			}
			if got := e.srv.ChatCalls(); got != tt.calls {
				t.Errorf("%d calls answered, want %d", got, tt.calls)
			}
			var temps []float64
			var seeds []int
			for _, r := range chatRequests(e.srv) {
				if r.Temperature == nil || r.Seed == nil {
					t.Fatalf("request without temperature or seed: %s", r.Body)
				}
				temps = append(temps, *r.Temperature)
				seeds = append(seeds, *r.Seed)
			}
			if !slices.Equal(temps, tt.temps) || !slices.Equal(seeds, tt.seeds) {
				t.Errorf("temperatures %v seeds %v, want %v %v", temps, seeds, tt.temps, tt.seeds)
			}
		})
	}
}

// The sampling temperature is part of the cache key and of the prompts
// hash in the judge fingerprint.
func TestSamplingTemperatureIsKeyed(t *testing.T) {
	e := newEnv(t, nil)
	for n, want := range map[int]string{1: "temperature=0", 3: "temperature=0.3"} {
		req := questionReq(n)
		r, err := judge.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		if parts := e.j.chatKeyParts(req, r); !slices.Contains(parts, want) {
			t.Errorf("n=%d: cache key parts %q lack %q", n, strings.Join(parts[:8], " "), want)
		}
	}
}

// The claims, attribute and verify_pair steps go out as one call each at
// temperature 0, without n, under their own schema, and their answers parse.
func TestNewStepsOnTheWire(t *testing.T) {
	tests := []struct {
		req   judge.Request
		check func(a judge.Answer) bool
	}{
		{judge.Request{Step: metrics.StepClaims, Input: metrics.ClaimsInput{Text: parisText, Atomicity: metrics.LevelHigh, Coverage: metrics.LevelLow}},
			func(a judge.Answer) bool { return a.Claims != nil && len(a.Claims.Claims) > 0 }},
		{judge.Request{Step: metrics.StepAttribute, Input: metrics.AttributeInput{Question: "q", Context: parisText, Reference: parisText}},
			func(a judge.Answer) bool {
				return a.Attribute != nil && slices.Equal(a.Attribute.Bools(), []bool{true, true})
			}},
		{judge.Request{Step: metrics.StepVerifyPair, Input: metrics.VerifyPairInput{
			ReferenceStatements: []string{"Paris is the capital of France."}, ResponseStatements: []string{"Paris is in Peru."}, Evidence: parisText}},
			func(a judge.Answer) bool {
				return a.VerifyPair != nil && len(a.VerifyPair.ReferenceVerdicts) == 1 && a.VerifyPair.ReferenceVerdicts[0].Verdict == 1 &&
					len(a.VerifyPair.ResponseVerdicts) == 1 && a.VerifyPair.ResponseVerdicts[0].Verdict == 0
			}},
	}
	for _, tt := range tests {
		t.Run(string(tt.req.Step), func(t *testing.T) {
			e := newEnv(t, nil)
			a, err := e.j.Ask(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(a) {
				t.Errorf("answer %+v", a)
			}
			reqs := chatRequests(e.srv)
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Temperature == nil || *r.Temperature != 0 || r.N != 0 || r.SchemaName != "raggate_"+string(tt.req.Step) {
				t.Errorf("temperature %v n %d schema %q", r.Temperature, r.N, r.SchemaName)
			}
		})
	}
}
