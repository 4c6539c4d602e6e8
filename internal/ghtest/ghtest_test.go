package ghtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/ghtest"
)

const repo = "octo/rag"

func status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Response.StatusCode
	}
	return 0
}

func TestCommentsPagination(t *testing.T) {
	s := ghtest.NewServer(t)
	for i := range 250 {
		s.AddComment(repo, 1, ghtest.User("u"), fmt.Sprint(i))
	}
	c := s.Client()
	ctx := context.Background()

	// Raw Link header, as GitHub sends it.
	resp, err := s.HTTPClient().Get(s.URL + "repos/octo/rag/issues/1/comments?per_page=100&page=2")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	link := resp.Header.Get("Link")
	for _, want := range []string{`page=1&per_page=100>; rel="prev"`, `page=3&per_page=100>; rel="next"`, `page=3&per_page=100>; rel="last"`, `rel="first"`} {
		if !strings.Contains(link, want) {
			t.Errorf("Link %q lacks %q", link, want)
		}
	}

	tests := []struct {
		perPage   int
		wantPages int
		wantFirst int
	}{{100, 3, 100}, {0, 9, 30}, {500, 3, 100}}
	for _, tt := range tests {
		opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: tt.perPage}}
		var all []*github.IssueComment
		pages := 0
		for {
			cs, resp, err := c.Issues.ListComments(ctx, "octo", "rag", 1, opts)
			if err != nil {
				t.Fatal(err)
			}
			if pages == 0 && len(cs) != tt.wantFirst {
				t.Errorf("per_page %d: first page has %d", tt.perPage, len(cs))
			}
			pages++
			all = append(all, cs...)
			if resp.NextPage == 0 {
				if resp.LastPage != 0 {
					t.Errorf("last page has rel=last")
				}
				break
			}
			opts.Page = resp.NextPage
		}
		if len(all) != 250 || pages != tt.wantPages || all[249].GetBody() != "249" {
			t.Errorf("per_page %d: %d comments in %d pages", tt.perPage, len(all), pages)
		}
	}
}

func TestCommentsCreateEdit(t *testing.T) {
	s := ghtest.NewServer(t)
	c := s.Client()
	ctx := context.Background()
	created, resp, err := c.Issues.CreateComment(ctx, "octo", "rag", 3, &github.IssueComment{Body: github.String("hi")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v %v", resp, err)
	}
	if created.GetUser().GetLogin() != ghtest.DefaultUser.Login || created.GetUser().GetType() != "User" {
		t.Errorf("author %+v", created.GetUser())
	}
	edited, resp, err := c.Issues.EditComment(ctx, "octo", "rag", created.GetID(), &github.IssueComment{Body: github.String("bye")})
	if err != nil || resp.StatusCode != http.StatusOK || edited.GetBody() != "bye" {
		t.Fatalf("edit: %v %v", edited, err)
	}
	_, _, err = c.Issues.EditComment(ctx, "octo", "rag", 42, &github.IssueComment{Body: github.String("x")})
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != 404 || er.Message != "Not Found" || er.DocumentationURL == "" {
		t.Errorf("edit missing: %v", err)
	}
	_, _, err = c.Issues.CreateComment(ctx, "octo", "rag", 3, &github.IssueComment{Body: github.String(strings.Repeat("x", 65537))})
	if status(err) != http.StatusUnprocessableEntity {
		t.Errorf("too long: %v", err)
	}

	s.UseIntegrationToken(ghtest.ActionsBot)
	_, _, err = c.Users.Get(ctx, "")
	if !errors.As(err, &er) || er.Response.StatusCode != 403 || er.Message != "Resource not accessible by integration" {
		t.Errorf("GET /user with an integration token: %v", err)
	}
	bot, _, err := c.Issues.CreateComment(ctx, "octo", "rag", 3, &github.IssueComment{Body: github.String("bot")})
	if err != nil || bot.GetUser().GetLogin() != "github-actions[bot]" || bot.GetUser().GetType() != "Bot" {
		t.Errorf("bot comment %+v %v", bot.GetUser(), err)
	}

	s.SetReadOnly(true)
	_, _, err = c.Issues.CreateComment(ctx, "octo", "rag", 3, &github.IssueComment{Body: github.String("x")})
	if !errors.As(err, &er) || er.Response.StatusCode != 403 || er.Message != "Resource not accessible by integration" {
		t.Errorf("read-only: %v", err)
	}
	if _, _, err := c.Issues.ListComments(ctx, "octo", "rag", 3, nil); err != nil {
		t.Errorf("read-only token cannot read: %v", err)
	}
}

func TestFaults(t *testing.T) {
	s := ghtest.NewServer(t)
	ctx := context.Background()

	s.FailNext(1, ghtest.SecondaryRateLimit)
	_, resp, err := s.Client().Users.Get(ctx, "")
	var ab *github.AbuseRateLimitError
	if !errors.As(err, &ab) || ab.RetryAfter == nil || ab.RetryAfter.Seconds() != 1 {
		t.Errorf("secondary: %v (go-github must recognise it)", err)
	}
	if resp.Header.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
	}

	s.FailNext(1, ghtest.SecondaryRateLimit429)
	_, resp, err = s.Client().Users.Get(ctx, "")
	if status(err) != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("429: %v", err)
	}

	s.FailNext(1, ghtest.PrimaryRateLimit)
	_, _, err = s.Client().Users.Get(ctx, "")
	var rl *github.RateLimitError
	if !errors.As(err, &rl) || rl.Rate.Remaining != 0 || rl.Rate.Reset.IsZero() {
		t.Errorf("primary: %v", err)
	}

	s.FailNext(1, ghtest.ServerError)
	if _, _, err := s.Client().Users.Get(ctx, ""); status(err) != http.StatusBadGateway {
		t.Errorf("502: %v", err)
	}
	if u, _, err := s.Client().Users.Get(ctx, ""); err != nil || u.GetLogin() != ghtest.DefaultUser.Login {
		t.Errorf("after faults: %v %v", u, err)
	}
}

// FailMatching fails only the requests it names.
func TestFailMatching(t *testing.T) {
	s := ghtest.NewServer(t)
	ctx := context.Background()
	s.FailMatching("POST", "/repos/octo/rag/issues/3/comments", 1, ghtest.ServerError)
	if _, _, err := s.Client().Users.Get(ctx, ""); err != nil {
		t.Errorf("an unmatched request failed: %v", err)
	}
	body := &github.IssueComment{Body: github.String("x")}
	if _, _, err := s.Client().Issues.CreateComment(ctx, "octo", "rag", 3, body); status(err) != http.StatusBadGateway {
		t.Errorf("matched request: %v, want 502", err)
	}
	if _, _, err := s.Client().Issues.CreateComment(ctx, "octo", "rag", 3, body); err != nil {
		t.Errorf("after the one fault: %v", err)
	}
}

// GraphQL's viewer answers every kind of token, integration tokens
// included, with the login their comments carry.
func TestGraphQLViewer(t *testing.T) {
	app := ghtest.Identity{Login: "raggate-app[bot]", ID: 777, Type: "Bot"}
	for _, ent := range []bool{false, true} {
		var opts []ghtest.Option
		path := "/graphql"
		if ent {
			opts, path = append(opts, ghtest.Enterprise()), "/api/graphql"
		}
		s := ghtest.NewServer(t, opts...)
		s.UseIntegrationToken(app)
		ask := func(query string) (int, string) {
			resp, err := s.HTTPClient().Post(s.ServerURL+path, "application/json", strings.NewReader(`{"query":`+strconv.Quote(query)+`}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		if code, body := ask("query { viewer { login } }"); code != 200 || body != `{"data":{"viewer":{"login":"raggate-app[bot]"}}}` {
			t.Errorf("enterprise %v: viewer: %d %s", ent, code, body)
		}
		if code, body := ask("{ repository(owner:\"o\", name:\"r\") { id } }"); code != 200 || !strings.Contains(body, `"errors"`) {
			t.Errorf("enterprise %v: other query: %d %s", ent, code, body)
		}
	}
}

func TestEnterpriseAndToken(t *testing.T) {
	s := ghtest.NewServer(t, ghtest.Enterprise(), ghtest.WithToken("tok"))
	if !strings.HasSuffix(s.URL, "/api/v3/") {
		t.Fatalf("URL %q", s.URL)
	}
	resp, err := s.HTTPClient().Get(strings.TrimSuffix(s.URL, "api/v3/") + "user")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("outside the prefix: %d", resp.StatusCode)
	}
	if _, _, err := s.Client().Users.Get(context.Background(), ""); status(err) != http.StatusUnauthorized {
		t.Errorf("no token: %v", err)
	}
	u, _, err := s.Client().WithAuthToken("tok").Users.Get(context.Background(), "")
	if err != nil || u.GetLogin() != ghtest.DefaultUser.Login {
		t.Errorf("with token: %v %v", u, err)
	}
	for _, r := range s.Requests() {
		if r.Path == "/user" && r.Status != http.StatusNotFound && !strings.HasPrefix(r.RawPath, "/api/v3/") {
			t.Errorf("recorded %+v", r)
		}
	}
}

func TestContents(t *testing.T) {
	s := ghtest.NewServer(t)
	c := s.Client()
	ctx := context.Background()
	s.History(repo, "main", 1)
	branch := "data"
	put := func(sha *string, content string) (*github.RepositoryContentResponse, error) {
		r, _, err := c.Repositories.CreateFile(ctx, "octo", "rag", "d/f.json", &github.RepositoryContentFileOptions{
			Message: github.String("m"), Content: []byte(content), Branch: &branch, SHA: sha,
		})
		return r, err
	}
	if _, err := put(nil, "x"); status(err) != http.StatusNotFound {
		t.Errorf("missing branch: %v", err)
	}
	s.PutFile(repo, branch, "README.md", []byte("r"))
	created, err := put(github.String("ignored for new files"), "v1")
	if err != nil {
		t.Fatal(err)
	}
	first := created.Content.GetSHA()
	if _, err := put(nil, "v2"); status(err) != http.StatusUnprocessableEntity || !strings.Contains(err.Error(), `"sha" wasn't supplied`) {
		t.Errorf("missing sha: %v", err)
	}
	if _, err := put(github.String(strings.Repeat("0", 40)), "v2"); status(err) != http.StatusConflict || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("stale sha: %v", err)
	}
	updated, err := put(&first, "v2")
	if err != nil || updated.Content.GetSHA() == first {
		t.Fatalf("update: %v", err)
	}

	fc, _, _, err := c.Repositories.GetContents(ctx, "octo", "rag", "d/f.json", &github.RepositoryContentGetOptions{Ref: branch})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := fc.GetContent(); got != "v2" || fc.GetSHA() != updated.Content.GetSHA() {
		t.Errorf("content %q sha %s", got, fc.GetSHA())
	}
	_, dir, _, err := c.Repositories.GetContents(ctx, "octo", "rag", "d", &github.RepositoryContentGetOptions{Ref: branch})
	if err != nil || len(dir) != 1 || dir[0].GetName() != "f.json" {
		t.Errorf("directory: %v %v", dir, err)
	}
	if _, _, _, err := c.Repositories.GetContents(ctx, "octo", "rag", "d/f.json", &github.RepositoryContentGetOptions{Ref: "nope"}); status(err) != 404 || !strings.Contains(err.Error(), "No commit found for the ref nope") {
		t.Errorf("missing ref: %v", err)
	}

	s.SetContentsLimit(1)
	fc, _, _, _ = c.Repositories.GetContents(ctx, "octo", "rag", "d/f.json", &github.RepositoryContentGetOptions{Ref: branch})
	if fc.GetEncoding() != "none" || fc.GetSize() != 2 {
		t.Errorf("large file: encoding %q", fc.GetEncoding())
	}
	raw, _, err := c.Git.GetBlobRaw(ctx, "octo", "rag", fc.GetSHA())
	if err != nil || string(raw) != "v2" {
		t.Errorf("blob: %q %v", raw, err)
	}
	if data, ok := s.File(repo, branch, "d/f.json"); !ok || string(data) != "v2" {
		t.Errorf("File = %q", data)
	}
}

func TestGitDataAndCommits(t *testing.T) {
	s := ghtest.NewServer(t)
	c := s.Client()
	ctx := context.Background()
	h := s.History(repo, "main", 3)
	side := s.AddCommit(repo, "side", h[0])

	for _, tt := range []struct{ base, head, want string }{
		{h[0], h[2], "ahead"}, {h[2], h[0], "behind"}, {h[1], h[1], "identical"}, {h[2], side, "diverged"},
	} {
		cmp, _, err := c.Repositories.CompareCommits(ctx, "octo", "rag", tt.base, tt.head, nil)
		if err != nil || cmp.GetStatus() != tt.want {
			t.Errorf("compare: %v %v, want %s", cmp.GetStatus(), err, tt.want)
		}
	}
	if _, _, err := c.Repositories.CompareCommits(ctx, "octo", "rag", strings.Repeat("a", 40), h[0], nil); status(err) != 404 {
		t.Errorf("compare unknown: %v", err)
	}
	rc, _, err := c.Repositories.GetCommit(ctx, "octo", "rag", h[2], nil)
	if err != nil || len(rc.Parents) != 1 || rc.Parents[0].GetSHA() != h[1] {
		t.Errorf("commit: %v", err)
	}
	list, _, err := c.Repositories.ListCommits(ctx, "octo", "rag", &github.CommitsListOptions{SHA: h[2], ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || len(list) != 2 || list[0].GetSHA() != h[2] || list[1].GetSHA() != h[1] {
		t.Errorf("list: %v", err)
	}

	tree, _, err := c.Git.CreateTree(ctx, "octo", "rag", "", []*github.TreeEntry{{Path: github.String("a"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("A")}})
	if err != nil {
		t.Fatal(err)
	}
	commit, _, err := c.Git.CreateCommit(ctx, "octo", "rag", &github.Commit{Message: github.String("root"), Tree: tree}, nil)
	if err != nil || len(commit.Parents) != 0 {
		t.Fatalf("orphan commit: %v", err)
	}
	ref := &github.Reference{Ref: github.String("refs/heads/orphan"), Object: &github.GitObject{SHA: commit.SHA}}
	if _, resp, err := c.Git.CreateRef(ctx, "octo", "rag", ref); err != nil || resp.StatusCode != 201 {
		t.Fatalf("create ref: %v", err)
	}
	if _, _, err := c.Git.CreateRef(ctx, "octo", "rag", ref); status(err) != 422 || !strings.Contains(err.Error(), "Reference already exists") {
		t.Errorf("duplicate ref: %v", err)
	}
	got, _, err := c.Git.GetRef(ctx, "octo", "rag", "heads/orphan")
	if err != nil || got.GetObject().GetSHA() != commit.GetSHA() {
		t.Errorf("get ref: %v", err)
	}
	if _, _, err := c.Git.GetRef(ctx, "octo", "rag", "heads/none"); status(err) != 404 {
		t.Errorf("missing ref: %v", err)
	}
	if data, ok := s.File(repo, "orphan", "a"); !ok || string(data) != "A" {
		t.Errorf("orphan file %q", data)
	}

	r, _, err := c.Repositories.Get(ctx, "octo", "rag")
	if err != nil || r.GetDefaultBranch() != "main" {
		t.Errorf("repo: %v", err)
	}
}

func TestOnRequestAndStatuses(t *testing.T) {
	s := ghtest.NewServer(t)
	var seen []string
	s.OnRequest(func(r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen = append(seen, r.Method+" "+string(b))
	})
	s.Client().Issues.CreateComment(context.Background(), "octo", "rag", 1, &github.IssueComment{Body: github.String("x")})
	if len(seen) != 1 || !strings.Contains(seen[0], `"body":"x"`) {
		t.Errorf("hook saw %q", seen)
	}
	if got := s.Statuses("POST", "/repos/octo/rag/issues/1/comments"); len(got) != 1 || got[0] != 201 {
		t.Errorf("statuses %v", got)
	}
}
