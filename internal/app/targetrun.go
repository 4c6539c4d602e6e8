package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/atomicfile"
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
}

// callTarget calls the target for every sample and puts each answer into
// its sample (response, and the contexts and ids when the target returns
// them) with the call's latency and tokens as metadata columns, for the
// target metrics. The answers are saved (--save-responses) as they are; a
// run cancelled or out of time saves what finished and returns the error
// it ends with.
func callTarget(ctx context.Context, env Env, o *runState, samples []metrics.Sample) (*targetPhase, error) {
	b := o.target
	opts := b.Options
	opts.Progress = newProgress(env.Log, o.Quiet, progressFigures{verb: "called the target for", label: "calling the target"})
	if !o.Quiet {
		fmt.Fprintf(env.Log, "calling the target for %d samples (%d at once)\n", len(samples), opts.Concurrency)
	}
	start := time.Now()
	outs := target.Run(ctx, b.Target, samples, opts)
	failOutOfStep(b.Target.Close(), samples, outs)
	redactReplies(env.Red, outs)
	ph := &targetPhase{calls: map[string]*results.TargetCall{}, unanswered: map[string]string{}}
	var saved []savedResponse
	for i := range outs {
		out := &outs[i]
		if !out.Done {
			continue
		}
		s := &samples[i]
		ph.calls[s.ID] = targetCall(out)
		if out.Err != nil {
			ph.unanswered[s.ID] = out.Err.Error()
			dropAnswer(s)
		} else {
			applyReply(s, out)
		}
		row := savedOf(s, out)
		row.Error = env.Red.String(row.Error)
		saved = append(saved, row)
	}
	stopped := ctx.Err() != nil
	save := o.Target.SaveResponses
	if save == "" && stopped && len(saved) > 0 {
		save = stoppedResponsesPath(o.Out)
	}
	if save != "" {
		if err := writeResponses(env.abs(save), saved); err != nil {
			return nil, asOperational(fmt.Errorf("save responses: %w", err))
		}
	}
	if stopped {
		return nil, targetStopped(ctx, o, len(saved), len(samples), save)
	}
	if !o.Quiet {
		fmt.Fprintf(env.Log, "target answered %d of %d samples in %s (%d failed)\n", len(saved)-len(ph.unanswered), len(samples),
			time.Since(start).Round(time.Millisecond), len(ph.unanswered))
	}
	return ph, nil
}

// stoppedResponsesPath is where a stopped target run without
// --save-responses saves its answers: beside the results file out. It is
// checked like out (ioPaths).
func stoppedResponsesPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".responses.jsonl"
}

// redactReplies removes the configured secrets from what the target
// answered, once, as it comes back: nothing after (the saved responses,
// the judge's prompts and cache, the results) sees them.
func redactReplies(r *redact.Redactor, outs []target.Outcome) {
	for i := range outs {
		rep := &outs[i].Reply
		rep.Response = r.String(rep.Response)
		r.Strings(rep.Contexts)
		r.Strings(rep.ContextIDs)
	}
}

// targetStopped is the error of a target phase stopped after done of total
// calls: the time budget (exit 3) or a cancellation (130).
func targetStopped(ctx context.Context, o *runState, done, total int, saved string) error {
	what := fmt.Sprintf("%d of %d target calls finished, nothing judged", done, total)
	if saved != "" {
		what += "; their answers are saved in " + saved + " (judge them with --responses " + saved + ")"
	}
	if errors.Is(context.Cause(ctx), errTimeBudget) {
		return asOperational(fmt.Errorf("time budget --max-duration=%s reached: %s", o.MaxDuration, what))
	}
	return fmt.Errorf("%s: %w", what, ctx.Err())
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
	ID               string   `json:"id"`
	UserInput        string   `json:"user_input,omitempty"`
	Response         *string  `json:"response,omitempty"`
	Contexts         []string `json:"retrieved_contexts,omitempty"`
	ContextIDs       []string `json:"retrieved_context_ids,omitempty"`
	LatencyMS        float64  `json:"target_latency_ms"`
	Tokens           *int     `json:"target_tokens,omitempty"`
	PromptTokens     *int     `json:"target_prompt_tokens,omitempty"`
	CompletionTokens *int     `json:"target_completion_tokens,omitempty"`
	Error            string   `json:"target_error,omitempty"`
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
	r.Contexts, r.ContextIDs = out.Reply.Contexts, out.Reply.ContextIDs
	if u := out.Reply.Usage; u != nil {
		r.Tokens, r.PromptTokens, r.CompletionTokens = &u.TotalTokens, &u.PromptTokens, &u.CompletionTokens
	}
	return r
}

// writeResponses writes the saved answers as JSON Lines, atomically.
func writeResponses(path string, rows []savedResponse) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i := range rows {
			if err := enc.Encode(&rows[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// unansweredOf returns, for a run without a target, the samples of a
// saved responses file whose target call had failed (their target_error
// column): they are judged as failed calls again, not as empty answers.
func unansweredOf(samples []metrics.Sample) map[string]string {
	var out map[string]string
	for i := range samples {
		if e := samples[i].Metadata[colTargetError]; e != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[samples[i].ID] = e
		}
	}
	return out
}

// attachTargetCalls records each sample's call in the results.
func attachTargetCalls(f *results.File, ph *targetPhase) {
	if ph == nil {
		return
	}
	for i := range f.Samples {
		f.Samples[i].Target = ph.calls[f.Samples[i].ID]
	}
}

// tooManyTargetFailures is the message of a run whose target failed on
// more than the share limit of the samples; "" when within it.
func tooManyTargetFailures(f *results.File, limit float64) string {
	n, id, reason := f.TargetFailures()
	if n == 0 || float64(n) <= limit*float64(len(f.Samples)) {
		return ""
	}
	return fmt.Sprintf("the target failed on %d of %d samples (more than --max-target-failures %g); first: sample %s: %s",
		n, len(f.Samples), limit, id, reason)
}

// answer calls the run's target, if any, and returns its calls and the
// samples it left unanswered; without a target, the samples a saved
// responses file records as unanswered. With a target and the default
// suite, the suite is chosen again for the fields the target filled: the
// ids of retrieved contexts it returned add the id-based metrics (no judge
// step, so nothing checked before the calls changes).
func answer(ctx context.Context, env Env, o *runState, in *runInputs) (*targetPhase, map[string]string, error) {
	if o.target == nil {
		return nil, unansweredOf(in.samples), nil
	}
	ph, err := callTarget(ctx, env, o, in.samples)
	if err != nil {
		return nil, nil, err
	}
	o.warn(env, capContexts(o.Limits.MaxContexts, in.samples))
	capCallIDs(ph.calls, o.Limits.MaxContexts)
	if n := len(in.samples); n > 0 && len(ph.unanswered) == n && o.Target.MaxFailures >= 1 {
		// Allowed by --max-target-failures 1, but never silent (under a
		// lower limit the run ends with exit 3, which says so).
		o.warn(env, fmt.Sprintf("the target answered none of the %d samples: the results hold no score of the pipeline, and a baseline store refuses such a file (--max-target-failures %g allowed the run to go on)",
			n, o.Target.MaxFailures))
	}
	if len(o.metricNames()) == 0 {
		in.ds.Fields = metrics.FieldsOf(in.samples)
		if in.ms, err = o.suite(env, in.ds); err != nil {
			return nil, nil, err
		}
	}
	return ph, ph.unanswered, nil
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

// failOutOfStep turns the answers of command target processes found out of
// step when they stopped (a line more than their requests) into failed
// calls: they cannot be matched to their questions.
func failOutOfStep(closeErr error, samples []metrics.Sample, outs []target.Outcome) {
	var oos *target.OutOfStepError
	if !errors.As(closeErr, &oos) {
		return
	}
	ids := make(map[string]bool, len(oos.IDs))
	for _, id := range oos.IDs {
		ids[id] = true
	}
	for i := range outs {
		if outs[i].Done && outs[i].Err == nil && ids[samples[i].ID] {
			outs[i].Err = oos.Call()
		}
	}
}
