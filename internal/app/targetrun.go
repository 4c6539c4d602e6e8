package app

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/redact"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/target"
	"github.com/raggate/raggate/metrics"
)

// targetPhase is what the target calls of a run produced: each answered
// sample's call, by id, and why each failed one has no answer.
type targetPhase struct {
	calls      map[string]*results.TargetCall
	unanswered map[string]string
	// outOfStep are the samples whose answer was judged before the
	// target was found out of step: id -> why.
	outOfStep map[string]string
}

// stoppedResponsesPath is where a stopped target run without
// --save-responses saves its answers: beside the results file out. It is
// checked like out (ioPaths).
func stoppedResponsesPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".responses.jsonl"
}

// redactReply removes the configured secrets from what the target
// answered, once, as it comes back: nothing after (the saved responses,
// the judge's prompts and cache, the results) sees them.
func redactReply(r *redact.Redactor, rep *target.Reply) {
	rep.Response = r.String(rep.Response)
	r.Strings(rep.Contexts)
	r.Strings(rep.ContextIDs)
}

// applyReply puts the target's answer into its sample.
func applyReply(s *metrics.Sample, out *target.Outcome) {
	r := &out.Reply
	s.Present = maps.Clone(s.Present) // the loader's map may be shared
	s.Set(metrics.Response, r.Response)
	if r.Contexts != nil {
		s.SetList(metrics.RetrievedContexts, r.Contexts)
		if r.ContextIDs == nil {
			// The dataset's ids named the contexts it held, not the
			// ones the target retrieved: id metrics must not score them.
			s.RetrievedContextIDs = nil
			delete(s.Present, metrics.RetrievedContextIDs)
		}
	}
	if r.ContextIDs != nil {
		s.SetList(metrics.RetrievedContextIDs, r.ContextIDs)
	}
	md := maps.Clone(s.Metadata)
	if md == nil {
		md = make(map[string]string, 4)
	}
	md[colLatency] = strconv.FormatFloat(ms(out.Latency), 'f', -1, 64)
	if u := r.Usage; u != nil {
		md[colTokens] = strconv.Itoa(u.TotalTokens)
		md[colPromptTokens] = strconv.Itoa(u.PromptTokens)
		md[colCompletionTokens] = strconv.Itoa(u.CompletionTokens)
	}
	s.Metadata = md
}

// dropAnswer clears what the dataset says the pipeline answered for a
// sample whose target call failed: the recorded texts (and the HTML
// report) must not show the golden file's response or contexts as the
// pipeline's.
func dropAnswer(s *metrics.Sample) {
	s.Present = maps.Clone(s.Present)
	s.Response, s.RetrievedContexts, s.RetrievedContextIDs = "", nil, nil
	for _, f := range []metrics.Field{metrics.Response, metrics.RetrievedContexts, metrics.RetrievedContextIDs} {
		delete(s.Present, f)
	}
}

// savedResponse is one line of --save-responses: a responses file row
// (README "Datasets") with the call's figures as columns.
type savedResponse struct {
	ID        string  `json:"id"`
	UserInput string  `json:"user_input,omitempty"`
	Response  *string `json:"response,omitempty"`
	// Contexts and ContextIDs are nil when the reply did not mention them
	// (the dataset's were judged), and [] when the target returned none
	// (null or []): the row says what was judged.
	Contexts         *[]string `json:"retrieved_contexts,omitempty"`
	ContextIDs       *[]string `json:"retrieved_context_ids,omitempty"`
	LatencyMS        float64   `json:"target_latency_ms"`
	Tokens           *int      `json:"target_tokens,omitempty"`
	PromptTokens     *int      `json:"target_prompt_tokens,omitempty"`
	CompletionTokens *int      `json:"target_completion_tokens,omitempty"`
	Error            string    `json:"target_error,omitempty"`
}

func savedOf(s *metrics.Sample, out *target.Outcome) savedResponse {
	r := savedResponse{ID: s.ID, UserInput: s.UserInput, LatencyMS: ms(out.Latency)}
	if out.Err != nil {
		// An empty response keeps the row a valid responses row; the
		// target_error column marks it unanswered when re-judged.
		r.Error, r.Response = out.Err.Error(), new(string)
		return r
	}
	r.Response = &out.Reply.Response
	r.Contexts, r.ContextIDs = judgedList(out.Reply.Contexts), judgedList(out.Reply.ContextIDs)
	if u := out.Reply.Usage; u != nil {
		r.Tokens, r.PromptTokens, r.CompletionTokens = &u.TotalTokens, &u.PromptTokens, &u.CompletionTokens
	}
	return r
}

// judgedList is a list of the reply for a saved row: nil when the reply
// did not mention it, else the list, [] (not null) when empty.
func judgedList(l []string) *[]string {
	if l == nil {
		return nil
	}
	return &l
}

// unansweredOf returns, for a run without a target, the samples of a
// saved responses file whose target call had failed (their target_error
// column): they are judged as failed calls again, not as empty answers.
// The run's n samples are sample(i), as memory keeps them.
func unansweredOf(n int, sample func(i int) metrics.Sample) map[string]string {
	var out map[string]string
	for i := range n {
		s := sample(i)
		if e := s.Metadata[colTargetError]; e != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[s.ID] = e
		}
	}
	return out
}

// tooManyTargetFailures is the message of a run whose target failed on
// more than the share limit of the samples; "" when within it.
func tooManyTargetFailures(f *results.File, limit float64) string {
	n, id, reason := f.TargetFailures()
	if n == 0 || float64(n) <= limit*float64(f.Len()) {
		return ""
	}
	return fmt.Sprintf("the target failed on %d of %d samples (more than --max-target-failures %g); first: sample %s: %s",
		n, f.Len(), limit, id, reason)
}

// standIns are samples for a dry run's estimate of a target run, which
// calls nothing: a sample without a response gets its reference (else its
// question) as one, and without retrieved contexts its reference contexts.
func standIns(samples []metrics.Sample) []metrics.Sample {
	out := make([]metrics.Sample, len(samples))
	for i, s := range samples {
		s.Present = maps.Clone(s.Present)
		if !s.Has(metrics.Response) {
			if s.Has(metrics.Reference) {
				s.Set(metrics.Response, s.Reference)
			} else {
				s.Set(metrics.Response, s.UserInput)
			}
		}
		if !s.Has(metrics.RetrievedContexts) && s.Has(metrics.ReferenceContexts) {
			s.SetList(metrics.RetrievedContexts, s.ReferenceContexts)
		}
		out[i] = s
	}
	return out
}

// outOfStep returns the error of command target processes found out of
// step when they stopped, nil when none was.
func outOfStep(closeErr error) *target.OutOfStepError {
	var oos *target.OutOfStepError
	if errors.As(closeErr, &oos) {
		return oos
	}
	return nil
}
