package offline

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

func TestInfo(t *testing.T) {
	got := New(Options{}).Info()
	want := judge.Info{
		Provider:       "offline",
		Model:          "offline-lexical-v1",
		EmbeddingModel: "offline-hashed-ngrams-v1-256",
		Temperature:    0,
		Prompts:        HeuristicVersion + " verify>=0.7 useful>=0.5 window=3",
	}
	if got != want {
		t.Errorf("Info() = %+v, want %+v", got, want)
	}
	if zero := (&Judge{}).Info(); zero != want {
		t.Errorf("zero Judge Info() = %+v, want %+v", zero, want)
	}
	var nilJudge *Judge
	if got := nilJudge.Info(); got != want {
		t.Errorf("nil Judge Info() = %+v, want %+v", got, want)
	}
	// Out-of-range options take their defaults.
	if bad := New(Options{Dim: MaxDim + 1, VerifyThreshold: 2, UsefulThreshold: math.NaN()}).Info(); bad != want {
		t.Errorf("Info() with out-of-range options = %+v, want %+v", bad, want)
	}
	if bad := New(Options{Dim: -1, VerifyThreshold: -0.5, UsefulThreshold: 1.5}).Info(); bad != want {
		t.Errorf("Info() with out-of-range options = %+v, want %+v", bad, want)
	}
	custom := New(Options{Dim: 64, VerifyThreshold: 0.75, UsefulThreshold: 0.3}).Info()
	if custom.EmbeddingModel != "offline-hashed-ngrams-v1-64" || custom.Prompts == want.Prompts ||
		!strings.Contains(custom.Prompts, "verify>=0.75") || !strings.Contains(custom.Prompts, "useful>=0.3") {
		t.Errorf("custom Info() = %+v", custom)
	}
}

func TestAskErrors(t *testing.T) {
	j := New(Options{})
	var nilVerify *metrics.VerifyInput
	tests := []struct {
		name string
		req  judge.Request
	}{
		{"unknown step", judge.Request{Step: "summarise", Input: metrics.StatementsInput{}}},
		{"embed through Ask", judge.Request{Step: metrics.StepEmbed, Input: []string{"x"}}},
		{"wrong input type", judge.Request{Step: metrics.StepVerify, Input: metrics.StatementsInput{Text: "x"}}},
		{"nil input", judge.Request{Step: metrics.StepStatements}},
		{"nil pointer input", judge.Request{Step: metrics.StepVerify, Input: nilVerify}},
		{"string input", judge.Request{Step: metrics.StepQuestion, Input: "a response"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := j.Ask(context.Background(), tt.req)
			if err == nil {
				t.Fatalf("Ask(%+v) = %+v, want an error", tt.req, a)
			}
			if !judge.IsFatal(err) {
				t.Errorf("error %v is not fatal; a programming error should stop the run", err)
			}
		})
	}
}

func TestAskPointerInput(t *testing.T) {
	a := ask(t, New(Options{}), metrics.StepStatements, &metrics.StatementsInput{Text: "The fee is $15. It is paid monthly."})
	if got := a.Statements.Statements; len(got) != 2 {
		t.Errorf("statements %q, want 2", got)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	j := New(Options{})
	for _, step := range metrics.Steps {
		if _, err := j.Ask(ctx, judge.Request{Step: step, Input: metrics.StatementsInput{}}); !errors.Is(err, context.Canceled) {
			t.Errorf("Ask(%s) with a cancelled context: %v, want context.Canceled", step, err)
		}
	}
	if _, err := j.Embed(ctx, []string{"a"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Embed with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestQuestion(t *testing.T) {
	const response = "COP15 was held in Montreal, Canada in 2022."
	j := New(Options{})
	for _, n := range []int{0, 1, 3} {
		a, err := j.Ask(context.Background(), judge.Request{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: response}, N: n})
		if err != nil {
			t.Fatal(err)
		}
		want := max(n, 1)
		if len(a.Questions) != want {
			t.Fatalf("N=%d: %d questions, want %d", n, len(a.Questions), want)
		}
		for _, q := range a.Questions {
			if q != (metrics.QuestionOutput{Question: response, Noncommittal: 0}) {
				t.Errorf("N=%d: question %+v, want the response, committal", n, q)
			}
		}
	}
	a := ask(t, j, metrics.StepQuestion, metrics.QuestionInput{Response: "I don't know."})
	if a.Questions[0].Noncommittal != 1 {
		t.Errorf("I don't know: %+v, want noncommittal", a.Questions[0])
	}
}

func TestNoncommittal(t *testing.T) {
	tests := []struct {
		response string
		want     bool
	}{
		{"I don't know.", true},
		{"I don\u2019t know", true},
		{"i dont know!", true},
		{"I do not know the answer to that.", true},
		{"I'm not sure, but probably 5%.", true},
		{"IT DEPENDS on your situation.", true},
		{"I cannot answer that question based on the provided context.", true},
		{"I can\u2019t answer that.", true},
		{"The context does not mention the fee.", true},
		{"There is no information about the fee in the documents.", true},
		{"There is not enough information to say.", true},
		{"The fee is not mentioned.", true},
		{"I am unable to determine the fee.", true},
		// fiqa row 19: an evasive first sentence.
		{"\nIt depends on your individual situation and needs. A sole proprietorship is the simplest structure. An LLC protects your personal assets. Both need an EIN.", true},
		// An evasive phrase late in a substantive answer is a caveat, not evasion.
		{"Criminalizing abortion has severe consequences. Women may resort to unsafe methods. The stigma of being unable to access safe services leads to stress.", false},
		{"Yes, you can send a money order from USPS as a business.", false},
		{"I know the answer: the fee is $15.", false},
		{"The dependency is known.", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.response, func(t *testing.T) {
			if got := noncommittal(tt.response); got != tt.want {
				t.Errorf("noncommittal(%q) = %v, want %v", tt.response, got, tt.want)
			}
		})
	}
}

func TestFeatureHashIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "<qu", "compani", "\u00e9t\u00e9"} {
		h := fnv.New64a()
		h.Write([]byte("c:" + s))
		if got, want := featureHash("c:", s), h.Sum64(); got != want {
			t.Errorf("featureHash(%q) = %x, want %x", s, got, want)
		}
	}
}

func embedOne(t testing.TB, j *Judge, text string) []float64 {
	t.Helper()
	e, err := j.Embed(context.Background(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	return e.Vectors[0]
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestEmbedGolden(t *testing.T) {
	// Pinned: changing these means a new embedding model name and
	// HeuristicVersion.
	v := embedOne(t, New(Options{}), "The quick brown fox jumps over the lazy dog.")
	x := 0.18569533817705186 // 1/sqrt(29): 29 features, no collisions among the first
	want := []struct {
		i int
		v float64
	}{{7, x}, {24, x}, {28, -x}, {30, x}, {33, x}, {43, x}, {46, x}, {48, -x}}
	k := 0
	for i, c := range v {
		if c == 0 {
			continue
		}
		if k < len(want) && (i != want[k].i || c != want[k].v) {
			t.Errorf("nonzero component %d: v[%d] = %v, want v[%d] = %v", k, i, c, want[k].i, want[k].v)
		}
		k++
	}
	if k < len(want) {
		t.Errorf("only %d nonzero components", k)
	}

	small := embedOne(t, New(Options{Dim: 16}), "The quick brown fox jumps over the lazy dog.")
	a, b := 0.2182178902359924, 0.4364357804719848
	wantSmall := []float64{a, 0, a, -b, 0, -b, -a, a, a, a, 0, -a, -b, -a, a, 0}
	if !reflect.DeepEqual(small, wantSmall) {
		t.Errorf("dim 16:\n got  %v\n want %v", small, wantSmall)
	}
}

func TestEmbed(t *testing.T) {
	j := New(Options{})
	// amnesty_qa row 3 question and answers; fiqa row 1 response.
	question := "What action did Amnesty International urge its supporters to take in response to the killing of the Ogoni 9?"
	answer := "Amnesty International urged its supporters to send appeals for the defenders' freedom to Nigerian authorities and later to send letters of outrage."
	paraphrase := "Amnesty urged supporters to appeal to the Nigerian authorities for the defenders' freedom, and later to write letters of outrage."
	unrelated := "Yes, you can send a money order from USPS as a business."

	texts := []string{question, answer, "", " ,;! ", unrelated, "it is what it is", paraphrase}
	e, err := j.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Vectors) != len(texts) || e.Usage != (judge.Usage{}) {
		t.Fatalf("%d vectors, usage %+v", len(e.Vectors), e.Usage)
	}
	for i, v := range e.Vectors {
		if len(v) != DefaultDim {
			t.Fatalf("vector %d has %d components", i, len(v))
		}
		norm := math.Sqrt(dot(v, v))
		switch texts[i] {
		case "", " ,;! ":
			if norm != 0 {
				t.Errorf("text %q: norm %v, want the zero vector", texts[i], norm)
			}
		default:
			if math.Abs(norm-1) > 1e-12 {
				t.Errorf("text %q: norm %v, want 1", texts[i], norm)
			}
		}
		// Deterministic and order-preserving.
		if again := embedOne(t, j, texts[i]); !reflect.DeepEqual(again, v) {
			t.Errorf("text %q embeds differently alone", texts[i])
		}
	}
	q, ans, unrel, para := e.Vectors[0], e.Vectors[1], e.Vectors[4], e.Vectors[6]
	if dot(q, ans) <= dot(q, unrel) {
		t.Errorf("cos(question, answer) = %v <= cos(question, unrelated) = %v", dot(q, ans), dot(q, unrel))
	}
	if dot(ans, para) <= dot(ans, unrel) || dot(ans, para) < 0.5 {
		t.Errorf("cos(answer, paraphrase) = %v, cos(answer, unrelated) = %v", dot(ans, para), dot(ans, unrel))
	}
	if e, _ := j.Embed(context.Background(), nil); len(e.Vectors) != 0 {
		t.Errorf("no texts: %d vectors", len(e.Vectors))
	}
}

// TestConcurrent runs every step from many goroutines on one Judge; run it
// with -race. The answers must equal the sequential ones.
func TestConcurrent(t *testing.T) {
	j := New(Options{})
	reqs := []judge.Request{
		{Step: metrics.StepStatements, Input: metrics.StatementsInput{Text: carbonMajorsContext}},
		{Step: metrics.StepVerify, Input: metrics.VerifyInput{Statements: splitStatements(chequeContext), Evidence: carbonMajorsContext + "\n" + chequeContext}},
		{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "Is a third party cheque legal?", Context: chequeContext, Answer: "Yes."}},
		{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: "I'm not sure."}, N: 3},
	}
	texts := []string{carbonMajorsContext, qatarContexts, chequeContext}
	want := make([]judge.Answer, len(reqs))
	for i, r := range reqs {
		want[i] = ask(t, j, r.Step, r.Input)
		if r.N > 0 {
			want[i], _ = j.Ask(context.Background(), r)
		}
	}
	wantEmb, _ := j.Embed(context.Background(), texts)

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for k := range 20 {
				i := (g + k) % (len(reqs) + 1)
				if i == len(reqs) {
					e, err := j.Embed(context.Background(), texts)
					if err != nil || !reflect.DeepEqual(e, wantEmb) {
						t.Errorf("concurrent Embed differs (err %v)", err)
					}
					continue
				}
				a, err := j.Ask(context.Background(), reqs[i])
				if err != nil || !reflect.DeepEqual(a, want[i]) {
					t.Errorf("concurrent Ask(%s) differs (err %v)", reqs[i].Step, err)
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkVerify(b *testing.B) {
	j := New(Options{})
	evidence := strings.Join([]string{carbonMajorsContext, qatarContexts, chequeContext}, "\n")
	in := metrics.VerifyInput{Statements: splitStatements(carbonMajorsContext + "\n" + chequeContext), Evidence: evidence}
	req := judge.Request{Step: metrics.StepVerify, Input: in}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := j.Ask(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStatements(b *testing.B) {
	j := New(Options{})
	req := judge.Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Text: carbonMajorsContext + "\n" + qatarContexts + "\n" + chequeContext}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := j.Ask(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEmbed(b *testing.B) {
	j := New(Options{})
	texts := []string{carbonMajorsContext, qatarContexts, chequeContext, "What are the global implications of the USA Supreme Court ruling on abortion?"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := j.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}
