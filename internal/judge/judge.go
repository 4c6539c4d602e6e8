// Package judge defines the Judge interface that answers the judge steps of
// the metric specification, and the machinery shared by every judge: prompt
// rendering, output parsing and validation, memoization of repeated steps
// within a run, usage accounting, and the error kinds that tell an
// undefined sample from a failed run.
package judge

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/raggate/raggate/metrics"
)

// Request asks one judge step.
type Request struct {
	Step metrics.Step
	// Input is the step's input: metrics.StatementsInput, metrics.VerifyInput,
	// metrics.UsefulInput, metrics.QuestionInput, metrics.ClaimsInput,
	// metrics.AttributeInput or metrics.VerifyPairInput.
	Input any
	// N is the number of answers wanted (the question step's strictness); 0 means 1.
	N int
	// Metric is the metric that asked, for usage accounting only; it is not
	// part of the step's identity.
	Metric string
}

// MultiAnswer reports whether a step is answered with Request.Count()
// answers (one call with n choices where the server supports it): the
// question step and the critic step's votes.
func MultiAnswer(s metrics.Step) bool { return s == metrics.StepQuestion || s == metrics.StepCritic }

// Count returns the number of answers wanted (at least 1).
func (r Request) Count() int {
	if r.N < 1 {
		return 1
	}
	return r.N
}

// PairMaxStatements is the most statements (both lists together) that the
// evaluator judges against a context in one verify_pair call; longer lists
// are verified in two verify calls, one per list, so that a long mixed list
// does not blur the verdicts.
const PairMaxStatements = 30

// SampleTemperature is the sampling temperature of a request for several
// answers (the question step with strictness > 1), so that the answers
// vary, as in Ragas; a request for one answer is asked at temperature 0.
const SampleTemperature = 0.3

// Temperature returns the sampling temperature of the request:
// SampleTemperature when several answers are wanted, else 0.
func (r Request) Temperature() float64 {
	if r.Count() > 1 {
		return SampleTemperature
	}
	return 0
}

// Answer is a judge's answer to one step. Exactly the field of the asked
// step is set.
type Answer struct {
	Statements *metrics.StatementsOutput
	Verify     *metrics.VerifyOutput
	Useful     *metrics.UsefulOutput
	// Questions holds Request.Count() answers of the question step.
	Questions  []metrics.QuestionOutput
	Claims     *metrics.ClaimsOutput
	Attribute  *metrics.AttributeOutput
	VerifyPair *metrics.VerifyPairOutput
	// Critic holds Request.Count() answers (votes) of the critic step.
	Critic []metrics.CriticOutput
	Rubric *metrics.RubricOutput
	// Usage is what answering cost (zero for the offline judge).
	Usage Usage
}

// Embedding is the answer of the embed step.
type Embedding struct {
	Vectors [][]float64
	Usage   Usage
}

// Judge answers judge steps. Implementations must be safe for concurrent use.
type Judge interface {
	// Ask answers one chat step. An error wrapping *Undefined makes the
	// metrics that need the step undefined for the sample; an error for
	// which IsFatal is true stops the run.
	Ask(ctx context.Context, req Request) (Answer, error)
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) (Embedding, error)
}

// Info describes a judge for the results file and its fingerprint.
type Info struct {
	Provider       string  `json:"provider"`
	Model          string  `json:"model,omitempty"`
	EmbeddingModel string  `json:"embedding_model,omitempty"`
	Temperature    float64 `json:"temperature"`
	// SampleTemperature is the temperature of the requests for several
	// answers (SampleTemperature; 0 for a judge that samples nothing).
	// It is recorded but not hashed on its own: PromptsHash covers it,
	// and the fingerprints of runs recorded before it stay the same.
	SampleTemperature float64 `json:"-"`
	Prompts           string  `json:"prompts"`
	// UserMetrics is UserMetricsHash of the run's user-defined metrics
	// ("" without any).
	UserMetrics string `json:"user_metrics,omitempty"`
}

// Describer is implemented by judges that can describe themselves.
type Describer interface {
	Info() Info
}

// Usage counts judge work.
type Usage struct {
	ChatCalls        int `json:"chat_calls"`
	CachedCalls      int `json:"cached_calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	EmbeddingTokens  int `json:"embedding_tokens"`
	EmbeddingCalls   int `json:"embedding_calls,omitempty"`
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		ChatCalls:        u.ChatCalls + v.ChatCalls,
		CachedCalls:      u.CachedCalls + v.CachedCalls,
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		EmbeddingTokens:  u.EmbeddingTokens + v.EmbeddingTokens,
		EmbeddingCalls:   u.EmbeddingCalls + v.EmbeddingCalls,
	}
}

// ErrNeedsLLM is wrapped by the *Undefined error of a judge that cannot
// answer a step at all (the offline judge asked a critic or rubric step):
// the score is undefined for a reason that is the configuration's, not a
// failure of the judge.
var ErrNeedsLLM = errors.New("needs an LLM judge")

// ErrNothingToCheck is wrapped by the *Undefined error of a judge that
// finds nothing in the sample it can judge (the offline judge given a bare
// "Yes", a class label such as "SUPPORTS" or a number alone): the metric
// is undefined by its definition for this sample (kind metric), not
// because the judge failed.
var ErrNothingToCheck = errors.New("nothing to check")

// Undefined is the error of a step that could not be answered for this
// sample (invalid output after a re-ask, refusal, input too long): the
// metrics that need it are undefined with Reason, and the run goes on.
type Undefined struct {
	Reason string
	Err    error
}

func (e *Undefined) Error() string {
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *Undefined) Unwrap() error { return e.Err }

// Undefinedf returns an *Undefined with a formatted reason.
func Undefinedf(format string, args ...any) error {
	return &Undefined{Reason: fmt.Sprintf(format, args...)}
}

// Fatal marks an error that must stop the run (bad credentials, exhausted
// quota, unreachable endpoint after retries).
type Fatal struct{ Err error }

func (e *Fatal) Error() string { return e.Err.Error() }
func (e *Fatal) Unwrap() error { return e.Err }

// IsFatal reports whether err must stop the run.
func IsFatal(err error) bool {
	var f *Fatal
	return errors.As(err, &f)
}

// ReasonOf returns the reason to record for a failed step.
func ReasonOf(err error) string {
	var u *Undefined
	if errors.As(err, &u) {
		return u.Reason
	}
	return err.Error()
}

// Clone returns a deep copy of the answer, so that a holder of one copy
// cannot change another's (memoized or canned answers).
func (a Answer) Clone() Answer {
	if a.Statements != nil {
		s := *a.Statements
		s.Statements = slices.Clone(s.Statements)
		a.Statements = &s
	}
	if a.Verify != nil {
		v := *a.Verify
		v.Verdicts = cloneVerdicts(v.Verdicts)
		a.Verify = &v
	}
	if a.Useful != nil {
		u := *a.Useful
		a.Useful = &u
	}
	a.Questions = slices.Clone(a.Questions)
	a.Critic = slices.Clone(a.Critic)
	if a.Rubric != nil {
		r := *a.Rubric
		a.Rubric = &r
	}
	if a.Claims != nil {
		c := *a.Claims
		c.Claims = slices.Clone(c.Claims)
		a.Claims = &c
	}
	if a.Attribute != nil {
		at := *a.Attribute
		at.Sentences = slices.Clone(at.Sentences)
		a.Attribute = &at
	}
	if a.VerifyPair != nil {
		v := *a.VerifyPair
		v.ReferenceVerdicts = cloneVerdicts(v.ReferenceVerdicts)
		v.ResponseVerdicts = cloneVerdicts(v.ResponseVerdicts)
		a.VerifyPair = &v
	}
	return a
}

// cloneVerdicts copies a verdict list with its graded supports.
func cloneVerdicts(vs []metrics.StatementVerdict) []metrics.StatementVerdict {
	out := slices.Clone(vs)
	for i := range out {
		if out[i].Support != nil {
			s := *out[i].Support
			out[i].Support = &s
		}
	}
	return out
}
