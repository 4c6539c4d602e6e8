// Package agree measures how well a judge's scores agree with human labels:
// ROC AUC, balanced accuracy, Cohen's kappa and a confusion matrix for
// binary labels; Spearman's rho and Kendall's tau-b for graded labels;
// pairwise accuracy (ties count half) for pairs of candidates of which a
// label names the better one. Every figure comes with n and a 95%
// percentile bootstrap interval from a generator seeded by the caller, so
// the same input always gives the same output.
//
// Scores are oriented so that higher means better before they get here
// (the caller negates a lower-is-better metric); a positive label is the
// label of a good answer, the one a high score should predict.
//
// The package is pure: no I/O, no judge, no network.
package agree
