package app

import (
	"strings"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/redact"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// Secrets never leave the process. The front end wraps its output in one
// redactor (Env.Red) that knows the secrets of the environment; each
// command adds the secrets of its configuration (protect) before it uses
// them. Text that is stored or posted rather than printed is redacted
// where it is made: results files before they are written or compared
// (redactResults, so reports built from them are clean), the action's
// error note and job summary (actionCmd, commentError), and every PR
// comment (actionRun.comment).

// SecretValues are the configured values of o that are secrets: the API
// key (given, or read from its variable), the values of --header, the
// userinfo and query values of the base URL and Azure endpoint, and the
// credentials of the target's URL.
func SecretValues(env Env, o *RunConfig) []string {
	out := []string{o.APIKey, strings.TrimSpace(o.APIKey)}
	if o.APIKeyEnv != "" {
		k := env.getenv(o.APIKeyEnv)
		out = append(out, k, strings.TrimSpace(k))
	}
	for _, h := range o.Headers {
		if i := strings.IndexAny(h, "=:"); i >= 0 {
			// The value, and its credential parts (Bearer X, cookies).
			out = append(out, redact.HeaderSecrets(h[i+1:])...)
		} else {
			out = append(out, h) // no separator: it may be the value alone
		}
	}
	out = append(out, redact.URLSecrets(o.BaseURL)...)
	// A target's query is the pipeline's settings: only the values of
	// secret-looking names are secrets (README "Security").
	out = append(out, redact.URLCredentials(o.Target.URL)...)
	return append(out, redact.URLSecrets(o.Azure.Endpoint)...)
}

// parseHeaders reads the --header NAME=VALUE values. A malformed one is
// reported by its name and the problem, never by its value (usually a
// key); the name and value themselves are checked by the judge.
func parseHeaders(list []string) (map[string]string, error) {
	headers := make(map[string]string, len(list))
	for i, kv := range list {
		if p := CheckHeader(i+1, kv); p != nil {
			return nil, JoinProblems([]Problem{*p}, FlagNames)
		}
		sep := strings.IndexAny(kv, "=:")
		headers[strings.TrimSpace(kv[:sep])] = strings.TrimSpace(kv[sep+1:])
	}
	return headers, nil
}

// redactResults removes secrets from the text of f that can quote a
// server (the incomplete reason, warnings, undefined and judge reasons):
// before f is written, and before a report is built from it (a file
// written elsewhere, or by an older version, may hold them).
func redactResults(r *redact.Redactor, f *results.File) {
	if f == nil {
		return
	}
	f.Incomplete = r.String(f.Incomplete)
	r.Strings(f.Warnings)
	for i := range f.Samples {
		redactSample(r, &f.Samples[i])
	}
}

// redactSample removes the secrets of one sample's reasons, target error
// and texts (a run's samples on disk are redacted as they are assembled).
func redactSample(r *redact.Redactor, s *results.Sample) {
	r.Map(s.Undefined)
	r.Map(s.Reasons)
	if t := s.Target; t != nil {
		t.Error = r.String(t.Error)
	}
	if s.HasTexts() {
		s.SetTexts(redactTexts(r, s.TextsOf()))
	}
}

// redactTexts removes the secrets of a sample's texts.
func redactTexts(r *redact.Redactor, t results.Texts) results.Texts {
	t.Response = r.String(t.Response)
	r.Strings(t.Contexts)
	for _, items := range t.Evidence {
		for i := range items {
			items[i].Text, items[i].Reason = r.String(items[i].Text), r.String(items[i].Reason)
		}
	}
	return t
}

// redactedTexts is src with the secrets of the texts removed.
func redactedTexts(r *redact.Redactor, src *results.Spill) results.TextSource {
	return func(id string) (results.Texts, bool, error) {
		t, ok, err := src.Get(id)
		if !ok || err != nil {
			return t, ok, err
		}
		return redactTexts(r, t), true, nil
	}
}

// CompareRedacted compares base and head with their secrets removed, so
// that no report, summary, comment or output built from the comparison
// quotes one. The findings come worded (report.Fill), for the annotations
// and outputs that quote the sentences.
func CompareRedacted(env Env, base, head *results.File, th compare.Thresholds) *compare.Report {
	redactResults(env.Red, base)
	redactResults(env.Red, head)
	rep := compare.Compare(base, head, th)
	report.Fill(rep)
	return rep
}

// CompareTablesRedacted is CompareRedacted of results files held by
// columns (base nil: no baseline). A sample the report lists that cannot
// be read back from its file (changed since it was read) is an error.
func CompareTablesRedacted(env Env, base, head *results.Table, th compare.Thresholds) (*compare.Report, error) {
	sample := func(s *results.Sample) { redactSample(env.Red, s) }
	if base != nil {
		base.Redact(env.Red.String, sample)
	}
	head.Redact(env.Red.String, sample)
	rep := compare.Config{}.CompareTables(base, head, th)
	for _, t := range []*results.Table{base, head} {
		if t != nil && t.Err() != nil {
			return nil, asOperational(t.Err())
		}
	}
	report.Fill(rep)
	return rep, nil
}
