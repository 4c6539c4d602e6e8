package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/raggate/raggate/internal/judge/offline"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// repo is the repository root, relative to this package.
const repo = "../.."

type runResult struct {
	code           int
	stdout, stderr string
}

// gate runs the CLI in-process with the given environment variables.
func gate(t *testing.T, env map[string]string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] },
	})
	return runResult{code, out.String(), errb.String()}
}

func TestRunDemoWithOfflineJudge(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	r := gate(t, nil, "run", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Samples) != 20 || f.Dataset.Samples != 20 {
		t.Fatalf("%d samples, want 20", len(f.Samples))
	}
	// The demo has every field, so the whole offline default suite runs:
	// the default suite without the metrics the offline judge declines.
	want := offline.DefaultSuite(func(metrics.Field) bool { return true })
	for _, m := range offline.Unreliable {
		if _, ok := f.Summary[m]; ok {
			t.Errorf("%s ran: the offline judge cannot score it reliably, so it is not in its default suite", m)
		}
	}
	if len(f.Config.Metrics) != len(want) {
		t.Errorf("metrics = %v, want the %d of the default suite", f.Config.Metrics, len(want))
	}
	for _, m := range want {
		s, ok := f.Summary[m.Name]
		if !ok || s.N != 20 {
			t.Errorf("%s: summary %+v, want 20 defined scores", m.Name, s)
		}
	}
	if f.Judge.Provider != "offline" || f.Judge.Fingerprint == "" || f.Judge.Prompts == "" {
		t.Errorf("judge = %+v", f.Judge)
	}
}

func TestRunSharedDatasets(t *testing.T) {
	tests := []struct {
		file    string
		samples int
		fields  []string
	}{
		{"amnesty_qa/amnesty_qa_eval.english_v2.fbf1aec.jsonl", 20, nil},
		{"amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl", 20, nil},
		{"fiqa/fiqa.jsonl", 30, nil},
	}
	var v2, v3 *results.File
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.json")
			r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/datasets/"+tt.file, "--judge", "offline", "--out", out)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Samples) != tt.samples {
				t.Fatalf("%d samples, want %d", len(f.Samples), tt.samples)
			}
			// Every metric the data allows (user_input, contexts, response,
			// reference) that the offline judge scores: faithfulness and the
			// string metrics.
			for _, m := range []string{"faithfulness", "string_similarity", "exact_match", "string_presence"} {
				if s, ok := f.Summary[m]; !ok || s.N+s.Undefined != tt.samples {
					t.Errorf("%s: %+v", m, s)
				}
			}
			for _, m := range []string{"id_context_precision", "nonllm_context_recall", "answer_relevancy", "context_recall", "factual_correctness", "semantic_similarity"} {
				if _, ok := f.Summary[m]; ok {
					t.Errorf("%s ran though the dataset has no such fields or the offline judge declines it", m)
				}
			}
			switch {
			case strings.Contains(tt.file, "v2"):
				v2 = f
			case strings.Contains(tt.file, "v3"):
				v3 = f
			}
		})
	}
	if v2 != nil && v3 != nil {
		// Old and new Ragas vocabularies describe the same data: same scores.
		for i := range v2.Samples {
			a, b := v2.Samples[i], v3.Samples[i]
			if a.ID != b.ID {
				t.Fatalf("sample %d: ids %s vs %s", i, a.ID, b.ID)
			}
			for m, s := range a.Scores {
				if s != b.Scores[m] && !(s.IsNaN() && b.Scores[m].IsNaN()) {
					t.Errorf("sample %s %s: v2 %v, v3 %v", a.ID, m, s, b.Scores[m])
				}
			}
		}
	}
}

func TestBaselineGetPut(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store", "base.json")
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", repo+"/testdata/demo/baseline.json"); r.code != 0 {
		t.Fatalf("put: %d %s", r.code, r.stderr)
	}
	out := filepath.Join(dir, "got.json")
	if r := gate(t, nil, "baseline", "get", "--store", "file", "--path", store, "--out", out); r.code != 0 {
		t.Fatalf("get: %d %s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil || len(f.Samples) != 20 {
		t.Fatalf("got %v %v", f, err)
	}
	// A run's file is stored as it is, texts and evidence included (put
	// reads its samples back one at a time as the store writes them).
	run := filepath.Join(dir, "run.json")
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", repo+"/testdata/demo/golden.jsonl", "--out", run); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", run); r.code != 0 {
		t.Fatalf("put: %d %s", r.code, r.stderr)
	}
	if r := gate(t, nil, "baseline", "get", "--store", "file", "--path", store, "--out", out); r.code != 0 {
		t.Fatalf("get: %d %s", r.code, r.stderr)
	}
	want, _ := os.ReadFile(run)
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, want) || !bytes.Contains(got, []byte(`"evidence"`)) {
		t.Errorf("the baseline got back differs from the run stored (%d bytes, %d stored)", len(got), len(want))
	}
}

func TestShardAndMerge(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--out", whole); r.code != 0 {
		t.Fatal(r.stderr)
	}
	wholeFile, err := results.Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*results.Sample{}
	for k := range wholeFile.Samples {
		byID[wholeFile.Samples[k].ID] = &wholeFile.Samples[k]
	}
	var shards []string
	total := 0
	for i := 1; i <= 3; i++ {
		p := filepath.Join(dir, "shard"+string(rune('0'+i))+".json")
		r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--shard", string(rune('0'+i))+"/3", "--out", p)
		if r.code != 0 {
			t.Fatal(r.stderr)
		}
		f, _ := results.Read(p)
		if f.Shard != string(rune('0'+i))+"/3" {
			t.Errorf("shard field %q", f.Shard)
		}
		// Each sample of a shard is its own (judged on its own texts).
		for k := range f.Samples {
			s := &f.Samples[k]
			w := byID[s.ID]
			if !results.InShard(s.ID, i, 3) || w == nil || s.InputHash != w.InputHash || fmt.Sprint(s.Scores) != fmt.Sprint(w.Scores) {
				t.Errorf("shard %d/3: sample %s is not the whole run's (in shard %v)", i, s.ID, results.InShard(s.ID, i, 3))
			}
		}
		total += len(f.Samples)
		shards = append(shards, p)
	}
	if total != 20 {
		t.Fatalf("shards hold %d samples, want 20 in all", total)
	}
	merged := filepath.Join(dir, "merged.json")
	if r := gate(t, nil, append([]string{"merge", "--quiet", "--out", merged}, shards...)...); r.code != 0 {
		t.Fatal(r.stderr)
	}
	a, _ := results.Read(whole)
	b, _ := results.Read(merged)
	if len(b.Samples) != 20 || b.Shard != "" {
		t.Fatalf("merged: %d samples, shard %q", len(b.Samples), b.Shard)
	}
	for m, s := range a.Summary {
		if got := b.Summary[m]; got.N != s.N || got.Undefined != s.Undefined || math.Abs(got.Mean.Value()-s.Mean.Value()) > 1e-12 ||
			math.Abs(got.P50.Value()-s.P50.Value()) > 1e-12 || math.Abs(got.Std.Value()-s.Std.Value()) > 1e-12 {
			t.Errorf("%s: merged summary %+v, whole run %+v", m, got, s)
		}
	}
	// The merged samples are the shards' own, whole (texts and evidence
	// included), in shard order.
	var want []results.Sample
	for _, p := range shards {
		f, _ := results.Read(p)
		want = append(want, f.Samples...)
	}
	for k := range want {
		w, _ := json.Marshal(want[k])
		g, _ := json.Marshal(b.Samples[k])
		if !bytes.Equal(w, g) {
			t.Fatalf("merged sample %d:\n%s\nthe shard's:\n%s", k, g, w)
		}
	}
	if want[0].Response == "" || len(want[0].Evidence) == 0 {
		t.Fatalf("the shards recorded no texts: the comparison above proves nothing about them")
	}
}

// gate check --report writes the markdown report (what it prints, and the
// verdicts with the degraded responses or without a baseline, are in the
// transcripts check-*.txt).
func TestCheckWritesReport(t *testing.T) {
	dir := t.TempDir()
	base := repo + "/testdata/demo/baseline.json"
	r := gate(t, nil, "check", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--baseline", base, "--judge", "offline",
		"--out", filepath.Join(dir, "head.json"), "--report", filepath.Join(dir, "report.md"))
	if r.code != 0 {
		t.Fatalf("check against its own baseline: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "| Metric | Base | Head |") {
		t.Errorf("markdown report: %v\n%s", err, md)
	}
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	worse := filepath.Join(dir, "worse.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--responses", repo+"/testdata/demo/responses-degraded.jsonl", "--judge", "offline", "--out", worse); r.code != 0 {
		t.Fatal(r.stderr)
	}
	base := repo + "/testdata/demo/baseline.json"
	r := gate(t, nil, "compare", "--base", base, "--head", worse, "--format", "json")
	if r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Passed   bool     `json:"passed"`
		Failures []string `json:"failures"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Passed || len(rep.Failures) == 0 {
		t.Fatalf("json report: %v %+v\n%s", err, rep, r.stdout)
	}
	out := filepath.Join(dir, "c.md")
	if r := gate(t, nil, "compare", "--base", base, "--head", base, "--format", "markdown", "--out", out); r.code != 0 || r.stdout != "" {
		t.Fatalf("identical: exit %d, stdout %q", r.code, r.stdout)
	}
	if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "### ✅ raggate: ") || !strings.Contains(string(b), "| Metric |") {
		t.Errorf("markdown:\n%s", b)
	}
}

// An interrupted run (SIGINT/SIGTERM cancel the context in main) exits 130
// and keeps what finished.
func TestCancelledRunExits130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, buf bytes.Buffer
	// Cancel once judging has begun (the dataset is loaded by then).
	stderr := &cancelOn{w: &buf, text: "judged ", cancel: cancel}
	code := Main(ctx, []string{"run", "--dataset", repo + "/testdata/demo/golden.jsonl", "--judge", "offline", "--out", out},
		Env{Stdout: &stdout, Stderr: stderr, Getenv: func(string) string { return "" }})
	if code != ExitCancelled {
		t.Fatalf("exit %d, want 130\n%s", code, buf.String())
	}
	f, err := results.Read(out)
	if err != nil || !strings.HasPrefix(f.Incomplete, "cancelled") {
		t.Fatalf("saved results: %v %+v", err, f)
	}
}

// cancelOn is a writer that calls cancel when text is written to it.
type cancelOn struct {
	mu     sync.Mutex
	w      io.Writer
	text   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if strings.Contains(string(p), c.text) {
		c.cancel()
	}
	return c.w.Write(p)
}
