package eval

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/metrics"
)

var nan = math.NaN()

func isNaN(x float64) bool { return math.IsNaN(x) }

// compute returns the metric's score for the sample, a reason (why it is
// undefined, or what the judge found wrong), and an error when a judge step
// failed.
func (e *sampleEval) compute(m metrics.Metric) (float64, string, error) {
	s := e.s
	switch m.Name {
	case metrics.ContextPrecisionName:
		v, reason, err := e.usefulness(m.Name, s.Reference)
		if err != nil {
			return nan, "", err
		}
		return metrics.AveragePrecision(v), reason, nil
	case metrics.PrecisionAtKName:
		v, reason, err := e.usefulness(m.Name, s.Reference)
		if err != nil {
			return nan, "", err
		}
		if len(v) == 0 {
			return nan, "no retrieved contexts", nil
		}
		return metrics.PrecisionAtK(v), reason, nil
	case metrics.ContextUtilizationName:
		v, reason, err := e.usefulness(m.Name, s.Response)
		if err != nil {
			return nan, "", err
		}
		return metrics.AveragePrecision(v), reason, nil
	case metrics.ContextRecallName:
		return e.supported(m.Name, s.Reference, strings.Join(s.RetrievedContexts, "\n"), "reference")
	case metrics.FaithfulnessName:
		return e.supported(m.Name, s.Response, strings.Join(s.RetrievedContexts, "\n"), "response")
	case metrics.AnswerRelevancyName:
		return e.answerRelevancy(m.Name)
	case metrics.FactualCorrectnessName:
		resp, ref, reason, err := e.factualVerdicts(m.Name)
		if err != nil {
			return nan, "", err
		}
		return metrics.FactualCorrectness(resp, ref, metrics.FactualF1, metrics.DefaultBeta), reason, nil
	case metrics.NoiseSensitivityRelevantName:
		return e.noiseSensitivity(m.Name, metrics.NoiseRelevant)
	case metrics.NoiseSensitivityIrrelevantName:
		return e.noiseSensitivity(m.Name, metrics.NoiseIrrelevant)
	case metrics.SemanticSimilarityName:
		sim, err := e.similarity(m.Name)
		if err != nil {
			return nan, "", err
		}
		return sim, "", nil
	case metrics.AnswerCorrectnessName:
		resp, ref, reason, err := e.factualVerdicts(m.Name)
		if err != nil {
			return nan, "", err
		}
		sim, err := e.similarity(m.Name)
		if err != nil {
			return nan, "", err
		}
		tp, fp, fn := metrics.FactualCounts(resp, ref, metrics.FactualF1)
		return metrics.AnswerCorrectness(tp, fp, fn, sim, metrics.DefaultAnswerCorrectnessWeights, metrics.DefaultBeta), reason, nil
	case metrics.IDContextPrecisionName:
		return undefinedIfNaN(metrics.IDContextPrecision(s.RetrievedContextIDs, s.ReferenceContextIDs), "no retrieved context ids")
	case metrics.IDContextRecallName:
		return undefinedIfNaN(metrics.IDContextRecall(s.RetrievedContextIDs, s.ReferenceContextIDs), "no reference context ids")
	case metrics.NonLLMContextPrecisionName:
		return undefinedIfNaN(metrics.NonLLMContextPrecision(s.RetrievedContexts, s.ReferenceContexts, metrics.DefaultNonLLMThreshold, metrics.Levenshtein), "no reference contexts")
	case metrics.NonLLMContextRecallName:
		return undefinedIfNaN(metrics.NonLLMContextRecall(s.RetrievedContexts, s.ReferenceContexts, metrics.DefaultNonLLMThreshold, metrics.Levenshtein), "no reference contexts")
	case metrics.StringSimilarityName:
		return metrics.StringSimilarity(s.Reference, s.Response, metrics.Levenshtein), "", nil
	case metrics.ExactMatchName:
		return metrics.ExactMatch(s.Reference, s.Response), "", nil
	case metrics.StringPresenceName:
		return metrics.StringPresence(s.Reference, s.Response), "", nil
	}
	return nan, "", fmt.Errorf("metric %q is not implemented", m.Name)
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
	return a.Statements.Statements, nil
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
	var notes []string
	for i, ok := range v {
		if !ok {
			notes = append(notes, fmt.Sprintf("context %d not useful", i+1))
		}
	}
	return v, strings.Join(notes, "; "), nil
}

// supported is faithfulness and context recall: the share of text's
// statements the evidence supports.
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
	return metrics.Fraction(bools(vs)), unsupported(vs), nil
}

func (e *sampleEval) factualVerdicts(metric string) (resp, ref []bool, reason string, err error) {
	var (
		wg             sync.WaitGroup
		respV, refV    []metrics.StatementVerdict
		errResp, errRf error
	)
	wg.Add(2)
	go func() {
		defer wg.Done()
		st, err := e.statements(metric, e.s.Response)
		if err == nil {
			respV, err = e.verify(metric, st, e.s.Reference)
		}
		errResp = err
	}()
	go func() {
		defer wg.Done()
		st, err := e.statements(metric, e.s.Reference)
		if err == nil {
			refV, err = e.verify(metric, st, e.s.Response)
		}
		errRf = err
	}()
	wg.Wait()
	if err := firstError([]error{errResp, errRf}); err != nil {
		return nil, nil, "", err
	}
	return bools(respV), bools(refV), unsupported(respV), nil
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
	ctxs := e.s.RetrievedContexts
	G, A, N := len(refSt), len(respSt), len(ctxs)
	refBy := make([][]bool, G)
	for g := range refBy {
		refBy[g] = make([]bool, N)
	}
	respBy := make([][]bool, A)
	for a := range respBy {
		respBy[a] = make([]bool, N)
	}
	// One call per context judges both statement lists against it.
	both := append(append([]string{}, refSt...), respSt...)
	errs := make([]error, N)
	for c := range ctxs {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			vs, err := e.verify(metric, both, ctxs[c])
			if err != nil {
				errs[c] = err
				return
			}
			for i, v := range vs {
				if i < G {
					refBy[i][c] = v.Verdict == 1
				} else {
					respBy[i-G][c] = v.Verdict == 1
				}
			}
		}(c)
	}
	wg.Wait()
	if err := firstError(errs); err != nil {
		return nan, "", err
	}
	return metrics.NoiseSensitivity(mode, refBy, respBy, bools(respByRefV)), unsupported(respByRefV), nil
}

func (e *sampleEval) answerRelevancy(metric string) (float64, string, error) {
	a, err := e.ask(metric, metrics.StepQuestion, metrics.QuestionInput{Response: e.s.Response}, e.strictness)
	if err != nil {
		return nan, "", err
	}
	texts := []string{e.s.UserInput}
	nonc := make([]bool, 0, len(a.Questions))
	for _, q := range a.Questions {
		texts = append(texts, q.Question)
		nonc = append(nonc, q.Noncommittal == 1)
	}
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

func bools(vs []metrics.StatementVerdict) []bool {
	out := make([]bool, len(vs))
	for i, v := range vs {
		out[i] = v.Verdict == 1
	}
	return out
}

// unsupported summarises the statements judged unsupported.
func unsupported(vs []metrics.StatementVerdict) string {
	var bad []string
	for _, v := range vs {
		if v.Verdict != 1 {
			s := v.Statement
			if v.Reason != "" {
				s += " (" + v.Reason + ")"
			}
			bad = append(bad, s)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "not supported: " + strings.Join(bad, "; ")
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
