// Package metrics is raggate's public, pure metric library: the scoring
// arithmetic of the Ragas-style RAG metrics (matching Ragas within 1e-9,
// edge cases included), the metric catalogue (each metric declared once:
// name, required fields, direction, the judge steps it asks and how often,
// default suite, gated by default, offline reliability), and the judge-step contracts (inputs, outputs,
// prompts and output JSON Schemas) that an LLM or offline judge answers.
//
// Nothing in this package does I/O; it never imports net/http or an API
// client, so other Go programs can score verdicts they obtained elsewhere.
package metrics
