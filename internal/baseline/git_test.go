package baseline_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/results"
)

// git runs git in dir with a fixed identity and no user or system config.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=raggate test", "-c", "user.email=test@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitRepo creates a repository with three commits on main: the baseline
// file appears in the second and changes in the third.
func gitRepo(t *testing.T) (dir string, shas []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	git(t, dir, "init", "-q")
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commit := func(msg string) string {
		git(t, dir, "add", "-A")
		git(t, dir, "commit", "-q", "-m", msg)
		return git(t, dir, "rev-parse", "HEAD")
	}
	write("README.md", []byte("hello\n"))
	shas = append(shas, commit("initial"))
	for i, m := range []float64{0.7, 0.9} {
		b, err := results.Marshal(sample("", m))
		if err != nil {
			t.Fatal(err)
		}
		write("eval/baseline.json", b)
		shas = append(shas, commit("baseline "+string(rune('1'+i))))
	}
	return dir, shas
}

func TestGitStore(t *testing.T) {
	dir, shas := gitRepo(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		store    baseline.GitStore
		key      baseline.Key
		wantMean float64
		wantSHA  string
		wantErr  error
	}{
		{"base sha", baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}, baseline.Key{Branch: "main", SHA: shas[1]}, 0.7, shas[1], nil},
		{"branch when sha unknown", baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}, baseline.Key{Branch: "main", SHA: strings.Repeat("0", 40)}, 0.9, shas[2], nil},
		{"fixed ref", baseline.GitStore{Dir: dir, Path: "eval/baseline.json", Ref: "HEAD~1"}, baseline.Key{Branch: "main"}, 0.7, shas[1], nil},
		{"absolute path", baseline.GitStore{Dir: dir, Path: filepath.Join(dir, "eval", "baseline.json")}, baseline.Key{Branch: "main"}, 0.9, shas[2], nil},
		{"file not in commit", baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}, baseline.Key{SHA: shas[0]}, 0, "", baseline.ErrMissingPath},
		{"no such ref", baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}, baseline.Key{Branch: "develop"}, 0, "", baseline.ErrUnknownRef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, src, err := tt.store.Get(ctx, tt.key)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if mean(f) != tt.wantMean || src.SHA != tt.wantSHA || src.Store != "git" {
				t.Errorf("mean %v source %+v; want mean %v from %s", mean(f), src, tt.wantMean, tt.wantSHA)
			}
		})
	}

	s := &baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}
	if err := s.Put(ctx, baseline.Key{Branch: "main", SHA: shas[2]}, sample(shas[2], 1)); !errors.Is(err, baseline.ErrReadOnly) {
		t.Errorf("Put: err = %v, want ErrReadOnly", err)
	}
	outside := &baseline.GitStore{Dir: dir, Path: "../x.json"}
	if _, _, err := outside.Get(ctx, baseline.Key{Branch: "main"}); err == nil || !strings.Contains(err.Error(), "outside the repository") {
		t.Errorf("path outside: %v", err)
	}
	notRepo := &baseline.GitStore{Dir: t.TempDir(), Path: "x.json"}
	if _, _, err := notRepo.Get(ctx, baseline.Key{Branch: "main"}); err == nil || errors.Is(err, baseline.ErrNotFound) {
		t.Errorf("not a repository: err = %v, want an operational error", err)
	}
	noGit := &baseline.GitStore{Dir: dir, Path: "x.json", Git: "/nonexistent/git"}
	if _, _, err := noGit.Get(ctx, baseline.Key{Branch: "main"}); err == nil {
		t.Error("missing git binary: no error")
	}
}

// A mistyped ref or path is a configuration error naming the nearest
// existing one, never "no baseline yet".
func TestGitStoreTyposAreErrors(t *testing.T) {
	dir, _ := gitRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(clone), "clone", "-q", "file://"+dir, clone)
	ctx := context.Background()
	tests := []struct {
		name    string
		store   baseline.GitStore
		wantErr error
		want    []string
	}{
		{"mistyped remote branch", baseline.GitStore{Dir: clone, Path: "eval/baseline.json", Ref: "origin/mian"}, baseline.ErrUnknownRef,
			[]string{"origin/mian does not exist", "did you mean origin/main?"}},
		{"mistyped local branch", baseline.GitStore{Dir: dir, Path: "eval/baseline.json", Ref: "mian"}, baseline.ErrUnknownRef,
			[]string{"mian does not exist", "did you mean main?"}},
		{"unknown ref, nothing close", baseline.GitStore{Dir: dir, Path: "eval/baseline.json", Ref: "release-2024"}, baseline.ErrUnknownRef,
			[]string{"release-2024 does not exist"}},
		{"mistyped path", baseline.GitStore{Dir: clone, Path: "eval/baselien.json", Ref: "origin/main"}, baseline.ErrMissingPath,
			[]string{"eval/baselien.json is not in origin/main", "did you mean eval/baseline.json?"}},
		{"path in another directory", baseline.GitStore{Dir: dir, Path: "evals/baseline.json", Ref: "main"}, baseline.ErrMissingPath,
			[]string{"evals/baseline.json is not in main", "did you mean eval/baseline.json?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.store.Get(ctx, baseline.Key{})
			if !errors.Is(err, tt.wantErr) || errors.Is(err, baseline.ErrNotFound) {
				t.Fatalf("err = %v, want %v (and not ErrNotFound)", err, tt.wantErr)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tt.name == "unknown ref, nothing close" && strings.Contains(err.Error(), "did you mean") {
				t.Errorf("error %q suggests a ref that is not close", err)
			}
		})
	}
}

func TestGitStoreShallowClone(t *testing.T) {
	dir, shas := gitRepo(t)
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, filepath.Dir(clone), "clone", "-q", "--depth=1", "file://"+dir, clone)
	ctx := context.Background()
	s := &baseline.GitStore{Dir: clone, Path: "eval/baseline.json"}

	// The base commit is not in the shallow history, nor is "develop".
	_, _, err := s.Get(ctx, baseline.Key{Branch: "develop", SHA: shas[1]})
	if !errors.Is(err, baseline.ErrShallow) {
		t.Fatalf("err = %v, want ErrShallow", err)
	}
	for _, want := range []string{"fetch-depth: 0", "git fetch origin develop --depth=1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	// A fixed ref names the branch to fetch.
	fixed := &baseline.GitStore{Dir: clone, Path: "eval/baseline.json", Ref: "origin/release-2"}
	_, _, err = fixed.Get(ctx, baseline.Key{})
	if !errors.Is(err, baseline.ErrShallow) || !strings.Contains(err.Error(), "git fetch origin release-2 --depth=1") {
		t.Errorf("fixed ref: %v", err)
	}

	// The tip of main was cloned: origin/main is readable.
	f, src, err := s.Get(ctx, baseline.Key{Branch: "main", SHA: shas[1]})
	if err != nil {
		t.Fatal(err)
	}
	if mean(f) != 0.9 || src.SHA != shas[2] || !strings.HasPrefix(src.Location, "refs/remotes/origin/main:") {
		t.Errorf("mean %v source %+v", mean(f), src)
	}
}

// GetTable reads what Get reads, by columns, and fails as Get fails.
func TestGitStoreGetTableIsGet(t *testing.T) {
	dir, shas := gitRepo(t)
	if err := os.WriteFile(filepath.Join(dir, "eval", "bad.json"), []byte("{\n  \"schema\": \"raggate.results/v1\",\n  \"samples\": [{\"id\": 7}]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "bad")
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		store baseline.GitStore
		key   baseline.Key
	}{
		{"base sha", baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}, baseline.Key{Branch: "main", SHA: shas[1]}},
		{"branch", baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}, baseline.Key{Branch: "main"}},
		{"file not in commit", baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}, baseline.Key{SHA: shas[0]}},
		{"no such ref", baseline.GitStore{Dir: dir, Path: "eval/baseline.json"}, baseline.Key{Branch: "develop"}},
		{"not a results file", baseline.GitStore{Dir: dir, Path: "eval/bad.json"}, baseline.Key{Branch: "main"}},
		{"missing git", baseline.GitStore{Dir: dir, Path: "eval/baseline.json", Git: "/nonexistent/git"}, baseline.Key{Branch: "main"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, src, err := tt.store.Get(ctx, tt.key)
			tb, tsrc, terr := tt.store.GetTable(ctx, tt.key)
			if (err == nil) != (terr == nil) || (err != nil && err.Error() != terr.Error()) {
				t.Fatalf("GetTable: %v\nGet: %v", terr, err)
			}
			if err != nil {
				return
			}
			if src != tsrc || tb.Len() != len(f.Samples) {
				t.Fatalf("GetTable: %d samples from %+v; Get: %d from %+v", tb.Len(), tsrc, len(f.Samples), src)
			}
			for i := range f.Samples {
				s := tb.Sample(i)
				if s.ID != f.Samples[i].ID || s.Question != f.Samples[i].Question || s.Scores["faithfulness"] != f.Samples[i].Scores["faithfulness"] {
					t.Errorf("sample %d: %+v, want %+v", i, s, f.Samples[i])
				}
			}
		})
	}
}
