// Package browsertest holds the tests that need a real browser: the
// Mermaid charts of the report (testdata of package report) are parsed
// and rendered by the real Mermaid library (the npm package), and the HTML
// report (package htmlreport) of two real results files is loaded from
// file://, checked for script errors, escaping and working filters, in
// headless Chromium driven with chromedp.
//
// The tools are found through $CHROMIUM (default: chromium on PATH) and
// $RAGGATE_MERMAID_JS (default: .ci/node_modules/mermaid/dist/mermaid.min.js,
// which .ci/run installs). Without them the tests skip, unless $CI is set:
// then a missing tool fails the test, so CI cannot pass without running
// them. Screenshots go to $RAGGATE_SCREENSHOTS when it is set; the -docs
// flag also writes the README's screenshots into docs/.
package browsertest
