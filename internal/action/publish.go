package action

import (
	"context"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/ghaction"
	"github.com/raggate/raggate/internal/ghcomment"
)

// Publisher is where a run of the action says what it found: annotations,
// the job summary, the step outputs and the sticky PR comment, and the
// secrets the runner must mask in its log. The workflow publisher writes
// GitHub's workflow commands and files and calls the GitHub API; a test
// can publish into memory.
type Publisher interface {
	Error(msg, title string)
	Warning(msg, title string)
	Notice(msg, title string)
	// Mask asks the runner to hide secret in the log.
	Mask(secret string)
	AddSummary(markdown string) error
	// SetOutputs writes every step output once.
	SetOutputs(values map[string]string) error
	// Comment creates or updates the sticky comment c describes.
	Comment(ctx context.Context, c Comment) (ghcomment.Result, error)
}

// Comment is one sticky comment to post: its body and where.
type Comment struct {
	// Client and Author are the GitHub client and the login it comments
	// as ("" = ask GitHub).
	Client      *github.Client
	Author      string
	Owner, Repo string
	PR          int
	Gate        string // the gate's name, in the comment's hidden marker
	Body        string
	HeadSHA     string
}

// workflowPublisher publishes to the runner (workflow commands on stdout,
// the files GitHub names) and the GitHub API.
type workflowPublisher struct {
	act, masks *ghaction.Action
	// commenter is one per run: the token's identity is looked up once.
	commenter *ghcomment.Commenter
}

var _ Publisher = (*workflowPublisher)(nil)

func (p *workflowPublisher) Error(msg, title string) {
	p.act.Error(msg, ghaction.Annotation{Title: title})
}
func (p *workflowPublisher) Warning(msg, title string) {
	p.act.Warning(msg, ghaction.Annotation{Title: title})
}
func (p *workflowPublisher) Notice(msg, title string) {
	p.act.Notice(msg, ghaction.Annotation{Title: title})
}
func (p *workflowPublisher) Mask(secret string)                   { p.masks.Mask(secret) }
func (p *workflowPublisher) AddSummary(markdown string) error     { return p.act.AddSummary(markdown) }
func (p *workflowPublisher) SetOutputs(v map[string]string) error { return p.act.SetOutputs(v) }

func (p *workflowPublisher) Comment(ctx context.Context, c Comment) (ghcomment.Result, error) {
	if p.commenter == nil {
		p.commenter = &ghcomment.Commenter{Client: c.Client, Author: c.Author}
	}
	return p.commenter.Upsert(ctx, c.Owner, c.Repo, c.PR, c.Gate, c.Body, c.HeadSHA)
}
