package metrics

import (
	"math"
	"slices"
	"testing"
)

// specNeeds is the "needs" column of METRICS.md's metric table.
var specNeeds = map[string][]Field{
	ContextPrecisionName:           {UserInput, RetrievedContexts, Reference},
	ContextUtilizationName:         {UserInput, RetrievedContexts, Response},
	PrecisionAtKName:               {UserInput, RetrievedContexts, Reference},
	ContextRecallName:              {UserInput, RetrievedContexts, Reference},
	FaithfulnessName:               {UserInput, RetrievedContexts, Response},
	AnswerRelevancyName:            {UserInput, Response},
	FactualCorrectnessName:         {Response, Reference},
	NoiseSensitivityRelevantName:   {UserInput, Response, Reference, RetrievedContexts},
	NoiseSensitivityIrrelevantName: {UserInput, Response, Reference, RetrievedContexts},
	SemanticSimilarityName:         {Response, Reference},
	AnswerCorrectnessName:          {Response, Reference},
	IDContextPrecisionName:         {RetrievedContextIDs, ReferenceContextIDs},
	IDContextRecallName:            {RetrievedContextIDs, ReferenceContextIDs},
	NonLLMContextPrecisionName:     {RetrievedContexts, ReferenceContexts},
	NonLLMContextRecallName:        {RetrievedContexts, ReferenceContexts},
	StringSimilarityName:           {Response, Reference},
	ExactMatchName:                 {Response, Reference},
	StringPresenceName:             {Response, Reference},
}

// specDefaultLLM is METRICS.md's default suite without the non-LLM metrics.
var specDefaultLLM = []string{
	ContextPrecisionName, PrecisionAtKName, ContextRecallName, FaithfulnessName, AnswerRelevancyName,
	FactualCorrectnessName, NoiseSensitivityRelevantName, NoiseSensitivityIrrelevantName, SemanticSimilarityName,
}

var nonLLMNames = []string{
	IDContextPrecisionName, IDContextRecallName, NonLLMContextPrecisionName, NonLLMContextRecallName,
	StringSimilarityName, ExactMatchName, StringPresenceName,
}

func sameFields(a, b []Field) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func TestCatalogueMatchesSpec(t *testing.T) {
	cat := Catalogue()
	if len(cat) != len(specNeeds) {
		t.Errorf("catalogue has %d metrics, METRICS.md lists %d", len(cat), len(specNeeds))
	}
	seen := map[string]bool{}
	for _, m := range cat {
		t.Run(m.Name, func(t *testing.T) {
			if seen[m.Name] {
				t.Fatal("duplicate name")
			}
			seen[m.Name] = true
			want, ok := specNeeds[m.Name]
			if !ok {
				t.Fatal("not in METRICS.md")
			}
			if len(m.Needs) == 0 {
				t.Error("no Needs")
			}
			if !sameFields(m.Needs, want) {
				t.Errorf("Needs %v, METRICS.md says %v", m.Needs, want)
			}
			for _, f := range m.Needs {
				if !slices.Contains(Fields, f) {
					t.Errorf("unknown field %q", f)
				}
			}
			lower := m.Name == NoiseSensitivityRelevantName || m.Name == NoiseSensitivityIrrelevantName
			if lower != (m.Direction == LowerIsBetter) {
				t.Errorf("direction %v; only noise sensitivity is lower-is-better", m.Direction)
			}
			if m.Description == "" {
				t.Error("no description")
			}
			if slices.Contains(nonLLMNames, m.Name) == m.LLM() {
				t.Errorf("LLM() = %v with steps %v", m.LLM(), m.Steps)
			}
			for _, s := range m.Steps {
				if !slices.Contains(Steps, s) && s != StepEmbed {
					t.Errorf("unknown step %q", s)
				}
			}
			wantDefault := slices.Contains(specDefaultLLM, m.Name) || slices.Contains(nonLLMNames, m.Name)
			if m.Default != wantDefault {
				t.Errorf("Default = %v, want %v", m.Default, wantDefault)
			}
		})
	}
}

func TestDirectionString(t *testing.T) {
	if HigherIsBetter.String() != "higher" || LowerIsBetter.String() != "lower" {
		t.Errorf("got %q, %q", HigherIsBetter, LowerIsBetter)
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"answer_relevancy", AnswerRelevancyName, true},
		{"response_relevancy", AnswerRelevancyName, true},
		{"  Response_Relevancy ", AnswerRelevancyName, true},
		{"FAITHFULNESS", FaithfulnessName, true},
		{"noise_sensitivity_irrelevant", NoiseSensitivityIrrelevantName, true},
		{"noise_sensitivity", "", false},
		{"", "", false},
		{"bleu", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m, ok := Lookup(tt.in)
			if ok != tt.ok || m.Name != tt.want {
				t.Errorf("Lookup(%q) = %q, %v; want %q, %v", tt.in, m.Name, ok, tt.want, tt.ok)
			}
		})
	}
	for _, m := range Catalogue() {
		got, ok := Lookup(m.Name)
		if !ok || got.Name != m.Name {
			t.Errorf("Lookup(%q) failed", m.Name)
		}
	}
}

func TestNamesAndOrder(t *testing.T) {
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names not sorted: %v", names)
	}
	if len(names) != len(Catalogue()) {
		t.Errorf("%d names for %d metrics", len(names), len(Catalogue()))
	}
	for i, m := range Catalogue() {
		if Order(m.Name) != i {
			t.Errorf("Order(%q) = %d, want %d", m.Name, Order(m.Name), i)
		}
	}
	if Order("unknown") != len(Catalogue()) {
		t.Error("unknown names must sort last")
	}
}

func TestCatalogueIsACopy(t *testing.T) {
	c := Catalogue()
	c[0].Name = "changed"
	if Catalogue()[0].Name == "changed" {
		t.Error("Catalogue exposes its backing array")
	}
}

func suiteNames(ms []Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

func TestDefaultSuite(t *testing.T) {
	has := func(fields ...Field) func(Field) bool {
		return func(f Field) bool { return slices.Contains(fields, f) }
	}
	tests := []struct {
		name string
		has  func(Field) bool
		want []string
	}{
		{"every field", has(Fields...), append(slices.Clone(specDefaultLLM), nonLLMNames...)},
		// LLM metrics run whatever the fields (a sample lacking a field is
		// skipped per sample); non-LLM metrics only when the fields exist.
		{"no field", has(), specDefaultLLM},
		{"question, contexts, answers", has(UserInput, RetrievedContexts, Response, Reference),
			append(slices.Clone(specDefaultLLM), StringSimilarityName, ExactMatchName, StringPresenceName)},
		{"ids only", has(RetrievedContextIDs, ReferenceContextIDs),
			append(slices.Clone(specDefaultLLM), IDContextPrecisionName, IDContextRecallName)},
		{"reference contexts", has(RetrievedContexts, ReferenceContexts),
			append(slices.Clone(specDefaultLLM), NonLLMContextPrecisionName, NonLLMContextRecallName)},
		{"half of a pair is not enough", has(RetrievedContextIDs, Response), specDefaultLLM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := suiteNames(DefaultSuite(tt.has))
			want := slices.Clone(tt.want)
			// The suite keeps catalogue order.
			slices.SortFunc(want, func(a, b string) int { return Order(a) - Order(b) })
			if !slices.Equal(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
			for _, n := range got {
				if n == ContextUtilizationName || n == AnswerCorrectnessName {
					t.Errorf("%s runs only when asked for", n)
				}
			}
		})
	}
}

// TestScoreRange: raw cosines reach -1 (answer_relevancy and
// semantic_similarity are not clipped), answer_correctness inherits a
// quarter of that, every other metric lies in [0, 1].
func TestScoreRange(t *testing.T) {
	want := map[string][2]float64{
		AnswerRelevancyName:    {-1, 1},
		SemanticSimilarityName: {-1, 1},
		AnswerCorrectnessName:  {-0.25, 1},
	}
	for _, m := range Catalogue() {
		lo, hi := m.ScoreRange()
		w, ok := want[m.Name]
		if !ok {
			w = [2]float64{0, 1}
		}
		if lo != w[0] || hi != w[1] {
			t.Errorf("%s: range [%v, %v], want [%v, %v]", m.Name, lo, hi, w[0], w[1])
		}
	}
	// The lowest answer_correctness: no factual overlap, opposite embeddings.
	if got := AnswerCorrectness(0, 1, 1, -1, DefaultAnswerCorrectnessWeights, DefaultBeta); math.Abs(got-(-0.25)) > 1e-9 {
		t.Errorf("AnswerCorrectness at its lowest = %v, want -0.25", got)
	}
}

// TestGatedByDefault: the core judge metrics gate when the thresholds name
// none, in catalogue order.
func TestGatedByDefault(t *testing.T) {
	want := []string{ContextPrecisionName, ContextRecallName, FaithfulnessName, AnswerRelevancyName, FactualCorrectnessName}
	if got := GatedByDefault(); !slices.Equal(got, want) {
		t.Errorf("GatedByDefault() = %v, want %v", got, want)
	}
}

// TestAsksAreWellFormed: every ask of the catalogue and of the user kinds
// says how it asks; a chat step is asked at least once per sample or per
// context; the embed step names what it embeds ahead, among the fields the
// metric needs; Steps are the asks' steps.
func TestAsksAreWellFormed(t *testing.T) {
	all := Catalogue()
	for _, k := range Kinds {
		d := Definition{Name: "u_" + string(k), Kind: k, Reads: []string{"response"}}
		all = append(all, d.Metric())
	}
	for _, m := range all {
		for _, a := range m.Asks {
			if a.How == "" {
				t.Errorf("%s: %s ask does not say how", m.Name, a.Step)
			}
			if a.Step == StepEmbed {
				if a.Calls != 0 || a.PerContext != 0 || len(a.Embeds) == 0 {
					t.Errorf("%s: embed ask %+v: texts batched across samples, fields named", m.Name, a)
				}
				for _, f := range a.Embeds {
					if !slices.Contains(m.Needs, f) {
						t.Errorf("%s embeds %s, which it does not need", m.Name, f)
					}
				}
				continue
			}
			if a.CallsFor(0) < 0 || a.CallsFor(1) < 1 || len(a.Embeds) > 0 {
				t.Errorf("%s: %s ask %+v", m.Name, a.Step, a)
			}
		}
		if got := stepsOf(m.Asks); !slices.Equal(got, m.Steps) {
			t.Errorf("%s: Steps %v, asks' steps %v", m.Name, m.Steps, got)
		}
	}
}
