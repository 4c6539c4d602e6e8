package offline

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

// The behaviours a black-box review of the offline judge found wrong
// (issue 27): each case is a statement a user would expect to be judged
// unsupported (or supported) against its evidence.

// kestrel is the evidence of the review's hand-made rows.
const kestrel = "The Kestrel K2 stores 15 kWh of usable energy and costs $15,000. It was designed by Anna Berg in Oslo. " +
	"The battery is not waterproof. Efficiency is 15% higher than the K1. The warranty covers 1,200 cycles."

// judgeOne returns the verdict and support of one statement.
func judgeOne(t *testing.T, evidence, statement string) (int, float64, string) {
	t.Helper()
	a := ask(t, New(Options{}), metrics.StepVerify, metrics.VerifyInput{Statements: []string{statement}, Evidence: evidence})
	v := a.Verify.Verdicts[0]
	return v.Verdict, *v.Support, v.Reason
}

// contrast checks that the good statement is supported and the bad one is
// neither supported nor close to the good one's support.
func contrast(t *testing.T, evidence, good, bad string) {
	t.Helper()
	gv, gs, gr := judgeOne(t, evidence, good)
	bv, bs, br := judgeOne(t, evidence, bad)
	if gv != 1 {
		t.Errorf("%q: verdict 0 (%s), want supported", good, gr)
	}
	if bv != 0 {
		t.Errorf("%q: verdict 1 (%s), want not supported", bad, br)
	}
	if bs > 0.6*gs {
		t.Errorf("%q: support %.2f (%s), want well below %.2f of %q", bad, bs, br, gs, good)
	}
}

func TestReviewMinusSign(t *testing.T) {
	ev := "Overnight the temperature fell to -5 degrees in Oslo."
	contrast(t, ev, "The temperature fell to -5 degrees in Oslo.", "The temperature fell to 5 degrees in Oslo.")
	contrast(t, "It fell to 5 degrees in Oslo.", "It fell to 5 degrees in Oslo.", "It fell to \u22125 degrees in Oslo.")
	// A range or a model name is not a minus sign.
	if got := newBag("pages 10-15 of the COVID-19 report").nums; !reflect.DeepEqual(got, []string{"10", "15", "19"}) {
		t.Errorf("numbers = %q, want 10, 15, 19", got)
	}
}

func TestReviewUnitsTiedToNumbers(t *testing.T) {
	contrast(t, kestrel, "The K2 stores 15 kWh of usable energy.", "The K2 stores 15 MWh of usable energy.")
	contrast(t, "The box weighs 15 kg when full.", "The box weighs 15 kg when full.", "The box weighs 15 lb when full.")
	// A unit-less mention matches either way.
	for _, tt := range [][2]string{
		{"The box weighs 15 when full.", "The box weighs 15 kg when full."},
		{"The box weighs 15 kg when full.", "The box weighs 15 when full."},
		{"The box weighs 15kg when full.", "The box weighs 15 kilograms when full."},
		{"The trip takes 3 hours by train.", "The trip takes three hours by train."},
	} {
		if v, _, r := judgeOne(t, tt[0], tt[1]); v != 1 {
			t.Errorf("%q against %q: %s, want supported", tt[1], tt[0], r)
		}
	}
	// Unit words are not names.
	_, _, r := judgeOne(t, kestrel, "The K2 stores 15 MWh of usable energy.")
	if strings.Contains(strings.ToLower(r), "name not in evidence") {
		t.Errorf("reason %q: a unit is not a name", r)
	}
	if !strings.Contains(r, "15 mwh") {
		t.Errorf("reason %q: want the number with its unit", r)
	}
}

func TestReviewNegationOtherLanguages(t *testing.T) {
	for _, tt := range []struct{ lang, pos, neg string }{
		{"German", "Die Batterie ist wasserdicht.", "Die Batterie ist nicht wasserdicht."},
		{"German kein", "Das Haus hat einen Garten.", "Das Haus hat keinen Garten."},
		{"French", "La batterie est étanche.", "La batterie n'est pas étanche."},
		{"French ne", "La batterie est étanche.", "La batterie ne semble pas étanche."},
		{"Spanish", "La batería es resistente al agua.", "La batería no es resistente al agua."},
		{"Arabic laysa", "البطارية مقاومة للماء.", "البطارية ليست مقاومة للماء."},
		{"Arabic la", "البطارية تعمل تحت الماء.", "البطارية لا تعمل تحت الماء."},
		{"English cant", "The battery can survive water.", "The battery cant survive water."},
		{"English dont", "Owners need a permit.", "Owners dont need a permit."},
		{"Chinese", "这款电池可以防水。", "这款电池不可以防水。"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			if v, _, r := judgeOne(t, tt.neg, tt.pos); v != 0 {
				t.Errorf("%q against %q: supported (%s), want the negation seen", tt.pos, tt.neg, r)
			}
			if v, _, r := judgeOne(t, tt.neg, tt.neg); v != 1 {
				t.Errorf("%q against itself: %s", tt.neg, r)
			}
		})
	}
}

func TestReviewCJKWords(t *testing.T) {
	ev := "北京是中国的首都。上海是最大的城市。"
	if v, _, r := judgeOne(t, ev, "北京是中国的首都。"); v != 1 {
		t.Errorf("copied sentence: %s", r)
	}
	contrast(t, ev, "中国的首都是北京。", "东京是日本的首都。")
	b := newBag("北京是首都")
	if want := []string{"北京", "京是", "是首", "首都"}; !reflect.DeepEqual(b.stems, want) {
		t.Errorf("stems %q, want bigrams %q", b.stems, want)
	}
	if b := newBag("K2は15kWhを蓄えます"); !reflect.DeepEqual(b.nums, []string{"15 kwh"}) {
		t.Errorf("Japanese: numbers %q, want 15 kwh", b.nums)
	}
	if b := newBag("배터리는 방수가 아닙니다"); len(b.stems) < 3 {
		t.Errorf("Hangul: stems %q, want bigrams", b.stems)
	}
}

func TestReviewSentenceInitialNames(t *testing.T) {
	_, good, _ := judgeOne(t, kestrel, "Anna Berg designed the K2 in Oslo.")
	v, bad, r := judgeOne(t, kestrel, "Maria Berg designed the K2 in Oslo.")
	if !strings.Contains(r, "name not in evidence: maria") || bad >= good*0.85 {
		t.Errorf("wrong first name at the start: verdict %d support %.2f (%s), want the name missing and below %.2f", v, bad, r, good)
	}
	// An ordinary capitalised first word is not a name.
	if _, _, r := judgeOne(t, kestrel, "Efficiency is 15% higher than the K1."); strings.Contains(r, "name not in evidence") {
		t.Errorf("reason %q", r)
	}
}

func TestReviewTableHeaderNotAClaim(t *testing.T) {
	text := "| spec | value |\n|---|---|\n| energy | 15 kWh |\n| cycles | 1,200 |"
	got := ask(t, New(Options{}), metrics.StepStatements, metrics.StatementsInput{Text: text}).Statements.Statements
	for _, s := range got {
		if strings.Contains(s, "spec") || strings.Contains(s, "---") {
			t.Errorf("statements %q: the header and separator rows are not claims", got)
		}
	}
	if len(got) != 2 {
		t.Errorf("statements %q, want the two data rows", got)
	}
	claims := ask(t, New(Options{}), metrics.StepClaims, metrics.ClaimsInput{Text: text}).Claims.Claims
	if len(claims) != 2 {
		t.Errorf("claims %q, want the two data rows", claims)
	}
}

func TestReviewAcronymBesideNumber(t *testing.T) {
	a, err := New(Options{}).Ask(t.Context(), judge.Request{Step: metrics.StepVerify,
		Input: metrics.VerifyInput{Statements: []string{"US 60"}, Evidence: "Take US 60 west to Phoenix."}})
	if err != nil {
		t.Fatalf("US 60 declined: %v", err)
	}
	if v := a.Verify.Verdicts[0]; v.Verdict != 1 {
		t.Errorf("US 60: %s", v.Reason)
	}
	// "us" the pronoun stays a stop word, beside a number too.
	if got := newBag("they told us 60 times").stems; slices.Contains(got, "us") {
		t.Errorf("stems %q: the pronoun us is not content", got)
	}
	if _, err := New(Options{}).Ask(t.Context(), judge.Request{Step: metrics.StepVerify,
		Input: metrics.VerifyInput{Statements: []string{"60"}, Evidence: "Take US 60 west."}}); !errors.Is(err, judge.ErrNothingToCheck) {
		t.Errorf("60: %v, want nothing to check", err)
	}
}

func TestReviewNumberForms(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"$15k", []string{"15000"}},
		{"$15,000", []string{"15000"}},
		{"$1.5m and $2bn", []string{"1500000", "2000000000"}},
		{"$1.5 million", []string{"1500000"}},
		{"13,5 kWh", []string{"13.5 kwh"}},
		{"13.5 kWh", []string{"13.5 kwh"}},
		{"a 401k plan", nil},
		{"1,200 cycles", []string{"1200"}},
		{"[1,2] says", nil},
	} {
		if got := newBag(tt.text).nums; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("numbers of %q = %q, want %q", tt.text, got, tt.want)
		}
	}
	if v, _, r := judgeOne(t, kestrel, "The K2 costs $15k."); v != 1 {
		t.Errorf("$15k against $15,000: %s", r)
	}
}

func TestReviewNegationAtLeastAsStrongAsMissingName(t *testing.T) {
	_, neg, nr := judgeOne(t, kestrel, "The battery is waterproof.")
	_, name, mr := judgeOne(t, kestrel, "The K2 was designed by Maria Berg in Bergen.")
	if neg > name {
		t.Errorf("flipped negation support %.2f (%s) above a wrong name's %.2f (%s)", neg, nr, name, mr)
	}
}
