package app

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/target"
)

// The valid values of the numeric and enumerated settings, declared once:
// Problems checks settings against them (the action's inputs, the
// defaults), and the CLI's flag types reject a bad value as it is parsed
// with the same words (CheckInt, CheckShare, CheckDuration, CheckEnum).

// IntRange is the valid range of an integer setting; What ends the
// message ("1 to 1000 judge calls in flight (default 8)").
type IntRange struct {
	Lo, Hi int
	What   string
}

// Want words the range.
func (r IntRange) Want() string {
	return strings.TrimSpace(fmt.Sprintf("%d to %d %s", r.Lo, r.Hi, r.What))
}

// IntRanges are the ranges of the integer settings, by key.
var IntRanges = map[string]IntRange{
	"concurrency":           {1, maxConcurrency, "judge calls in flight (default 8)"},
	"strictness":            {1, maxStrictness, "questions per sample (default 3)"},
	"repeats":               {1, maxRepeats, "runs per sample (default 1)"},
	"max-retries":           {0, maxMaxRetries, "retries of a transient failure (default 5)"},
	"max-completion-tokens": {1, maxCompletionTokens, "tokens (default 4096)"},
	"target-concurrency":    {1, maxConcurrency, "target calls in flight (default 8)"},
	"target-retries":        {0, maxMaxRetries, "retries (default 2)"},
	"rpm":                   {0, math.MaxInt, "requests per minute"},
	"tpm":                   {0, math.MaxInt, "tokens per minute"},
	"max-contexts":          {0, math.MaxInt, "retrieved contexts a sample"},
}

// CalibrateRepeats is the range of calibrate's repeats.
var CalibrateRepeats = IntRange{2, maxRepeats, "runs per sample (calibrate needs at least 2 to see noise; default 3)"}

// unbounded are the integer settings with no upper bound: their message
// says "0 (no limit) or more".
var unbounded = map[string]string{
	"rpm":          "0 (no limit) or more requests per minute",
	"tpm":          "0 (no limit) or more tokens per minute",
	"max-contexts": "0 (no limit) or more retrieved contexts a sample (default 50)",
}

// CheckInt checks v against the range of key (or r when given); nil when
// valid.
func CheckInt(key string, v int, r *IntRange) *Problem {
	rng := IntRanges[key]
	if r != nil {
		rng = *r
	}
	if v >= rng.Lo && v <= rng.Hi {
		return nil
	}
	want := rng.Want()
	if w, ok := unbounded[key]; ok && r == nil {
		want = w
	}
	p := BadValue(key, v, want)
	return &p
}

// shares are the share settings (0 to 1) and their messages.
var shares = map[string]string{
	"max-undefined":       "a share from 0 to 1 (default 0.5; 1 turns the check off)",
	"max-target-failures": "a share from 0 to 1 (default 0: any failed call fails the run)",
}

// ShareWant words the valid values of share setting key.
func ShareWant(key string) string { return shares[key] }

// CheckShare checks a share setting: 0 to 1 (NaN is not).
func CheckShare(key string, v float64) *Problem {
	if v >= 0 && v <= 1 { // NaN fails both
		return nil
	}
	p := BadValue(key, v, shares[key])
	return &p
}

// CheckDuration checks a duration setting.
func CheckDuration(key string, d time.Duration) *Problem {
	var want string
	switch key {
	case "max-duration":
		if d < 0 {
			want = "0 (no limit) or more, e.g. 20m"
		}
	case "request-timeout":
		switch {
		case d <= 0:
			want = "more than 0, e.g. 60s (the default)"
		case d > maxRequestTimeout:
			want = "at most 1h per HTTP attempt (default 60s)"
		}
	case "target-timeout":
		if d < target.MinTimeout || d > maxRequestTimeout {
			want = fmt.Sprintf("%s to 1h per attempt (default 60s): below %s every call would time out", target.MinTimeout, target.MinTimeout)
		}
	}
	if want == "" {
		return nil
	}
	p := BadValue(key, d, want)
	return &p
}

// Enum is the valid values of an enumerated setting.
type Enum struct {
	Values []string
	Want   string
}

// Enums are the enumerated settings, by key.
var Enums = map[string]Enum{
	"judge":            {JudgeNames, "auto, offline, openai or azure"},
	"claims-atomicity": {[]string{"low", "high"}, "low or high (default low, as Ragas's factual correctness)"},
	"claims-coverage":  {[]string{"low", "high"}, "low or high (default low, as Ragas's factual correctness)"},
	"response-format":  {[]string{"", "json_schema", "json_object", "none"}, "json_schema, json_object or none (leave it out to start with json_schema and fall back as the server refuses)"},
}

// CheckEnum checks v against the values of key (or e when given).
func CheckEnum(key, v string, e *Enum) *Problem {
	en := Enums[key]
	if e != nil {
		en = *e
	}
	for _, ok := range en.Values {
		if v == ok {
			return nil
		}
	}
	p := BadText(key, v, en.Want)
	return &p
}
