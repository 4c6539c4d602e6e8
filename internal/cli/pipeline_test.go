package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
