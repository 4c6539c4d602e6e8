package baseline_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/results"
)

func means(es []baseline.Entry) []float64 {
	out := make([]float64, len(es))
	for i, e := range es {
		out[i] = mean(e.File)
	}
	return out
}

// The branch store walks the branch's commits page by page (the fake pages
// like GitHub: Link headers, at most 100 a page) and reads each stored
// baseline, oldest first.
func TestBranchStoreHistory(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 230)
	st := branchStore(s)
	ctx := context.Background()
	stored := map[int]float64{3: 0.5, 110: 0.6, 150: 0.7, 229: 0.8}
	for i, m := range stored {
		mustPut(t, st, baseline.Key{Branch: "main", SHA: main[i]}, m)
	}
	s.ResetRequests()
	got, err := st.History(ctx, baseline.Key{Branch: "main"}, 30)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.5, 0.6, 0.7, 0.8}; !slices.Equal(means(got), want) {
		t.Errorf("means %v, want %v (oldest first)", means(got), want)
	}
	if got[0].SHA != main[3] || got[3].SHA != main[229] {
		t.Errorf("commits %s .. %s, want %s .. %s", got[0].SHA, got[3].SHA, main[3], main[229])
	}
	if got[0].Date.IsZero() || !got[0].Date.Before(got[3].Date) && !got[0].Date.Equal(got[3].Date) {
		t.Errorf("dates %v .. %v", got[0].Date, got[3].Date)
	}
	if n := s.Count("GET", "/repos/octo/rag/commits"); n != 3 {
		t.Errorf("%d pages of commits listed, want 3 (230 commits, 100 a page)", n)
	}

	// The newest n only; and from a given commit.
	got, err = st.History(ctx, baseline.Key{Branch: "main"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.7, 0.8}; !slices.Equal(means(got), want) {
		t.Errorf("last 2: %v, want %v", means(got), want)
	}
	got, err = st.History(ctx, baseline.Key{Branch: "main", SHA: main[200]}, 30)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.5, 0.6, 0.7}; !slices.Equal(means(got), want) {
		t.Errorf("from commit 200: %v, want %v", means(got), want)
	}
}

func TestBranchStoreHistoryNothingStored(t *testing.T) {
	s := ghtest.NewServer(t)
	s.History(repo, "main", 3)
	_, err := branchStore(s).History(context.Background(), baseline.Key{Branch: "main"}, 30)
	if !errors.Is(err, baseline.ErrNotFound) {
		t.Fatalf("err %v, want ErrNotFound", err)
	}
}

func TestGitStoreHistory(t *testing.T) {
	dir, shas := gitRepo(t)
	st := &baseline.GitStore{Dir: dir, Path: "eval/baseline.json", Ref: "main"}
	got, err := st.History(context.Background(), baseline.Key{Branch: "main"}, 30)
	if err != nil {
		t.Fatal(err)
	}
	// The file was committed at the second commit and changed at the third.
	if want := []float64{0.7, 0.9}; !slices.Equal(means(got), want) {
		t.Errorf("means %v, want %v", means(got), want)
	}
	if got[0].SHA != shas[1] || got[1].SHA != shas[2] || got[1].Date.IsZero() {
		t.Errorf("entries %+v, want commits %s, %s with dates", got, shas[1], shas[2])
	}
	got, err = st.History(context.Background(), baseline.Key{Branch: "main"}, 1)
	if err != nil || !slices.Equal(means(got), []float64{0.9}) {
		t.Errorf("last 1: %v, %v", got, err)
	}
	_, err = (&baseline.GitStore{Dir: dir, Path: "eval/baselin.json", Ref: "main"}).History(context.Background(), baseline.Key{Branch: "main"}, 30)
	if !errors.Is(err, baseline.ErrMissingPath) {
		t.Errorf("missing path: %v, want ErrMissingPath", err)
	}
	_, err = (&baseline.GitStore{Dir: dir, Path: "eval/baseline.json", Ref: "mian"}).History(context.Background(), baseline.Key{Branch: "main"}, 30)
	if !errors.Is(err, baseline.ErrUnknownRef) {
		t.Errorf("unknown ref: %v, want ErrUnknownRef", err)
	}
}

func TestDirStoreHistory(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	// Written out of order: History orders by created_at.
	for i, m := range []float64{0.4, 0.1, 0.3, 0.2} {
		f := sample("", m)
		f.CreatedAt = base.Add(time.Duration(m*10) * 24 * time.Hour)
		if err := results.Write(filepath.Join(dir, "r"+string(rune('a'+i))+".json"), f); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not results"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := &baseline.DirStore{Dir: dir}
	got, err := st.History(context.Background(), baseline.Key{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.2, 0.3, 0.4}; !slices.Equal(means(got), want) {
		t.Errorf("means %v, want %v (newest 3, oldest first)", means(got), want)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := st.History(context.Background(), baseline.Key{}, 3); err == nil {
		t.Error("a broken results file was skipped silently")
	}
	if _, err := (&baseline.DirStore{Dir: filepath.Join(dir, "nope")}).History(context.Background(), baseline.Key{}, 3); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing dir: %v", err)
	}
}

// loopPages makes the fake's commit listing loop: every page asked for is
// answered with the first, whose Link header names page 2 as next, as an
// API (or a proxy caching it) that ignores the page parameter would.
func loopPages(s *ghtest.Server) {
	s.OnRequest(func(r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/commits") {
			return
		}
		q := r.URL.Query()
		q.Del("page")
		r.URL.RawQuery = q.Encode()
	})
}

// Pages that repeat do not repeat commits: shas already seen are skipped,
// and a page with nothing new ends the walk.
func TestBranchStoreHistoryPagesLoop(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 230)
	st := branchStore(s)
	for i, m := range map[int]float64{150: 0.5, 200: 0.6, 229: 0.7} {
		mustPut(t, st, baseline.Key{Branch: "main", SHA: main[i]}, m)
	}
	loopPages(s)
	s.ResetRequests()
	got, err := st.History(context.Background(), baseline.Key{Branch: "main"}, 30)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.5, 0.6, 0.7}; !slices.Equal(means(got), want) {
		t.Errorf("means %v, want %v: each stored commit once", means(got), want)
	}
	if n := s.Count("GET", "/repos/octo/rag/commits"); n != 2 {
		t.Errorf("%d pages of commits listed, want 2 (the second brings nothing new)", n)
	}
}

// The walk to the nearest stored ancestor stops on a page with nothing new
// too, instead of listing the same page until its limit.
func TestBranchStoreNearestPagesLoop(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 230)
	st := branchStore(s)
	st.MaxWalk = 1000
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[10]}, 0.5)
	loopPages(s)
	s.ResetRequests()
	_, src, err := st.Get(context.Background(), baseline.Key{Branch: "main", SHA: main[229]})
	if err != nil || !src.Latest {
		t.Fatalf("source %+v, %v: want the branch's latest baseline (the looping pages never list commit 10)", src, err)
	}
	if n := s.Count("GET", "/repos/octo/rag/commits"); n != 2 {
		t.Errorf("%d pages of commits listed, want 2 (the second brings nothing new)", n)
	}
}
