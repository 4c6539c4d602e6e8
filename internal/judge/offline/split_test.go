package offline

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplitStatements(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", []string{}},
		{"whitespace", " \n\t\n ", []string{}},
		{"two sentences", "The bank cashed the cheque. The associate signed it!",
			[]string{"The bank cashed the cheque.", "The associate signed it!"}},
		{"title abbreviation", "Dr. Smith founded the clinic. He retired in 2010.",
			[]string{"Dr. Smith founded the clinic.", "He retired in 2010."}},
		{"dotted abbreviation inside a sentence", "The U.S. Supreme Court ruled on abortion in 2022. The ruling was criticised.",
			[]string{"The U.S. Supreme Court ruled on abortion in 2022.", "The ruling was criticised."}},
		{"dotted abbreviation ending a sentence", "The largest emitter is Petróleos de Venezuela, S.A. It is state-owned.",
			[]string{"The largest emitter is Petróleos de Venezuela, S.A.", "It is state-owned."}},
		{"e.g. before lowercase", "Buy an index fund, e.g. a total market fund. Fees are low.",
			[]string{"Buy an index fund, e.g. a total market fund.", "Fees are low."}},
		{"initials", "J. K. Rowling wrote seven books.", []string{"J. K. Rowling wrote seven books."}},
		{"decimals", "Prices rose 3.5 percent in 2023. Wages did not.",
			[]string{"Prices rose 3.5 percent in 2023.", "Wages did not."}},
		{"no. before a number", "See rule No. 5 for details.", []string{"See rule No. 5 for details."}},
		{"run-on without space", "The IRS is pretty picky about that stuff.Most items have to be depreciated.",
			[]string{"The IRS is pretty picky about that stuff.", "Most items have to be depreciated."}},
		{"ellipsis", "The cheque may bounce.... What a racket!!", []string{"The cheque may bounce....", "What a racket!!"}},
		{"numbered and bulleted list, intro dropped",
			"Here are the steps:\n1. Open a business account.\n2) Ask the associate to endorse the cheque.\n- Deposit it at the teller\n* Keep the receipt.\n\u2022 Wait for clearing.",
			[]string{"Open a business account.", "Ask the associate to endorse the cheque.", "Deposit it at the teller.", "Keep the receipt.", "Wait for clearing."}},
		{"heading before colon dropped", "1. Influence on other countries: The Supreme Court's ruling can serve as a reference point.",
			[]string{"The Supreme Court's ruling can serve as a reference point."}},
		{"colon after a verb kept", "The answer is simple: buy low and sell high.", []string{"The answer is simple: buy low and sell high."}},
		{"bold note", "**Note:** the fee is $15.", []string{"The fee is $15."}},
		{"markdown heading dropped", "## Summary\nThe fee is $15.", []string{"The fee is $15."}},
		{"clause split on but", "The bank will cash the cheque, but the associate must endorse it first.",
			[]string{"The bank will cash the cheque.", "The associate must endorse it first."}},
		{"clause split on semicolon", "Most items have to be depreciated; some items can be expensed.",
			[]string{"Most items have to be depreciated.", "Some items can be expensed."}},
		{"enumeration not split", "The largest emitters are ExxonMobil, Chevron, and Peabody.",
			[]string{"The largest emitters are ExxonMobil, Chevron, and Peabody."}},
		{"participle not a clause", "Pregnant people may face invasive monitoring, discrimination, and even imprisonment for actions perceived as harmful.",
			[]string{"Pregnant people may face invasive monitoring, discrimination, and even imprisonment for actions perceived as harmful."}},
		{"questions dropped", "Is it legal? Yes, it is perfectly legal.", []string{"Yes, it is perfectly legal."}},
		{"no content words kept whole", "Yes. It is. OK!", []string{"Yes. It is. OK!"}},
		{"refusal is asserted", "I'm sorry, I don't know.", []string{"I'm sorry, I don't know."}},
		{"refusal with content", "Sorry, the documents do not give the warranty period.", []string{"Sorry, the documents do not give the warranty period."}},
		{"questions only", "Could you rephrase?\nWhat do you mean?", []string{"Could you rephrase? What do you mean?"}},
		{"empty", " \n ", []string{}},
		{"duplicates kept once", "It is legal. It is legal. IT IS LEGAL.", []string{"It is legal."}},
		{"lowercase after a period does not split", "It is legal. it is cheap.", []string{"It is legal. it is cheap."}},
		{"crlf", "Open an account.\r\nDeposit the cheque.\rWait.", []string{"Open an account.", "Deposit the cheque.", "Wait."}},
		{"period added", "- Fossil fuel companies play a key role", []string{"Fossil fuel companies play a key role."}},
		{"closing quote", `He said "the cheque cleared." Then he left.`, []string{`He said "the cheque cleared."`, "Then he left."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitStatements(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("splitStatements(%q)\n got  %q\n want %q", tt.text, got, tt.want)
			}
		})
	}
}

// A real multi-paragraph response (amnesty_qa row 0, shortened) splits
// into its list items, without the list's introduction or headings.
func TestSplitStatementsRealResponse(t *testing.T) {
	text := "The global implications of the USA Supreme Court ruling on abortion can be significant, as it sets a precedent for other countries and influences the global discourse on reproductive rights. Here are some potential implications:\n\n" +
		"1. Influence on other countries: The Supreme Court's ruling can serve as a reference point for other countries grappling with their own abortion laws. It can provide legal arguments and reasoning that advocates for reproductive rights can use to challenge restrictive abortion laws in their respective jurisdictions.\n\n" +
		"2. Strengthening of global reproductive rights movements: A favorable ruling by the Supreme Court can energize and empower reproductive rights movements worldwide."
	want := []string{
		"The global implications of the USA Supreme Court ruling on abortion can be significant, as it sets a precedent for other countries and influences the global discourse on reproductive rights.",
		"The Supreme Court's ruling can serve as a reference point for other countries grappling with their own abortion laws.",
		"It can provide legal arguments and reasoning that advocates for reproductive rights can use to challenge restrictive abortion laws in their respective jurisdictions.",
		"A favorable ruling by the Supreme Court can energize and empower reproductive rights movements worldwide.",
	}
	if got := splitStatements(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"keeps everything", "Is it legal? Yes.\n# Title\n- item: one", []string{"Is it legal?", "Yes.", "Title", "item: one"}},
		{"joined contexts", "First context here.\nSecond context. With two sentences.",
			[]string{"First context here.", "Second context.", "With two sentences."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sentences(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("sentences(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func FuzzStatements(f *testing.F) {
	for _, s := range []string{
		"", "Dr. Smith arrived. He left.", "1. One\n2. Two\n- three", "e.g. U.S. 3.5 J. K.",
		"a; b; c, and d, but e", "**Note:** x", "stuff.Most", "What?!... Yes!!", "\xff\xfe.\u0130. \u2026",
		"It is 1,000.50 or 71% or $15 or 1.5 million; it isn't.", "(a) item\n(1) item\na) item",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := splitStatements(text)
		if got == nil {
			t.Fatal("nil statements")
		}
		for _, s := range got {
			if s == "" || s != strings.TrimSpace(s) || strings.ContainsAny(s, "\r\n") || !utf8.ValidString(s) {
				t.Fatalf("bad statement %q from %q", s, text)
			}
		}
		if again := splitStatements(text); !reflect.DeepEqual(got, again) {
			t.Fatalf("not deterministic: %q then %q", got, again)
		}
	})
}
