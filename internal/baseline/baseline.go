// Package baseline reads and writes the results a pull request is compared
// against. Four stores implement Store:
//
//   - FileStore: one results file at a path (local runs, artifacts).
//   - GitStore: a results file committed to the repository, read with
//     `git show REF:PATH` (read-only).
//   - RefStore: the same committed file read without a checkout, through
//     the GitHub contents API at a commit (read-only; the comment mode of
//     the fork-safe pattern).
//   - BranchStore: files on a dedicated branch (default
//     "raggate-baselines") written and read through the GitHub REST
//     contents API, one file per base-branch commit plus latest.json.
//
// DirStore, a directory of results files, only lists history (History).
//
// A Key names a baseline by branch and commit. Get returns the baseline and
// a Source saying where it came from; ErrNotFound (wrapped) means the store
// was reached and holds none yet, which the caller treats per
// `on_missing_baseline`. A store that cannot be read as configured (an
// unknown ref, a file missing at an existing ref, a shallow checkout) is
// another error: never "no baseline yet".
package baseline

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/results"
)

// Store reads and writes baselines.
type Store interface {
	// Get returns the baseline for key and where it came from. It returns
	// an error wrapping ErrNotFound when there is none.
	Get(ctx context.Context, key Key) (*results.File, Source, error)
	// Put stores f as the baseline for key.
	Put(ctx context.Context, key Key, f *results.File) error
}

// TextKeeper is a store that reads results files, so it can keep the
// recorded texts of some samples and drop the others, or keep those
// samples only (the HTML report's second pass: results.ReadOptions.Only).
type TextKeeper interface {
	Store
	// KeepingTexts returns a copy of the store whose reads (Get) keep
	// what o selects of the samples.
	KeepingTexts(o results.ReadOptions) Store
}

// TableGetter is a store that reads a baseline by columns
// (results.Table) without holding its samples whole.
type TableGetter interface {
	Store
	GetTable(ctx context.Context, key Key) (*results.Table, Source, error)
}

var _ TableGetter = (*FileStore)(nil)

// GetTable reads the baseline of key from store by columns: through the
// store's GetTable when it has one, else read whole (Get), held by
// columns and let go of (results.Table.Detach: the table keeps the
// samples' questions, not their reasons).
func GetTable(ctx context.Context, store Store, key Key) (*results.Table, Source, error) {
	if g, ok := store.(TableGetter); ok {
		return g.GetTable(ctx, key)
	}
	f, src, err := store.Get(ctx, key)
	if err != nil || f == nil {
		return nil, src, err
	}
	t := results.TableOf(f)
	t.Detach()
	return t, src, nil
}

// The stores that read results files keep texts on demand.
var (
	_ TextKeeper = (*FileStore)(nil)
	_ TextKeeper = (*GitStore)(nil)
	_ TextKeeper = (*RefStore)(nil)
	_ TextKeeper = (*BranchStore)(nil)
)

var (
	// ErrNotFound is wrapped by Get when no baseline exists for the key.
	ErrNotFound = errors.New("no baseline found")
	// ErrReadOnly is wrapped by Put on stores that cannot write.
	ErrReadOnly = errors.New("baseline store is read-only")
	// ErrShallow is wrapped by GitStore.Get when the ref to read is missing
	// from a shallow checkout: a configuration error, not a missing
	// baseline.
	ErrShallow = errors.New("ref not in shallow checkout")
	// ErrUnknownRef is wrapped by GitStore.Get when the ref to read does not
	// exist in a full checkout (a typo, or a branch that was never
	// fetched): a configuration error, not a missing baseline. The message
	// names the nearest existing ref.
	ErrUnknownRef = errors.New("unknown ref")
	// ErrMissingPath is wrapped by GitStore.Get when the ref exists but
	// the baseline file is not in it. The message names the nearest path
	// at that ref.
	ErrMissingPath = errors.New("file missing at the ref")
	// ErrNoPermission is wrapped when GitHub answers 403 (read-only token,
	// missing `permissions: contents: write`). It is ghapi.ErrNoPermission.
	ErrNoPermission = ghapi.ErrNoPermission
)

// Key names a baseline.
type Key struct {
	// Branch is the branch the baseline belongs to: the pull request's base
	// branch (GITHUB_BASE_REF) on Get, the pushed branch on Put.
	Branch string
	// SHA is a full commit id: on Put the commit the results are for (the
	// pushed head); on Get the commit to start looking from (the pull
	// request's base sha, pull_request.base.sha). May be empty on Get.
	SHA string
	// Name optionally separates several gates' baselines in one repository
	// (letters, digits, '.', '_', '-'). Empty is the default gate.
	Name string
}

// Source says where a baseline came from.
type Source struct {
	// Store is "file", "git" or "branch".
	Store string
	// Location is the file read: a path, "REF:PATH", or
	// "owner/repo@branch:path".
	Location string
	// SHA is the commit the baseline was produced for, when known.
	SHA string
	// Requested is the Key.SHA that was asked for.
	Requested string
	// Distance is how many commits before Requested the baseline's commit
	// is in the history listing (0: the requested commit itself).
	Distance int
	// Latest is set when no stored ancestor was found and the branch's
	// latest baseline was used instead.
	Latest bool
}

// String describes the source for messages, e.g.
// "octo/rag@raggate-baselines:baselines/main/<sha>.json (commit 1a2b3c4d5e6f, 2 commits before 9f8e7d6c5b4a)".
func (s Source) String() string {
	var extra []string
	if s.SHA != "" {
		extra = append(extra, "commit "+results.ShortHash(s.SHA))
	}
	switch {
	case s.Latest:
		extra = append(extra, "latest baseline of the branch: no stored baseline among the ancestors of "+results.ShortHash(s.Requested))
	case s.Distance == 1:
		extra = append(extra, "1 commit before "+results.ShortHash(s.Requested))
	case s.Distance > 1:
		extra = append(extra, fmt.Sprintf("%d commits before %s", s.Distance, results.ShortHash(s.Requested)))
	}
	out := s.Store + " " + s.Location
	if len(extra) > 0 {
		out += " (" + strings.Join(extra, ", ") + ")"
	}
	return out
}

var (
	nameRE = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$`)
	shaRE  = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
)

func (k Key) validName() error {
	if k.Name != "" && !nameRE.MatchString(k.Name) {
		return fmt.Errorf("invalid baseline name %q: use letters, digits, '.', '_' and '-' (at most 64)", k.Name)
	}
	return nil
}

func validBranch(b string) error {
	switch {
	case b == "":
		return errors.New("no branch: set the base branch (GITHUB_BASE_REF on pull requests, the pushed branch on push)")
	case strings.HasPrefix(b, "refs/"):
		return fmt.Errorf("branch %q: give the branch name without refs/heads/", b)
	case strings.Contains(b, "..") || strings.Contains(b, "//") || strings.HasPrefix(b, "/") ||
		strings.HasSuffix(b, "/") || strings.HasSuffix(b, ".lock") || strings.ContainsAny(b, " ~^:?*[\\\x7f") ||
		strings.IndexFunc(b, func(r rune) bool { return r < 0x20 }) >= 0:
		return fmt.Errorf("invalid branch name %q", b)
	}
	return nil
}

// withGit returns f with its git commit filled in from key (a shallow copy
// when it changes), or an error when f records a different commit.
func withGit(f *results.File, key Key) (*results.File, error) {
	if f == nil {
		return nil, errors.New("no results to store")
	}
	if key.SHA == "" {
		return f, nil
	}
	if f.Git != nil && f.Git.SHA != "" {
		if !strings.EqualFold(f.Git.SHA, key.SHA) {
			return nil, fmt.Errorf("the results are for commit %s but the baseline key is commit %s: store results produced for the pushed commit", results.ShortHash(f.Git.SHA), results.ShortHash(key.SHA))
		}
		return f, nil
	}
	g := *f
	g.Git = &results.Git{SHA: key.SHA}
	if f.Git != nil {
		g.Git.Ref = f.Git.Ref
	}
	if g.Git.Ref == "" && key.Branch != "" {
		g.Git.Ref = "refs/heads/" + key.Branch
	}
	return &g, nil
}

func gitSHA(f *results.File) string {
	if f != nil && f.Git != nil {
		return f.Git.SHA
	}
	return ""
}
