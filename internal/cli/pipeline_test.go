package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
)

// A target run judges each answer as it arrives: the first sample's call
// answers only once the judge has been asked about other samples, which
// a run judging after every call (or in sample order) never does. The
// saved answers are still in sample order, and nothing is lost.
func TestTargetRunJudgesAnswersAsTheyArrive(t *testing.T) {
	dir := t.TempDir()
	judgeSrv := openaitest.NewServer(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ ID string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		status := "ok"
		if req.ID == "k2-001" {
			status = "judged nothing meanwhile"
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if len(judgeSrv.Requests()) > 0 {
					status = "ok"
					break
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"response": "The K2 stores 13.5 kWh (" + status + ").", "retrieved_contexts": []string{"The K2 stores 13.5 kWh."}})
	}))
	t.Cleanup(srv.Close)
	out, saved := filepath.Join(dir, "r.json"), filepath.Join(dir, "answers.jsonl")
	r := gate(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, "run", "--dataset", faultDataset(t, dir, 12), "--metrics", "faithfulness",
		"--base-url", judgeSrv.URL, "--model", "m", "--no-cache", "--out", out, "--save-responses", saved, "--quiet",
		"--target", srv.URL, "--target-concurrency", "2")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.ReadWith(out, results.ReadOptions{Texts: results.AllTexts})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Samples) != 12 || f.Samples[0].ID != "k2-001" {
		t.Fatalf("%d samples, first %q; want 12 in dataset order", len(f.Samples), f.Samples[0].ID)
	}
	if got := f.Samples[0].Response; !strings.Contains(got, "(ok)") {
		t.Fatalf("first sample answered %q: the judge was asked nothing while its call waited", got)
	}
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 12 {
		t.Fatalf("%d saved answers, want 12", len(lines))
	}
	for i, line := range lines {
		var row struct{ ID string }
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		if want := f.Samples[i].ID; row.ID != want {
			t.Fatalf("saved answer %d is %s, want %s: the saved answers are in sample order", i+1, row.ID, want)
		}
	}
}

// With --repeats, the target is called once per sample and every repeat
// judges the same answers, read back from where the run kept them; a
// shard calls the target for its samples only.
func TestTargetRunRepeatsJudgeTheSameAnswers(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(id string) string {
		return `{"response": "The K2 stores 13.5 kWh, said ` + id + `.", "retrieved_contexts": ["The K2 stores 13.5 kWh."]}`
	})
	data := faultDataset(t, dir, 10)
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", data, "--judge", "offline", "--metrics", "faithfulness,string_similarity", "--repeats", "2",
		"--out", out, "--quiet", "--target", srv.URL)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := calls.Load(); n != 10 {
		t.Fatalf("%d target calls for 10 samples and 2 repeats, want 10", n)
	}
	f, err := results.ReadWith(out, results.ReadOptions{Texts: results.AllTexts})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Samples) != 10 {
		t.Fatalf("%d samples, want 10", len(f.Samples))
	}
	for _, s := range f.Samples {
		runs := s.Runs["string_similarity"]
		if len(runs) != 2 || runs[0] != runs[1] || runs[0].IsNaN() || !strings.Contains(s.Response, "said "+s.ID) {
			t.Fatalf("sample %s: runs %v, response %q; want two equal scores of its own answer", s.ID, runs, s.Response)
		}
	}
	calls.Store(0)
	r = gate(t, nil, "run", "--dataset", data, "--judge", "offline", "--metrics", "string_similarity", "--shard", "1/2",
		"--out", out, "--quiet", "--target", srv.URL)
	if r.code != 0 {
		t.Fatalf("shard: exit %d\n%s", r.code, r.stderr)
	}
	f, err = results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); int(n) != len(f.Samples) || n == 0 || n == 10 {
		t.Fatalf("shard 1/2: %d target calls, %d samples judged; want one call per sample of the shard", n, len(f.Samples))
	}
}

// Without a usable temporary directory a target run still runs: the
// samples, the answers and the repeats' answers stay in memory, and only
// the recorded texts are given up, with a warning.
func TestTargetRunWithoutTemporaryDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", filepath.Join(dir, "missing"))
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(id string) string {
		return `{"response": "The K2 stores 13.5 kWh.", "retrieved_contexts": ["The K2 stores 13.5 kWh."]}`
	})
	out, saved := filepath.Join(dir, "r.json"), filepath.Join(dir, "answers.jsonl")
	r := gate(t, nil, "run", "--dataset", faultDataset(t, dir, 6), "--judge", "offline", "--metrics", "faithfulness", "--repeats", "2",
		"--out", out, "--save-responses", saved, "--quiet", "--target", srv.URL)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil || len(f.Samples) != 6 {
		t.Fatalf("results: %v", err)
	}
	b, err := os.ReadFile(saved)
	if err != nil || strings.Count(string(b), "\n") != 6 {
		t.Fatalf("saved answers: %v\n%s", err, b)
	}
	if !strings.Contains(r.stderr, "temporary directory") {
		t.Errorf("no warning that the texts could not be kept:\n%s", r.stderr)
	}
}

// A sample without the question the target's request sends is refused
// before any call, with its line, instead of being sent an empty one.
func TestTargetRequestFieldMissingFromASample(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(data, []byte("{\"id\": \"a\", \"user_input\": \"What?\", \"reference\": \"x\"}\n{\"id\": \"b\", \"reference\": \"y\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "ok"}` })
	r := gate(t, nil, "run", "--dataset", data, "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--target", srv.URL)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "golden.jsonl:2 (sample b)") || calls.Load() != 0 {
		t.Fatalf("exit %d after %d calls, want 2 naming golden.jsonl:2 before any call\n%s", r.code, calls.Load(), r.stderr)
	}
}
