package report

import (
	"math"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

func TestFormats(t *testing.T) {
	nan, inf := results.NaN(), results.Score(math.Inf(1))
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"score", FormatScore(0.8704), "0.870"},
		{"score rounds", FormatScore(0.8705001), "0.871"},
		{"score one", FormatScore(1), "1.000"},
		{"score negative zero", FormatScore(-0.0001), "0.000"},
		{"score negative", FormatScore(-0.25), "-0.250"},
		{"score undefined", FormatScore(nan), "n/a"},
		{"score infinite", FormatScore(inf), "n/a"},
		{"delta positive", FormatDelta(0.0123), "+0.012"},
		{"delta negative", FormatDelta(-0.0344), "-0.034"},
		{"delta zero", FormatDelta(0), "0.000"},
		{"delta rounds to zero", FormatDelta(-0.0004), "0.000"},
		{"delta undefined", FormatDelta(nan), "n/a"},
		{"ci", FormatCI(-0.05, 0.01), "[-0.050, +0.010]"},
		{"ci zero", FormatCI(0, 0), "[0.000, 0.000]"},
		{"ci undefined", FormatCI(nan, 0.01), "n/a"},
		{"p small", FormatP(0.0003), "<0.001"},
		{"p edge", FormatP(0.001), "0.001"},
		{"p", FormatP(0.0031), "0.003"},
		{"p one", FormatP(1), "1.000"},
		{"p above one", FormatP(1.0000001), "1.000"},
		{"p undefined", FormatP(nan), "n/a"},
		{"bound", FormatBound(0.85), "0.85"},
		{"bound pads", FormatBound(0.8), "0.80"},
		{"bound integer", FormatBound(1), "1.00"},
		{"bound long", FormatBound(0.025), "0.025"},
		{"int", FormatInt(1234567), "1,234,567"},
		{"int small", FormatInt(999), "999"},
		{"int negative", FormatInt(-1234), "-1,234"},
		{"cost cents", FormatCost(0.01234), "$0.0123"},
		{"cost dollars", FormatCost(12.345), "$12.35"},
		{"plural one", plural(1, "metric", "metrics"), "1 metric"},
		{"plural many", plural(2, "metric", "metrics"), "2 metrics"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestSayP: p-values in sentences print with three decimals; below 0.001
// as p<0.001.
func TestSayP(t *testing.T) {
	for p, want := range map[float64]string{0.001: "p=0.001", 0.00099: "p<0.001", 0.0474: "p=0.047", 1: "p=1.000"} {
		if got := sayP(p); got != want {
			t.Errorf("sayP(%v) = %q, want %q", p, got, want)
		}
	}
}
