package offline

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// Snippets of real rows of the Ragas sample datasets (see
// testdata/datasets/amnesty_qa/SOURCE.md), copied so the tests run anywhere.
const (
	// amnesty_qa (eval, english_v3) row 1, third retrieved context, shortened.
	carbonMajorsContext = "- Fossil fuel companies, whether state or private, play a key role in the emissions that drive global warming.\n" +
		"- According to the Carbon Majors database, 100 existing fossil fuel companies (and eight that no longer exist) have produced almost a trillion tons of GHG emissions in 150 years.\n" +
		"- These 100 companies are responsible for 71% of all GHG emissions since 1988.\n" +
		"- In the Americas, the private companies responsible for the most emissions during this period, according to the database, are from the United States: ExxonMobil, Chevron, and Peabody.\n" +
		"- Despite the fact that people with fewer resources, in particular from countries in the global South, do not make significant contributions to climate change, it is these people who are most affected by it."

	// amnesty_qa row 19, first two retrieved contexts (the second shortened).
	qatarContexts = "Qatar's efforts to improve the rights and working conditions of migrant workers have been widely praised by international organizations and human rights advocates. The government's decision to gradually repeal restrictions and implement reforms has been seen as a positive step towards addressing long-standing issues in the country's labor system.\n" +
		"Between 2018 and 2020, the government took important steps towards tackling two central pillars of this system by repealing for most migrant workers the requirement to obtain from their employer an 'exit permit\u2019 to leave the country, and a \u2018no -objection certificate\u2019 (NOC) to change jobs."

	// fiqa (ragas_eval baseline) row 0, retrieved context, first sentences.
	chequeContext = "Just have the associate sign the back and then deposit it.  It's called a third party cheque and is perfectly legal.  I wouldn't be surprised if it has a longer hold period and, as always, you don't get the money if the cheque doesn't clear. Now, you may have problems if it's a large amount or you're not very well known at the bank.  In that case you can have the associate go to the bank and endorse it in front of the teller with some ID."
)

func ask(t testing.TB, j *Judge, step metrics.Step, in any) judge.Answer {
	t.Helper()
	a, err := j.Ask(context.Background(), judge.Request{Step: step, Input: in})
	if err != nil {
		t.Fatalf("Ask(%s): %v", step, err)
	}
	return a
}

func TestVerify(t *testing.T) {
	tests := []struct {
		name      string
		evidence  string
		statement string
		want      int
		reason    string // a substring of the reason
	}{
		// Copied and paraphrased statements.
		{"copied", carbonMajorsContext, "These 100 companies are responsible for 71% of all GHG emissions since 1988.", 1, "content words found; numbers match"},
		{"paraphrase", carbonMajorsContext, "Since 1988, 100 fossil fuel companies have been responsible for 71 percent of GHG emissions.", 1, ""},
		{"reference statement (amnesty row 1)", carbonMajorsContext, "The database shows that 100 existing fossil fuel companies, along with eight that no longer exist, are responsible for 71% of all GHG emissions since 1988.", 1, ""},
		{"across sentences (amnesty row 19 reference)", qatarContexts, "The government of Qatar started repealing restrictions on migrant workers between 2018 and 2020.", 1, ""},
		{"fiqa copy", chequeContext, "It's called a third party cheque and is perfectly legal.", 1, ""},
		{"fiqa paraphrase", chequeContext, "A third-party cheque is perfectly legal.", 1, ""},
		{"1,000 is 1000", "The fund holds 1,000 shares.", "The fund holds 1000 shares.", 1, ""},
		// Numbers that disagree.
		{"made-up percentage", carbonMajorsContext, "These 100 companies are responsible for 85% of all GHG emissions since 1988.", 0, "number 85% not in evidence"},
		{"made-up year (amnesty row 19 response)", qatarContexts, "The government of Qatar started repealing restrictions on migrant workers in 2017.", 0, "number 2017 not in evidence"},
		{"two made-up numbers", carbonMajorsContext, "These 200 companies are responsible for 71% of all GHG emissions since 1999.", 0, "numbers 200, 1999 not in evidence"},
		// Negations that disagree.
		{"evidence negated", carbonMajorsContext, "People with fewer resources make significant contributions to climate change.", 0, "evidence negated, statement not"},
		{"statement negated", carbonMajorsContext, "Fossil fuel companies do not play a key role in the emissions that drive global warming.", 0, "statement negated, evidence not"},
		{"both negated", carbonMajorsContext, "People with fewer resources do not make significant contributions to climate change.", 1, ""},
		{"fiqa both negated", chequeContext, "You don't get the money if the cheque doesn't clear.", 1, ""},
		{"fiqa evidence negated", chequeContext, "You get the money when the cheque clears.", 0, "evidence negated"},
		{"negation in another clause", carbonMajorsContext, "Fossil fuel companies have produced almost a trillion tons of GHG emissions in 150 years.", 1, ""},
		// Not covered.
		{"unrelated", carbonMajorsContext, "Amnesty International was founded in London.", 0, "missing: amnesty, international, founded, london"},
		{"partly covered", chequeContext, "Have the check reissued to the proper payee.", 0, "missing"},
		{"empty evidence", "", "The fee is $15.", 0, "evidence is empty"},
	}
	j := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := ask(t, j, metrics.StepVerify, metrics.VerifyInput{Statements: []string{tt.statement}, Evidence: tt.evidence})
			if a.Verify == nil || len(a.Verify.Verdicts) != 1 {
				t.Fatalf("answer %+v, want one verdict", a)
			}
			v := a.Verify.Verdicts[0]
			if v.Verdict != tt.want || !strings.Contains(v.Reason, tt.reason) || v.Statement != tt.statement {
				t.Errorf("verdict %d (%q) for %q, want %d with reason containing %q", v.Verdict, v.Reason, v.Statement, tt.want, tt.reason)
			}
		})
	}
}

func TestVerifyOrderAndCount(t *testing.T) {
	stmts := []string{
		"These 100 companies are responsible for 71% of all GHG emissions since 1988.",
		"",
		"Amnesty International was founded in London.",
		"These 100 companies are responsible for 71% of all GHG emissions since 1988.",
		"These 100 companies are responsible for 85% of all GHG emissions since 1988.",
	}
	a := ask(t, New(Options{}), metrics.StepVerify, metrics.VerifyInput{Statements: stmts, Evidence: carbonMajorsContext})
	got := a.Verify.Verdicts
	if len(got) != len(stmts) {
		t.Fatalf("%d verdicts for %d statements", len(got), len(stmts))
	}
	want := []bool{true, false, false, true, false}
	for i, v := range got {
		if v.Statement != stmts[i] {
			t.Errorf("verdict %d echoes %q, want %q", i, v.Statement, stmts[i])
		}
		if v.Reason == "" {
			t.Errorf("verdict %d has no reason", i)
		}
	}
	if b := a.Verify.Bools(); !equalBools(b, want) {
		t.Errorf("verdicts %v, want %v", b, want)
	}
	if a.Usage != (judge.Usage{}) {
		t.Errorf("usage %+v, want zero", a.Usage)
	}

	// No statements: an empty, non-nil list.
	a = ask(t, New(Options{}), metrics.StepVerify, metrics.VerifyInput{Evidence: carbonMajorsContext})
	if a.Verify == nil || a.Verify.Verdicts == nil || len(a.Verify.Verdicts) != 0 {
		t.Errorf("verdicts %#v, want empty", a.Verify)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A text's own statements verify against it: a response copied from its
// context is faithful.
func TestVerifyOwnStatements(t *testing.T) {
	j := New(Options{})
	for name, text := range map[string]string{"carbon": carbonMajorsContext, "qatar": qatarContexts, "cheque": chequeContext} {
		t.Run(name, func(t *testing.T) {
			st := ask(t, j, metrics.StepStatements, metrics.StatementsInput{Text: text}).Statements.Statements
			if len(st) < 3 {
				t.Fatalf("only %d statements: %q", len(st), st)
			}
			v := ask(t, j, metrics.StepVerify, metrics.VerifyInput{Statements: st, Evidence: text}).Verify
			for _, x := range v.Verdicts {
				if x.Verdict != 1 {
					t.Errorf("own statement %q not supported: %s", x.Statement, x.Reason)
				}
			}
		})
	}
}

func TestVerifyThreshold(t *testing.T) {
	in := metrics.VerifyInput{Statements: []string{"The associate must sign the back of the cheque and deposit it before a notary."}, Evidence: chequeContext}
	// associate, sign, back, cheque, deposit found; notary missing: 5/6.
	for _, tt := range []struct {
		threshold float64
		want      int
	}{{0.8, 1}, {0.9, 0}, {0, 1}} {
		a := ask(t, New(Options{VerifyThreshold: tt.threshold}), metrics.StepVerify, in)
		if got := a.Verify.Verdicts[0]; got.Verdict != tt.want {
			t.Errorf("threshold %v: verdict %d (%s), want %d", tt.threshold, got.Verdict, got.Reason, tt.want)
		}
	}
}

func TestUseful(t *testing.T) {
	// amnesty_qa row 3.
	const (
		question  = "What action did Amnesty International urge its supporters to take in response to the killing of the Ogoni 9?"
		reference = "Amnesty International urged its supporters to send appeals for the defenders' freedom to Nigerian authorities and later to send letters of outrage."
		relevant  = "Amnesty International called on its vast network of supporters to deluge Nigerian authorities first with appeals for the defenders\u2019 freedom, and later with letters of outrage."
		generic   = "Amnesty International is a global human rights organization known for its advocacy work on behalf of individuals facing injustice and persecution. The organization has a long history of campaigning for the rights of prisoners of conscience, political dissidents, and marginalized communities around the world."
	)
	tests := []struct {
		name   string
		in     metrics.UsefulInput
		want   int
		reason string
	}{
		{"relevant context", metrics.UsefulInput{Question: question, Context: relevant, Answer: reference}, 1, "context has 8/9 content words of the answer not in the question"},
		{"distractor context", metrics.UsefulInput{Question: question, Context: generic, Answer: reference}, 0, ""},
		{"empty context", metrics.UsefulInput{Question: question, Answer: reference}, 0, "0/9"},
		{"answer repeats the question", metrics.UsefulInput{Question: "Who audits the fund?", Context: "An independent firm audits the fund.", Answer: "The fund is audited."}, 1, "of the answer"},
		{"empty answer uses the question", metrics.UsefulInput{Question: question, Context: "After the killing of the Ogoni 9, Amnesty International urged its supporters to take action."}, 1, "of the question"},
		{"empty answer, unrelated context", metrics.UsefulInput{Question: question, Context: "Index funds have low fees."}, 0, "of the question"},
		{"nothing to look for", metrics.UsefulInput{Context: relevant}, 0, "no content words"},
	}
	j := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := ask(t, j, metrics.StepUseful, tt.in).Useful
			if u == nil || u.Verdict != tt.want || !strings.Contains(u.Reason, tt.reason) {
				t.Errorf("got %+v, want verdict %d with reason containing %q", u, tt.want, tt.reason)
			}
		})
	}
}

// support verifies one statement and returns its verdict.
func support(t *testing.T, evidence, statement string) metrics.StatementVerdict {
	t.Helper()
	a := ask(t, New(Options{}), metrics.StepVerify, metrics.VerifyInput{Statements: []string{statement}, Evidence: evidence})
	v := a.Verify.Verdicts[0]
	if v.Support == nil {
		t.Fatalf("%q: no graded support (%s)", statement, v.Reason)
	}
	return v
}

// Each statement gets a graded support in [0, 1]: the share of its
// content words and numbers (a number counting twice) found in the best
// window of evidence sentences, lower when the window spans more
// sentences, halved when one of its numbers is missing, and lower when
// its negation disagrees or a name it gives is nowhere in the evidence.
func TestVerifySupportIsGraded(t *testing.T) {
	const copied = "These 100 companies are responsible for 71% of all GHG emissions since 1988."
	full := support(t, carbonMajorsContext, copied)
	if *full.Support != 1 || full.Verdict != 1 || !strings.Contains(full.Reason, "support 1.00") {
		t.Errorf("copied statement: support %v, verdict %d (%s), want 1", *full.Support, full.Verdict, full.Reason)
	}
	// A statement is not the worse for the citation markers of a RAG answer.
	if v := support(t, carbonMajorsContext, "These 100 companies are responsible for 71% of all GHG emissions since 1988 [3][12]."); *v.Support != 1 || v.Verdict != 1 {
		t.Errorf("copied statement with citation markers: support %v (%s), want 1", *v.Support, v.Reason)
	}

	// Partly covered: between 0 and 1, and in the reason.
	// associate, sign, back found in a sentence and cheque in the next;
	// notary, judge not: 4/6, spread over two sentences.
	partial := support(t, chequeContext, "The associate must sign the back of the cheque before a notary and a judge.")
	if s := *partial.Support; math.Abs(s-4.0/6*0.95) > 1e-9 || partial.Verdict != 0 || !strings.Contains(partial.Reason, "support 0.63: 4/6 content words found") {
		t.Errorf("partly covered: support %v, verdict %d (%s), want 4/6*0.95, 0", s, partial.Verdict, partial.Reason)
	}
	unrelated := support(t, carbonMajorsContext, "Amnesty International was founded in London.")
	if *unrelated.Support != 0 {
		t.Errorf("unrelated: support %v, want 0", *unrelated.Support)
	}

	for _, tt := range []struct {
		name, good, bad string
		max             float64 // the bad statement's support is at most max
	}{
		// Each content word counts 1 and each number 2; a missing number
		// also halves the support: 4 words and 2 of 3 numbers found,
		// (4 + 2*2)/(4 + 3*2) / 2.
		{"made-up number", copied, "These 100 companies are responsible for 85% of all GHG emissions since 1988.", (4.0 + 4) / 10 / 2},
		{"flipped negation", "People with fewer resources do not make significant contributions to climate change.",
			"People with fewer resources make significant contributions to climate change.", 0.7},
		// private, companies, united, states, exxonmobil found; shell not,
		// a name absent from the evidence: 5/6 * 0.8.
		{"made-up name", "The private companies are from the United States: ExxonMobil and Peabody.",
			"The private companies are from the United States: ExxonMobil and Shell.", 5.0 / 6 * 0.8},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, b := support(t, carbonMajorsContext, tt.good), support(t, carbonMajorsContext, tt.bad)
			if *g.Support != 1 || *b.Support > tt.max+1e-9 || *b.Support <= 0 {
				t.Errorf("support %v (%s) vs %v (%s), want 1 vs at most %.3f", *g.Support, g.Reason, *b.Support, b.Reason, tt.max)
			}
		})
	}

	// Words found together in one sentence support a statement more than
	// the same words spread over two.
	one := support(t, qatarContexts, "The government repealed the exit permit for most migrant workers.")
	two := support(t, qatarContexts, "Qatar's efforts were praised, and the exit permit was repealed.")
	if *one.Support != 1 || *two.Support >= 1 || *two.Support < 0.9 {
		t.Errorf("one sentence %v (%s), two sentences %v (%s): want 1 and in [0.9, 1)", *one.Support, one.Reason, *two.Support, two.Reason)
	}
}

// An answer with nothing the offline judge can check (yes or no, a class
// label, a number alone, no content word) is undefined, never 0: the
// verify and verify_pair steps say there is nothing to check.
func TestVerifyDeclinesWhatItCannotCheck(t *testing.T) {
	j := New(Options{})
	for _, stmt := range []string{"Yes.", "No", "yes", "SUPPORTS", "REFUTES", "NOT ENOUGH INFO", "True.", "false", "42", "$15", "71%", "It is."} {
		for _, step := range []metrics.Step{metrics.StepVerify, metrics.StepVerifyPair} {
			var in any = metrics.VerifyInput{Statements: []string{stmt}, Evidence: carbonMajorsContext}
			if step == metrics.StepVerifyPair {
				in = metrics.VerifyPairInput{ReferenceStatements: []string{"Fossil fuel companies drive global warming."}, ResponseStatements: []string{stmt}, Evidence: carbonMajorsContext}
			}
			_, err := j.Ask(context.Background(), judge.Request{Step: step, Input: in})
			var u *judge.Undefined
			if !errors.As(err, &u) || !errors.Is(err, judge.ErrNothingToCheck) || !strings.HasPrefix(u.Reason, "nothing to check offline: ") {
				t.Errorf("%s %q: error %v, want undefined: nothing to check offline", step, stmt, err)
			}
		}
	}
	// Content words beside them are checked.
	for _, stmt := range []string{"Yes, 100 companies are responsible for 71% of GHG emissions.", "I don't know.", "Supports renewable energy."} {
		a := ask(t, j, metrics.StepVerify, metrics.VerifyInput{Statements: []string{"Yes.", stmt}, Evidence: carbonMajorsContext})
		if len(a.Verify.Verdicts) != 2 {
			t.Errorf("%q: %+v, want two verdicts", stmt, a.Verify)
		}
	}
}

// A sample whose answer has nothing to check is undefined by the metric
// for that sample (kind metric), with the reason, for faithfulness and
// factual correctness alike; a checked answer is scored.
func TestNothingToCheckIsUndefined(t *testing.T) {
	mk := func(id, resp string) metrics.Sample {
		var s metrics.Sample
		s.ID = id
		s.Set(metrics.UserInput, "Is fossil fuel to blame?")
		s.Set(metrics.Response, resp)
		s.Set(metrics.Reference, "SUPPORTS")
		s.SetList(metrics.RetrievedContexts, []string{carbonMajorsContext})
		return s
	}
	ms := []metrics.Metric{}
	for _, n := range []string{metrics.FaithfulnessName, metrics.FactualCorrectnessName} {
		m, _ := metrics.Lookup(n)
		ms = append(ms, m)
	}
	res, err := eval.Run(context.Background(), New(Options{}), []metrics.Sample{mk("yes", "Yes."), mk("label", "SUPPORTS"), mk("number", "71%"), mk("words", "Fossil fuel companies drive global warming.")}, eval.Options{Metrics: ms})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Samples {
		for _, m := range ms {
			undefined := math.IsNaN(s.Scores[m.Name])
			if s.ID == "words" && m.Name == metrics.FaithfulnessName {
				if undefined || s.Scores[m.Name] != 1 {
					t.Errorf("%s %s = %v (%s), want 1", s.ID, m.Name, s.Scores[m.Name], s.Undefined[m.Name])
				}
				continue
			}
			if !undefined || s.UndefinedKind[m.Name] != results.KindMetric || !strings.HasPrefix(s.Undefined[m.Name], "nothing to check offline: ") {
				t.Errorf("%s %s = %v (%q, %s), want undefined, kind metric, nothing to check", s.ID, m.Name, s.Scores[m.Name], s.Undefined[m.Name], s.UndefinedKind[m.Name])
			}
		}
	}
}
