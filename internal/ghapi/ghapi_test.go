package ghapi_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/ghtest"
)

const repo = "octo/rag"

// GetFile reads a file at a commit (not the branch tip), small or above
// the contents API's 1 MB limit, and classifies what is not a file.
func TestGetFile(t *testing.T) {
	s := ghtest.NewServer(t)
	c := s.Client()
	ctx := context.Background()
	s.PutFile(repo, "main", "eval/t.yaml", []byte("version: 1\n"))
	base := s.BranchHead(repo, "main")
	s.PutFile(repo, "main", "eval/t.yaml", []byte("version: 2\n"))

	got, err := ghapi.ReadFileAt(ctx, c, "octo", "rag", base, "eval/t.yaml")
	if err != nil || string(got) != "version: 1\n" {
		t.Errorf("at the base: %q, %v", got, err)
	}
	got, err = ghapi.ReadFileAt(ctx, c, "octo", "rag", "main", "eval/t.yaml")
	if err != nil || string(got) != "version: 2\n" {
		t.Errorf("at the tip: %q, %v", got, err)
	}
	big := bytes.Repeat([]byte("x"), 2000)
	s.PutFile(repo, "main", "big.json", big)
	s.SetContentsLimit(1000)
	if got, err := ghapi.ReadFileAt(ctx, c, "octo", "rag", "main", "big.json"); err != nil || !bytes.Equal(got, big) {
		t.Errorf("large file: %d bytes, %v", len(got), err)
	}
	if n := s.Count("GET", "/repos/octo/rag/git/blobs/"); n == 0 {
		t.Error("large file not read through the blobs API")
	}
	if _, err := ghapi.ReadFileAt(ctx, c, "octo", "rag", base, "eval/missing.yaml"); !errors.Is(err, ghapi.ErrNotFound) {
		t.Errorf("missing file: err = %v, want ErrNotFound", err)
	}
	if _, err := ghapi.ReadFileAt(ctx, c, "octo", "rag", "main", "eval"); !errors.Is(err, ghapi.ErrNotAFile) {
		t.Errorf("directory: err = %v, want ErrNotAFile", err)
	}
	f, err := ghapi.GetFile(ctx, c, "octo", "rag", "main", "eval/t.yaml", false, ghapi.Fixes{})
	if err != nil || f.SHA == "" || f.Content != nil {
		t.Errorf("sha only: %+v, %v", f, err)
	}
}

// Classify names the kind, the operation and the fix, and keeps the
// go-github error in the chain.
func TestClassify(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(s *ghtest.Server)
		token string
		kind  error
		say   string
	}{
		{"read-only token", func(s *ghtest.Server) { s.SetReadOnly(true) }, "t0ken", ghapi.ErrNoPermission, "contents: write"},
		{"bad token", func(*ghtest.Server) {}, "wrong", ghapi.ErrUnauthorized, "github-token input"},
		{"rate limit after the retries", func(s *ghtest.Server) { s.FailNext(10, ghtest.SecondaryRateLimit) }, "t0ken", ghapi.ErrRateLimited, "re-run the job later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ghtest.NewServer(t, ghtest.WithToken("t0ken"))
			tt.setup(s)
			c, err := ghapi.NewClient(tt.token, s.URL, s.HTTPClient(), ghapi.WithMaxRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			msg := "bad"
			_, _, err = c.Repositories.CreateFile(ctx, "octo", "rag", "x.txt", &github.RepositoryContentFileOptions{Message: &msg, Content: []byte("x")})
			err = ghapi.Classify("write x.txt", err, ghapi.Fixes{NoPermission: "give the job `permissions: contents: write`"})
			if !errors.Is(err, tt.kind) || !strings.HasPrefix(err.Error(), "write x.txt: ") || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("err = %v, want %v saying %q", err, tt.kind, tt.say)
			}
			var er *github.ErrorResponse
			var ab *github.AbuseRateLimitError
			if !errors.As(err, &er) && !errors.As(err, &ab) {
				t.Errorf("the go-github error is not in the chain: %v", err)
			}
		})
	}
}

func TestNewClientURLs(t *testing.T) {
	tests := []struct {
		apiURL, want string
		wantErr      bool
	}{
		{"", "https://api.github.com/", false},
		{"https://api.github.com", "https://api.github.com/", false},
		{"https://github.example.com/api/v3", "https://github.example.com/api/v3/", false},
		{"https://github.example.com/api/v3/", "https://github.example.com/api/v3/", false},
		{"https://api.octocorp.ghe.com", "https://api.octocorp.ghe.com/", false},
		{"ftp://example.com", "", true},
		{"not a url", "", true},
	}
	for _, tt := range tests {
		c, err := ghapi.NewClient("", tt.apiURL, nil)
		if tt.wantErr {
			if err == nil {
				t.Errorf("%q: no error", tt.apiURL)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.apiURL, err)
			continue
		}
		if got := c.BaseURL.String(); got != tt.want {
			t.Errorf("%q: base URL %q, want %q", tt.apiURL, got, tt.want)
		}
	}
}

// IsAncestor follows the compare API; a commit GitHub does not know is no
// ancestor.
func TestIsAncestor(t *testing.T) {
	s := ghtest.NewServer(t)
	c := s.Client()
	ctx := context.Background()
	base := s.History(repo, "main", 1)[0]
	mid := s.AddCommit(repo, "mid", base)
	tip := s.AddCommit(repo, "tip", mid)
	side := s.AddCommit(repo, "side", base)
	tests := []struct {
		a, b string
		want bool
	}{
		{base, tip, true},
		{mid, tip, true},
		{tip, mid, false},
		{side, tip, false},
		{strings.Repeat("f", 40), tip, false},
	}
	for _, tt := range tests {
		got, err := ghapi.IsAncestor(ctx, c, "octo", "rag", tt.a, tt.b, ghapi.Fixes{})
		if err != nil || got != tt.want {
			t.Errorf("IsAncestor(%.7s, %.7s) = %v, %v; want %v", tt.a, tt.b, got, err, tt.want)
		}
	}
}
