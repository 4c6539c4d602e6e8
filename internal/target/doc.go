// Package target calls the team's RAG pipeline for every golden sample:
// an HTTP endpoint (HTTP) or a program speaking JSON Lines on stdin and
// stdout (Command), both behind the small Target interface. Run drives a
// target over the samples with bounded concurrency, a per-request timeout
// and retries of transient failures with backoff; a request is built from
// a JSON template of the sample's fields (Template) and the reply read
// with small dotted paths (Path: data.answer, sources[*].text).
//
// It owns no file format and no exit code: internal/cli wires it, writes
// the responses file and gates the share of failed calls. It may import
// net/http and os/exec; the pure packages (metrics, compare, report,
// results, dataset) never import it.
package target
