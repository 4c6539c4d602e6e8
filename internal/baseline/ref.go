package baseline

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/results"
)

// RefStore is the git store without a checkout: it reads a results file
// committed to the repository as it is at the key's commit (else its
// branch) through the GitHub contents API. Jobs whose checkout is shallow,
// of another commit, or absent (the workflow_run half of the fork-safe
// pattern) read the same file GitStore would. It is read-only.
type RefStore struct {
	Client      *github.Client
	Owner, Repo string
	// Path is the baseline file, relative to the repository root.
	Path string
	// Read says what Get keeps of the samples: the texts (response,
	// retrieved contexts, evidence) of those Read.Texts selects (nil:
	// none, as a comparison needs only the scores) and, with Read.Only,
	// those samples only.
	Read results.ReadOptions
}

var _ Store = (*RefStore)(nil)

// Get reads Path at key.SHA (else key.Branch). A file missing there is
// ErrMissingPath: like GitStore, a committed baseline that cannot be read
// is a mistake to fix, never "no baseline yet".
func (s *RefStore) Get(ctx context.Context, key Key) (*results.File, Source, error) {
	data, src, err := s.read(ctx, key)
	if err != nil {
		return nil, Source{}, err
	}
	f, err := results.ParseWith(data, s.Read)
	if err != nil {
		return nil, Source{}, fmt.Errorf("baseline %s: %w", src.Location, err)
	}
	return f, src, nil
}

// GetTable is Get by columns: the file is parsed into a table (never
// into whole samples) and let go of (see results.Table.Detach).
func (s *RefStore) GetTable(ctx context.Context, key Key) (*results.Table, Source, error) {
	data, src, err := s.read(ctx, key)
	if err != nil {
		return nil, Source{}, err
	}
	t, err := results.ParseTable(data)
	if err != nil {
		return nil, Source{}, fmt.Errorf("baseline %s: %w", src.Location, err)
	}
	t.Detach()
	return t, src, nil
}

var _ TableGetter = (*RefStore)(nil)

// read returns the content of the baseline file of key and where it came
// from.
func (s *RefStore) read(ctx context.Context, key Key) ([]byte, Source, error) {
	ref := key.SHA
	if ref == "" {
		ref = key.Branch
	}
	switch {
	case s.Client == nil:
		return nil, Source{}, errors.New("git baseline store (API): no GitHub client")
	case s.Path == "":
		return nil, Source{}, errors.New("git baseline store (API): no path")
	case ref == "":
		return nil, Source{}, errors.New("git baseline store (API): no ref to read: set the base branch and sha")
	}
	p := strings.TrimPrefix(path.Clean(s.Path), "/")
	data, err := ghapi.ReadFileAt(ctx, s.Client, s.Owner, s.Repo, ref, p)
	if errors.Is(err, ghapi.ErrNotFound) {
		return nil, Source{}, fmt.Errorf("%w: %s is not in %s/%s at %s: correct the path, or commit the baseline file there", ErrMissingPath, p, s.Owner, s.Repo, results.ShortHash(ref))
	}
	if err != nil {
		return nil, Source{}, err
	}
	loc := ref + ":" + p
	return data, Source{Store: "git", Location: loc, SHA: key.SHA, Requested: key.SHA}, nil
}

// Put fails: the store is read-only.
func (s *RefStore) Put(ctx context.Context, key Key, f *results.File) error {
	return fmt.Errorf("%w: the git store reads %s from commits; commit the file to the repository yourself, or use the branch or file store to write baselines", ErrReadOnly, s.Path)
}

// KeepingTexts returns a copy of s whose Get reads with o.
func (s *RefStore) KeepingTexts(o results.ReadOptions) Store { c := *s; c.Read = o; return &c }
