package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
)

// onlyMetrics keeps the metrics names of f and drops every other score.
func onlyMetrics(f *results.File, names ...string) *results.File {
	keep := map[string]bool{}
	for _, n := range names {
		keep[n] = true
	}
	f.Config.Metrics = names
	for m := range f.Summary {
		if !keep[m] {
			delete(f.Summary, m)
		}
	}
	for i := range f.Samples {
		s := &f.Samples[i]
		for m := range s.Scores {
			if !keep[m] {
				delete(s.Scores, m)
				delete(s.Undefined, m)
				delete(s.UndefinedKind, m)
			}
		}
	}
	return f
}

// TestBaselinePutRefusesNothingGated: a results file that scores none of
// the metrics the thresholds gate would let every later check pass; baseline
// put refuses it (exit 2) naming what the gate checks and how to fix it, and
// stores it when --thresholds gate what it scores.
func TestBaselinePutRefusesNothingGated(t *testing.T) {
	dir := t.TempDir()
	ss := writeResults(t, onlyMetrics(demoBaseline(t), "string_similarity"))
	store := filepath.Join(dir, "store.json")

	r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", ss)
	for _, want := range []string{
		"scores none of the metrics the gate checks",
		"context_precision, context_recall, faithfulness, answer_relevancy, factual_correctness",
		"the built-in thresholds",
		"it scores only string_similarity",
		"--thresholds",
	} {
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Fatalf("exit %d, want 2 with %q\n%s", r.code, want, r.stderr)
		}
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("the store was written (%v)", err)
	}

	// A thresholds file that gates something else: named in the message.
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("version: 1\ngate: [faithfulness]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", ss, "--thresholds", other)
	if r.code != 2 || !strings.Contains(r.stderr, "(faithfulness; thresholds "+other+")") {
		t.Fatalf("exit %d, want 2 naming faithfulness and the thresholds file\n%s", r.code, r.stderr)
	}

	// A bad thresholds file is a usage error with its line.
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\ngate: [string_similarity]\ntolerence: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", ss, "--thresholds", bad)
	if r.code != 2 || !strings.Contains(r.stderr, "bad.yaml:3") {
		t.Fatalf("exit %d, want 2 with bad.yaml:3\n%s", r.code, r.stderr)
	}

	// Thresholds that gate what it scores: stored.
	th := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(th, []byte("version: 1\ngate: [string_similarity]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", ss, "--thresholds", th); r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
	// One gated metric scored among others: stored with the defaults.
	some := writeResults(t, onlyMetrics(demoBaseline(t), "string_similarity", "faithfulness"))
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", filepath.Join(dir, "s2.json"), "--results", some); r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
	}
}

// TestBaselinePutNoScoreNoReason: a file whose scores are all undefined
// without a recorded reason does not print "(most often: )".
func TestBaselinePutNoScoreNoReason(t *testing.T) {
	f := demoBaseline(t)
	for i := range f.Samples {
		s := &f.Samples[i]
		for m := range s.Scores {
			s.Scores[m] = results.Score(math.NaN())
		}
		s.Undefined, s.UndefinedKind = nil, nil
	}
	r := gate(t, nil, "baseline", "put", "--store", "file", "--path", filepath.Join(t.TempDir(), "s.json"), "--results", writeResults(t, f))
	if r.code != 2 || !strings.Contains(r.stderr, "has no scored value") || strings.Contains(r.stderr, "most often: )") {
		t.Fatalf("exit %d, want 2 without an empty \"most often\"\n%s", r.code, r.stderr)
	}
}

// TestJudgeFailedOnOneSampleWording: a judge that failed on the one head
// sample is not said to have failed "on most samples", and the reason is
// given.
func TestJudgeFailedOnOneSampleWording(t *testing.T) {
	base := demoBaseline(t)
	base.Samples = base.Samples[:1]
	base.Dataset.Samples = 1
	bp := writeResults(t, base)
	head := demoBaseline(t)
	head.Samples = head.Samples[:1]
	head.Dataset.Samples = 1
	s := &head.Samples[0]
	s.Scores["faithfulness"] = results.Score(math.NaN())
	s.Undefined = map[string]string{"faithfulness": "judge returned an empty response"}
	s.UndefinedKind = map[string]results.UndefinedKind{"faithfulness": results.KindJudge}
	r := gate(t, nil, "compare", "--base", bp, "--head", writeResults(t, head))
	want := "faithfulness is undefined for 1 of 1 head samples (base: 0 of 1): the judge failed on the only head sample (judge returned an empty response)"
	if r.code != 1 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "on most samples") {
		t.Fatalf("exit %d, want 1 with %q\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}

// TestTargetHeaderFlagNotBlamedOnFile: a --target-header is the command
// line's, not the target config file's: it may expand the gate's own
// secret (the workflow decides), it replaces the file's header of the same
// name whatever its case, and a bad value of it is named as the flag's.
func TestTargetHeaderFlagNotBlamedOnFile(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	var mu sync.Mutex
	got := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		mu.Lock()
		got[r.Header.Get("X-B")+"|"+r.Header.Get("X-C")] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"response": "The Kestrel K2 stores 13.5 kWh."}`))
	}))
	t.Cleanup(srv.Close)
	cfg := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(cfg, []byte("target:\n  url: "+srv.URL+"\n  headers:\n    X-B: \"${GITHUB_TOKEN}\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_TOKEN": "ghp_0123456789abcdef"}
	out := filepath.Join(dir, "r.json")
	r := gate(t, env, "run", "--dataset", demo, "--judge", "offline", "--quiet", "--out", out, "--target-config", cfg,
		"--target-header", "x-b=fine-value-123", "--target-header", "X-C=${GITHUB_TOKEN}")
	if r.code != 0 || strings.Contains(r.stderr, "t.yaml") {
		t.Fatalf("exit %d, want 0 without blaming t.yaml\n%s", r.code, r.stderr)
	}
	if len(got) != 1 || !got["fine-value-123|ghp_0123456789abcdef"] {
		t.Errorf("headers received %v, want X-B: fine-value-123 (the flag's) and X-C (the flag's) on every call", got)
	}

	// A bad value given by the flag is the flag's.
	calls.Store(0)
	r = gate(t, env, "run", "--dataset", demo, "--judge", "offline", "--quiet", "--out", out, "--target-config", cfg,
		"--target-header", "X-B=${GITHUB_TOKEN}", "--target-header", "X-D=${NOPE}")
	if r.code != 2 || !strings.Contains(r.stderr, "--target-header X-D: $NOPE is not set") || strings.Contains(r.stderr, "t.yaml") || calls.Load() != 0 {
		t.Fatalf("exit %d after %d calls, want 2 naming --target-header X-D and not t.yaml\n%s", r.code, calls.Load(), r.stderr)
	}
	// The file's own header is still held to the file's rules, with its line.
	r = gate(t, env, "run", "--dataset", demo, "--judge", "offline", "--quiet", "--out", out, "--target-config", cfg)
	if r.code != 2 || !strings.Contains(r.stderr, "t.yaml:4: header X-B expands ${GITHUB_TOKEN}") {
		t.Fatalf("exit %d, want 2 naming t.yaml:4\n%s", r.code, r.stderr)
	}
}

// TestJudgeRecordsSampleTemperature: the results file says at what
// temperature answer relevancy's questions were sampled (0.3), besides
// the 0 of every other step, and the fingerprint is the one earlier
// versions computed from the same judge (stored baselines stay comparable;
// the prompts hash already covers the sampling temperature).
func TestJudgeRecordsSampleTemperature(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
	out := filepath.Join(t.TempDir(), "r.json")
	env := map[string]string{"OPENAI_API_KEY": "sk-test"}
	r := gate(t, env, "run", "--quiet", "--dataset", demo, "--base-url", srv.URL, "--model", "judge-model",
		"--embedding-model", "emb-model", "--metrics", "answer_relevancy", "--no-cache", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f := readResults(t, out)
	if f.Judge.Temperature != 0 || f.Judge.SampleTemperature != 0.3 {
		t.Errorf("judge temperature %v, sample_temperature %v; want 0 and 0.3", f.Judge.Temperature, f.Judge.SampleTemperature)
	}
	info := judge.Info{Provider: f.Judge.Provider, Model: f.Judge.Model, EmbeddingModel: f.Judge.EmbeddingModel,
		Temperature: f.Judge.Temperature, Prompts: f.Judge.Prompts, UserMetrics: f.Judge.UserMetrics}
	b, _ := json.Marshal(struct {
		Provider       string  `json:"provider"`
		Model          string  `json:"model,omitempty"`
		EmbeddingModel string  `json:"embedding_model,omitempty"`
		Temperature    float64 `json:"temperature"`
		Prompts        string  `json:"prompts"`
		UserMetrics    string  `json:"user_metrics,omitempty"`
	}{info.Provider, info.Model, info.EmbeddingModel, info.Temperature, info.Prompts, info.UserMetrics})
	sum := sha256.Sum256(b)
	if want := hex.EncodeToString(sum[:8]); f.Judge.Fingerprint != want {
		t.Errorf("fingerprint %s, want %s (the earlier formula: a changed fingerprint reads as a judge change)", f.Judge.Fingerprint, want)
	}
	// The offline judge samples nothing: no sample temperature recorded.
	r = gate(t, nil, "run", "--quiet", "--dataset", demo, "--judge", "offline", "--out", out)
	if r.code != 0 {
		t.Fatalf("offline: exit %d\n%s", r.code, r.stderr)
	}
	if f := readResults(t, out); f.Judge.SampleTemperature != 0 || f.Judge.Fingerprint != demoBaseline(t).Judge.Fingerprint {
		t.Errorf("offline: sample_temperature %v, fingerprint %s (want none, and the demo baseline's %s)", f.Judge.SampleTemperature, f.Judge.Fingerprint, demoBaseline(t).Judge.Fingerprint)
	}
}

// TestCalibrateNumericMetricNoTolerance: a numeric metric (latency in ms)
// is read from the data, not judged, and scored on its own scale: calibrate
// suggests no 0.01 tolerance for it, and says why and what to do instead.
func TestCalibrateNumericMetricNoTolerance(t *testing.T) {
	dir := t.TempDir()
	ds, mf := latencyDataset(t, dir)
	r := gate(t, nil, "calibrate", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics-file", mf,
		"--metrics", "latency_ms,faithfulness", "--out", filepath.Join(dir, "c.json"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "latency_ms: {tolerance") || !strings.Contains(r.stdout, "faithfulness: {tolerance: 0.010}") {
		t.Errorf("want a tolerance for faithfulness only\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "latency_ms is numeric") || !strings.Contains(r.stdout, "on its own scale") {
		t.Errorf("want a note on latency_ms\n%s", r.stdout)
	}
}
