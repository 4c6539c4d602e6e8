package eval

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/raggate/raggate/internal/judge"
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

// Usage returns the estimate as usage, for pricing.
func (e Estimate) Usage() judge.Usage {
	return judge.Usage{
		ChatCalls: e.ChatCalls, PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens,
		EmbeddingTokens: e.EmbeddingTokens, EmbeddingCalls: e.EmbeddingCalls,
	}
}

// EstimateCalls counts the judge calls and tokens of evaluating samples
// with ms (empty: the default suite for the samples' fields) and the given
// answer-relevancy strictness (0: the default). It runs the evaluator
// itself (Run) with an estimating judge that answers every step at once
// with a plausible answer, so the estimate asks exactly the steps a run
// asks: for the default suite 2N + 10 chat calls per sample (N retrieved
// contexts); metrics whose fields a sample lacks are skipped.
func EstimateCalls(samples []metrics.Sample, ms []metrics.Metric, strictness int) Estimate {
	opts := Options{Metrics: ms, Strictness: strictness}
	opts.Metrics, _, _ = opts.resolved(samples)
	est := newEstimator()
	// One sample at a time: a step is counted once per sample (a run asks
	// a step shared by two samples twice, unless they are judged at the
	// same time or the cache has it). The estimator never fails a step,
	// so Run never stops early.
	for i := range samples {
		est.newSample()
		_, _ = Run(context.Background(), est, samples[i:i+1], opts)
	}
	out := est.estimate()
	out.Samples = len(samples)
	return out
}

// estimator is a judge.Judge that answers every step with a plausible,
// cheap and deterministic answer (a text's sentences as its statements and
// claims, every statement supported, every context useful, distinct
// questions of about 20 tokens) and counts, once per distinct request, the
// call and its tokens as a real judge would be asked: prompts as rendered,
// replies from typical sizes. Steps are counted once per sample (see
// newSample), embedded texts once per run.
type estimator struct {
	mu    sync.Mutex
	asked map[[sha256.Size]byte]bool
	texts map[[sha256.Size]byte]bool
	usage judge.Usage
	// calls counts the distinct requests per step.
	calls map[metrics.Step]int
	// textCount is the number of distinct texts embedded.
	textCount int
}

var _ judge.Judge = (*estimator)(nil)

func newEstimator() *estimator {
	return &estimator{asked: map[[sha256.Size]byte]bool{}, texts: map[[sha256.Size]byte]bool{}, calls: map[metrics.Step]int{}}
}

// newSample forgets the steps asked: the next ones are another sample's.
func (j *estimator) newSample() {
	j.mu.Lock()
	defer j.mu.Unlock()
	clear(j.asked)
}

// estimate returns what was counted.
func (j *estimator) estimate() Estimate {
	j.mu.Lock()
	defer j.mu.Unlock()
	u := j.usage
	return Estimate{
		ChatCalls: u.ChatCalls, PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens,
		EmbeddingTexts: j.textCount, EmbeddingTokens: u.EmbeddingTokens,
		EmbeddingCalls: (j.textCount + judge.DefaultBatchMaxTexts - 1) / judge.DefaultBatchMaxTexts,
	}
}

// Ask answers req and counts it when it was not asked before.
func (j *estimator) Ask(ctx context.Context, req judge.Request) (judge.Answer, error) {
	if err := ctx.Err(); err != nil {
		return judge.Answer{}, err
	}
	a, reply, err := estimatedAnswer(req)
	if err != nil {
		return judge.Answer{}, &judge.Fatal{Err: err}
	}
	key := sha256.Sum256([]byte(askKey(req)))
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.asked[key] {
		return a, nil
	}
	j.asked[key] = true
	j.calls[req.Step]++
	j.usage.ChatCalls++
	if r, err := judge.Render(req); err == nil {
		j.usage.PromptTokens += tokens(r.System) + tokens(r.User) + 8
	}
	j.usage.CompletionTokens += reply
	return a, nil
}

// askKey is the identity of a request: its step, count and input, and for
// a verify step whether it verifies claims. The guessed claims of a text
// are its guessed statements, but a real judge's claims and statements
// differ, so their verifications are not shared.
func askKey(req judge.Request) string {
	kind := ""
	if req.Step == metrics.StepVerify && asksClaims(req.Metric) {
		kind = "claims"
	}
	in, _ := json.Marshal(req.Input)
	return kind + "\x00" + string(req.Step) + "\x00" + strconv.Itoa(req.Count()) + "\x00" + string(in)
}

// asksClaims reports whether the named metric decomposes texts into claims.
func asksClaims(name string) bool {
	m, ok := metrics.Lookup(name)
	return ok && slices.Contains(m.Steps, metrics.StepClaims)
}

// Embed returns a unit vector per text and counts the texts not embedded
// before.
func (j *estimator) Embed(ctx context.Context, texts []string) (judge.Embedding, error) {
	if err := ctx.Err(); err != nil {
		return judge.Embedding{}, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	vecs := make([][]float64, len(texts))
	for i, t := range texts {
		vecs[i] = []float64{1, 0}
		key := sha256.Sum256([]byte(t))
		if !j.texts[key] {
			j.texts[key] = true
			j.textCount++
			j.usage.EmbeddingTokens += tokens(t)
		}
	}
	return judge.Embedding{Vectors: vecs}, nil
}

// estimatedAnswer returns the estimator's answer to req and the typical
// size of a real reply, in tokens.
func estimatedAnswer(req judge.Request) (judge.Answer, int, error) {
	var a judge.Answer
	switch in := req.Input.(type) {
	case metrics.StatementsInput:
		a.Statements = &metrics.StatementsOutput{Statements: sentences(in.Text)}
		return a, tokens(in.Text) + 10, nil
	case metrics.ClaimsInput:
		a.Claims = &metrics.ClaimsOutput{Claims: sentences(in.Text)}
		return a, tokens(in.Text) + 10, nil
	case metrics.VerifyInput:
		a.Verify = &metrics.VerifyOutput{Verdicts: supported(in.Statements)}
		return a, 8 + verdictTokens(in.Statements), nil
	case metrics.VerifyPairInput:
		a.VerifyPair = &metrics.VerifyPairOutput{ReferenceVerdicts: supported(in.ReferenceStatements), ResponseVerdicts: supported(in.ResponseStatements)}
		return a, 16 + verdictTokens(in.ReferenceStatements) + verdictTokens(in.ResponseStatements), nil
	case metrics.UsefulInput:
		a.Useful = &metrics.UsefulOutput{Verdict: 1}
		return a, 30, nil
	case metrics.AttributeInput:
		st := sentences(in.Reference)
		out := &metrics.AttributeOutput{Sentences: make([]metrics.SentenceVerdict, len(st))}
		for i, s := range st {
			out.Sentences[i] = metrics.SentenceVerdict{Sentence: s, Attributed: 1}
		}
		a.Attribute = out
		return a, 8 + verdictTokens(st), nil
	case metrics.QuestionInput:
		a.Questions = questions(in.Response, req.Count())
		return a, req.Count() * 25, nil
	case metrics.CriticInput:
		a.Critic = make([]metrics.CriticOutput, req.Count())
		for i := range a.Critic {
			a.Critic[i] = metrics.CriticOutput{Verdict: 1}
		}
		return a, req.Count() * 30, nil
	case metrics.RubricInput:
		if len(in.Levels) == 0 {
			return a, 0, fmt.Errorf("estimate: a rubric without levels")
		}
		a.Rubric = &metrics.RubricOutput{Score: in.Levels[len(in.Levels)-1].Score}
		return a, req.Count() * 30, nil
	}
	return a, 0, fmt.Errorf("estimate: %s step with input %T", req.Step, req.Input)
}

// supported returns a "supported" verdict for every statement.
func supported(stmts []string) []metrics.StatementVerdict {
	out := make([]metrics.StatementVerdict, len(stmts))
	for i, s := range stmts {
		out[i] = metrics.StatementVerdict{Statement: s, Verdict: 1}
	}
	return out
}

// verdictTokens is the typical size of the verdicts on stmts.
func verdictTokens(stmts []string) int {
	n := 0
	for _, st := range stmts {
		n += tokens(st) + 25
	}
	return n
}

// questionLen is the length of a generated question: about 20 tokens.
const questionLen = 80

// questions returns n distinct questions of questionLen characters, the
// same for the same response.
func questions(response string, n int) []metrics.QuestionOutput {
	h := fnv.New32a()
	_, _ = h.Write([]byte(response))
	out := make([]metrics.QuestionOutput, n)
	for i := range out {
		q := fmt.Sprintf("Which question does the response %08x answer best (question %d of %d here)?", h.Sum32(), i+1, n)
		// Padded to questionLen (more than 9 questions make it longer).
		out[i] = metrics.QuestionOutput{Question: fmt.Sprintf("%-*s", questionLen, q)}
	}
	return out
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

// tokens estimates the tokens of a text: four characters a token.
func tokens(s string) int { return (len(s) + 3) / 4 }
