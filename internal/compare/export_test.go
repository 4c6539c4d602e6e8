package compare

import "github.com/raggate/raggate/internal/results"

// fillSentences is report.Fill, set by words_test.go (package
// compare_test), since package compare cannot import the package that
// words its findings.
var fillSentences func(*Report)

// SetFill sets fillSentences.
func SetFill(f func(*Report)) { fillSentences = f }

// compareWords is Compare with the findings worded, for the tests that
// assert what a user reads.
func compareWords(base, head *results.File, th Thresholds) *Report {
	return Config{}.compareWords(base, head, th)
}

// compareWords is c.Compare with the findings worded.
func (c Config) compareWords(base, head *results.File, th Thresholds) *Report {
	r := c.Compare(base, head, th)
	fillSentences(r)
	return r
}

// findingOf returns r's first finding of kind about metric.
func findingOf(r *Report, kind Kind, metric string) (Finding, bool) {
	for _, f := range r.Findings {
		if f.Kind == kind && f.Metric == metric {
			return f, true
		}
	}
	return Finding{}, false
}
