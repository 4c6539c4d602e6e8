// Package ghcomment keeps one sticky pull request comment per gate, through
// go-github: the comment is found by a hidden marker, updated in place,
// created when missing, and never duplicated by raggate itself.
//
// # Marker
//
// Upsert prefixes the body with two HTML comments that GitHub does not
// render:
//
//	<!-- raggate:gate=<gate> -->
//	<!-- raggate:head=<head sha> -->
//
// A comment is "ours" when a line of it is exactly the gate marker AND its
// author is the token's own identity: Commenter.Author when set, else
// GET /user (personal access tokens). The workflow's GITHUB_TOKEN and app
// installation tokens (actions/create-github-app-token) get 403 "Resource
// not accessible by integration" there; Upsert then asks GraphQL's
// `viewer { login }`, which answers them with the "<slug>[bot]" login
// ("github-actions[bot]" for the GITHUB_TOKEN). Only when that fails too
// does it assume DefaultBotLogin, and says so in Result.AuthorAssumed: a
// GitHub App token then needs Commenter.Author. A comment by anyone else
// that quotes the marker is ignored.
//
// # Older runs
//
// Two runs of the same PR can finish out of order. When the existing
// comment records a different head sha, Upsert asks the compare API
// (GET /repos/{o}/{r}/compare/{existing}...{ours}): status "behind" means
// our head is an ancestor of the recorded one, so this run is older and
// the comment is left alone (Result.Action == Skipped). "ahead",
// "identical", "diverged" (a force-push or rebase: the rewritten history is
// the newer one) and 404 (the recorded commit is gone) overwrite.
//
// # Errors
//
// GitHub's answers are classified by package ghapi. ErrNoPermission (403:
// fork PRs, read-only tokens, missing `permissions: pull-requests: write`)
// should become a warning plus the job summary; ErrRateLimited is returned
// once ghapi.NewClient's transport has given up; both are ghapi's kinds.
// ErrBodyTooLarge is returned when the body with markers exceeds
// MaxBodyChars. All wrap the underlying *github.ErrorResponse where there
// is one.
package ghcomment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/results"
)

// MaxBodyChars is GitHub's limit on a comment body, in characters,
// including the markers Upsert adds.
const MaxBodyChars = 65536

// DefaultBotLogin is the author of comments made with a workflow's
// GITHUB_TOKEN.
const DefaultBotLogin = "github-actions[bot]"

var (
	// ErrNoPermission is wrapped when GitHub answers 403: the token may not
	// read or write comments (pull requests from forks get a read-only
	// token; the job needs `permissions: pull-requests: write`). It is
	// ghapi.ErrNoPermission.
	ErrNoPermission = ghapi.ErrNoPermission
	// ErrBodyTooLarge is wrapped when the comment would exceed MaxBodyChars.
	ErrBodyTooLarge = errors.New("comment body too large")
	// ErrRateLimited is wrapped when GitHub still rate-limits after the
	// retries of ghapi.NewClient's transport (ghapi.ErrRateLimited).
	ErrRateLimited = ghapi.ErrRateLimited
)

// Action says what Upsert did.
type Action string

// Upsert outcomes.
const (
	Created   Action = "created"   // no comment of ours existed; one was created
	Updated   Action = "updated"   // our comment was edited in place
	Unchanged Action = "unchanged" // our comment already had this exact body
	Skipped   Action = "skipped"   // our comment records a newer head; left alone
)

// Result describes the outcome of Upsert.
type Result struct {
	Action    Action
	CommentID int64
	// URL is the comment's html_url.
	URL string
	// Author is the login whose comments were considered ours.
	Author string
	// AuthorAssumed is set when the token's identity could be read neither
	// from GET /user nor from GraphQL and Author is DefaultBotLogin by
	// assumption (wrong for a GitHub App token: set Commenter.Author).
	AuthorAssumed bool
	// PreviousHead is the head sha the existing comment recorded, if any.
	PreviousHead string
	// Reason explains a Skipped result.
	Reason string
	// Duplicates lists ids of further comments of ours with the same
	// marker (left by concurrent first runs); the oldest one is updated.
	Duplicates []int64
}

// The marker lines, defined here only: report renders the body, Compose
// adds the markers.
const (
	markerPrefix = "<!-- raggate:"
	gatePrefix   = markerPrefix + "gate="
	headPrefix   = markerPrefix + "head="
	markerSuffix = " -->"
)

// GateMarker returns the hidden line that identifies gate's comment.
func GateMarker(gate string) string { return gatePrefix + gate + markerSuffix }

// HeadMarker returns the hidden line that records the head sha.
func HeadMarker(sha string) string { return headPrefix + sha + markerSuffix }

var (
	gateRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 ._/:@+-]{0,99}$`)
	shaRE  = regexp.MustCompile(`^[0-9a-f]{7,64}$`)
)

// Compose returns the full comment: the two markers, then body; it is the
// one place that adds them (report.Markdown renders the body without). It
// validates gate (letters, digits, space and ._/:@+-, at most 100
// characters, no "--") and headSHA (hex, may be empty), and rejects a
// result longer than MaxBodyChars with ErrBodyTooLarge.
func Compose(gate, headSHA, body string) (string, error) {
	if !gateRE.MatchString(gate) || strings.Contains(gate, "--") {
		return "", fmt.Errorf("invalid gate name %q: use letters, digits, space and ._/:@+- (at most 100 characters, no \"--\")", gate)
	}
	headSHA = strings.ToLower(strings.TrimSpace(headSHA))
	if headSHA != "" && !shaRE.MatchString(headSHA) {
		return "", fmt.Errorf("invalid head sha %q: want a hexadecimal commit id", headSHA)
	}
	full := GateMarker(gate) + "\n"
	if headSHA != "" {
		full += HeadMarker(headSHA) + "\n"
	}
	full += stripMarkers(body)
	if n := utf8.RuneCountInString(full); n > MaxBodyChars {
		return "", fmt.Errorf("%w: %d characters with markers, GitHub allows %d; shorten the report (fewer rows or details)", ErrBodyTooLarge, n, MaxBodyChars)
	}
	return full, nil
}

// stripMarkers removes raggate marker lines from body (renderers escape
// untrusted text, so none should be there), so that the comment carries
// exactly one of each.
func stripMarkers(body string) string {
	if !strings.Contains(body, markerPrefix) {
		return body
	}
	var b strings.Builder
	for l := range strings.SplitSeq(body, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, markerPrefix) && strings.HasSuffix(t, "-->") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// hasLine reports whether body has a line equal to line (ignoring
// surrounding whitespace, so \r\n bodies edited on the web still match).
func hasLine(body, line string) bool {
	for l := range strings.SplitSeq(body, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}

// recordedHead returns the sha of the head marker in body, or "".
func recordedHead(body string) string {
	for l := range strings.SplitSeq(body, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, headPrefix) && strings.HasSuffix(l, markerSuffix) {
			return strings.ToLower(l[len(headPrefix) : len(l)-len(markerSuffix)])
		}
	}
	return ""
}

// Commenter upserts sticky comments; it remembers the token's identity
// between calls. The zero value is not usable: set Client.
type Commenter struct {
	// Client talks to GitHub; use ghapi.NewClient for retries and Enterprise.
	Client *github.Client
	// Author is the login whose comments are ours. Empty: GET /user, or
	// DefaultBotLogin when the token is an integration token.
	Author string

	mu       sync.Mutex
	identity string
	assumed  bool
}

// Upsert creates or updates the sticky comment of gate on pull request pr
// of owner/repo with a Commenter using the default identity rules.
func Upsert(ctx context.Context, client *github.Client, owner, repo string, pr int, gate string, body string, headSHA string) (Result, error) {
	return (&Commenter{Client: client}).Upsert(ctx, owner, repo, pr, gate, body, headSHA)
}

// Upsert creates or updates the sticky comment of gate on pull request pr
// of owner/repo. headSHA is the pull request head the report is for (the
// event's pull_request.head.sha, not GITHUB_SHA, which is a merge commit).
func (c *Commenter) Upsert(ctx context.Context, owner, repo string, pr int, gate string, body string, headSHA string) (Result, error) {
	if c.Client == nil {
		return Result{}, errors.New("ghcomment: no GitHub client")
	}
	if owner == "" || repo == "" {
		return Result{}, fmt.Errorf("ghcomment: repository %q/%q: want owner and name (GITHUB_REPOSITORY)", owner, repo)
	}
	if pr <= 0 {
		return Result{}, fmt.Errorf("ghcomment: invalid pull request number %d", pr)
	}
	headSHA = strings.ToLower(strings.TrimSpace(headSHA))
	full, err := Compose(gate, headSHA, body)
	if err != nil {
		return Result{}, err
	}
	author, assumed, err := c.whoAmI(ctx)
	if err != nil {
		return Result{}, err
	}
	res := Result{Author: author, AuthorAssumed: assumed}
	where := fmt.Sprintf("%s/%s#%d", owner, repo, pr)

	existing, dups, err := c.find(ctx, owner, repo, pr, GateMarker(gate), author)
	if err != nil {
		return res, err
	}
	res.Duplicates = dups
	if existing == nil {
		created, _, err := c.Client.Issues.CreateComment(ctx, owner, repo, pr, &github.IssueComment{Body: &full})
		if err != nil {
			return res, classify("create comment on "+where, err)
		}
		res.Action, res.CommentID, res.URL = Created, created.GetID(), created.GetHTMLURL()
		return res, nil
	}
	res.CommentID, res.URL = existing.GetID(), existing.GetHTMLURL()
	res.PreviousHead = recordedHead(existing.GetBody())
	if prev := res.PreviousHead; prev != "" && headSHA != "" && !sameCommit(prev, headSHA) {
		older, err := c.older(ctx, owner, repo, prev, headSHA)
		if err != nil {
			return res, err
		}
		if older {
			res.Action = Skipped
			res.Reason = fmt.Sprintf("the comment already reports %s, which is newer than %s (this run is for an older head)", results.ShortHash(prev), results.ShortHash(headSHA))
			return res, nil
		}
	}
	if existing.GetBody() == full {
		res.Action = Unchanged
		return res, nil
	}
	edited, _, err := c.Client.Issues.EditComment(ctx, owner, repo, existing.GetID(), &github.IssueComment{Body: &full})
	if err != nil {
		return res, classify("update comment on "+where, err)
	}
	res.Action = Updated
	if u := edited.GetHTMLURL(); u != "" {
		res.URL = u
	}
	return res, nil
}

// whoAmI returns the login of the token's account, and whether it is
// DefaultBotLogin by assumption.
func (c *Commenter) whoAmI(ctx context.Context) (string, bool, error) {
	if c.Author != "" {
		return c.Author, false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.identity != "" {
		return c.identity, c.assumed, nil
	}
	u, _, err := c.Client.Users.Get(ctx, "")
	switch {
	case err == nil && u.GetLogin() != "":
		c.identity = u.GetLogin()
	case ghapi.StatusOf(err) == http.StatusForbidden && !ghapi.IsRateLimit(err):
		// GITHUB_TOKEN and app installation tokens may not read /user
		// ("Resource not accessible by integration"); GraphQL's viewer
		// answers them.
		login, verr := viewerLogin(ctx, c.Client)
		if verr != nil {
			if ctx.Err() != nil {
				return "", false, ctx.Err()
			}
			// Old Enterprise servers, GraphQL blocked: the workflow token
			// comments as github-actions[bot].
			login, c.assumed = DefaultBotLogin, true
		}
		c.identity = login
	case err == nil:
		return "", false, errors.New("ghcomment: GET /user returned no login")
	default:
		return "", false, classify("identify the token's account (GET /user)", err)
	}
	return c.identity, c.assumed, nil
}

// viewerLogin asks GraphQL for the token's login: { viewer { login } }.
// The endpoint is https://api.github.com/graphql, or
// https://HOST/api/graphql on GitHub Enterprise Server (REST under
// /api/v3/).
func viewerLogin(ctx context.Context, client *github.Client) (string, error) {
	u := "graphql"
	if p := client.BaseURL.Path; strings.HasSuffix(p, "/api/v3/") {
		g := *client.BaseURL
		g.Path = strings.TrimSuffix(p, "v3/") + "graphql"
		u = g.String()
	}
	req, err := client.NewRequest(http.MethodPost, u, map[string]string{"query": "query { viewer { login } }"})
	if err != nil {
		return "", err
	}
	var out struct {
		Data struct {
			Viewer struct {
				Login string `json:"login"`
			} `json:"viewer"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if _, err := client.Do(ctx, req, &out); err != nil {
		return "", classify("identify the token's account (GraphQL viewer)", err)
	}
	if out.Data.Viewer.Login == "" {
		msg := "no login"
		if len(out.Errors) > 0 {
			msg = out.Errors[0].Message
		}
		return "", fmt.Errorf("identify the token's account (GraphQL viewer): %s", msg)
	}
	return out.Data.Viewer.Login, nil
}

// find lists every comment of the pull request (100 per page, following
// the Link header) and returns the oldest one authored by author that
// carries marker, plus the ids of any later ones.
func (c *Commenter) find(ctx context.Context, owner, repo string, pr int, marker, author string) (*github.IssueComment, []int64, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	var found *github.IssueComment
	var dups []int64
	for pages := 0; ; pages++ {
		comments, resp, err := c.Client.Issues.ListComments(ctx, owner, repo, pr, opts)
		if err != nil {
			return nil, nil, classify(fmt.Sprintf("list comments of %s/%s#%d", owner, repo, pr), err)
		}
		for _, cm := range comments {
			if !strings.EqualFold(cm.GetUser().GetLogin(), author) || !hasLine(cm.GetBody(), marker) {
				continue
			}
			if found == nil {
				found = cm
			} else {
				dups = append(dups, cm.GetID())
			}
		}
		if resp == nil || resp.NextPage == 0 || resp.NextPage <= opts.Page || pages > 1000 {
			return found, dups, nil
		}
		opts.Page = resp.NextPage
	}
}

// older reports whether ours is an ancestor of (older than) recorded.
func (c *Commenter) older(ctx context.Context, owner, repo, recorded, ours string) (bool, error) {
	return ghapi.IsAncestor(ctx, c.Client, owner, repo, ours, recorded, commentFixes)
}

func sameCommit(a, b string) bool {
	n := min(len(a), len(b))
	return n >= 7 && strings.EqualFold(a[:n], b[:n])
}

// classify wraps err with what was being done, its kind (ErrNoPermission,
// ErrRateLimited, ...) and the fix for a comment.
func classify(op string, err error) error {
	return ghapi.Classify(op, err, commentFixes)
}

var commentFixes = ghapi.Fixes{
	NoPermission: "the token is read-only here (pull requests from forks get a read-only GITHUB_TOKEN) or the job lacks `permissions: pull-requests: write`",
	NotFound:     "check the repository and pull request number, and that the token can see the repository",
}
