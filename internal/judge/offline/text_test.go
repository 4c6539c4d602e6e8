package offline

import (
	"reflect"
	"testing"
)

func TestNumbers(t *testing.T) {
	tests := []struct {
		text string
		want []string // required numbers, in order
	}{
		{"1,000 and 1000 and 1000.00", []string{"1000"}},
		{"71% of 150 years", []string{"71 %", "150 year"}}, // a unit is part of the number
		{"$15 / month, US$10,000", []string{"15", "10000"}},
		{"3.5 and 3.50 and 03.5", []string{"3.5"}},
		{"1.5 million people, 1,500,000 people", []string{"1500000"}},
		{"five hundred, a hundred, three", []string{"500", "100", "3"}},
		{"the 21st century, the 1990s", []string{"21", "1990"}},
		{"2010-2020", []string{"2010", "2020"}},
		{"version 1.2.3", []string{"1.2.3"}},
		{"in 1998.", []string{"1998"}},
		{"a 401k plan, 4g, co2", nil},
		{"one in three women", []string{"3"}},
		{"5bn dollars", []string{"5000000000"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := newBag(tt.text).nums; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("numbers of %q = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
	if !newBag("one of them").numSet.has("1") {
		t.Error(`"one" should be a (weak) evidence number`)
	}
}

func TestStemMeets(t *testing.T) {
	groups := [][]string{
		{"companies", "company", "Company's"},
		{"produced", "produce", "producing", "produces"},
		{"globally", "global"},
		{"rights", "right"},
		{"studies", "study", "studied", "studying"},
		{"running", "run", "runs"},
		{"stopped", "stop"},
		{"boxes", "box"},
		{"churches", "church"},
		{"families", "family"},
		{"children", "child"},
		{"rulings", "ruling", "rule", "ruled"},
		{"abuses", "abuse", "abused"},
		{"processes", "process"},
		{"called", "call", "calls"},
		{"emissions", "emission"},
	}
	for _, g := range groups {
		t.Run(g[0], func(t *testing.T) {
			want := newBag(g[0]).stems
			for _, w := range g[1:] {
				if got := newBag(w).stems; !reflect.DeepEqual(got, want) {
					t.Errorf("stem(%q) = %q, stem(%q) = %q", w, got, g[0], want)
				}
			}
		})
	}
	// Keep apart what differs.
	for _, pair := range [][2]string{{"status", "statue"}, {"things", "thin"}, {"analysis", "analyst"}} {
		if reflect.DeepEqual(newBag(pair[0]).stems, newBag(pair[1]).stems) {
			t.Errorf("%q and %q should not meet", pair[0], pair[1])
		}
	}
}

func TestContentWords(t *testing.T) {
	b := newBag("The ruling has also hindered progressive law reform in certain African countries.")
	want := []string{"rul", "hinder", "progressiv", "law", "reform", "certain", "african", "countri"}
	if !reflect.DeepEqual(b.stems, want) {
		t.Errorf("stems = %q, want %q", b.stems, want)
	}
}

func TestNegation(t *testing.T) {
	tests := []struct {
		text string
		neg  bool
	}{
		{"People with fewer resources do not make significant contributions.", true},
		{"You don't get the money.", true},
		{"He can\u2019t deposit it.", true},
		{"There is no fee.", true},
		{"It never clears.", true},
		{"They went without receipts.", true},
		{"The cheque clears.", false},
		{"Not.", false}, // nothing to negate
		{"Companies (and eight that no longer exist) produced emissions.", true},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := newBag(tt.text).neg; got != tt.neg {
				t.Errorf("neg = %v, want %v", got, tt.neg)
			}
		})
	}
	// A negation reaches only its own clause.
	b := newBag("Companies (and eight that no longer exist) have produced almost a trillion tons of emissions.")
	if b.negStems.has("produc") || !b.negStems.has("exist") {
		t.Errorf("negation reach = %v, want exist only", b.negStems.items)
	}
}
