package ghapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/results"
)

// ErrNotAFile is wrapped by GetFile when the path is a directory.
var ErrNotAFile = errors.New("not a file")

// File is a file of a repository at a ref.
type File struct {
	// SHA is the blob's id (what an update of the file must name).
	SHA string
	// Content is the file's bytes; nil when not asked for.
	Content []byte
}

// ReadFileAt returns the content of path in owner/repo as it is at ref (a
// commit sha, branch or tag). A file that does not exist there is an
// error wrapping ErrNotFound.
func ReadFileAt(ctx context.Context, c *github.Client, owner, repo, ref, path string) ([]byte, error) {
	f, err := GetFile(ctx, c, owner, repo, ref, path, true, Fixes{})
	return f.Content, err
}

// GetFile returns the blob sha of path at ref and, when wantContent, its
// content, through the contents API; files above 1 MB, which that API
// returns without content, are read through the git blobs API. A missing
// file wraps ErrNotFound; a directory ErrNotAFile. fix says how to
// resolve a 403 (fix.NotFound is not used).
func GetFile(ctx context.Context, c *github.Client, owner, repo, ref, path string, wantContent bool, fix Fixes) (File, error) {
	where := fmt.Sprintf("%s/%s@%s:%s", owner, repo, ref, path)
	fc, _, _, err := c.Repositories.GetContents(ctx, owner, repo, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		fix.NotFound = "no such file at that ref"
		return File{}, Classify("read "+where, err, fix)
	}
	if fc == nil {
		return File{}, fmt.Errorf("%s: %w (a directory)", where, ErrNotAFile)
	}
	if !wantContent {
		return File{SHA: fc.GetSHA()}, nil
	}
	if fc.GetEncoding() == "none" || (fc.Content == nil && fc.GetSize() > 0) {
		// Above 1 MB the contents API omits the content: fetch the blob.
		content, _, err := c.Git.GetBlobRaw(ctx, owner, repo, fc.GetSHA())
		if err != nil {
			return File{}, Classify("read blob of "+where, err, fix)
		}
		return File{SHA: fc.GetSHA(), Content: content}, nil
	}
	s, err := fc.GetContent()
	if err != nil {
		return File{}, fmt.Errorf("read %s: %w", where, err)
	}
	return File{SHA: fc.GetSHA(), Content: []byte(s)}, nil
}

// IsAncestor reports whether commit a is an ancestor of commit b in
// owner/repo (the compare API answers b...a with status "behind"). A
// commit GitHub does not know (force-pushed away: 404 or 422) is no
// ancestor.
func IsAncestor(ctx context.Context, c *github.Client, owner, repo, a, b string, fix Fixes) (bool, error) {
	cmp, _, err := c.Repositories.CompareCommits(ctx, owner, repo, b, a, &github.ListOptions{PerPage: 1})
	switch StatusOf(err) {
	case http.StatusNotFound, http.StatusUnprocessableEntity:
		return false, nil
	}
	if err != nil {
		return false, Classify(fmt.Sprintf("compare %s...%s", results.ShortHash(b), results.ShortHash(a)), err, fix)
	}
	return cmp.GetStatus() == "behind", nil
}
