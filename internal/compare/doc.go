// Package compare is raggate's statistics and thresholds: it reads the
// thresholds file (thresholds.example.yaml documents it), pairs the samples
// of a base and a head results file by id, and decides per metric whether
// the head regressed, improved or did not change significantly, and whether
// it breached a floor.
//
// The comparison is noise-aware. For each metric the per-sample differences
// d_i = head_i - base_i (sign flipped for lower-is-better metrics, so that a
// positive difference always means "better") are tested with a one-sided
// paired sign-flip permutation test (exact up to 20 non-zero differences,
// seeded Monte Carlo beyond), Holm-adjusted across the gated metrics
// (Thresholds.Gated; the report-only metrics form a family of their own and
// never fail the gate). Scores lost on head (defined on base, undefined on
// head for a reason other than the data) are tested against scores gained
// with an exact sign test in the same family. A metric
// regresses only when its mean difference is at least the tolerance AND the
// adjusted p-value is below alpha; otherwise it is reported as "~" (no
// significant change), in the spirit of benchstat. The report also carries a
// 95% paired bootstrap confidence interval of the mean difference and the
// minimum detectable effect at 80% power, so that readers can tell "no
// change" from "too few samples to tell".
//
// With segment keys (Thresholds.Segments: metadata columns such as topic)
// the same paired statistics run on each value's pairs, and those tests join
// their metric's Holm family, so that the family-wise error stays at most
// alpha across metrics and segments together.
//
// Compare decides and records; it words nothing. Every failure, warning
// and note is a typed Finding (finding.go) with the numbers it concerns,
// and package report turns findings into sentences and numbers into text.
// The report types are in types.go; Config.Compare is a sequence of named
// steps (pairing, per-metric tests, multiplicity adjustment, rules,
// situations, most regressed samples) in compare.go.
//
// The sides are results.Tables (a results file held by columns;
// Compare wraps files in memory with results.TableOf): the samples a
// report lists are read back through the table, from the file a table
// read from disk came from.
//
// Everything here is pure: no I/O beyond LoadThresholds and those reads
// back, no network, and every random number comes from a generator
// seeded by a hash of the data, so that re-running a comparison gives
// the same report.
package compare
