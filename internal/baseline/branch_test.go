package baseline_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/results"
)

const repo = "octo/rag"

func branchStore(s *ghtest.Server) *baseline.BranchStore {
	return &baseline.BranchStore{Client: s.Client(), Owner: "octo", Repo: "rag"}
}

func mustPut(t *testing.T, st baseline.Store, key baseline.Key, m float64) {
	t.Helper()
	if err := st.Put(context.Background(), key, sample(key.SHA, m)); err != nil {
		t.Fatalf("put %s: %v", key.SHA, err)
	}
}

func TestBranchStorePutCreatesBranchAndFiles(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 2)
	st := branchStore(s)
	ctx := context.Background()

	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[1]}, 0.8)

	head := s.BranchHead(repo, baseline.DefaultBranch)
	if head == "" {
		t.Fatal("baselines branch not created")
	}
	want := []string{"README.md", "baselines/main/" + main[1] + ".json", "baselines/main/latest.json"}
	if got := s.Paths(repo, baseline.DefaultBranch); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("files %q, want %q", got, want)
	}
	// The branch is an orphan: its root commit has no parent.
	root := head
	for p := s.Parents(repo, root); len(p) > 0; p = s.Parents(repo, root) {
		root = p[0]
	}
	for _, sha := range main {
		if root == sha {
			t.Error("baselines branch shares history with main")
		}
	}
	data, _ := s.File(repo, baseline.DefaultBranch, "baselines/main/latest.json")
	f, err := results.Parse(data)
	if err != nil || f.Git.SHA != main[1] {
		t.Fatalf("latest.json: %v %+v", err, f)
	}
	if n := s.Count("POST", "/repos/octo/rag/git/refs"); n != 1 {
		t.Errorf("%d ref creations, want 1", n)
	}

	got, src, err := st.Get(ctx, baseline.Key{Branch: "main", SHA: main[1]})
	if err != nil {
		t.Fatal(err)
	}
	if mean(got) != 0.8 || src.SHA != main[1] || src.Distance != 0 || src.Latest {
		t.Errorf("get: mean %v source %+v", mean(got), src)
	}

	// A second put of the same results changes nothing; the branch is not
	// created again.
	s.ResetRequests()
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[1]}, 0.8)
	if n := s.Count("PUT", "/"); n != 0 {
		t.Errorf("%d PUTs for identical content, want 0", n)
	}
	if n := s.Count("POST", "/"); n != 0 {
		t.Errorf("%d POSTs with the branch present, want 0", n)
	}
}

func TestBranchStoreGetWalksAncestors(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 70) // main[0] oldest
	st := branchStore(s)
	ctx := context.Background()
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[5]}, 0.5)
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[20]}, 0.6)

	tests := []struct {
		name       string
		sha        string
		wantMean   float64
		wantSHA    string
		wantDist   int
		wantLatest bool
	}{
		{"exact", main[20], 0.6, main[20], 0, false},
		{"ten after", main[30], 0.6, main[20], 10, false},
		{"49 after is within the walk", main[69], 0.6, main[20], 49, false},
		{"between", main[10], 0.5, main[5], 5, false},
		{"before any baseline: latest", main[2], 0.6, main[20], 0, true},
		{"unknown commit: latest", strings.Repeat("f", 40), 0.6, main[20], 0, true},
		{"no sha: latest", "", 0.6, main[20], 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.ResetRequests()
			f, src, err := st.Get(ctx, baseline.Key{Branch: "main", SHA: tt.sha})
			if err != nil {
				t.Fatal(err)
			}
			if mean(f) != tt.wantMean || src.SHA != tt.wantSHA || src.Distance != tt.wantDist || src.Latest != tt.wantLatest {
				t.Errorf("mean %v source %+v; want mean %v from %s at distance %d latest=%v",
					mean(f), src, tt.wantMean, tt.wantSHA[:7], tt.wantDist, tt.wantLatest)
			}
			if n := len(s.Requests()); n > 3 {
				t.Errorf("%d requests, want at most 3 (listing, history, file)", n)
			}
		})
	}

	// Beyond the walk: the nearest stored ancestor is 50 back, so only
	// latest.json (which is main[20] here) can answer.
	s2 := ghtest.NewServer(t)
	m2 := s2.History(repo, "main", 60)
	st2 := branchStore(s2)
	mustPut(t, st2, baseline.Key{Branch: "main", SHA: m2[9]}, 0.4)
	_, src, err := st2.Get(ctx, baseline.Key{Branch: "main", SHA: m2[59]})
	if err != nil {
		t.Fatal(err)
	}
	if !src.Latest || src.SHA != m2[9] {
		t.Errorf("beyond the walk: source %+v, want latest fallback", src)
	}
	if !strings.Contains(src.String(), "latest") {
		t.Errorf("source string %q does not mention the fallback", src)
	}
}

func TestBranchStoreMergeHistory(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 3)
	// A feature branch off main[1], merged into main with a merge commit;
	// its commits are newer than main[2] and interleave in the listing.
	f1 := s.AddCommit(repo, "feature 1", main[1])
	f2 := s.AddCommit(repo, "feature 2", f1)
	merge := s.AddCommit(repo, "merge feature", main[2], f2)
	s.SetBranch(repo, "main", merge)
	st := branchStore(s)
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[2]}, 0.7)
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[1]}, 0.1) // older push finishing last

	_, src, err := st.Get(context.Background(), baseline.Key{Branch: "main", SHA: merge})
	if err != nil {
		t.Fatal(err)
	}
	if src.SHA != main[2] || src.Latest {
		t.Errorf("source %+v, want main[2] (first-parent of the merge)", src)
	}
	// latest.json kept the newer commit.
	data, _ := s.File(repo, baseline.DefaultBranch, "baselines/main/latest.json")
	latest, err := results.Parse(data)
	if err != nil || latest.Git.SHA != main[2] {
		t.Errorf("latest.json is for %v (%v), want main[2]: an older push must not replace it", latest.Git, err)
	}
}

func TestBranchStoreNotFound(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 3)
	st := branchStore(s)
	ctx := context.Background()

	_, _, err := st.Get(ctx, baseline.Key{Branch: "main", SHA: main[2]})
	if !errors.Is(err, baseline.ErrNotFound) {
		t.Fatalf("no baselines branch: err = %v, want ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), "push to main") {
		t.Errorf("error does not say how to get a baseline: %v", err)
	}

	// Baselines exist, but for another branch.
	mustPut(t, st, baseline.Key{Branch: "release/1.x", SHA: main[1]}, 0.5)
	if _, _, err := st.Get(ctx, baseline.Key{Branch: "main", SHA: main[2]}); !errors.Is(err, baseline.ErrNotFound) {
		t.Errorf("other branch only: err = %v, want ErrNotFound", err)
	}
	f, src, err := st.Get(ctx, baseline.Key{Branch: "release/1.x", SHA: main[2]})
	if err != nil || mean(f) != 0.5 || src.Distance != 1 {
		t.Errorf("release/1.x: %v %+v", err, src)
	}
	if !strings.Contains(src.Location, "baselines/release/1.x/") {
		t.Errorf("location %q", src.Location)
	}

	// A mistyped baselines branch is not "no baseline yet": it names the
	// branch that exists.
	typo := &baseline.BranchStore{Client: s.Client(), Owner: "octo", Repo: "rag", Branch: "raggate-baselnes"}
	_, _, err = typo.Get(ctx, baseline.Key{Branch: "release/1.x", SHA: main[2]})
	if !errors.Is(err, baseline.ErrUnknownRef) || errors.Is(err, baseline.ErrNotFound) || !strings.Contains(err.Error(), "did you mean raggate-baselines?") {
		t.Errorf("mistyped baselines branch: err = %v, want ErrUnknownRef naming raggate-baselines", err)
	}
	// A new name far from any branch is a branch still to create.
	fresh := &baseline.BranchStore{Client: s.Client(), Owner: "octo", Repo: "rag", Branch: "eval-history"}
	if _, _, err := fresh.Get(ctx, baseline.Key{Branch: "main", SHA: main[2]}); !errors.Is(err, baseline.ErrNotFound) {
		t.Errorf("baselines branch not created yet: err = %v, want ErrNotFound", err)
	}
}

func TestBranchStoreNames(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 1)
	st := branchStore(s)
	ctx := context.Background()
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[0]}, 0.3)
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[0], Name: "fiqa"}, 0.9)

	for _, tt := range []struct {
		name string
		want float64
	}{{"", 0.3}, {"fiqa", 0.9}} {
		f, _, err := st.Get(ctx, baseline.Key{Branch: "main", SHA: main[0], Name: tt.name})
		if err != nil || mean(f) != tt.want {
			t.Errorf("name %q: %v mean %v, want %v", tt.name, err, f, tt.want)
		}
	}
	if _, ok := s.File(repo, baseline.DefaultBranch, "baselines/main/latest.fiqa.json"); !ok {
		t.Error("latest.fiqa.json missing")
	}
	if err := st.Put(ctx, baseline.Key{Branch: "main", SHA: main[0], Name: "../x"}, sample(main[0], 1)); err == nil {
		t.Error("bad name accepted")
	}
}

func TestBranchStoreConcurrentWriterConflict(t *testing.T) {
	for _, tt := range []struct {
		name      string
		precreate bool // latest.json exists before our put: a stale sha gives 409, else a missing one 422
		want      []int
	}{
		{"stale sha 409", true, []int{http.StatusConflict, http.StatusOK}},
		{"missing sha 422", false, []int{http.StatusUnprocessableEntity, http.StatusOK}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := ghtest.NewServer(t)
			main := s.History(repo, "main", 3)
			st := branchStore(s)
			if tt.precreate {
				mustPut(t, st, baseline.Key{Branch: "main", SHA: main[0]}, 0.1)
			} else {
				s.PutFile(repo, baseline.DefaultBranch, "README.md", []byte("x"))
			}
			// Between our read of latest.json and our write, another job
			// writes it (for an older commit).
			var once sync.Once
			s.OnRequest(func(r *http.Request) {
				if r.Method == "PUT" && strings.HasSuffix(r.URL.Path, "/latest.json") {
					once.Do(func() {
						b, _ := results.Marshal(sample(main[1], 0.2))
						s.PutFile(repo, baseline.DefaultBranch, "baselines/main/latest.json", b)
					})
				}
			})
			s.ResetRequests()
			mustPut(t, st, baseline.Key{Branch: "main", SHA: main[2]}, 0.9)

			got := s.Statuses("PUT", "/repos/octo/rag/contents/baselines/main/latest.json")
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("PUT latest.json statuses %v, want %v (conflict, then retry)", got, tt.want)
			}
			data, _ := s.File(repo, baseline.DefaultBranch, "baselines/main/latest.json")
			f, err := results.Parse(data)
			if err != nil || f.Git.SHA != main[2] {
				t.Errorf("latest.json after retry: %v %+v", err, f.Git)
			}
		})
	}
}

func TestBranchStoreConflictExhausted(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 2)
	st := branchStore(s)
	st.MaxAttempts = 3
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[0]}, 0.1)
	n := 0
	s.OnRequest(func(r *http.Request) {
		if r.Method == "PUT" && strings.HasSuffix(r.URL.Path, "/"+main[1]+".json") {
			n++
			s.PutFile(repo, baseline.DefaultBranch, "baselines/main/"+main[1]+".json", []byte(`{"n":`+string(rune('0'+n))+`}`))
		}
	})
	err := st.Put(context.Background(), baseline.Key{Branch: "main", SHA: main[1]}, sample(main[1], 0.5))
	if err == nil || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Fatalf("err = %v, want conflict after 3 attempts", err)
	}
}

func TestBranchStoreLargeFile(t *testing.T) {
	s := ghtest.NewServer(t)
	s.SetContentsLimit(200) // GitHub: 1 MB
	main := s.History(repo, "main", 1)
	st := branchStore(s)
	big := sample(main[0], 0.66)
	for i := range 50 {
		big.Samples = append(big.Samples, results.Sample{ID: "extra-" + string(rune('a'+i%26)) + string(rune('a'+i/26)),
			Scores: map[string]results.Score{"faithfulness": 0.5}})
	}
	if err := st.Put(context.Background(), baseline.Key{Branch: "main", SHA: main[0]}, big); err != nil {
		t.Fatal(err)
	}
	f, _, err := st.Get(context.Background(), baseline.Key{Branch: "main", SHA: main[0]})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Samples) != 51 || mean(f) != 0.66 {
		t.Errorf("read %d samples, mean %v", len(f.Samples), mean(f))
	}
	if n := s.Count("GET", "/repos/octo/rag/git/blobs/"); n == 0 {
		t.Error("large file not read through the blobs API")
	}
}

func TestBranchStoreErrors(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 1)
	ctx := context.Background()
	st := branchStore(s)

	s.SetReadOnly(true)
	err := st.Put(ctx, baseline.Key{Branch: "main", SHA: main[0]}, sample(main[0], 1))
	if !errors.Is(err, baseline.ErrNoPermission) || !strings.Contains(err.Error(), "contents: write") {
		t.Errorf("read-only: err = %v, want ErrNoPermission with a fix", err)
	}
	s.SetReadOnly(false)

	for _, key := range []baseline.Key{
		{Branch: "", SHA: main[0]},
		{Branch: "refs/heads/main", SHA: main[0]},
		{Branch: "a..b", SHA: main[0]},
		{Branch: "main", SHA: "abc"},
	} {
		if err := st.Put(ctx, key, sample("", 1)); err == nil {
			t.Errorf("key %+v accepted", key)
		}
	}
	if err := st.Put(ctx, baseline.Key{Branch: "main", SHA: main[0]}, nil); err == nil {
		t.Error("nil results accepted")
	}
	if _, _, err := (&baseline.BranchStore{Owner: "o", Repo: "r"}).Get(ctx, baseline.Key{Branch: "main"}); err == nil {
		t.Error("no client accepted")
	}

	// A corrupt stored file is reported, not treated as missing.
	s.PutFile(repo, baseline.DefaultBranch, "baselines/main/latest.json", []byte(`{"schema":"other/v9"}`))
	if _, _, err := st.Get(ctx, baseline.Key{Branch: "main"}); err == nil || errors.Is(err, baseline.ErrNotFound) {
		t.Errorf("corrupt latest.json: err = %v", err)
	}
}

// The store works through ghapi.NewClient: Enterprise prefix, token,
// and rate limits retried by the transport.
func TestBranchStoreWithRetryingClient(t *testing.T) {
	s := ghtest.NewServer(t, ghtest.Enterprise(), ghtest.WithToken("tok"))
	main := s.History(repo, "main", 2)
	var mu sync.Mutex
	var waits []time.Duration
	client, err := ghapi.NewClient("tok", s.URL, s.HTTPClient(), ghapi.WithSleep(func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	st := &baseline.BranchStore{Client: client, Owner: "octo", Repo: "rag"}
	s.FailNext(2, ghtest.SecondaryRateLimit)
	mustPut(t, st, baseline.Key{Branch: "main", SHA: main[1]}, 0.8)
	s.FailNext(1, ghtest.SecondaryRateLimit429)
	f, _, err := st.Get(context.Background(), baseline.Key{Branch: "main", SHA: main[1]})
	if err != nil || mean(f) != 0.8 {
		t.Fatalf("get: %v", err)
	}
	if len(waits) != 3 {
		t.Errorf("waits %v, want 3", waits)
	}
	// Source is JSON-friendly for the CLI's --json output.
	if _, err := json.Marshal(baseline.Source{}); err != nil {
		t.Error(err)
	}
}

func TestBranchStoreDropsTextsAboveTheFileLimit(t *testing.T) {
	s := ghtest.NewServer(t)
	main := s.History(repo, "main", 1)
	key := baseline.Key{Branch: "main", SHA: main[0]}
	f := sample(main[0], 0.66)
	for i := range f.Samples {
		f.Samples[i].Response = strings.Repeat("a long answer ", 50)
		f.Samples[i].Contexts = []string{strings.Repeat("a retrieved passage ", 50)}
		f.Samples[i].Evidence = map[string][]results.Evidence{"faithfulness": {{Text: "a statement", Verdict: 1}}}
	}
	lean, err := results.Marshal(withoutTexts(f))
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	st := branchStore(s)
	st.MaxFileBytes = len(lean) + 500 // room for the git block Put adds, not for the texts
	st.Read.Texts = results.AllTexts
	st.Logf = func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	if err := st.Put(context.Background(), key, f); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "stored without them") {
		t.Errorf("notes = %q, want one saying the texts were left out", notes)
	}
	got, _, err := st.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if mean(got) != 0.66 || len(got.Samples) != len(f.Samples) {
		t.Errorf("read %d samples, mean %v; want the scores kept", len(got.Samples), mean(got))
	}
	for _, sm := range got.Samples {
		if sm.Response != "" || sm.Contexts != nil || sm.Evidence != nil {
			t.Errorf("sample %s kept its texts above the limit", sm.ID)
		}
	}

	// The results of a run whose samples wait on disk (read one at a
	// time as they are encoded) are stored the same way.
	next := s.History(repo, "main", 2)
	disk := sample(next[1], 0.66)
	disk.Samples = append([]results.Sample(nil), f.Samples...)
	disk.Git.SHA = next[1]
	onDisk := *disk
	onDisk.Samples = nil
	onDisk.SetSampleSource(sliceSource(disk.Samples))
	notes = nil
	if err := st.Put(context.Background(), baseline.Key{Branch: "main", SHA: next[1]}, &onDisk); err != nil {
		t.Fatal(err)
	}
	gotDisk, _, err := st.Get(context.Background(), baseline.Key{Branch: "main", SHA: next[1]})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !reflect.DeepEqual(gotDisk.Samples, got.Samples) {
		t.Errorf("stored from disk: notes %q, samples differ from those stored from memory: %v", notes, !reflect.DeepEqual(gotDisk.Samples, got.Samples))
	}

	// Too large even without texts: an error that says what to do, and
	// nothing written.
	st.MaxFileBytes = len(lean) / 2
	other := s.History(repo, "main", 2)
	err = st.Put(context.Background(), baseline.Key{Branch: "main", SHA: other[1]}, sample(other[1], 0.5))
	if err == nil || !strings.Contains(err.Error(), "even without the samples' texts") || !strings.Contains(err.Error(), "file store") {
		t.Errorf("err = %v, want the size and the way out", err)
	}
}

// sliceSource gives samples as a run's results on disk do.
type sliceSource []results.Sample

func (s sliceSource) Len() int                             { return len(s) }
func (s sliceSource) Sample(i int) (results.Sample, error) { return s[i], nil }

func withoutTexts(f *results.File) *results.File {
	g := *f
	g.Samples = append([]results.Sample(nil), f.Samples...)
	for i := range g.Samples {
		g.Samples[i].Response, g.Samples[i].Contexts, g.Samples[i].Evidence = "", nil, nil
	}
	return &g
}
