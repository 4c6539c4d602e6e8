// Package report holds raggate's pure renderers: the markdown PR comment,
// the job-summary variant, console tables (tablewriter) and JSON. Renderers
// take values and return text; they do no I/O beyond the writer given.
package report
