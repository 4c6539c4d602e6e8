package results

// TargetCall records how the pipeline under test (the target of `gate run
// --target`) answered one sample. Added within v1: omitted for samples
// whose responses came from the dataset or a responses file.
type TargetCall struct {
	// Status is ok or failed.
	Status TargetStatus `json:"status"`
	// Error is why the call failed (the last attempt's reason).
	Error string `json:"error,omitempty"`
	// LatencyMS is the wall time of the last attempt, in milliseconds.
	LatencyMS float64 `json:"latency_ms"`
	// Attempts counts the attempts, retries included.
	Attempts int `json:"attempts"`
	// Code is the HTTP status or the exit code of a failed call, if any.
	Code int `json:"code,omitempty"`
	// Token usage, as the target reported it (0: not reported).
	PromptTokens     int `json:"prompt_tokens,omitempty"`
	CompletionTokens int `json:"completion_tokens,omitempty"`
	TotalTokens      int `json:"total_tokens,omitempty"`
	// ContextIDs are the ids of the contexts the target retrieved, when it
	// returned them.
	ContextIDs []string `json:"context_ids,omitempty"`
}

// TargetStatus is the outcome of a target call.
type TargetStatus string

// The outcomes of a target call.
const (
	TargetOK     TargetStatus = "ok"
	TargetFailed TargetStatus = "failed"
)

// TargetFailures counts the samples of f whose target call failed: its
// record says so, or (a re-judged responses file) a score is undefined
// with kind target. It returns the first such sample's id and reason.
func (f *File) TargetFailures() (n int, firstID, reason string) {
	t := f.counts()
	return t.targetN, t.targetID, t.targetWhy
}

func (s *Sample) targetFailure() (string, bool) {
	if s.Target != nil && s.Target.Status == TargetFailed {
		return s.Target.Error, true
	}
	for _, m := range sortedKeys(s.UndefinedKind) {
		if s.UndefinedKind[m] == KindTarget {
			return s.Undefined[m], true
		}
	}
	return "", false
}
