// Package anytime holds anytime-valid statistics: confidence sequences
// for the mean of bounded observations and e-processes for counts, which
// stay valid when they are looked at after every batch and a decision is
// taken as soon as they allow one (optional stopping). It is pure
// arithmetic, with no knowledge of metrics or results files.
package anytime
