package offline

import (
	"reflect"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

const rhine = "The Rhine is about 1,230 km long (it rises in the Swiss Alps), and it empties into the North Sea near Rotterdam. It carries barges."

// Atomicity and coverage change the claims: low atomicity keeps a
// sentence whole, high splits its clauses; low coverage drops asides.
func TestClaimsLevels(t *testing.T) {
	tests := []struct {
		atomicity, coverage metrics.Level
		want                []string
	}{
		{metrics.LevelLow, metrics.LevelLow, []string{
			"The Rhine is about 1,230 km long, and it empties into the North Sea near Rotterdam.", "It carries barges."}},
		{metrics.LevelLow, metrics.LevelHigh, []string{
			"The Rhine is about 1,230 km long (it rises in the Swiss Alps), and it empties into the North Sea near Rotterdam.", "It carries barges."}},
		{metrics.LevelHigh, metrics.LevelLow, []string{
			"The Rhine is about 1,230 km long.", "It empties into the North Sea near Rotterdam.", "It carries barges."}},
		{metrics.LevelHigh, metrics.LevelHigh, []string{
			"The Rhine is about 1,230 km long (it rises in the Swiss Alps).", "It empties into the North Sea near Rotterdam.", "It carries barges."}},
	}
	j := New(Options{})
	for _, tt := range tests {
		t.Run(string(tt.atomicity)+"/"+string(tt.coverage), func(t *testing.T) {
			req := judge.Request{Step: metrics.StepClaims, Input: metrics.ClaimsInput{Text: rhine, Atomicity: tt.atomicity, Coverage: tt.coverage}}
			a := ask(t, j, req.Step, req.Input)
			if err := judge.Validate(req, a); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Claims.Claims, tt.want) {
				t.Errorf("claims\n got  %q\n want %q", a.Claims.Claims, tt.want)
			}
		})
	}
}

// A reference sentence with several facts is one attribution item: it is
// attributed when the contexts hold its facts together.
func TestAttributeSentenceIsOneItem(t *testing.T) {
	ctx := "The bridge opened in 1932.\nThe bridge spans 503 metres and carries eight lanes."
	tests := []struct {
		name, ref string
		want      []int
	}{
		{"multi-fact sentence attributed", "The bridge opened in 1932 and spans 503 metres.", []int{1}},
		{"multi-fact sentence with a made-up number", "The bridge opened in 1932 and spans 800 metres.", []int{0}},
		{"two sentences", "The bridge opened in 1932. The bridge is painted red.", []int{1, 0}},
	}
	j := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := judge.Request{Step: metrics.StepAttribute, Input: metrics.AttributeInput{Question: "Tell me about the bridge.", Context: ctx, Reference: tt.ref}}
			a := ask(t, j, req.Step, req.Input)
			if err := judge.Validate(req, a); err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, s := range a.Attribute.Sentences {
				got = append(got, s.Attributed)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("attributed %v, want %v (%+v)", got, tt.want, a.Attribute.Sentences)
			}
		})
	}
}

// A sentence whose facts come from two contexts far apart is attributed
// when each of its clauses is found.
func TestAttributeAcrossContexts(t *testing.T) {
	ctx := "The K2 can be mounted on a wall or stand on the floor, indoors or outdoors.\n" +
		"The K2 operates between -20 and 50 degrees. The K2 heats its cells below 0 degrees. The K2 weighs 114 kg.\n" +
		"The K2 must not be installed in places that flood regularly."
	tests := []struct {
		ref  string
		want int
	}{
		{"The K2 can be installed indoors or outdoors, on a wall or on the floor, but not in places that flood regularly.", 1},
		{"The K2 can be installed indoors or outdoors, on a wall or on the floor, but not in places above 2,000 metres.", 0},
	}
	j := New(Options{})
	for _, tt := range tests {
		a := ask(t, j, metrics.StepAttribute, metrics.AttributeInput{Question: "Where can the K2 go?", Context: ctx, Reference: tt.ref})
		if len(a.Attribute.Sentences) != 1 || a.Attribute.Sentences[0].Attributed != tt.want {
			t.Errorf("%q: %+v, want one sentence attributed %d", tt.ref, a.Attribute.Sentences, tt.want)
		}
	}
}

// verify_pair gives each list the verdicts the verify step gives it.
func TestVerifyPairMatchesVerify(t *testing.T) {
	ref := []string{"The bridge opened in 1932."}
	resp := []string{"The bridge opened in 1932.", "The bridge is painted red."}
	ev := "The bridge opened in 1932. It spans 503 metres."
	j := New(Options{})
	req := judge.Request{Step: metrics.StepVerifyPair, Input: metrics.VerifyPairInput{ReferenceStatements: ref, ResponseStatements: resp, Evidence: ev}}
	a := ask(t, j, req.Step, req.Input)
	if err := judge.Validate(req, a); err != nil {
		t.Fatal(err)
	}
	r := ask(t, j, metrics.StepVerify, metrics.VerifyInput{Statements: ref, Evidence: ev})
	s := ask(t, j, metrics.StepVerify, metrics.VerifyInput{Statements: resp, Evidence: ev})
	if !reflect.DeepEqual(a.VerifyPair.ReferenceVerdicts, r.Verify.Verdicts) || !reflect.DeepEqual(a.VerifyPair.ResponseVerdicts, s.Verify.Verdicts) {
		t.Errorf("verify_pair %+v differs from verify %+v / %+v", a.VerifyPair, r.Verify, s.Verify)
	}
}
