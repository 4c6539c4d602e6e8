package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/results"
)

// Exit codes are API: this file is the one place that decides them. The
// README's "Exit codes" table is tested against exitCodes.
const (
	ExitPass        = 0   // passed
	ExitFail        = 1   // regression or floor breached
	ExitUsage       = 2   // usage, config or dataset error
	ExitOperational = 3   // judge or GitHub unreachable, too many samples unscored
	ExitCancelled   = 130 // interrupted
)

// exitCodes documents every exit code: short is the help text, meaning
// the README table row.
var exitCodes = []struct {
	code           int
	short, meaning string
}{
	{ExitPass, "passed",
		"passed (regressions at `level: warn` and noise included)"},
	{ExitFail, "regression or floor breached",
		"a significant regression, a significant loss of scores, a floor breached, (`gate compare`) a head results file that is incomplete, empty or far smaller than the base, or (`gate agree`) an agreement figure below `--min`"},
	{ExitUsage, "usage/config/dataset error",
		"usage, configuration or dataset error: the message says what to fix, with `file:line` where it applies; a results or baseline file that is not valid (from every command and the action alike) or has a score out of range (naming the file, sample and metric). Flag values, output paths, the thresholds file, the baseline, the dataset and the judge's models are all checked before the first judge call, so an exit 2 costs nothing ([Flag values](#flag-values))"},
	{ExitOperational, "operational failure (judge or GitHub unreachable)",
		"operational failure: judge or GitHub unreachable, bad credentials, time budget exhausted, too many samples left unscored by the judge or by failed calls to the target; finished samples are saved"},
	{ExitCancelled, "cancelled",
		"cancelled (SIGINT / SIGTERM); finished samples are saved"},
}

// usageKinds are the typed errors that mean input to fix, exit 2, wherever
// they surface: a baseline store that cannot be read as configured, a
// results or baseline file that is not valid, a path that names a
// directory. Errors of no kind here, GitHub's (ghapi.ErrNoPermission,
// ErrUnauthorized, ErrRateLimited, ErrNotFound) included, are operational
// (exit 3) unless the command chose a code with withCode.
var usageKinds = []error{
	baseline.ErrNotFound, // reached the top: `gate baseline get` with nothing stored
	baseline.ErrShallow,
	baseline.ErrUnknownRef,
	baseline.ErrMissingPath,
	baseline.ErrReadOnly,
	results.ErrSchema,
	results.ErrInvalid,
	ghapi.ErrNotAFile,
	inputfile.ErrTooLarge,
	inputfile.ErrNotRegular,
}

// errFailed is returned by commands whose evaluation failed the gate; the
// report has been printed already.
var errFailed = app.ErrFailed

func usageErr(format string, args ...any) error { return app.Usagef(format, args...) }

// withCode classifies err as a usage error (ExitUsage) or an operational
// failure (any other code).
func withCode(code int, err error) error {
	if code == ExitUsage {
		return app.WithKind(app.KindUsage, err)
	}
	return app.WithKind(app.KindOperational, err)
}

// exitCodeOf maps the error a command returned to the exit code:
// nothing or -h is 0, a failed gate 1, a code the command chose, then the
// typed kinds (usageKinds: 2), anything else 3. Cancellation (130) is
// decided by exitCode, which knows the context.
func exitCodeOf(err error) int {
	var ae *app.Error
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitPass
	case errors.Is(err, errFailed):
		return ExitFail
	case errors.As(err, &ae) && ae.Kind == app.KindUsage:
		return ExitUsage
	case errors.As(err, &ae):
		return ExitOperational
	}
	for _, kind := range usageKinds {
		if errors.Is(err, kind) {
			return ExitUsage
		}
	}
	return ExitOperational
}

// exitCode is exitCodeOf for a finished command: a cancelled run is 130,
// and every error is printed once, on stderr.
func exitCode(ctx context.Context, env Env, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) || errors.Is(err, errFailed) {
		return exitCodeOf(err) // nothing to say: the report is out
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, ctx.Err())) {
		if msg := err.Error(); strings.HasPrefix(msg, "cancelled") {
			fmt.Fprintf(env.Stderr, "gate: %s\n", msg)
		} else {
			fmt.Fprintf(env.Stderr, "gate: cancelled: %s\n", msg)
		}
		return ExitCancelled
	}
	fmt.Fprintf(env.Stderr, "gate: %v\n", err)
	return exitCodeOf(err)
}

// baselineErr wraps an error of reading a baseline with op (see
// app.BaselineErr).
func baselineErr(op string, err error) error { return app.BaselineErr(op, err) }

// exitCodesHelp is the exit-code line of `gate help`.
func exitCodesHelp() string {
	parts := make([]string, len(exitCodes))
	for i, c := range exitCodes {
		parts[i] = fmt.Sprintf("%d %s", c.code, c.short)
	}
	var b strings.Builder
	line := 0
	for _, w := range strings.Fields("Exit codes: " + strings.Join(parts, ", ") + ".") {
		if line > 0 && line+1+len(w) > 78 {
			b.WriteByte('\n')
			line = 0
		} else if line > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += len(w)
	}
	return b.String()
}
