package app

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/redact"
	"github.com/raggate/raggate/internal/results"
)

// Env is what a use case may use of its process. It never writes to
// stdout: results come back typed, and the notes, warnings and progress
// of a run go to Log, which the front end injects (the CLI's standard
// error, redacted).
type Env struct {
	// Version is the tool's version, written into results files.
	Version string
	// Log receives notes, warnings and progress lines.
	Log io.Writer
	// Getenv reads the environment (nil: empty).
	Getenv func(string) string
	// Environ lists the process environment (nil: os.Environ), which a
	// command target starts from, without the gate's secrets.
	Environ func() []string
	// Dir is the working directory relative paths resolve against ("" =
	// process cwd).
	Dir string
	// Clock, when set, replaces real time in the waits between retries of
	// judge and GitHub API calls (tests make the waits instant).
	Clock Clock
	// Red removes the configured secrets from everything the process
	// writes; use cases add the secrets of their configuration.
	Red *redact.Redactor
	// NewSpill, when set, replaces results.NewSpill (tests make the
	// texts file fail, as a full temporary directory does).
	NewSpill func(dir string) (*results.Spill, error)
}

// Clock is the time of the waits between retries of judge and GitHub API
// calls. Nil in production (real time); tests pass a virtual clock whose
// Sleep returns at once, so retries cost no wall time.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done; it returns ctx.Err() then.
	Sleep(ctx context.Context, d time.Duration) error
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Abs resolves p against the environment's working directory.
func (e Env) Abs(p string) string {
	if p == "" || filepath.IsAbs(p) || e.Dir == "" {
		return p
	}
	return filepath.Join(e.Dir, p)
}

func (e Env) abs(p string) string { return e.Abs(p) }

// Logf writes one line to the log.
func (e Env) Logf(format string, args ...any) {
	fmt.Fprintf(e.Log, format+"\n", args...)
}

func (e Env) logf(format string, args ...any) { e.Logf(format, args...) }

// Protect adds secrets to the redactor and returns those long enough to
// be treated as secrets (redact.MinLen).
func (e Env) Protect(secrets ...string) []string {
	s := redact.Secrets(secrets...)
	e.Red.Add(s...)
	return s
}

func (e Env) protect(secrets ...string) []string { return e.Protect(secrets...) }

// ErrorText is err's message for text that is stored or posted.
func (e Env) ErrorText(err error) string {
	return e.Red.String(fmt.Sprint(err))
}

// judgeClock returns the clock and waits of the LLM judge (nil: real time).
func (e Env) judgeClock() (func() time.Time, judge.SleepFunc) {
	if e.Clock == nil {
		return nil, nil
	}
	return e.Clock.Now, e.Clock.Sleep
}

// GitHubOptions are the GitHub client options the environment asks for.
func (e Env) GitHubOptions() []ghapi.Option {
	if e.Clock == nil {
		return nil
	}
	return []ghapi.Option{ghapi.WithSleep(e.Clock.Sleep)}
}
