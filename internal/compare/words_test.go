package compare_test

import (
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
)

// The internal tests read the findings as a user does, worded by package
// report.
func init() { compare.SetFill(report.Fill) }
