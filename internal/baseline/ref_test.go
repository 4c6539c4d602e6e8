package baseline_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/results"
)

// The API-backed git store reads the file as it is at the key's commit,
// not at the branch tip, and is read-only.
func TestRefStore(t *testing.T) {
	s := ghtest.NewServer(t)
	s.AddRepo(repo, "main")
	b, err := results.Marshal(sample("", 0.7))
	if err != nil {
		t.Fatal(err)
	}
	s.PutFile(repo, "main", "eval/baseline.json", b)
	base := s.BranchHead(repo, "main")
	s.PutFile(repo, "main", "eval/baseline.json", []byte("not json")) // the tip moved on
	st := &baseline.RefStore{Client: s.Client(), Owner: "octo", Repo: "rag", Path: "eval/baseline.json"}
	ctx := context.Background()

	f, src, err := st.Get(ctx, baseline.Key{Branch: "main", SHA: base})
	if err != nil {
		t.Fatal(err)
	}
	if mean(f) != 0.7 || src.Store != "git" || src.Location != base+":eval/baseline.json" {
		t.Errorf("read mean %v from %+v", mean(f), src)
	}
	if _, _, err := st.Get(ctx, baseline.Key{Branch: "main"}); !errors.Is(err, results.ErrInvalid) {
		t.Errorf("at the branch tip: err = %v, want the tip's invalid file", err)
	}
	missing := &baseline.RefStore{Client: s.Client(), Owner: "octo", Repo: "rag", Path: "eval/baselne.json"}
	if _, _, err := missing.Get(ctx, baseline.Key{Branch: "main", SHA: base}); !errors.Is(err, baseline.ErrMissingPath) || !strings.Contains(err.Error(), "eval/baselne.json") {
		t.Errorf("missing path: err = %v, want ErrMissingPath naming it", err)
	}
	if err := st.Put(ctx, baseline.Key{Branch: "main", SHA: base}, f); !errors.Is(err, baseline.ErrReadOnly) {
		t.Errorf("Put: err = %v, want ErrReadOnly", err)
	}
}
