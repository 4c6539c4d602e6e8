package baseline_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/results"
)

// sample returns a small results file for commit sha (none when empty).
func sample(sha string, mean float64) *results.File {
	f := &results.File{
		Schema:    results.Schema,
		Tool:      results.Tool{Name: "raggate", Version: "test"},
		CreatedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Config:    results.Config{Metrics: []string{"faithfulness"}, Repeats: 1},
		Summary:   map[string]results.Sum{"faithfulness": {Mean: results.Score(mean), N: 1}},
		Samples: []results.Sample{{
			ID:     "q-001",
			Scores: map[string]results.Score{"faithfulness": results.Score(mean)},
		}},
	}
	if sha != "" {
		f.Git = &results.Git{SHA: sha, Ref: "refs/heads/main"}
	}
	return f
}

func mean(f *results.File) float64 { return f.Summary["faithfulness"].Mean.Value() }

func TestFileStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "baseline.json")
	s := &baseline.FileStore{Path: path}

	_, _, err := s.Get(ctx, baseline.Key{})
	if !errors.Is(err, baseline.ErrNotFound) {
		t.Fatalf("missing file: err = %v, want ErrNotFound", err)
	}

	sha := strings.Repeat("a", 40)
	if err := s.Put(ctx, baseline.Key{Branch: "main", SHA: sha}, sample("", 0.8)); err != nil {
		t.Fatal(err)
	}
	f, src, err := s.Get(ctx, baseline.Key{Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if mean(f) != 0.8 || f.Git == nil || f.Git.SHA != sha || f.Git.Ref != "refs/heads/main" {
		t.Errorf("read back %+v (git %+v)", f.Summary, f.Git)
	}
	if src.Store != "file" || src.Location != path || src.SHA != sha {
		t.Errorf("source %+v", src)
	}
	if !strings.Contains(src.String(), path) {
		t.Errorf("source string %q", src.String())
	}

	// The results must be for the key's commit.
	err = s.Put(ctx, baseline.Key{Branch: "main", SHA: sha}, sample(strings.Repeat("b", 40), 0.5))
	if err == nil || !strings.Contains(err.Error(), "results are for commit") {
		t.Errorf("mismatched commit: %v", err)
	}

	// A corrupt file is an error, not a missing baseline.
	if err := os.WriteFile(path, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(ctx, baseline.Key{}); err == nil || errors.Is(err, baseline.ErrNotFound) {
		t.Errorf("corrupt file: err = %v", err)
	}
}
