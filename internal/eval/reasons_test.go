package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/offline"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// amnestyPath is the Ragas sample dataset amnesty_qa (real long answers,
// 3 contexts a row; see its SOURCE.md).
const amnestyPath = "../../testdata/datasets/amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl"

// amnesty reads the amnesty_qa rows as samples.
func amnesty(t *testing.T) []metrics.Sample {
	t.Helper()
	f, err := os.Open(amnestyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []metrics.Sample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row struct {
			UserInput         string   `json:"user_input"`
			Reference         string   `json:"reference"`
			Response          string   `json:"response"`
			RetrievedContexts []string `json:"retrieved_contexts"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		var s metrics.Sample
		s.ID = fmt.Sprintf("r-%02d", len(out))
		s.Set(metrics.UserInput, row.UserInput)
		s.Set(metrics.Reference, row.Reference)
		s.Set(metrics.Response, row.Response)
		s.SetList(metrics.RetrievedContexts, row.RetrievedContexts)
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// A reason is a sentence: the verdict, a count and the first failing
// statement or two, each cut, the whole at most results.MaxReason
// characters, for every metric that writes one, on the real amnesty_qa
// rows (long answers that fail many statements) with the offline judge.
func TestReasonsAreBoundedSentences(t *testing.T) {
	samples := amnesty(t)
	ms := mustResolve(t, "faithfulness", "factual_correctness", "answer_correctness", "noise_sensitivity_relevant",
		"context_recall", "context_precision", "context_utilization")
	res, err := Run(context.Background(), judge.Memo(offline.New(offline.Options{})), samples, Options{Metrics: ms})
	if err != nil {
		t.Fatal(err)
	}
	wants := map[string]*regexp.Regexp{
		metrics.FaithfulnessName:             regexp.MustCompile(`^\d+ of \d+ statements? not supported by the contexts: "[^"]+"`),
		metrics.FactualCorrectnessName:       regexp.MustCompile(`^\d+ of \d+ response claims? not supported by the reference: "[^"]+"`),
		metrics.AnswerCorrectnessName:        regexp.MustCompile(`^\d+ of \d+ response claims? not supported by the reference: "[^"]+"`),
		metrics.NoiseSensitivityRelevantName: regexp.MustCompile(`^\d+ of \d+ response statements? not supported by the reference: "[^"]+"`),
		metrics.ContextRecallName:            regexp.MustCompile(`^\d+ of \d+ reference sentences? not attributed to the contexts: "[^"]+"`),
		metrics.ContextPrecisionName:         regexp.MustCompile(`^\d+ of \d+ contexts? not useful: \d+(, \d+)*$`),
		metrics.ContextUtilizationName:       regexp.MustCompile(`^\d+ of \d+ contexts? not useful: \d+(, \d+)*$`),
	}
	seen := map[string]int{}
	longest := 0
	for _, s := range res.Samples {
		for m, r := range s.Reasons {
			seen[m]++
			n := utf8.RuneCountInString(r)
			longest = max(longest, n)
			if n > results.MaxReason {
				t.Errorf("%s %s: reason of %d characters, over %d: %q", s.ID, m, n, results.MaxReason, r)
			}
			if w := wants[m]; w != nil && !w.MatchString(r) {
				t.Errorf("%s %s: reason %q is not the sentence %s", s.ID, m, r, w)
			}
		}
	}
	for m := range wants {
		if seen[m] == 0 {
			t.Errorf("no sample has a reason for %s: the rows no longer test it", m)
		}
	}
	t.Logf("longest reason: %d characters", longest)
}

// The reason of a response with many failing statements counts them and
// shows the first one or two, each cut; a statement cap's note survives
// the bound.
func TestReasonCountsAndShowsTheFirstFailing(t *testing.T) {
	stmts := make([]string, MaxStatements+20)
	for i := range stmts {
		stmts[i] = fmt.Sprintf("Statement %d says %s.", i+1, strings.Repeat("something long ", 20))
	}
	verdicts := make([]int, MaxStatements)
	for i := range verdicts {
		verdicts[i] = i % 2 // odd statements (1st, 3rd, ...) fail
	}
	r := judgeLongResponse(t, stmts, verdicts).Reasons[metrics.FaithfulnessName]
	if n := utf8.RuneCountInString(r); n > results.MaxReason {
		t.Errorf("reason of %d characters: %q", n, r)
	}
	for _, want := range []string{
		fmt.Sprintf("%d of %d statements not supported by the contexts: ", MaxStatements/2, MaxStatements),
		`"Statement 1 says something long`,
		fmt.Sprintf("only the first %d of %d statements were judged", MaxStatements, len(stmts)),
	} {
		if !strings.Contains(r, want) {
			t.Errorf("reason %q does not say %q", r, want)
		}
	}
	if strings.Contains(r, "Statement 3 says something long something long something long something long something long something long") {
		t.Errorf("reason %q holds a whole statement", r)
	}
}

// A user-defined metric's reason from an LLM judge is cut like the others.
func TestUserMetricReasonIsCut(t *testing.T) {
	long := strings.Repeat("The answer rambles. ", 50)
	if got := critic([]metrics.CriticOutput{{Verdict: 1, Reason: long}}); utf8.RuneCountInString(got.reason) != results.MaxReason {
		t.Errorf("critic reason of %d characters", utf8.RuneCountInString(got.reason))
	}
	req := judge.Request{Input: metrics.RubricInput{Levels: []metrics.RubricLevel{{Score: 1}, {Score: 5}}}}
	if got := rubric(&metrics.RubricOutput{Score: 5, Reason: long}, req); utf8.RuneCountInString(got.reason) != results.MaxReason || !strings.HasPrefix(got.reason, "level 5 of 1-5: ") {
		t.Errorf("rubric reason %q", got.reason)
	}
}

// Whatever built a reason (a judge's error, a target's failure), the
// results file holds at most results.MaxReason characters of it.
func TestNewFileCutsReasons(t *testing.T) {
	long := strings.Repeat("the target said no. ", 40)
	r := &Result{Metrics: []string{"faithfulness", "context_recall"}, Samples: []SampleResult{{ID: "a",
		Scores:        map[string]float64{"faithfulness": 0.5, "context_recall": math.NaN()},
		Reasons:       map[string]string{"faithfulness": long},
		Undefined:     map[string]string{"context_recall": "target call failed: " + long},
		UndefinedKind: map[string]results.UndefinedKind{"context_recall": results.KindTarget},
	}}}
	given := r.Samples[0].Reasons
	f := NewFile(Provenance{}, Inputs{}, []*Result{r})
	s := f.Samples[0]
	if n := utf8.RuneCountInString(s.Reasons["faithfulness"]); n != results.MaxReason {
		t.Errorf("reason of %d characters", n)
	}
	if u := s.Undefined["context_recall"]; utf8.RuneCountInString(u) != results.MaxReason || !strings.HasPrefix(u, "target call failed: the target said no.") {
		t.Errorf("undefined reason %q", u)
	}
	if given["faithfulness"] != long {
		t.Error("NewFile changed the reasons map it was given")
	}
}
