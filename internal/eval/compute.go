package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

var nan = math.NaN()

func isNaN(x float64) bool { return math.IsNaN(x) }

// computer computes one built-in metric for the sample: the score, a
// reason (why it is undefined, or what the judge found wrong), and an
// error when a judge step failed. It asks the steps the metric's
// catalogue entry declares (TestDeclaredStepsAreAsked).
type computer func(e *sampleEval, name string) (float64, string, error)

// computers holds the computation of every built-in metric, by name.
var computers = map[string]computer{
	metrics.ContextPrecisionName: func(e *sampleEval, name string) (float64, string, error) {
		v, reason, err := e.usefulness(name, e.s.Reference)
		if err != nil {
			return nan, "", err
		}
		return metrics.AveragePrecision(v), reason, nil
	},
	metrics.PrecisionAtKName: func(e *sampleEval, name string) (float64, string, error) {
		v, reason, err := e.usefulness(name, e.s.Reference)
		if err != nil {
			return nan, "", err
		}
		if len(v) == 0 {
			return nan, "no retrieved contexts", nil
		}
		return metrics.PrecisionAtK(v), reason, nil
	},
	metrics.ContextUtilizationName: func(e *sampleEval, name string) (float64, string, error) {
		v, reason, err := e.usefulness(name, e.s.Response)
		if err != nil {
			return nan, "", err
		}
		return metrics.AveragePrecision(v), reason, nil
	},
	metrics.ContextRecallName: (*sampleEval).contextRecall,
	metrics.FaithfulnessName: func(e *sampleEval, name string) (float64, string, error) {
		return e.supported(name, e.s.Response, strings.Join(e.s.RetrievedContexts, "\n"), "response")
	},
	metrics.AnswerRelevancyName: (*sampleEval).answerRelevancy,
	metrics.FactualCorrectnessName: func(e *sampleEval, name string) (float64, string, error) {
		resp, ref, reason, err := e.factualVerdicts(name)
		if err != nil {
			return nan, "", err
		}
		return metrics.FactualCorrectness(resp, ref, metrics.FactualF1, metrics.DefaultBeta), reason, nil
	},
	metrics.NoiseSensitivityRelevantName: func(e *sampleEval, name string) (float64, string, error) {
		return e.noiseSensitivity(name, metrics.NoiseRelevant)
	},
	metrics.NoiseSensitivityIrrelevantName: func(e *sampleEval, name string) (float64, string, error) {
		return e.noiseSensitivity(name, metrics.NoiseIrrelevant)
	},
	metrics.SemanticSimilarityName: func(e *sampleEval, name string) (float64, string, error) {
		sim, err := e.similarity(name)
		if err != nil {
			return nan, "", err
		}
		return sim, "", nil
	},
	metrics.AnswerCorrectnessName: func(e *sampleEval, name string) (float64, string, error) {
		resp, ref, reason, err := e.factualVerdicts(name)
		if err != nil {
			return nan, "", err
		}
		sim, err := e.similarity(name)
		if err != nil {
			return nan, "", err
		}
		tp, fp, fn := metrics.FactualCounts(resp, ref, metrics.FactualF1)
		return metrics.AnswerCorrectness(tp, fp, fn, sim, metrics.DefaultAnswerCorrectnessWeights, metrics.DefaultBeta), reason, nil
	},
	metrics.IDContextPrecisionName: func(e *sampleEval, name string) (float64, string, error) {
		e.noteIDs(name)
		return undefinedIfNaN(metrics.IDContextPrecision(e.s.RetrievedContextIDs, e.s.ReferenceContextIDs), "no retrieved context ids")
	},
	metrics.IDContextRecallName: func(e *sampleEval, _ string) (float64, string, error) {
		return undefinedIfNaN(metrics.IDContextRecall(e.s.RetrievedContextIDs, e.s.ReferenceContextIDs), "no reference context ids")
	},
	metrics.NonLLMContextPrecisionName: func(e *sampleEval, name string) (float64, string, error) {
		retrieved, reference, note := cutAll(e.s.RetrievedContexts), cutAll(e.s.ReferenceContexts), ""
		if retrieved.cut || reference.cut {
			note = cutNote
		}
		e.noteSimilar(name, retrieved.texts, reference.texts)
		v, reason, err := undefinedIfNaN(metrics.NonLLMContextPrecision(retrieved.texts, reference.texts, metrics.DefaultNonLLMThreshold, metrics.Levenshtein), "no reference contexts")
		return v, joinReason(reason, note), err
	},
	metrics.NonLLMContextRecallName: func(e *sampleEval, _ string) (float64, string, error) {
		retrieved, reference, note := cutAll(e.s.RetrievedContexts), cutAll(e.s.ReferenceContexts), ""
		if retrieved.cut || reference.cut {
			note = cutNote
		}
		v, reason, err := undefinedIfNaN(metrics.NonLLMContextRecall(retrieved.texts, reference.texts, metrics.DefaultNonLLMThreshold, metrics.Levenshtein), "no reference contexts")
		return v, joinReason(reason, note), err
	},
	metrics.StringSimilarityName: func(e *sampleEval, _ string) (float64, string, error) {
		ref, rc := cutRunes(e.s.Reference)
		resp, pc := cutRunes(e.s.Response)
		note := ""
		if rc || pc {
			note = cutNote
		}
		return metrics.StringSimilarity(ref, resp, metrics.Levenshtein), note, nil
	},
	metrics.ExactMatchName: func(e *sampleEval, _ string) (float64, string, error) {
		return metrics.ExactMatch(e.s.Reference, e.s.Response), "", nil
	},
	metrics.StringPresenceName: func(e *sampleEval, _ string) (float64, string, error) {
		return metrics.StringPresence(e.s.Reference, e.s.Response), "", nil
	},
}

// compute computes a built-in metric for the sample (see computer).
func (e *sampleEval) compute(m metrics.Metric) (float64, string, error) {
	c, ok := computers[m.Name]
	if !ok {
		return nan, "", fmt.Errorf("metric %q is not implemented", m.Name)
	}
	return c(e, m.Name)
}

func undefinedIfNaN(v float64, reason string) (float64, string, error) {
	if isNaN(v) {
		return v, reason, nil
	}
	return v, "", nil
}

func (e *sampleEval) ask(metric string, step metrics.Step, in any, n int) (judge.Answer, error) {
	return e.j.Ask(e.ctx, judge.Request{Step: step, Input: in, N: n, Metric: metric})
}

// statements decomposes text into statements (asked once per text and
// sample thanks to the memoizing judge).
func (e *sampleEval) statements(metric, text string) ([]string, error) {
	a, err := e.ask(metric, metrics.StepStatements, metrics.StatementsInput{Question: e.s.UserInput, Text: text}, 0)
	if err != nil {
		return nil, err
	}
	if a.Statements == nil {
		return nil, judge.Undefinedf("judge returned no statements")
	}
	return e.capStatements(metric, a.Statements.Statements), nil
}

// capStatements keeps the first MaxStatements of stmts, noting for metric
// how many were left out.
func (e *sampleEval) capStatements(metric string, stmts []string) []string {
	if len(stmts) <= MaxStatements {
		return stmts
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cuts == nil {
		e.cuts = map[string]string{}
	}
	e.cuts[metric] = fmt.Sprintf("only the first %d of %d statements were judged", MaxStatements, len(stmts))
	return stmts[:MaxStatements:MaxStatements]
}

// withCuts adds to reason what capStatements left out for metric, and
// cuts the whole to results.MaxReason characters, the note kept whole.
func (e *sampleEval) withCuts(metric, reason string) string {
	e.mu.Lock()
	cut := e.cuts[metric]
	e.mu.Unlock()
	switch {
	case cut == "":
		return results.ClipReason(reason)
	case reason == "":
		return results.ClipReason(cut)
	}
	return results.ClipReason(results.Clip(reason, results.MaxReason-utf8.RuneCountInString(cut)-2) + "; " + cut)
}

// levels are the atomicity and coverage of the claims step.
type levels struct {
	atomicity, coverage metrics.Level
}

// claimsLevels returns the run's claims settings, defaulted.
func claimsLevels(o Options) levels {
	l := levels{atomicity: o.ClaimsAtomicity, coverage: o.ClaimsCoverage}
	if !l.atomicity.Valid() {
		l.atomicity = metrics.DefaultClaimsAtomicity
	}
	if !l.coverage.Valid() {
		l.coverage = metrics.DefaultClaimsCoverage
	}
	return l
}

// claimsOf decomposes text into the claims of factual correctness.
func (e *sampleEval) claimsOf(metric, text string) ([]string, error) {
	in := metrics.ClaimsInput{Text: text, Atomicity: e.claims.atomicity, Coverage: e.claims.coverage}
	a, err := e.ask(metric, metrics.StepClaims, in, 0)
	if err != nil {
		return nil, err
	}
	if a.Claims == nil {
		return nil, judge.Undefinedf("judge returned no claims")
	}
	return e.capStatements(metric, a.Claims.Claims), nil
}

// contextRecall asks in one call which sentences of the reference can be
// attributed to the joined contexts; a sentence is one item, however many
// facts it holds (Ragas's context recall).
func (e *sampleEval) contextRecall(metric string) (float64, string, error) {
	in := metrics.AttributeInput{Question: e.s.UserInput, Context: strings.Join(e.s.RetrievedContexts, "\n"), Reference: e.s.Reference}
	a, err := e.ask(metric, metrics.StepAttribute, in, 0)
	if err != nil {
		return nan, "", err
	}
	if a.Attribute == nil {
		return nan, "", judge.Undefinedf("judge returned no attribution")
	}
	if len(a.Attribute.Sentences) == 0 {
		return nan, "no sentences in reference", nil
	}
	ev := make([]results.Evidence, len(a.Attribute.Sentences))
	for i, v := range a.Attribute.Sentences {
		ev[i] = results.Evidence{Text: v.Sentence, Verdict: v.Attributed, Reason: v.Reason}
	}
	e.note(metric, ev)
	return metrics.Fraction(a.Attribute.Bools()), failing("reference sentence", "not attributed to the contexts", ev), nil
}

// verify checks statements against evidence; no statements -> no call.
func (e *sampleEval) verify(metric string, stmts []string, evidence string) ([]metrics.StatementVerdict, error) {
	if len(stmts) == 0 {
		return nil, nil
	}
	a, err := e.ask(metric, metrics.StepVerify, metrics.VerifyInput{Statements: stmts, Evidence: evidence}, 0)
	if err != nil {
		return nil, err
	}
	if a.Verify == nil || len(a.Verify.Verdicts) != len(stmts) {
		return nil, judge.Undefinedf("judge returned a verdict count that does not match the statements")
	}
	return a.Verify.Verdicts, nil
}

// usefulness asks, for every retrieved context in parallel, whether it was
// useful to arrive at answer.
func (e *sampleEval) usefulness(metric, answer string) ([]bool, string, error) {
	ctxs := e.s.RetrievedContexts
	v := make([]bool, len(ctxs))
	reasons := make([]string, len(ctxs))
	errs := make([]error, len(ctxs))
	var wg sync.WaitGroup
	for i, c := range ctxs {
		wg.Add(1)
		go func(i int, c string) {
			defer wg.Done()
			a, err := e.ask(metric, metrics.StepUseful, metrics.UsefulInput{Question: e.s.UserInput, Context: c, Answer: answer}, 0)
			if err != nil {
				errs[i] = err
				return
			}
			if a.Useful == nil {
				errs[i] = judge.Undefinedf("judge returned no usefulness verdict")
				return
			}
			v[i] = a.Useful.Verdict == 1
			reasons[i] = a.Useful.Reason
		}(i, c)
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nil, "", err
	}
	var useless []string
	ev := make([]results.Evidence, len(v))
	for i, ok := range v {
		ev[i] = results.Evidence{Context: i + 1, Verdict: verdictOf(ok), Reason: reasons[i]}
		if !ok {
			useless = append(useless, strconv.Itoa(i+1))
		}
	}
	e.note(metric, ev)
	if len(useless) == 0 {
		return v, "", nil
	}
	return v, results.ClipReason(fmt.Sprintf("%d of %s not useful: %s", len(useless), count(len(v), "context"), strings.Join(useless, ", "))), nil
}

// supported is faithfulness: the share of text's statements the evidence
// supports (the mean of their supports when the judge grades them).
func (e *sampleEval) supported(metric, text, evidence, what string) (float64, string, error) {
	stmts, err := e.statements(metric, text)
	if err != nil {
		return nan, "", err
	}
	if len(stmts) == 0 {
		return nan, "no statements in " + what, nil
	}
	vs, err := e.verify(metric, stmts, evidence)
	if err != nil {
		return nan, "", err
	}
	ev := evidenceOf(vs, "")
	e.note(metric, ev)
	return metrics.MeanSupport(supports(vs)), failing("statement", "not supported by the contexts", ev), nil
}

// factualVerdicts verifies the response's claims against the reference
// and the reference's claims against the response (factual and answer
// correctness).
func (e *sampleEval) factualVerdicts(metric string) (resp, ref []bool, reason string, err error) {
	var (
		wg             sync.WaitGroup
		respV, refV    []metrics.StatementVerdict
		errResp, errRf error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		cl, err := e.claimsOf(metric, e.s.Response)
		if err == nil {
			respV, err = e.verify(metric, cl, e.s.Reference)
		}
		errResp = err
	}()
	go func() {
		defer wg.Done()
		cl, err := e.claimsOf(metric, e.s.Reference)
		if err == nil {
			refV, err = e.verify(metric, cl, e.s.Response)
		}
		errRf = err
	}()
	wg.Wait()
	if err := firstError([]error{errResp, errRf}); err != nil {
		return nil, nil, "", err
	}
	ev := evidenceOf(respV, "response")
	e.note(metric, append(ev, evidenceOf(refV, "reference")...))
	return bools(respV), bools(refV), failing("response claim", "not supported by the reference", ev), nil
}

func (e *sampleEval) noiseSensitivity(metric string, mode metrics.NoiseMode) (float64, string, error) {
	var (
		wg                   sync.WaitGroup
		refSt, respSt        []string
		errRef, errResp, err error
		respByRefV           []metrics.StatementVerdict
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		refSt, errRef = e.statements(metric, e.s.Reference)
	}()
	go func() {
		defer wg.Done()
		respSt, errResp = e.statements(metric, e.s.Response)
		if errResp == nil {
			respByRefV, errResp = e.verify(metric, respSt, e.s.Reference)
		}
	}()
	wg.Wait()
	if err = firstError([]error{errRef, errResp}); err != nil {
		return nan, "", err
	}
	if len(respSt) == 0 {
		return nan, "no statements in response", nil
	}
	if len(refSt) == 0 {
		return nan, "no statements in reference", nil
	}
	refBy, respBy, err := e.byContext(metric, refSt, respSt)
	if err != nil {
		return nan, "", err
	}
	ev := evidenceOf(respByRefV, "")
	e.note(metric, ev)
	return metrics.NoiseSensitivity(mode, refBy, respBy, bools(respByRefV)), failing("response statement", "not supported by the reference", ev), nil
}

// byContext judges both statement lists against every retrieved context,
// one context per goroutine, and returns refBy (G x N) and respBy (A x N).
func (e *sampleEval) byContext(metric string, refSt, respSt []string) (refBy, respBy [][]bool, err error) {
	ctxs := e.s.RetrievedContexts
	refBy, respBy = grid(len(refSt), len(ctxs)), grid(len(respSt), len(ctxs))
	errs := make([]error, len(ctxs))
	var wg sync.WaitGroup
	for c := range ctxs {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			refV, respV, err := e.bothAgainst(metric, refSt, respSt, ctxs[c])
			if err != nil {
				errs[c] = err
				return
			}
			for g, v := range refV {
				refBy[g][c] = v
			}
			for a, v := range respV {
				respBy[a][c] = v
			}
		}(c)
	}
	wg.Wait()
	return refBy, respBy, firstError(errs)
}

func grid(rows, cols int) [][]bool {
	out := make([][]bool, rows)
	for i := range out {
		out[i] = make([]bool, cols)
	}
	return out
}

// bothAgainst verifies the reference and the response statements against
// one context: in one verify_pair call with the two lists labelled, or in
// two verify calls when the lists are long. A verify_pair list whose
// verdicts stop matching its statements is recovered by verifying only the
// statements after the matched part.
func (e *sampleEval) bothAgainst(metric string, refSt, respSt []string, evidence string) (refV, respV []bool, err error) {
	if len(refSt)+len(respSt) > judge.PairMaxStatements {
		rv, err := e.verify(metric, refSt, evidence)
		if err != nil {
			return nil, nil, err
		}
		av, err := e.verify(metric, respSt, evidence)
		if err != nil {
			return nil, nil, err
		}
		return bools(rv), bools(av), nil
	}
	in := metrics.VerifyPairInput{ReferenceStatements: refSt, ResponseStatements: respSt, Evidence: evidence}
	a, err := e.ask(metric, metrics.StepVerifyPair, in, 0)
	if err != nil {
		return nil, nil, err
	}
	if a.VerifyPair == nil {
		return nil, nil, judge.Undefinedf("judge returned no verdicts")
	}
	if refV, err = e.recoverList(metric, refSt, a.VerifyPair.ReferenceVerdicts, evidence); err != nil {
		return nil, nil, err
	}
	if respV, err = e.recoverList(metric, respSt, a.VerifyPair.ResponseVerdicts, evidence); err != nil {
		return nil, nil, err
	}
	return refV, respV, nil
}

// recoverList keeps the verdicts that answer stmts in order and verifies the
// statements after them, if any, in one verify call.
func (e *sampleEval) recoverList(metric string, stmts []string, vs []metrics.StatementVerdict, evidence string) ([]bool, error) {
	n := judge.MatchedPrefix(stmts, vs)
	out := bools(vs[:n])
	if n == len(stmts) {
		return out, nil
	}
	rest, err := e.verify(metric, stmts[n:], evidence)
	if err != nil {
		return nil, err
	}
	return append(out, bools(rest)...), nil
}

func (e *sampleEval) answerRelevancy(metric string) (float64, string, error) {
	a, err := e.ask(metric, metrics.StepQuestion, metrics.QuestionInput{Response: e.s.Response}, e.strictness)
	if err != nil {
		return nan, "", err
	}
	texts := []string{e.s.UserInput}
	nonc := make([]bool, 0, len(a.Questions))
	ev := make([]results.Evidence, 0, len(a.Questions))
	for _, q := range a.Questions {
		texts = append(texts, q.Question)
		nonc = append(nonc, q.Noncommittal == 1)
		ev = append(ev, results.Evidence{Text: q.Question, Verdict: 1 - q.Noncommittal, Reason: noncommittalReason(q.Noncommittal)})
	}
	e.note(metric, ev)
	emb, err := e.j.Embed(e.ctx, texts)
	if err != nil {
		return nan, "", err
	}
	if len(emb.Vectors) != len(texts) {
		return nan, "", judge.Undefinedf("embedding count %d does not match %d texts", len(emb.Vectors), len(texts))
	}
	v := metrics.AnswerRelevancy(emb.Vectors[0], emb.Vectors[1:], nonc)
	reason := ""
	if len(nonc) > 0 && allTrue(nonc) {
		reason = "response is noncommittal"
	}
	if isNaN(v) {
		return v, "embedding of the question or generated question is empty", nil
	}
	return v, reason, nil
}

func (e *sampleEval) similarity(string) (float64, error) {
	emb, err := e.j.Embed(e.ctx, []string{e.s.Reference, e.s.Response})
	if err != nil {
		return nan, err
	}
	if len(emb.Vectors) != 2 {
		return nan, judge.Undefinedf("embedding count %d does not match 2 texts", len(emb.Vectors))
	}
	return metrics.SemanticSimilarity(emb.Vectors[0], emb.Vectors[1], 0), nil
}

// supports returns each statement's support (its verdict, 1 or 0, unless
// the judge graded it).
func supports(vs []metrics.StatementVerdict) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = v.SupportOf()
	}
	return out
}

func bools(vs []metrics.StatementVerdict) []bool {
	out := make([]bool, len(vs))
	for i, v := range vs {
		out[i] = v.Verdict == 1
	}
	return out
}

// noteIDs records, for id context precision, whether each retrieved
// context's id is a reference context id (when the ids match the
// contexts one to one).
func (e *sampleEval) noteIDs(metric string) {
	ids := e.s.RetrievedContextIDs
	if e.evidence == nil || len(ids) != len(e.s.RetrievedContexts) {
		return
	}
	ref := map[string]bool{}
	for _, id := range e.s.ReferenceContextIDs {
		ref[id] = true
	}
	ev := make([]results.Evidence, len(ids))
	for i, id := range ids {
		ev[i] = results.Evidence{Context: i + 1, Verdict: verdictOf(ref[id]), Reason: "id " + id}
	}
	e.note(metric, ev)
}

// MaxStringRunes is how much of each text the edit-distance metrics
// (string_similarity, the non-LLM context metrics) compare: the edit
// distance is quadratic, so a 2 MiB response would take minutes and
// gigabytes. Realistic answers and chunks are far shorter, so their
// scores are Ragas's; a longer text is compared on its first
// MaxStringRunes characters, and the reason says so.
const MaxStringRunes = 10_000

// cutNote is the reason of a score computed on cut texts.
var cutNote = fmt.Sprintf("compared on the first %d characters of each text", MaxStringRunes)

// cutRunes returns the first MaxStringRunes runes of s, and whether it cut.
func cutRunes(s string) (string, bool) {
	n := 0
	for i := range s {
		if n == MaxStringRunes {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// cutTexts are texts cut by cutRunes.
type cutTexts struct {
	texts []string
	cut   bool
}

func cutAll(ts []string) cutTexts {
	out := cutTexts{texts: ts}
	for i, t := range ts {
		c, cut := cutRunes(t)
		if !cut {
			continue
		}
		if !out.cut {
			out.texts, out.cut = slices.Clone(ts), true
		}
		out.texts[i] = c
	}
	return out
}

// joinReason joins two reasons, either of which may be empty.
func joinReason(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// noteSimilar records, for non-LLM context precision, whether each
// retrieved context is similar enough to a reference context (the texts
// as the metric compared them).
func (e *sampleEval) noteSimilar(metric string, retrieved, reference []string) {
	if e.evidence == nil || len(reference) == 0 {
		return
	}
	ev := make([]results.Evidence, len(retrieved))
	for i, rc := range retrieved {
		best := 0.0
		for _, ref := range reference {
			best = max(best, metrics.StringSimilarity(rc, ref, metrics.Levenshtein))
		}
		ok := best >= metrics.DefaultNonLLMThreshold
		ev[i] = results.Evidence{Context: i + 1, Verdict: verdictOf(ok), Reason: fmt.Sprintf("similarity %.2f to the closest reference context", best)}
	}
	e.note(metric, ev)
}

// evidenceOf turns statement verdicts into evidence, from the given side
// ("" where the metric judges one side).
func evidenceOf(vs []metrics.StatementVerdict, from string) []results.Evidence {
	out := make([]results.Evidence, len(vs))
	for i, v := range vs {
		out[i] = results.Evidence{Text: v.Statement, From: from, Verdict: v.Verdict, Reason: v.Reason}
	}
	return out
}

// noncommittalReason words answer relevancy's verdict on a generated
// question.
func noncommittalReason(noncommittal int) string {
	if noncommittal == 1 {
		return "the response is noncommittal"
	}
	return "question generated from the response"
}

func verdictOf(ok bool) int {
	if ok {
		return 1
	}
	return 0
}

// A reason quotes the first failing items (at most reasonExamples) cut to
// reasonQuote characters, each with the judge's reason cut to reasonWhy.
const (
	reasonExamples = 2
	reasonQuote    = 100
	reasonWhy      = 60
)

// failing words the items judged against (verdict other than 1) as one
// sentence of at most results.MaxReason characters: how many of how many
// noun failed, verdict, and the first failing one or two, each cut:
//
//	4 of 15 statements not supported by the contexts: "The K2 stores 20 kWh…" (number 20 not in evidence); "…"
//
// The second example is given only when it fits whole. "" when none failed.
func failing(noun, verdict string, items []results.Evidence) string {
	var bad []results.Evidence
	for _, e := range items {
		if e.Verdict != 1 {
			bad = append(bad, e)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	reason := fmt.Sprintf("%d of %s %s", len(bad), count(len(items), noun), verdict)
	for i, e := range bad[:min(len(bad), reasonExamples)] {
		// A reason is one line: a statement's tabs and line breaks are
		// spaces in it.
		ex := `"` + results.Clip(results.OneLine(e.Text), reasonQuote) + `"`
		if e.Reason != "" {
			ex += " (" + results.Clip(results.OneLine(e.Reason), reasonWhy) + ")"
		}
		sep := ": "
		if i > 0 {
			sep = "; "
			if utf8.RuneCountInString(reason)+len(sep)+utf8.RuneCountInString(ex) > results.MaxReason {
				break
			}
		}
		reason += sep + ex
	}
	return results.ClipReason(reason)
}

// count words n things: "1 statement", "4 statements".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func allTrue(v []bool) bool {
	for _, b := range v {
		if !b {
			return false
		}
	}
	return true
}

func firstError(errs []error) error {
	// Prefer a fatal error so the run stops for the right reason.
	for _, err := range errs {
		if err != nil && judge.IsFatal(err) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// MaxStatements bounds the statements (or claims) of one text that a
// metric judges: the first ones are kept, and the metric's reason says how
// many were left out.
const MaxStatements = 100
