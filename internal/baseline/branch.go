package baseline

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/suggest"
)

// Branch store defaults.
const (
	DefaultBranch      = "raggate-baselines"
	DefaultDir         = "baselines"
	DefaultMaxWalk     = 50
	DefaultMaxAttempts = 5
)

// BranchStore keeps baselines on a branch of the repository through the
// GitHub REST API (no checkout needed). Layout on the branch (default
// "raggate-baselines"):
//
//	README.md                      explains the branch
//	baselines/<branch>/<sha>.json  results of commit <sha> of <branch>
//	baselines/<branch>/latest.json the newest of them
//
// With Key.Name set the files are <sha>.<name>.json and latest.<name>.json.
// The branch is created on first Put as an orphan commit holding only the
// README (git data API: tree, commit, ref), so it carries no workflows and
// shares no history with the code.
//
// Get (for a pull request: Key{Branch: base ref, SHA: base sha}) lists
// baselines/<branch>/ once, then looks for the base sha itself and, if it
// has no baseline, walks its history with one request,
// GET /repos/{o}/{r}/commits?sha=<base>&per_page=50 (newest first, like
// git log), taking the first listed commit that has a stored baseline; only
// heads of the base branch ever get baselines, so commits brought in by
// merges are skipped naturally. Failing that it falls back to latest.json
// (Source.Latest) and then to ErrNotFound.
//
// Put (on push: Key{Branch: pushed branch, SHA: pushed head}) writes
// <sha>.json and latest.json with the contents API, retrying a bounded
// number of times on 409/422 blob-sha conflicts with a concurrent writer
// (re-reading the file's sha each time). latest.json is not replaced by
// results of a commit that is an ancestor of the one it holds (an older
// push finishing last). Identical content is not rewritten.
//
// Files above 1 MB come without content from the contents API; they are
// read through the git blobs API. Rate limits are retried by the client's
// transport (ghapi.NewClient).
type BranchStore struct {
	// Read says what Get keeps of the samples: the texts (response,
	// retrieved contexts, evidence) of those Read.Texts selects (nil:
	// none, as a comparison needs only the scores) and, with Read.Only,
	// those samples only.
	Read        results.ReadOptions
	Client      *github.Client
	Owner, Repo string
	// Branch holds the baselines (default DefaultBranch).
	Branch string
	// Dir is the directory of baselines on Branch (default DefaultDir).
	Dir string
	// MaxWalk is how many commits of history Get examines (default
	// DefaultMaxWalk).
	MaxWalk int
	// MaxAttempts bounds the writes of one file under conflicts (default
	// DefaultMaxAttempts).
	MaxAttempts int
	// MaxFileBytes is the largest file Put writes (default
	// DefaultMaxFileBytes). A larger baseline is stored without its texts.
	MaxFileBytes int
	// Logf, when set, receives notes on what Put left out.
	Logf func(format string, args ...any)
}

// DefaultMaxFileBytes bounds a baseline file written through the contents
// API. GitHub documents 100 MB per file; writes of blobs of 40 MiB and more
// have been refused in practice, so the store stays below that.
const DefaultMaxFileBytes = 40 << 20

var _ Store = (*BranchStore)(nil)

func (s *BranchStore) branch() string {
	if s.Branch == "" {
		return DefaultBranch
	}
	return s.Branch
}

func (s *BranchStore) dir(key Key) string {
	d := s.Dir
	if d == "" {
		d = DefaultDir
	}
	return strings.Trim(d, "/") + "/" + key.Branch
}

func fileName(key Key, sha string) string {
	if key.Name != "" {
		return sha + "." + key.Name + ".json"
	}
	return sha + ".json"
}

func (s *BranchStore) location(p string) string {
	return fmt.Sprintf("%s/%s@%s:%s", s.Owner, s.Repo, s.branch(), p)
}

func (s *BranchStore) check(key Key) error {
	switch {
	case s.Client == nil:
		return errors.New("branch baseline store: no GitHub client")
	case s.Owner == "" || s.Repo == "":
		return errors.New("branch baseline store: no repository (GITHUB_REPOSITORY)")
	}
	if err := validBranch(key.Branch); err != nil {
		return err
	}
	if err := validBranch(s.branch()); err != nil {
		return fmt.Errorf("baselines branch: %w", err)
	}
	return key.validName()
}

// Get returns the baseline of key.SHA or of its nearest ancestor that has
// one, else the branch's latest baseline.
func (s *BranchStore) Get(ctx context.Context, key Key) (*results.File, Source, error) {
	var f *results.File
	src, err := s.get(ctx, key, func(data []byte) (*results.File, error) {
		var err error
		f, err = results.ParseWith(data, s.Read)
		return f, err
	})
	if err != nil {
		return nil, Source{}, err
	}
	return f, src, nil
}

// GetTable is Get by columns: the file is parsed into a table (never
// into whole samples) and let go of (see results.Table.Detach).
func (s *BranchStore) GetTable(ctx context.Context, key Key) (*results.Table, Source, error) {
	var t *results.Table
	src, err := s.get(ctx, key, func(data []byte) (*results.File, error) {
		var err error
		if t, err = results.ParseTable(data); err != nil {
			return nil, err
		}
		return t.File, nil
	})
	if err != nil {
		return nil, Source{}, err
	}
	t.Detach()
	return t, src, nil
}

var _ TableGetter = (*BranchStore)(nil)

// get finds the baseline of key (see Get) and hands its content to parse,
// which returns its header.
func (s *BranchStore) get(ctx context.Context, key Key, parse func([]byte) (*results.File, error)) (Source, error) {
	if err := s.check(key); err != nil {
		return Source{}, err
	}
	key.SHA = strings.ToLower(key.SHA)
	dir := s.dir(key)
	stored, complete, err := s.list(ctx, dir)
	if err != nil {
		return Source{}, err
	}
	if len(stored) == 0 && complete {
		return Source{}, s.nothingStored(ctx, key, dir)
	}
	has := func(name string) bool { return !complete || stored[name] }

	walked := 0
	if key.SHA != "" {
		history, err := s.history(ctx, key.SHA)
		if err != nil {
			return Source{}, err
		}
		if len(history) == 0 || history[0] != key.SHA {
			history = append([]string{key.SHA}, history...)
		}
		walked = len(history)
		for i, sha := range history {
			name := fileName(key, sha)
			if !has(name) {
				continue
			}
			_, found, err := s.readWith(ctx, dir+"/"+name, parse)
			if err != nil {
				return Source{}, err
			}
			if found {
				return Source{Store: "branch", Location: s.location(dir + "/" + name), SHA: sha, Requested: key.SHA, Distance: i}, nil
			}
		}
	}
	latest := dir + "/" + fileName(key, "latest")
	if has(fileName(key, "latest")) {
		f, found, err := s.readWith(ctx, latest, parse)
		if err != nil {
			return Source{}, err
		}
		if found {
			return Source{Store: "branch", Location: s.location(latest), SHA: gitSHA(f), Requested: key.SHA, Latest: true}, nil
		}
	}
	return Source{}, fmt.Errorf("%w: no baseline for %s or its %d nearest ancestors, and no %s", ErrNotFound, results.ShortHash(key.SHA), max(walked-1, 0), s.location(latest))
}

// nothingStored explains an empty listing. Nothing stored yet (the
// baselines branch does not exist yet, or has nothing for key.Branch) is
// ErrNotFound; a baselines branch name that is one typo away from an
// existing branch is ErrUnknownRef, naming it.
func (s *BranchStore) nothingStored(ctx context.Context, key Key, dir string) error {
	notYet := fmt.Errorf("%w: nothing stored under %s: push to %s with the action once to store a baseline", ErrNotFound, s.location(dir+"/"), key.Branch)
	branch := s.branch()
	_, _, err := s.Client.Git.GetRef(ctx, s.Owner, s.Repo, "heads/"+branch)
	switch {
	case err == nil:
		return notYet
	case !ghapi.IsNotFound(err):
		return classify("look up branch "+branch, err)
	}
	branches, _, err := s.Client.Repositories.ListBranches(ctx, s.Owner, s.Repo, &github.BranchListOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return classify("list the branches of "+s.Owner+"/"+s.Repo, err)
	}
	names := make([]string, 0, len(branches))
	for _, b := range branches {
		names = append(names, b.GetName())
	}
	if c := suggest.Closest(branch, names); c != "" {
		return fmt.Errorf("%w: the baselines branch %s does not exist in %s/%s; did you mean %s? (the baseline-branch input)", ErrUnknownRef, branch, s.Owner, s.Repo, c)
	}
	return notYet
}

// list returns the file names in dir on the baselines branch; complete is
// false when the contents API may have truncated the listing (1,000
// entries), in which case callers probe files directly.
func (s *BranchStore) list(ctx context.Context, dir string) (map[string]bool, bool, error) {
	_, entries, _, err := s.Client.Repositories.GetContents(ctx, s.Owner, s.Repo, dir, &github.RepositoryContentGetOptions{Ref: s.branch()})
	if ghapi.IsNotFound(err) {
		// No baselines branch, or nothing for this branch yet.
		return nil, true, nil
	}
	if err != nil {
		return nil, false, classify("list "+s.location(dir), err)
	}
	names := make(map[string]bool, len(entries))
	for _, e := range entries {
		if e.GetType() == "file" {
			names[e.GetName()] = true
		}
	}
	return names, len(entries) < 1000, nil
}

// history lists up to MaxWalk commits reachable from sha, newest first,
// each once: a page with nothing new ends the listing.
func (s *BranchStore) history(ctx context.Context, sha string) ([]string, error) {
	walk := s.MaxWalk
	if walk <= 0 {
		walk = DefaultMaxWalk
	}
	opts := &github.CommitsListOptions{SHA: sha, ListOptions: github.ListOptions{PerPage: min(walk, 100)}}
	var out []string
	seen := map[string]bool{} // pages that loop repeat commits
	for len(out) < walk {
		commits, resp, err := s.Client.Repositories.ListCommits(ctx, s.Owner, s.Repo, opts)
		switch ghapi.StatusOf(err) {
		case http.StatusNotFound, http.StatusUnprocessableEntity, http.StatusConflict:
			// Unknown commit (or empty repository): no history to walk.
			return out, nil
		}
		if err != nil {
			return nil, classify(fmt.Sprintf("list the history of %s in %s/%s", results.ShortHash(sha), s.Owner, s.Repo), err)
		}
		fresh := 0
		for _, c := range commits {
			if sha := strings.ToLower(c.GetSHA()); len(out) < walk && !seen[sha] {
				seen[sha] = true
				out = append(out, sha)
				fresh++
			}
		}
		if resp == nil || resp.NextPage == 0 || fresh == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

// stat returns the blob sha of path on the baselines branch and, when
// wantContent, its content; found is false on 404.
func (s *BranchStore) stat(ctx context.Context, p string, wantContent bool) (sha string, content []byte, found bool, err error) {
	f, err := ghapi.GetFile(ctx, s.Client, s.Owner, s.Repo, s.branch(), p, wantContent, branchFixes)
	switch {
	case errors.Is(err, ghapi.ErrNotFound):
		return "", nil, false, nil
	case err != nil:
		return "", nil, false, err
	}
	return f.SHA, f.Content, true, nil
}

func (s *BranchStore) readFile(ctx context.Context, p string) (*results.File, bool, error) {
	return s.readWith(ctx, p, func(data []byte) (*results.File, error) {
		return results.ParseWith(data, s.Read)
	})
}

// readWith reads the file at p and hands its content to parse, which
// returns its header.
func (s *BranchStore) readWith(ctx context.Context, p string, parse func([]byte) (*results.File, error)) (*results.File, bool, error) {
	_, data, found, err := s.stat(ctx, p, true)
	if err != nil || !found {
		return nil, found, err
	}
	f, err := parse(data)
	if err != nil {
		return nil, false, fmt.Errorf("baseline %s: %w", s.location(p), err)
	}
	return f, true, nil
}

// Put stores f as the baseline of key.SHA on key.Branch and as the
// branch's latest baseline.
func (s *BranchStore) Put(ctx context.Context, key Key, f *results.File) error {
	if err := s.check(key); err != nil {
		return err
	}
	key.SHA = strings.ToLower(key.SHA)
	if !shaRE.MatchString(key.SHA) {
		return fmt.Errorf("baseline key: invalid commit sha %q: want the full commit id of the pushed head", key.SHA)
	}
	g, err := withGit(f, key)
	if err != nil {
		return err
	}
	data, err := s.encode(g)
	if err != nil {
		return err
	}
	if err := s.ensureBranch(ctx); err != nil {
		return err
	}
	msg := fmt.Sprintf("raggate: baseline for %s@%s [skip ci]", key.Branch, results.ShortHash(key.SHA))
	dir := s.dir(key)
	if err := s.write(ctx, dir+"/"+fileName(key, key.SHA), data, msg, nil); err != nil {
		return err
	}
	keep := func(existing []byte) (bool, error) {
		old, err := results.ParseWith(existing, results.ScoresOnly)
		if err != nil || gitSHA(old) == "" || strings.EqualFold(gitSHA(old), key.SHA) {
			return false, nil // unreadable or same commit: replace
		}
		return s.isAncestor(ctx, key.SHA, strings.ToLower(gitSHA(old)))
	}
	return s.write(ctx, dir+"/"+fileName(key, "latest"), data, msg, keep)
}

// encode marshals f for the branch. A file above MaxFileBytes is encoded
// again without the samples' texts (the comparison needs the scores only;
// the HTML report then says the base texts are not recorded); one still too
// large is an error that says what to do.
func (s *BranchStore) encode(f *results.File) ([]byte, error) {
	limit := s.MaxFileBytes
	if limit <= 0 {
		limit = DefaultMaxFileBytes
	}
	data, err := results.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("encode baseline: %w", err)
	}
	if len(data) <= limit {
		return data, nil
	}
	full := len(data)
	data = nil
	// The same samples without texts, read one at a time as they are
	// encoded (the results of a run may wait on disk).
	lean := *f
	lean.Samples = nil
	lean.SetSampleSource(textless{f})
	if data, err = results.Marshal(&lean); err != nil {
		return nil, fmt.Errorf("encode baseline: %w", err)
	}
	if len(data) > limit {
		return nil, fmt.Errorf("baseline is %s even without the samples' texts; the baseline branch stores files up to %s through the GitHub API: keep this baseline in the file store (restored from a cache or an artifact), or split the dataset into several gates, each with its own baseline name", mb(len(data)), mb(limit))
	}
	if s.Logf != nil {
		s.Logf("note: the baseline is %s with the samples' texts, above the %s the baseline branch stores; stored without them (%s): the HTML report will not show the base responses", mb(full), mb(limit), mb(len(data)))
	}
	return data, nil
}

// textless gives the samples of a results file without their texts.
type textless struct{ f *results.File }

func (t textless) Len() int { return t.f.Len() }

func (t textless) Sample(i int) (results.Sample, error) {
	s, err := t.f.Sample(i)
	s.SetTexts(results.Texts{})
	return s, err
}

func mb(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// isAncestor reports whether a is an ancestor of b. Unknown commits are
// not ancestors.
func (s *BranchStore) isAncestor(ctx context.Context, a, b string) (bool, error) {
	return ghapi.IsAncestor(ctx, s.Client, s.Owner, s.Repo, a, b, branchFixes)
}

// blobSHA is git's id of a blob with this content (what the contents API
// reports as a file's sha).
func blobSHA(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// write creates or updates p with data. keep, when set, sees the existing
// content and may decide to leave it. Conflicts with concurrent writers
// (409 stale sha, 422 missing sha) are retried after re-reading the sha.
func (s *BranchStore) write(ctx context.Context, p string, data []byte, msg string, keep func([]byte) (bool, error)) error {
	attempts := s.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	branch := s.branch()
	var lastErr error
	for range attempts {
		sha, existing, found, err := s.stat(ctx, p, keep != nil)
		if err != nil {
			return err
		}
		if found && sha == blobSHA(data) {
			return nil // already stored
		}
		if found && keep != nil {
			skip, err := keep(existing)
			if err != nil {
				return err
			}
			if skip {
				return nil
			}
		}
		opts := &github.RepositoryContentFileOptions{Message: &msg, Content: data, Branch: &branch}
		if found {
			opts.SHA = &sha
		}
		_, _, err = s.Client.Repositories.CreateFile(ctx, s.Owner, s.Repo, escapePath(p), opts)
		if err == nil {
			return nil
		}
		if !isConflict(err) {
			return classify("write "+s.location(p), err)
		}
		lastErr = err
	}
	return fmt.Errorf("write %s: still conflicting with concurrent writers after %d attempts: %w", s.location(p), attempts, lastErr)
}

func escapePath(p string) string { return (&url.URL{Path: p}).EscapedPath() }

func isConflict(err error) bool {
	switch ghapi.StatusOf(err) {
	case http.StatusConflict:
		return true
	case http.StatusUnprocessableEntity:
		var er *github.ErrorResponse
		return errors.As(err, &er) && strings.Contains(strings.ToLower(er.Message), "sha")
	}
	return false
}

const readme = `# raggate baselines

This branch is written by raggate (https://github.com/raggate/raggate).
It holds RAG evaluation results of the repository's branches:

    baselines/<branch>/<commit sha>.json   results of that commit
    baselines/<branch>/latest.json         the newest of them

Pull requests are compared with the baseline of their base commit (or its
nearest ancestor that has one). Do not merge this branch; it shares no
history with the code. Deleting it only makes the next pull requests run
without a baseline until the next push stores one.
`

// ensureBranch creates the baselines branch as an orphan commit holding a
// README, unless it exists.
func (s *BranchStore) ensureBranch(ctx context.Context) error {
	branch := s.branch()
	_, _, err := s.Client.Git.GetRef(ctx, s.Owner, s.Repo, "heads/"+branch)
	if err == nil {
		return nil
	}
	if !ghapi.IsNotFound(err) {
		return classify("look up branch "+branch, err)
	}
	tree, _, err := s.Client.Git.CreateTree(ctx, s.Owner, s.Repo, "", []*github.TreeEntry{{
		Path: github.String("README.md"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String(readme),
	}})
	if err != nil {
		return classify("create branch "+branch+" (tree)", err)
	}
	commit, _, err := s.Client.Git.CreateCommit(ctx, s.Owner, s.Repo, &github.Commit{
		Message: github.String("raggate: create the baselines branch [skip ci]"),
		Tree:    &github.Tree{SHA: tree.SHA},
	}, nil)
	if err != nil {
		return classify("create branch "+branch+" (commit)", err)
	}
	_, _, err = s.Client.Git.CreateRef(ctx, s.Owner, s.Repo, &github.Reference{
		Ref:    github.String("refs/heads/" + branch),
		Object: &github.GitObject{SHA: commit.SHA},
	})
	if err != nil {
		var er *github.ErrorResponse
		if ghapi.StatusOf(err) == http.StatusUnprocessableEntity && errors.As(err, &er) && strings.Contains(er.Message, "already exists") {
			return nil // a concurrent run created it
		}
		return classify("create branch "+branch, err)
	}
	return nil
}

// classify wraps a GitHub error with op, its kind (ErrNoPermission is
// ghapi.ErrNoPermission) and the fix for the baselines branch.
func classify(op string, err error) error {
	return ghapi.Classify(op, err, branchFixes)
}

var branchFixes = ghapi.Fixes{NoPermission: "give the job `permissions: contents: write` (pull requests from forks get a read-only token)"}

// KeepingTexts returns a copy of s whose Get reads with o.
func (s *BranchStore) KeepingTexts(o results.ReadOptions) Store {
	c := *s
	c.Read = o
	return &c
}
