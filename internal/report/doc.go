// Package report holds raggate's pure renderers. They take values and
// return text (or write to the writer given); they do no other I/O and
// never touch the network.
//
//   - Markdown: the body of the sticky pull request comment for a
//     *compare.Report (package ghcomment adds the hidden marker lines it
//     finds the comment by).
//   - Summary: the same report for the job summary (more detail, up to
//     1 MiB).
//   - Console: the comparison as a terminal table (tablewriter).
//   - JSON: the comparison as indented JSON (raggate.compare/v1).
//   - RunTable: the per-metric table of one results file (`gate run`).
//   - History, HistoryText, HistoryMarkdown, HistoryJSON, HistoryCSV: the
//     per-metric trend of a branch's stored baselines (`gate history`);
//     with Options.Trend the reports above add it (trend.go).
//   - SummaryJSON: the action's compact summary-json output.
//
// # Formats
//
// Front ends render through a registry of formats (formats.go), never by
// switching on format names: Lookup(name) for --format, ByPath(file) for a
// report file, Names() for the list a usage message shows. This package
// registers text, markdown and json; package htmlreport registers html
// (it builds on this package's number wording, so it registers itself
// when linked in). A format that shows sample texts says which samples
// (Format.Samples) so that the caller reads only their texts.
// LookupHistory and HistoryNames do the same for `gate history`.
//
// # Findings
//
// Package compare returns typed findings (compare.Finding); findings.go is
// the one place that words them (Sentence), for every renderer and for the
// JSON report's failures, warnings, notes and reasons (Fill).
//
// # Numbers
//
// This package formats every number raggate reports (format.go has the
// rules; FormatScore, FormatDelta, FormatCI, FormatP, FormatBound and
// FormatInt are exported for package htmlreport), and decides the one
// p-value a report shows: PValue, the adjusted one-sided p-value in the
// direction of the observed change. In tables, scores have three decimals ("0.870"), differences a sign ("+0.012",
// "-0.034", ASCII minus everywhere), intervals look like "[-0.050, +0.010]",
// p-values "0.003", "<0.001" or "1.000", and anything undefined is "n/a".
// The diff table shows the paired means, so that Head - Base = Δ; a floor
// verdict quotes the all-sample head mean it was checked against when that
// differs. Sentences quote differences with two decimals (three when two
// would show 0.00), p-values as "p=0.003", and a mean compared with a bound
// with the decimals it takes to differ from it ("0.799 below floor 0.80").
//
// # Untrusted text
//
// Questions, judge reasons, sample ids, metric and model names come from
// files that a pull request can change. Escape makes them one inert line of
// markdown (no HTML, no mentions or issue references, no links, images or
// code, no broken table cells); terminal output drops control characters.
// Snippets are cut to about 80 runes.
//
// # Size
//
// A comment may not exceed 65,536 characters and a job summary 1 MiB.
// Markdown and Summary count bytes (never fewer than characters) and drop
// detail in steps until the text fits Options.Limit: the trend charts
// (Options.Trend) first; fewer regressed samples and shorter reasons; no distributions; no lists of new and
// removed samples; no other details; at most 40 table rows. Whenever
// something was left out the text says so. As a last resort the text is cut
// at a line boundary, still with the notice.
package report
