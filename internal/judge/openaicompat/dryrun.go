package openaicompat

import (
	"encoding/json"
	"strings"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/usermetric"
	"github.com/raggate/raggate/metrics"
)

// Estimate is what a run will ask of the judge, before spending anything.
// Calls count the distinct steps the evaluator asks (steps are shared
// between metrics), assuming no cache hits, no retries and that every text
// yields statements. Tokens are estimates: prompts as rendered with the
// real inputs (statements guessed as the text's sentences), replies from
// typical sizes, four characters a token.
type Estimate struct {
	Samples        int
	ChatCalls      int
	EmbeddingTexts int
	// EmbeddingCalls is the lower bound when texts are batched 256 at a
	// time across samples.
	EmbeddingCalls   int
	PromptTokens     int
	CompletionTokens int
	EmbeddingTokens  int
}

// Usage returns the estimate as usage, for EstimateCost.
func (e Estimate) Usage() judge.Usage {
	return judge.Usage{
		ChatCalls: e.ChatCalls, PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens,
		EmbeddingTokens: e.EmbeddingTokens, EmbeddingCalls: e.EmbeddingCalls,
	}
}

// EstimateCalls counts the judge calls and tokens of evaluating samples
// with ms (empty: the default suite for the samples' fields) and the given
// answer-relevancy strictness (0: the default). It follows the evaluator's
// call plan: per sample useful(c_i) for each context, attribute(reference,
// joined contexts), statements(response) and its verdicts against the
// joined contexts, one question call asking for strictness choices,
// claims(response) and claims(reference) verified against each other,
// statements(reference), verify(response statements, reference) and
// verify_pair(both statement lists, c_i) for each context (two verify
// calls when the lists are long): 2N + 10 for the
// default suite; metrics whose fields a sample lacks are skipped.
func EstimateCalls(samples []metrics.Sample, ms []metrics.Metric, strictness int) Estimate {
	if strictness <= 0 {
		strictness = metrics.DefaultStrictness
	}
	if len(ms) == 0 {
		ms = metrics.DefaultSuite(metrics.FieldsOf(samples).Has)
	}
	est := Estimate{Samples: len(samples)}
	embTexts := map[string]bool{}
	for i := range samples {
		s := &samples[i]
		p := plan{s: s, strictness: strictness, est: &est, asked: map[string]bool{}, emb: embTexts}
		for _, m := range ms {
			if !sampleHas(s, m) {
				continue
			}
			if m.User != nil {
				p.user(m.User)
				continue
			}
			p.metric(m.Name)
		}
	}
	est.EmbeddingTexts += len(embTexts)
	est.EmbeddingCalls = (est.EmbeddingTexts + judge.DefaultBatchMaxTexts - 1) / judge.DefaultBatchMaxTexts
	return est
}

func sampleHas(s *metrics.Sample, m metrics.Metric) bool {
	for _, f := range m.Needs {
		if !s.Has(f) {
			return false
		}
	}
	return true
}

// plan accumulates the distinct steps of one sample.
type plan struct {
	s          *metrics.Sample
	strictness int
	est        *Estimate
	asked      map[string]bool
	emb        map[string]bool
}

func (p *plan) metric(name string) {
	s := p.s
	joined := strings.Join(s.RetrievedContexts, "\n")
	switch name {
	case metrics.ContextPrecisionName, metrics.PrecisionAtKName:
		for _, c := range s.RetrievedContexts {
			p.useful(c, s.Reference)
		}
	case metrics.ContextUtilizationName:
		for _, c := range s.RetrievedContexts {
			p.useful(c, s.Response)
		}
	case metrics.ContextRecallName:
		p.attribute(joined)
	case metrics.FaithfulnessName:
		p.verify(p.statements(s.Response), joined)
	case metrics.AnswerRelevancyName:
		p.question()
	case metrics.FactualCorrectnessName, metrics.AnswerCorrectnessName:
		// Claims differ from statements: their verdicts are not shared.
		p.verifyKind("claims", p.claims(s.Response), s.Reference)
		p.verifyKind("claims", p.claims(s.Reference), s.Response)
		if name == metrics.AnswerCorrectnessName {
			p.embed(s.Reference, s.Response)
		}
	case metrics.NoiseSensitivityRelevantName, metrics.NoiseSensitivityIrrelevantName:
		resp := p.statements(s.Response)
		ref := p.statements(s.Reference)
		p.verify(resp, s.Reference)
		if len(resp) > 0 && len(ref) > 0 {
			for _, c := range s.RetrievedContexts {
				p.verifyPair(ref, resp, c)
			}
		}
	case metrics.SemanticSimilarityName:
		p.embed(s.Reference, s.Response)
	}
}

// ask counts one distinct step with its rendered prompt size and an
// estimated reply size.
func (p *plan) ask(req judge.Request, replyTokens int) {
	p.askKind("", req, replyTokens)
}

// askKind is ask with kind added to the step's identity: the statements
// guessed for claims and for statements are alike, the real ones are not.
func (p *plan) askKind(kind string, req judge.Request, replyTokens int) {
	key := kind + "\x00" + string(req.Step) + "\x00" + strings.Join(keyOf(req.Input), "\x00")
	if p.asked[key] {
		return
	}
	p.asked[key] = true
	p.est.ChatCalls++
	if r, err := judge.Render(req); err == nil {
		p.est.PromptTokens += tokens(r.System) + tokens(r.User) + 8
	}
	p.est.CompletionTokens += replyTokens
}

// user counts the call of a critic (one call for its votes, n = votes,
// where the server supports n) or a rubric metric; numeric metrics ask
// nothing, nor do samples that lack what the metric reads.
func (p *plan) user(d *metrics.Definition) {
	if !d.Kind.LLM() {
		return
	}
	req, err := usermetric.Request(d, p.s)
	if err != nil {
		return
	}
	p.ask(req, req.Count()*30)
}

func keyOf(in any) []string {
	switch v := in.(type) {
	case metrics.CriticInput, metrics.RubricInput:
		b, _ := json.Marshal(v)
		return []string{string(b)}
	case metrics.StatementsInput:
		return []string{v.Question, v.Text}
	case metrics.VerifyInput:
		return append([]string{v.Evidence}, v.Statements...)
	case metrics.UsefulInput:
		return []string{v.Question, v.Context, v.Answer}
	case metrics.QuestionInput:
		return []string{v.Response}
	case metrics.ClaimsInput:
		return []string{v.Text}
	case metrics.AttributeInput:
		return []string{v.Question, v.Context, v.Reference}
	case metrics.VerifyPairInput:
		out := append([]string{v.Evidence}, v.ReferenceStatements...)
		return append(append(out, "\x00pair"), v.ResponseStatements...)
	}
	return nil
}

func (p *plan) claims(text string) []string {
	st := sentences(text)
	in := metrics.ClaimsInput{Text: text, Atomicity: metrics.DefaultClaimsAtomicity, Coverage: metrics.DefaultClaimsCoverage}
	p.ask(judge.Request{Step: metrics.StepClaims, Input: in}, tokens(text)+10)
	return st
}

func (p *plan) attribute(joined string) {
	reply := 8
	for _, st := range sentences(p.s.Reference) {
		reply += tokens(st) + 25
	}
	in := metrics.AttributeInput{Question: p.s.UserInput, Context: joined, Reference: p.s.Reference}
	p.ask(judge.Request{Step: metrics.StepAttribute, Input: in}, reply)
}

func (p *plan) verifyPair(ref, resp []string, evidence string) {
	if len(ref)+len(resp) > judge.PairMaxStatements {
		p.verify(ref, evidence)
		p.verify(resp, evidence)
		return
	}
	reply := 16
	for _, st := range append(append([]string{}, ref...), resp...) {
		reply += tokens(st) + 25
	}
	in := metrics.VerifyPairInput{ReferenceStatements: ref, ResponseStatements: resp, Evidence: evidence}
	p.ask(judge.Request{Step: metrics.StepVerifyPair, Input: in}, reply)
}

func (p *plan) statements(text string) []string {
	st := sentences(text)
	p.ask(judge.Request{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: p.s.UserInput, Text: text}}, tokens(text)+10)
	return st
}

func (p *plan) verify(stmts []string, evidence string) {
	p.verifyKind("", stmts, evidence)
}

func (p *plan) verifyKind(kind string, stmts []string, evidence string) {
	if len(stmts) == 0 {
		return
	}
	reply := 8
	for _, st := range stmts {
		reply += tokens(st) + 25
	}
	p.askKind(kind, judge.Request{Step: metrics.StepVerify, Input: metrics.VerifyInput{Statements: stmts, Evidence: evidence}}, reply)
}

func (p *plan) useful(context, answer string) {
	p.ask(judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: p.s.UserInput, Context: context, Answer: answer}}, 30)
}

func (p *plan) question() {
	in := metrics.QuestionInput{Response: p.s.Response}
	before := p.est.ChatCalls
	p.ask(judge.Request{Step: metrics.StepQuestion, Input: in, N: p.strictness}, p.strictness*25)
	if p.est.ChatCalls > before {
		p.embed(p.s.UserInput)
		// The generated questions are new texts of about 20 tokens.
		p.est.EmbeddingTexts += p.strictness
		p.est.EmbeddingTokens += 20 * p.strictness
	}
}

func (p *plan) embed(texts ...string) {
	for _, t := range texts {
		if !p.emb[t] {
			p.emb[t] = true
			p.est.EmbeddingTokens += tokens(t)
		}
	}
}

// sentences guesses the statements of a text: its sentences.
func sentences(text string) []string {
	var out []string
	start := 0
	flush := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			flush(i + 1)
		case '.', '?', '!':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\n' {
				flush(i + 1)
			}
		}
	}
	flush(len(text))
	return out
}

func tokens(s string) int { return (len(s) + 3) / 4 }
