package baseline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/suggest"
)

// GitStore reads a baseline results file committed to the repository with
// `git show REF:PATH`. It is read-only. git runs with
// `-c safe.directory=*` because the action's container runs as root on a
// workspace owned by the runner's user, which git otherwise refuses
// ("detected dubious ownership").
type GitStore struct {
	// Read says what Get keeps of the samples: the texts (response,
	// retrieved contexts, evidence) of those Read.Texts selects (nil:
	// none, as a comparison needs only the scores) and, with Read.Only,
	// those samples only.
	Read results.ReadOptions
	// Dir is the repository's working directory (GITHUB_WORKSPACE); empty
	// is the current directory.
	Dir string
	// Path is the baseline file, relative to the repository root (or
	// absolute inside Dir).
	Path string
	// Ref, when set, is the only ref read. Otherwise Get tries Key.SHA,
	// then refs/remotes/<Remote>/<Key.Branch>, then refs/heads/<Key.Branch>.
	Ref string
	// Remote is the remote of the base branch (default "origin").
	Remote string
	// Git is the git executable (default "git" on PATH).
	Git string
}

var _ Store = (*GitStore)(nil)

// errNoRef is returned by revParse when the ref does not exist.
var errNoRef = errors.New("no such ref")

func (s *GitStore) run(ctx context.Context, args ...string) (stdout []byte, stderr string, err error) {
	var out bytes.Buffer
	stderr, err = s.runTo(ctx, &out, args...)
	return out.Bytes(), stderr, err
}

// runTo runs git with args, its output to out.
func (s *GitStore) runTo(ctx context.Context, out io.Writer, args ...string) (stderr string, err error) {
	git := s.Git
	if git == "" {
		git = "git"
	}
	cmd := exec.CommandContext(ctx, git, append([]string{"-c", "safe.directory=*"}, args...)...)
	cmd.Dir = s.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &errb
	err = cmd.Run()
	if errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("git baseline store: %s not found: install git in the image or use the branch store: %w", git, err)
	}
	return strings.TrimSpace(errb.String()), err
}

func (s *GitStore) revParse(ctx context.Context, ref string) (string, error) {
	out, stderr, err := s.run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && stderr == "" {
		return "", errNoRef
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return "", fmt.Errorf("git rev-parse %s in %s: %w: %s", ref, s.dirName(), err, stderr)
}

func (s *GitStore) dirName() string {
	if s.Dir == "" {
		return "."
	}
	return s.Dir
}

// relPath returns Path relative to the repository root, with slashes.
func (s *GitStore) relPath(ctx context.Context) (string, error) {
	if s.Path == "" {
		return "", errors.New("git baseline store: no path")
	}
	p := s.Path
	if filepath.IsAbs(p) {
		out, stderr, err := s.run(ctx, "rev-parse", "--show-toplevel")
		if err != nil {
			return "", fmt.Errorf("git rev-parse --show-toplevel in %s: %w: %s", s.dirName(), err, stderr)
		}
		top := strings.TrimSpace(string(out))
		rel, err := filepath.Rel(top, p)
		if err != nil {
			return "", fmt.Errorf("baseline path %s: %w", p, err)
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("baseline path %s is outside the repository", s.Path)
	}
	return p, nil
}

func (s *GitStore) candidates(key Key) []string {
	if s.Ref != "" {
		return []string{s.Ref}
	}
	var refs []string
	if key.SHA != "" {
		refs = append(refs, key.SHA)
	}
	if key.Branch != "" {
		remote := s.Remote
		if remote == "" {
			remote = "origin"
		}
		refs = append(refs, "refs/remotes/"+remote+"/"+key.Branch, "refs/heads/"+key.Branch)
	}
	return refs
}

// Get reads the baseline file at the first candidate ref that exists. A
// ref that exists without the file is ErrMissingPath, naming the nearest
// path at that ref. When no candidate exists, a shallow checkout is
// ErrShallow (with how to fetch the base branch) and a full one
// ErrUnknownRef, naming the nearest ref. The git store never answers
// ErrNotFound: the file is committed by hand, so one that cannot be read
// is a mistake to fix, not a baseline still to come.
func (s *GitStore) Get(ctx context.Context, key Key) (*results.File, Source, error) {
	out, src, err := s.show(ctx, key, func(obj string) ([]byte, string, error) { return s.run(ctx, "show", obj) })
	if err != nil {
		return nil, Source{}, err
	}
	f, err := results.ParseWith(out, s.Read)
	if err != nil {
		return nil, Source{}, fmt.Errorf("baseline %s: %w", src.Location, err)
	}
	return f, src, nil
}

// GetTable is Get by columns: git's output is read into a table as it
// comes (results.ReadTableFrom), never whole.
func (s *GitStore) GetTable(ctx context.Context, key Key) (*results.Table, Source, error) {
	var t *results.Table
	var perr error
	_, src, err := s.show(ctx, key, func(obj string) ([]byte, string, error) {
		r, w := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			t, perr = results.ReadTableFrom(r, func() ([]byte, error) {
				out, _, err := s.run(ctx, "show", obj)
				return out, err
			})
			// Let git finish writing after a parse error.
			_, _ = io.Copy(io.Discard, r)
		}()
		stderr, err := s.runTo(ctx, w, "show", obj)
		w.Close()
		<-done
		return nil, stderr, err
	})
	if err != nil {
		return nil, Source{}, err
	}
	if perr != nil {
		return nil, Source{}, fmt.Errorf("baseline %s: %w", src.Location, perr)
	}
	return t, src, nil
}

var _ TableGetter = (*GitStore)(nil)

// show returns the baseline file of key as git shows it (fetch runs git
// show of an object, sha:path), and where it came from.
func (s *GitStore) show(ctx context.Context, key Key, fetch func(obj string) ([]byte, string, error)) ([]byte, Source, error) {
	p, err := s.relPath(ctx)
	if err != nil {
		return nil, Source{}, err
	}
	refs := s.candidates(key)
	if len(refs) == 0 {
		return nil, Source{}, errors.New("git baseline store: no ref to read: set the ref, or the base branch and sha")
	}
	for _, ref := range refs {
		sha, err := s.revParse(ctx, ref)
		if errors.Is(err, errNoRef) {
			continue
		}
		if err != nil {
			return nil, Source{}, err
		}
		loc := ref + ":" + p
		out, stderr, err := fetch(sha + ":" + p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, Source{}, ctx.Err()
			}
			if strings.Contains(stderr, "does not exist in") || strings.Contains(stderr, "exists on disk, but not in") {
				hint := s.nearestPath(ctx, sha, p)
				if hint == "" {
					hint = ": correct the path, or commit the baseline file there"
				}
				return nil, Source{}, fmt.Errorf("%w: %s is not in %s (commit %s)%s", ErrMissingPath, p, ref, results.ShortHash(sha), hint)
			}
			return nil, Source{}, fmt.Errorf("git show %s: %w: %s", loc, err, stderr)
		}
		return out, Source{Store: "git", Location: loc, SHA: sha, Requested: key.SHA}, nil
	}
	tried := strings.Join(refs, ", ")
	branch := s.hintBranch(key)
	out, stderr, err := s.run(ctx, "rev-parse", "--is-shallow-repository")
	if err != nil {
		return nil, Source{}, fmt.Errorf("git rev-parse --is-shallow-repository in %s: %w: %s", s.dirName(), err, stderr)
	}
	if strings.TrimSpace(string(out)) == "true" {
		hint := ""
		if s.Ref != "" {
			hint = s.nearestRef(ctx, s.Ref)
		}
		return nil, Source{}, fmt.Errorf("%w: %s not found in this shallow checkout%s: fetch the base branch: actions/checkout with fetch-depth: 0, or git fetch origin %s --depth=1", ErrShallow, tried, hint, branch)
	}
	if s.Ref != "" {
		return nil, Source{}, fmt.Errorf("%w: %s does not exist in the repository at %s%s", ErrUnknownRef, s.Ref, s.dirName(), s.nearestRef(ctx, s.Ref))
	}
	return nil, Source{}, fmt.Errorf("%w: none of %s exists in the repository at %s (fetch the base branch: git fetch origin %s)", ErrUnknownRef, tried, s.dirName(), branch)
}

// nearestRef returns "; did you mean X?" for the existing ref nearest to
// ref (branches, remote branches and tags, by short name), or "".
func (s *GitStore) nearestRef(ctx context.Context, ref string) string {
	out, _, err := s.run(ctx, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/remotes", "refs/tags")
	if err != nil {
		return ""
	}
	return didYouMean(ref, strings.Fields(string(out)))
}

// nearestPath returns "; did you mean X?" for the file at commit sha
// nearest to p, or "".
func (s *GitStore) nearestPath(ctx context.Context, sha, p string) string {
	out, _, err := s.run(ctx, "ls-tree", "-r", "--name-only", "-z", sha)
	if err != nil {
		return ""
	}
	return didYouMean(p, strings.Split(strings.TrimRight(string(out), "\x00"), "\x00"))
}

func didYouMean(s string, candidates []string) string {
	if c := suggest.Closest(s, candidates); c != "" && c != s {
		return fmt.Sprintf("; did you mean %s?", c)
	}
	return ""
}

// hintBranch guesses the branch to fetch for error messages: the key's
// branch, else the branch Ref names ("origin/main", "refs/heads/main").
func (s *GitStore) hintBranch(key Key) string {
	if key.Branch != "" {
		return key.Branch
	}
	remote := s.Remote
	if remote == "" {
		remote = "origin"
	}
	for _, prefix := range []string{"refs/remotes/" + remote + "/", remote + "/", "refs/heads/"} {
		if b, ok := strings.CutPrefix(s.Ref, prefix); ok && b != "" {
			return b
		}
	}
	return "<base branch>"
}

// Put fails: the git store is read-only.
func (s *GitStore) Put(ctx context.Context, key Key, f *results.File) error {
	return fmt.Errorf("%w: the git store reads %s from commits; commit the file to the repository yourself, or use the branch or file store to write baselines", ErrReadOnly, s.Path)
}

// KeepingTexts returns a copy of s whose Get reads with o.
func (s *GitStore) KeepingTexts(o results.ReadOptions) Store { c := *s; c.Read = o; return &c }
