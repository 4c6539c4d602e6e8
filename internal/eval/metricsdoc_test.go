package eval

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/goldenfile"
	"github.com/raggate/raggate/metrics"
)

// metricsDoc is the generated metric reference.
const metricsDoc = "../../docs/metrics.md"

// TestMetricsDoc: docs/metrics.md is what the metric declarations say
// (metrics.Catalogue, metrics.KindAsks) and what the evaluator asks. Run
// with -update to regenerate it after changing a declaration.
func TestMetricsDoc(t *testing.T) {
	goldenfile.Check(t, metricsDoc, renderMetricsDoc(t))
}

func renderMetricsDoc(t *testing.T) []byte {
	var b bytes.Buffer
	b.WriteString(`# Metrics

<!-- Generated from the metric declarations (metrics/catalogue.go, metrics/user.go) by
     go test ./internal/eval -run TestMetricsDoc -update. Do not edit by hand. -->

Every metric is declared once, in the public package ` + "`github.com/raggate/raggate/metrics`" + `
(` + "`metrics.Catalogue()`" + `): the fields it needs, the judge steps it asks and how often, whether it
runs and is gated by default, and whether the offline judge scores it. The evaluator, the offline
judge, the thresholds' defaults, the ` + "`gate run --dry-run`" + ` estimate and this page all read that
declaration; a test checks that the evaluator asks exactly the declared steps.

A sample lacking a field a metric needs gets that metric undefined (` + "`missing field X`" + `), neither an
error nor a zero.

| metric | needs | better | range | default suite | gated by default | offline judge |
|---|---|---|---|---|---|---|
`)
	for _, m := range metrics.Catalogue() {
		name := "`" + m.Name + "`"
		for _, a := range m.Aliases {
			name += " (alias `" + a + "`)"
		}
		lo, hi := m.ScoreRange()
		fmt.Fprintf(&b, "| %s | %s | %s | [%g, %g] | %s | %s | %s |\n", name, fieldList(m.Needs), better(m.Direction),
			lo, hi, defaultSuite(m), yesNo(m.Gated), offlineJudge(m))
	}
	b.WriteString(`
"Gated by default": the metric may fail the gate when the thresholds file lists no ` + "`gate`" + ` metrics;
every other metric is compared and reported, and gates only when the thresholds give it a rule.
"Offline judge: declined": the offline judge cannot score the metric reliably, so it leaves it out
of its default suite and undefined when asked for.

## What each metric is

| metric | description |
|---|---|
`)
	for _, m := range metrics.Catalogue() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", m.Name, m.Description)
	}
	b.WriteString(`
## Judge steps

Calls per sample, N being the sample's retrieved contexts. A step with the same input is asked once
per sample, whichever metrics need it: the statements of the response serve faithfulness and noise
sensitivity, the usefulness verdicts context precision and precision at k, the claims and their
verifications factual and answer correctness. Embedded texts are batched across samples.

| metric | step | calls per sample | what it asks |
|---|---|---|---|
`)
	for _, m := range metrics.Catalogue() {
		for _, a := range m.Asks {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Name, a.Step, calls(a), a.How)
		}
	}
	fmt.Fprintf(&b, "\nThe default suite asks %s chat calls per sample (as counted by the evaluator itself).\n", defaultBudget(t))
	b.WriteString(`
## User-defined metrics

| kind | step | calls per sample | what it asks |
|---|---|---|---|
`)
	for _, k := range metrics.Kinds {
		asks := metrics.KindAsks[k]
		if len(asks) == 0 {
			fmt.Fprintf(&b, "| %s | none | 0 | reads a number from a column |\n", k)
		}
		for _, a := range asks {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", k, a.Step, calls(a), a.How)
		}
	}
	b.WriteString(`
Defining them: [User-defined metrics](user-metrics.md). How the metrics behave (undefined scores,
shared judge steps, reading a change, the arithmetic compared with Ragas):
[How the metrics behave](reading-metrics.md).
`)
	return b.Bytes()
}

func fieldList(fs []metrics.Field) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return strings.Join(out, ", ")
}

func better(d metrics.Direction) string {
	if d == metrics.LowerIsBetter {
		return "**lower**"
	}
	return "higher"
}

func defaultSuite(m metrics.Metric) string {
	switch {
	case !m.Default:
		return "when asked"
	case !m.LLM():
		return "if the fields are present"
	}
	return "yes"
}

func offlineJudge(m metrics.Metric) string {
	switch {
	case !m.LLM():
		return "no judge needed"
	case m.OfflineUnreliable:
		return "declined"
	}
	return "scored"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// calls words the calls of an ask per sample.
func calls(a metrics.Ask) string {
	switch {
	case a.Step == metrics.StepEmbed:
		return "batched"
	case a.PerContext == 0:
		return fmt.Sprint(a.Calls)
	case a.Calls == 0 && a.PerContext == 1:
		return "N"
	case a.Calls == 0:
		return fmt.Sprintf("%dN", a.PerContext)
	}
	return fmt.Sprintf("%dN + %d", a.PerContext, a.Calls)
}

// defaultBudget returns the default suite's chat calls per sample as
// "aN + b", measured with the estimating judge at 1, 2 and 3 contexts.
func defaultBudget(t *testing.T) string {
	at := func(n int) int { return EstimateCalls([]metrics.Sample{declSample(n)}, nil, 0).ChatCalls }
	slope := at(2) - at(1)
	base := at(1) - slope
	if at(3) != base+3*slope {
		t.Fatalf("the default suite's calls are not linear in the contexts: %d, %d, %d", at(1), at(2), at(3))
	}
	return fmt.Sprintf("%dN + %d", slope, base)
}
