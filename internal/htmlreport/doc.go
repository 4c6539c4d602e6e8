// Package htmlreport renders a comparison as one self-contained HTML page:
// the verdict table, per-metric histograms of the per-sample deltas and a
// browser of the worst samples (question, base and head responses side by
// side with a word-level diff, the retrieved contexts with the judge's
// per-context verdicts, the judged statements with their verdicts and
// reasons), filtered in the page by metric, verdict, segment and text.
//
// Numbers are worded by package report (the comment's wording: "n/a",
// "<0.001", signed deltas) and the table's p-value is report.PValue, the
// one in the direction of the change. The package registers the format
// "html" in report's registry of formats when it is linked in.
//
// It is pure: it reads a compare.Report, the compared results files by
// columns (results.Table: every sample's scores, for the ranking, the
// histograms and the counts) and the samples it lists whole (Sides), all
// already in memory, and writes bytes; it never imports net/http. Its
// memory beyond the tables is a few bytes a sample and the samples
// listed, whatever the number of samples. The page loads
// nothing: its CSS, JavaScript and SVG are inline, and every dataset text
// goes through html/template's escaping.
package htmlreport
