package baseline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/results"
)

// DefaultHistory is how many stored baselines `gate history` reads.
const DefaultHistory = 30

// maxHistoryScan bounds the commits of a branch walked to find n stored
// baselines (a branch where few commits have one).
const maxHistoryScan = 1000

// Entry is one stored baseline of a branch's history.
type Entry struct {
	// SHA is the commit the baseline is for.
	SHA string
	// Date is the commit's date (the results' created_at where no commit
	// date is known).
	Date time.Time
	// Location is the file read.
	Location string
	File     *results.File
}

// Historian lists the stored baselines of a branch.
type Historian interface {
	// History returns the newest n stored baselines of key.Branch (from
	// key.SHA when set), oldest first. No baseline at all is an error
	// wrapping ErrNotFound.
	History(ctx context.Context, key Key, n int) ([]Entry, error)
}

var (
	_ Historian = (*BranchStore)(nil)
	_ Historian = (*GitStore)(nil)
	_ Historian = (*DirStore)(nil)
)

// History walks the branch's commits newest first (one paginated listing,
// GET /repos/{o}/{r}/commits?sha=<branch or sha>, at most 1,000 commits) and
// reads the baseline of each commit that has one, until it has n.
func (s *BranchStore) History(ctx context.Context, key Key, n int) ([]Entry, error) {
	if err := s.check(key); err != nil {
		return nil, err
	}
	dir := s.dir(key)
	stored, complete, err := s.list(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 && complete {
		return nil, s.nothingStored(ctx, key, dir)
	}
	start := cmp.Or(strings.ToLower(key.SHA), key.Branch)
	var out []Entry
	err = s.walk(ctx, start, func(c *github.RepositoryCommit) (bool, error) {
		sha := strings.ToLower(c.GetSHA())
		name := fileName(key, sha)
		if complete && !stored[name] {
			return true, nil
		}
		f, found, err := s.readFile(ctx, dir+"/"+name)
		if err != nil || !found {
			return err == nil, err
		}
		out = append(out, Entry{SHA: sha, Date: c.GetCommit().GetCommitter().GetDate().Time, Location: s.location(dir + "/" + name), File: f})
		return len(out) < n, nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: none of the last %d commits of %s has a baseline under %s", ErrNotFound, maxHistoryScan, start, s.location(dir+"/"))
	}
	slices.Reverse(out)
	return out, nil
}

// walk calls visit on the commits reachable from start, newest first, page
// by page, until visit returns false or maxHistoryScan commits were seen.
// A commit a page repeats is skipped, and a page with nothing new ends the
// walk: pages that loop (a Link rel=next back to a page already read) must
// not list commits twice.
func (s *BranchStore) walk(ctx context.Context, start string, visit func(*github.RepositoryCommit) (bool, error)) error {
	opts := &github.CommitsListOptions{SHA: start, ListOptions: github.ListOptions{PerPage: 100}}
	seen := map[string]bool{}
	for len(seen) < maxHistoryScan {
		commits, resp, err := s.Client.Repositories.ListCommits(ctx, s.Owner, s.Repo, opts)
		if ghapi.IsNotFound(err) {
			return fmt.Errorf("%w: %s is not a branch or commit of %s/%s", ErrUnknownRef, start, s.Owner, s.Repo)
		}
		if err != nil {
			return classify(fmt.Sprintf("list the history of %s in %s/%s", start, s.Owner, s.Repo), err)
		}
		fresh := 0
		for _, c := range commits {
			sha := strings.ToLower(c.GetSHA())
			if seen[sha] {
				continue
			}
			seen[sha] = true
			fresh++
			more, err := visit(c)
			if err != nil || !more {
				return err
			}
		}
		if resp == nil || resp.NextPage == 0 || fresh == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
	return nil
}

// History reads the baseline file at each commit of the ref (Ref, else
// Key.SHA, else the base branch) that changed it, newest n, with
// `git log --format=%H %cI -- PATH` and `git show`.
func (s *GitStore) History(ctx context.Context, key Key, n int) ([]Entry, error) {
	p, err := s.relPath(ctx)
	if err != nil {
		return nil, err
	}
	ref := ""
	for _, c := range s.candidates(key) {
		if _, err := s.revParse(ctx, c); err == nil {
			ref = c
			break
		}
	}
	if ref == "" {
		// Get words the missing ref (shallow, unknown, did you mean).
		_, _, err := s.Get(ctx, key)
		return nil, err
	}
	out, stderr, err := s.run(ctx, "log", "--first-parent", "--format=%H %cI", fmt.Sprintf("-n%d", n), ref, "--", p)
	if err != nil {
		return nil, fmt.Errorf("git log %s -- %s: %w: %s", ref, p, err, stderr)
	}
	var entries []Entry
	for line := range strings.Lines(string(out)) {
		sha, date, _ := strings.Cut(strings.TrimSpace(line), " ")
		data, stderr, err := s.run(ctx, "show", sha+":"+p)
		if err != nil {
			// The commit deleted the file.
			if strings.Contains(stderr, "does not exist in") {
				continue
			}
			return nil, fmt.Errorf("git show %s:%s: %w: %s", sha, p, err, stderr)
		}
		f, err := results.ParseWith(data, results.ScoresOnly)
		if err != nil {
			return nil, fmt.Errorf("baseline %s:%s: %w", results.ShortHash(sha), p, err)
		}
		t, _ := time.Parse(time.RFC3339, date)
		entries = append(entries, Entry{SHA: sha, Date: t, Location: sha + ":" + p, File: f})
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%w: no commit of %s has %s%s", ErrMissingPath, ref, p, s.nearestPath(ctx, ref, p))
	}
	slices.Reverse(entries)
	return entries, nil
}

// DirStore is a directory of results files (say, downloaded artifacts of
// earlier runs). It is read-only and only lists history: each file is one
// entry, ordered by its created_at; the commit is the file's git sha.
type DirStore struct {
	Dir string
}

// History reads every *.json file of the directory (not its
// subdirectories) and returns the newest n, oldest first. A file that is
// not a results file is an error naming it.
func (s *DirStore) History(ctx context.Context, key Key, n int) ([]Entry, error) {
	des, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no results directory %s: give the directory holding the results files: %w", s.Dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read the results directory: %w", err)
	}
	var out []Entry
	for _, de := range des {
		if de.IsDir() || !strings.EqualFold(filepath.Ext(de.Name()), ".json") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := filepath.Join(s.Dir, de.Name())
		f, err := results.ReadWith(p, results.ScoresOnly)
		if err != nil {
			return nil, err
		}
		out = append(out, Entry{SHA: gitSHA(f), Date: f.CreatedAt, Location: p, File: f})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no results files (*.json) in %s", ErrNotFound, s.Dir)
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Or(a.Date.Compare(b.Date), cmp.Compare(a.Location, b.Location))
	})
	return out[max(0, len(out)-n):], nil
}
