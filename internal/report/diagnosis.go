package report

import (
	"strings"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/metrics"
)

// The diagnosis applies the patterns of the README's "Reading the metrics",
// to the verdicts, and to nothing else: a metric is "low" (for noise
// sensitivity, "high") only when it regressed significantly or breached its
// floor, and "high" only when it held (~), improved, or met its floor.
// Insufficient data, a missing baseline without a floor, or an unscored
// metric says nothing.

// state is what the verdicts say about one metric.
type state int

const (
	stateUnknown state = iota
	stateBad           // regressed or breached its floor
	stateHeld          // no significant change, or floor met
	stateGood          // improved
)

func metricState(m compare.MetricResult) state {
	switch {
	case m.Change == compare.VerdictRegression || breached(m):
		return stateBad
	case m.Change == compare.VerdictImprovement:
		return stateGood
	case m.Change == compare.VerdictNoChange, m.Floor == compare.FloorOK:
		return stateHeld
	}
	return stateUnknown
}

// finding is one matched pattern.
type finding struct {
	// when describes the matched verdicts ("context_recall regressed and
	// faithfulness is below its floor").
	when  string
	cause string
	try   string
}

// pattern is one row of "Reading the metrics". bad must all be bad (or,
// with anyBad, at least one of them), fine must all be held or improved.
type pattern struct {
	bad    []string
	anyBad bool
	fine   []string
	cause  string
	try    string
}

var patterns = []pattern{
	{bad: []string{metrics.ContextPrecisionName},
		cause: "the ranking puts useless chunks first",
		try:   "a reranker, or better similarity scoring"},
	{bad: []string{metrics.PrecisionAtKName}, fine: []string{metrics.ContextPrecisionName},
		cause: "the right chunk is on top, but the rest of the top-k is noise",
		try:   "a lower top-k, or a reranker cut-off"},
	{bad: []string{metrics.ContextRecallName}, fine: []string{metrics.ContextPrecisionName},
		cause: "the top-k is too small, or the evidence is split across chunks",
		try:   "chunking, or a larger top-k"},
	{bad: []string{metrics.ContextRecallName, metrics.FaithfulnessName},
		cause: "retrieval fails and the generator invents",
		try:   "fix retrieval first"},
	{bad: []string{metrics.FactualCorrectnessName}, fine: []string{metrics.FaithfulnessName},
		cause: "answers are faithful to the wrong document",
		try:   "retrieval or corpus quality"},
	{bad: []string{metrics.FaithfulnessName}, fine: []string{metrics.FactualCorrectnessName},
		cause: "answers come from the model's memory, ignoring the context",
		try:   "the generation prompt"},
	{bad: []string{metrics.FaithfulnessName, metrics.FactualCorrectnessName}, anyBad: true, fine: []string{metrics.AnswerRelevancyName},
		cause: "answers that sound plausible but are wrong (hallucination: the most important failure to catch)",
		try:   "read the most regressed samples below before merging"},
	{bad: []string{metrics.NoiseSensitivityIrrelevantName},
		cause: "irrelevant chunks leak into answers",
		try:   "precision_at_k and context_precision (retrieve less noise)"},
	{bad: []string{metrics.NoiseSensitivityRelevantName},
		cause: "the generator over-generalises details of relevant chunks",
		try:   "chunking, or the generation prompt"},
}

// diagnose returns the patterns that the verdicts of r match, in the order
// of the README's table. It is empty when nothing regressed or breached a floor.
func diagnose(r *compare.Report) []finding {
	byName := map[string]compare.MetricResult{}
	for _, m := range r.Metrics {
		byName[m.Metric] = m
	}
	st := func(name string) state {
		m, ok := byName[name]
		if !ok {
			return stateUnknown
		}
		return metricState(m)
	}
	var out []finding
	for _, p := range patterns {
		var bad []string
		for _, name := range p.bad {
			if st(name) == stateBad {
				bad = append(bad, name)
			}
		}
		if len(bad) == 0 || (!p.anyBad && len(bad) < len(p.bad)) {
			continue
		}
		ok := true
		for _, name := range p.fine {
			if s := st(name); s != stateHeld && s != stateGood {
				ok = false
			}
		}
		if !ok {
			continue
		}
		var when []string
		for _, name := range bad {
			when = append(when, describeState(byName[name]))
		}
		var fine []string
		for _, name := range p.fine {
			fine = append(fine, describeState(byName[name]))
		}
		w := strings.Join(when, " and ")
		if len(fine) > 0 {
			w += " while " + strings.Join(fine, " and ")
		}
		out = append(out, finding{when: w, cause: p.cause, try: p.try})
	}
	return out
}

// describeState says what the verdicts found for m, in words.
func describeState(m compare.MetricResult) string {
	name := m.Metric
	floor := ""
	switch m.Floor {
	case compare.FloorBelowMin:
		floor = "below its floor"
	case compare.FloorAboveMax:
		floor = "above its ceiling"
	}
	switch {
	case m.Change == compare.VerdictRegression && floor != "":
		return name + " regressed (now " + floor + ")"
	case m.Change == compare.VerdictRegression:
		return name + " regressed"
	case floor != "":
		return name + " is " + floor
	}
	switch m.Change {
	case compare.VerdictImprovement:
		return name + " improved"
	case compare.VerdictNoChange:
		return name + " held"
	}
	if m.Rule.Max != nil && m.Rule.Min == nil {
		return name + " is within its ceiling"
	}
	return name + " meets its floor"
}
