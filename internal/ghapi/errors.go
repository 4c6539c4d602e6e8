// Package ghapi is raggate's one door to the GitHub REST API: it builds the
// go-github client (token, GitHub Enterprise URLs, bounded retries of rate
// limits and transient errors: NewClient), classifies what GitHub answers
// into a few kinds callers can test with errors.Is (Classify), reads a
// file of the repository as it is at a commit or branch (ReadFileAt,
// GetFile) and tells whether one commit is an ancestor of another
// (IsAncestor). Package ghcomment (the sticky comment), the baseline stores
// and the action's thresholds read use it.
//
// It is an edge package: it may import net/http and go-github; the pure
// packages (metrics, compare, report, results, dataset, redact) never import
// it.
package ghapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"
	"github.com/raggate/raggate/internal/neterr"
)

// The kinds of GitHub failure Classify recognises. Test with errors.Is.
var (
	// ErrNotFound: 404, the repository, commit or file does not exist or
	// the token cannot see it.
	ErrNotFound = errors.New("not found")
	// ErrNoPermission: 403, the token may not do this (pull requests from
	// forks get a read-only token; the job lacks a `permissions:` entry).
	ErrNoPermission = errors.New("no permission")
	// ErrUnauthorized: 401, a missing, expired or revoked token.
	ErrUnauthorized = errors.New("bad credentials")
	// ErrRateLimited: still rate-limited after NewClient's retries.
	ErrRateLimited = errors.New("GitHub API rate limit exceeded")
)

// StatusOf returns the HTTP status of a go-github error, or 0.
func StatusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// IsRateLimit reports whether err is a primary or secondary rate limit.
func IsRateLimit(err error) bool {
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	return errors.As(err, &rl) || errors.As(err, &ab) || StatusOf(err) == http.StatusTooManyRequests
}

// IsNotFound reports whether err is GitHub's 404.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// Fixes say how to resolve the failures Classify recognises, for the
// operation at hand. Empty fields use the defaults below.
type Fixes struct {
	// NoPermission is said after a 403, e.g. "give the job
	// `permissions: contents: write`".
	NoPermission string
	// NotFound is said after a 404.
	NotFound string
}

// Classify wraps err, the answer to operation op, with op, the kind of
// failure (ErrRateLimited, ErrNoPermission, ErrUnauthorized, ErrNotFound,
// or none) and how to fix it. The go-github error stays in the chain.
func Classify(op string, err error, fix Fixes) error {
	if IsRateLimit(err) {
		return fmt.Errorf("%s: %w (retries exhausted; re-run the job later): %w", op, ErrRateLimited, err)
	}
	switch StatusOf(err) {
	case http.StatusForbidden:
		return fmt.Errorf("%s: %w: %s: %w", op, ErrNoPermission, orDefault(fix.NoPermission, "check the job's `permissions:` (pull requests from forks get a read-only token)"), err)
	case http.StatusUnauthorized:
		return fmt.Errorf("%s: %w: check the github-token input: %w", op, ErrUnauthorized, err)
	case http.StatusNotFound:
		return fmt.Errorf("%s: %w: %s: %w", op, ErrNotFound, orDefault(fix.NotFound, "check the repository, and that the token can see it"), err)
	}
	return fmt.Errorf("%s: %w", op, neterr.Wrap(err))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
