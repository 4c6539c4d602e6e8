package ghaction

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/inputfile"
)

// Default URLs of github.com, used when GITHUB_API_URL / GITHUB_SERVER_URL
// are unset.
const (
	DefaultAPIURL    = "https://api.github.com"
	DefaultServerURL = "https://github.com"
)

// Context is the workflow run's context: GITHUB_* variables plus the parts
// of the event payload raggate needs.
type Context struct {
	// EventName is GITHUB_EVENT_NAME: "pull_request", "push",
	// "workflow_dispatch", "merge_group", ...
	EventName string
	// EventPath is GITHUB_EVENT_PATH, the event payload file.
	EventPath string
	// Repository is "owner/name" (GITHUB_REPOSITORY, else the payload's
	// repository.full_name); Owner and Repo are its parts.
	Repository  string
	Owner, Repo string
	// APIURL is GITHUB_API_URL (GitHub Enterprise: https://HOST/api/v3),
	// default DefaultAPIURL.
	APIURL string
	// ServerURL is GITHUB_SERVER_URL, default DefaultServerURL.
	ServerURL string
	// SHA is GITHUB_SHA. On pull_request it is the test merge commit, not
	// the PR head: use HeadSHA for that.
	SHA string
	// Ref is GITHUB_REF, e.g. "refs/heads/main" or "refs/pull/7/merge".
	Ref string
	// BaseRef and HeadRef are GITHUB_BASE_REF and GITHUB_HEAD_REF (set on
	// pull_request events only).
	BaseRef, HeadRef string
	// Workspace is GITHUB_WORKSPACE, the checkout directory.
	Workspace string
	// RunID and RunAttempt are GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT.
	RunID      int64
	RunAttempt int
	// Actor is GITHUB_ACTOR.
	Actor string
	// Warnings are problems with optional variables that were ignored
	// (a malformed GITHUB_RUN_ID or GITHUB_RUN_ATTEMPT): the caller
	// should show them as warning annotations.
	Warnings []string

	// DefaultBranch is the payload's repository.default_branch.
	DefaultBranch string
	// Exactly one of the following is set for the matching events
	// (PullRequest also for pull_request_target and pull_request_review).
	PullRequest *PullRequest
	Push        *Push
	MergeGroup  *MergeGroup
	Dispatch    *Dispatch
	WorkflowRun *WorkflowRun
}

// WorkflowRun holds the run that triggered a workflow_run event: the
// privileged half of the fork-safe pattern trusts these values (GitHub
// writes them), never the artifacts of the run.
type WorkflowRun struct {
	ID int64
	// Event is the event of the triggering run ("pull_request").
	Event      string
	HeadSHA    string
	HeadBranch string
	// HeadRepo is the full name of the repository the head commit is in
	// (the fork, for pull requests from forks).
	HeadRepo   string
	Conclusion string
	// PullRequests are the numbers GitHub associates with the run; empty
	// for pull requests from forks.
	PullRequests []int
}

// PullRequest holds the pull request of a pull_request event.
type PullRequest struct {
	Number int
	// Action is the event's activity type: "opened", "synchronize", ...
	Action  string
	Draft   bool
	HTMLURL string
	HeadSHA string
	HeadRef string
	// HeadRepo is the full name of the repository the head branch lives
	// in; "" when that fork was deleted.
	HeadRepo string
	BaseSHA  string
	BaseRef  string
	BaseRepo string
	// Fork is set when the head repository is not the base repository
	// (or is gone): the run gets a read-only token and no secrets.
	Fork bool
}

// Push holds a push event.
type Push struct {
	Ref     string
	Before  string
	After   string
	Created bool
	Deleted bool
	Forced  bool
}

// MergeGroup holds a merge_group event (merge queue).
type MergeGroup struct {
	HeadSHA string
	HeadRef string
	BaseSHA string
	// BaseRef is the target branch ref, e.g. "refs/heads/main".
	BaseRef string
}

// Dispatch holds a workflow_dispatch event.
type Dispatch struct {
	Ref string
	// Inputs are the dispatch inputs as strings.
	Inputs map[string]string
}

// Context reads the run's context from the environment and the event
// payload. Outside GitHub Actions (no GITHUB_EVENT_PATH) it returns the
// environment part only.
func (a *Action) Context() (*Context, error) { return ReadContext(a.getenv) }

// ReadContext is Action.Context with an explicit environment (os.Getenv
// when nil).
func ReadContext(getenv func(string) string) (*Context, error) {
	getenv = orGetenv(getenv)
	c := &Context{
		EventName:  getenv("GITHUB_EVENT_NAME"),
		EventPath:  getenv("GITHUB_EVENT_PATH"),
		Repository: getenv("GITHUB_REPOSITORY"),
		APIURL:     strings.TrimSuffix(getenv("GITHUB_API_URL"), "/"),
		ServerURL:  strings.TrimSuffix(getenv("GITHUB_SERVER_URL"), "/"),
		SHA:        getenv("GITHUB_SHA"),
		Ref:        getenv("GITHUB_REF"),
		BaseRef:    getenv("GITHUB_BASE_REF"),
		HeadRef:    getenv("GITHUB_HEAD_REF"),
		Workspace:  getenv("GITHUB_WORKSPACE"),
		Actor:      getenv("GITHUB_ACTOR"),
	}
	if c.APIURL == "" {
		c.APIURL = DefaultAPIURL
	}
	if c.ServerURL == "" {
		c.ServerURL = DefaultServerURL
	}
	// The run id and attempt only make the run's URL: a malformed value
	// is ignored with a warning, never a reason to stop the gate.
	if v := getenv("GITHUB_RUN_ID"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("ignoring GITHUB_RUN_ID %q: not a positive number (the report links no workflow run)", v))
		} else {
			c.RunID = id
		}
	}
	if v := getenv("GITHUB_RUN_ATTEMPT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("ignoring GITHUB_RUN_ATTEMPT %q: not a positive number", v))
		} else {
			c.RunAttempt = n
		}
	}
	if err := c.readEvent(); err != nil {
		return nil, err
	}
	if c.Repository != "" {
		owner, name, ok := strings.Cut(c.Repository, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("GITHUB_REPOSITORY %q: want owner/name", c.Repository)
		}
		c.Owner, c.Repo = owner, name
	}
	return c, nil
}

// ErrNoPayload is wrapped by ReadContext when the event is a change under
// review (pull_request*, merge_group) but its payload is missing, empty or
// lacks the pull request: without it the base commit is unknown, and the
// gate would trust the change's own files (thresholds, baseline).
var ErrNoPayload = errors.New("the event payload is required")

// underReview reports the events whose payload names a base to compare
// against.
func underReview(event string) bool {
	return strings.HasPrefix(event, "pull_request") || event == "merge_group"
}

// readEvent reads and parses the payload at EventPath. A change under
// review must have one.
// maxEventBytes bounds the event payload: GitHub caps webhook payloads at
// 25 MB.
const maxEventBytes = 25 << 20

func (c *Context) readEvent() error {
	review := underReview(c.EventName)
	if c.EventPath == "" {
		if review {
			return fmt.Errorf("%w: GITHUB_EVENT_NAME is %s but GITHUB_EVENT_PATH is not set; raggate will not judge a change under review without knowing its base (it would trust the change's own thresholds and baseline)", ErrNoPayload, c.EventName)
		}
		return nil
	}
	data, err := inputfile.ReadFile(c.EventPath, maxEventBytes)
	if err != nil {
		if review {
			return fmt.Errorf("%w: read the %s payload (GITHUB_EVENT_PATH): %w", ErrNoPayload, c.EventName, err)
		}
		return fmt.Errorf("read the event payload (GITHUB_EVENT_PATH): %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if review {
			return fmt.Errorf("%w: the %s payload %s is empty", ErrNoPayload, c.EventName, c.EventPath)
		}
		return nil
	}
	if err := c.parseEvent(data); err != nil {
		return fmt.Errorf("event payload %s: %w", c.EventPath, err)
	}
	if review && c.PullRequest == nil && c.MergeGroup == nil {
		return fmt.Errorf("%w: the %s payload %s has no %s object", ErrNoPayload, c.EventName, c.EventPath, payloadKey(c.EventName))
	}
	return nil
}

func payloadKey(event string) string {
	if event == "merge_group" {
		return "merge_group"
	}
	return "pull_request"
}

type payloadRepo struct {
	FullName      string `json:"full_name"`
	DefaultBranch string `json:"default_branch"`
}

type payload struct {
	Action     string         `json:"action"`
	Ref        string         `json:"ref"`
	Before     string         `json:"before"`
	After      string         `json:"after"`
	Created    bool           `json:"created"`
	Deleted    bool           `json:"deleted"`
	Forced     bool           `json:"forced"`
	Inputs     map[string]any `json:"inputs"`
	Repository *payloadRepo   `json:"repository"`

	PullRequest *struct {
		Number  int    `json:"number"`
		Draft   bool   `json:"draft"`
		HTMLURL string `json:"html_url"`
		Head    struct {
			SHA  string       `json:"sha"`
			Ref  string       `json:"ref"`
			Repo *payloadRepo `json:"repo"`
		} `json:"head"`
		Base struct {
			SHA  string       `json:"sha"`
			Ref  string       `json:"ref"`
			Repo *payloadRepo `json:"repo"`
		} `json:"base"`
	} `json:"pull_request"`

	WorkflowRun *struct {
		ID             int64        `json:"id"`
		Event          string       `json:"event"`
		HeadSHA        string       `json:"head_sha"`
		HeadBranch     string       `json:"head_branch"`
		Conclusion     string       `json:"conclusion"`
		HeadRepository *payloadRepo `json:"head_repository"`
		PullRequests   []struct {
			Number int `json:"number"`
		} `json:"pull_requests"`
	} `json:"workflow_run"`

	MergeGroup *struct {
		HeadSHA string `json:"head_sha"`
		HeadRef string `json:"head_ref"`
		BaseSHA string `json:"base_sha"`
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
}

func (c *Context) parseEvent(data []byte) error {
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if p.Repository != nil {
		c.DefaultBranch = p.Repository.DefaultBranch
		if c.Repository == "" {
			c.Repository = p.Repository.FullName
		}
	}
	switch {
	case p.PullRequest != nil && strings.HasPrefix(c.EventName, "pull_request"):
		pr := p.PullRequest
		out := &PullRequest{
			Number: pr.Number, Action: p.Action, Draft: pr.Draft, HTMLURL: pr.HTMLURL,
			HeadSHA: pr.Head.SHA, HeadRef: pr.Head.Ref,
			BaseSHA: pr.Base.SHA, BaseRef: pr.Base.Ref,
		}
		if pr.Base.Repo != nil {
			out.BaseRepo = pr.Base.Repo.FullName
			if c.DefaultBranch == "" {
				c.DefaultBranch = pr.Base.Repo.DefaultBranch
			}
		}
		if pr.Head.Repo != nil {
			out.HeadRepo = pr.Head.Repo.FullName
		}
		out.Fork = out.HeadRepo == "" || !strings.EqualFold(out.HeadRepo, out.BaseRepo)
		if out.Number == 0 {
			return fmt.Errorf("%s event without a pull request number", c.EventName)
		}
		c.PullRequest = out
	case c.EventName == "push":
		c.Push = &Push{Ref: p.Ref, Before: p.Before, After: p.After, Created: p.Created, Deleted: p.Deleted, Forced: p.Forced}
	case p.MergeGroup != nil && c.EventName == "merge_group":
		mg := p.MergeGroup
		c.MergeGroup = &MergeGroup{HeadSHA: mg.HeadSHA, HeadRef: mg.HeadRef, BaseSHA: mg.BaseSHA, BaseRef: mg.BaseRef}
	case p.WorkflowRun != nil && c.EventName == "workflow_run":
		wr := p.WorkflowRun
		out := &WorkflowRun{ID: wr.ID, Event: wr.Event, HeadSHA: wr.HeadSHA, HeadBranch: wr.HeadBranch, Conclusion: wr.Conclusion}
		if wr.HeadRepository != nil {
			out.HeadRepo = wr.HeadRepository.FullName
		}
		for _, pr := range wr.PullRequests {
			out.PullRequests = append(out.PullRequests, pr.Number)
		}
		c.WorkflowRun = out
	case c.EventName == "workflow_dispatch":
		d := &Dispatch{Ref: p.Ref, Inputs: map[string]string{}}
		for k, v := range p.Inputs {
			if s, ok := v.(string); ok {
				d.Inputs[k] = s
			} else if v != nil {
				d.Inputs[k] = fmt.Sprint(v)
			}
		}
		c.Dispatch = d
	}
	return nil
}

// IsPullRequest reports whether the run is for a pull request.
func (c *Context) IsPullRequest() bool { return c.PullRequest != nil }

// IsFork reports whether the run is for a pull request from a fork.
func (c *Context) IsFork() bool { return c.PullRequest != nil && c.PullRequest.Fork }

// HeadSHA returns the commit the run evaluates for reporting: the pull
// request's head (not the merge commit in GITHUB_SHA), the merge group's
// head, the pushed head, else GITHUB_SHA.
func (c *Context) HeadSHA() string {
	switch {
	case c.PullRequest != nil && c.PullRequest.HeadSHA != "":
		return c.PullRequest.HeadSHA
	case c.MergeGroup != nil && c.MergeGroup.HeadSHA != "":
		return c.MergeGroup.HeadSHA
	case c.Push != nil && c.Push.After != "" && !c.Push.Deleted:
		return c.Push.After
	}
	return c.SHA
}

// Base returns the branch and commit to compare against: the pull
// request's base branch and base sha, or the merge group's target branch
// and base sha; "" otherwise.
func (c *Context) Base() (branch, sha string) {
	switch {
	case c.PullRequest != nil:
		b := c.PullRequest.BaseRef
		if b == "" {
			b = c.BaseRef
		}
		return b, c.PullRequest.BaseSHA
	case c.MergeGroup != nil:
		return strings.TrimPrefix(c.MergeGroup.BaseRef, "refs/heads/"), c.MergeGroup.BaseSHA
	}
	return "", ""
}

// Branch returns the branch of a push (or of GITHUB_REF when it names a
// branch), without refs/heads/; "" for tags and pull request refs.
func (c *Context) Branch() string {
	ref := c.Ref
	if c.Push != nil && c.Push.Ref != "" {
		ref = c.Push.Ref
	}
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return b
	}
	return ""
}

// IsDefaultBranchPush reports whether the run is a push (not a deletion)
// to the repository's default branch: the moment to store a baseline.
func (c *Context) IsDefaultBranchPush() bool {
	return c.Push != nil && !c.Push.Deleted && c.DefaultBranch != "" && c.Branch() == c.DefaultBranch
}

// RunURL returns the web URL of the workflow run, or "" when unknown.
func (c *Context) RunURL() string {
	if c.Repository == "" || c.RunID == 0 {
		return ""
	}
	u := fmt.Sprintf("%s/%s/actions/runs/%d", c.ServerURL, c.Repository, c.RunID)
	if c.RunAttempt > 1 {
		u += fmt.Sprintf("/attempts/%d", c.RunAttempt)
	}
	return u
}
