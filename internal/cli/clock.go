package cli

import (
	"context"
	"time"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/judge"
)

// Clock is the time of the waits between retries of judge and GitHub API
// calls. Env.Clock is nil in production (real time); tests pass a virtual
// clock whose Sleep returns at once, so retries cost no wall time.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done; it returns ctx.Err() then.
	Sleep(ctx context.Context, d time.Duration) error
}

// judgeClock returns the clock and waits of the LLM judge (nil: real time).
func (e Env) judgeClock() (func() time.Time, judge.SleepFunc) {
	if e.Clock == nil {
		return nil, nil
	}
	return e.Clock.Now, e.Clock.Sleep
}

// githubOptions are the GitHub client options the environment asks for.
func (e Env) githubOptions() []ghapi.Option {
	if e.Clock == nil {
		return nil
	}
	return []ghapi.Option{ghapi.WithSleep(e.Clock.Sleep)}
}
