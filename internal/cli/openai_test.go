package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
)

// The LLM judge end to end through the CLI, against the OpenAI-compatible
// fake: results carry usage, a re-run is served by the cache.
func TestRunOpenAIJudge(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	cache := filepath.Join(dir, "cache")
	env := map[string]string{"OPENAI_API_KEY": "sk-test"}
	args := []string{"run", "--quiet", "--dataset", repo + "/testdata/demo/golden.jsonl", "--base-url", srv.URL,
		"--model", "judge-model", "--embedding-model", "embed-model", "--cache-dir", cache, "--out", out}
	r := gate(t, env, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Judge.Provider != "openai" || f.Judge.Model != "judge-model" || len(f.Samples) != 20 {
		t.Fatalf("judge %+v, %d samples", f.Judge, len(f.Samples))
	}
	// 3 contexts per sample: at most 2N+10 = 16 chat calls per sample.
	if f.Usage.ChatCalls == 0 || f.Usage.ChatCalls > 20*16 || f.Usage.ChatCalls != srv.ChatCalls() {
		t.Errorf("usage chat calls %d, server saw %d, budget %d", f.Usage.ChatCalls, srv.ChatCalls(), 20*16)
	}
	if f.Usage.PromptTokens == 0 || f.Usage.EmbeddingTokens == 0 || len(f.Usage.PerMetric) == 0 {
		t.Errorf("usage not recorded: %+v", f.Usage)
	}
	if s := f.Summary["faithfulness"]; s.N != 20 {
		t.Errorf("faithfulness summary %+v", s)
	}

	// The same run again: every call is a cache hit, the scores identical.
	calls := srv.ChatCalls()
	out2 := filepath.Join(dir, "r2.json")
	args[len(args)-1] = out2
	if r := gate(t, env, args...); r.code != 0 {
		t.Fatalf("re-run: exit %d\n%s", r.code, r.stderr)
	}
	g, _ := results.Read(out2)
	if srv.ChatCalls() != calls {
		t.Errorf("re-run made %d chat calls, want 0 (cache)", srv.ChatCalls()-calls)
	}
	if g.Usage.CachedCalls == 0 || g.Usage.ChatCalls != 0 {
		t.Errorf("re-run usage %+v, want only cached calls", g.Usage)
	}
	for i := range f.Samples {
		for m, v := range f.Samples[i].Scores {
			w := g.Samples[i].Scores[m]
			if v != w && !(v.IsNaN() && w.IsNaN()) {
				t.Errorf("%s %s: %v then %v", f.Samples[i].ID, m, v, w)
			}
		}
	}
}

// A bad key stops the run with exit 3; nothing is judged, and the (empty)
// results are saved as incomplete (the message: transcript run-judge-bad-key).
func TestRunOpenAIBadKey(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-right"))
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, map[string]string{"OPENAI_API_KEY": "sk-wrong"}, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl",
		"--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--no-cache", "--out", out)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("results not saved: %v", err)
	}
	if f.Incomplete == "" {
		t.Error("results not marked incomplete")
	}
}

func TestDryRunMakesNoCalls(t *testing.T) {
	srv := openaitest.NewServer(t)
	r := gate(t, map[string]string{"OPENAI_API_KEY": "k"}, "run", "--dataset", repo+"/testdata/demo/golden.jsonl",
		"--base-url", srv.URL, "--model", "gpt-4o-mini", "--embedding-model", "text-embedding-3-small", "--dry-run")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	if srv.ChatCalls() != 0 || srv.EmbeddingCalls() != 0 {
		t.Error("dry run called the API")
	}
	// 20 samples with 3 contexts: at most 2N+10 = 16 chat calls each.
	var calls int
	if _, err := fmt.Sscanf(r.stdout[strings.Index(r.stdout, "chat calls"):], "chat calls %d", &calls); err != nil || calls == 0 || calls > 20*16 {
		t.Errorf("dry run chat calls = %d (%v), want 1..320:\n%s", calls, err, r.stdout)
	}
}

// Repeats ask the judge afresh (not from the cache), record every run and
// average them (what calibrate prints: transcript calibrate-llm-judge).
func TestRepeatsAndCalibrate(t *testing.T) {
	srv := openaitest.NewServer(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "cal.json")
	env := map[string]string{"OPENAI_API_KEY": "k"}
	r := gate(t, env, "calibrate", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--metrics", "faithfulness,context_recall",
		"--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--cache-dir", filepath.Join(dir, "c"), "--repeats", "2", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.Config.Repeats != 2 {
		t.Errorf("repeats %d", f.Config.Repeats)
	}
	for _, s := range f.Samples {
		if len(s.Runs["faithfulness"]) != 2 {
			t.Fatalf("sample %s runs %v, want 2", s.ID, s.Runs)
		}
	}
	// Each repeat asked the judge: twice the calls of one run (no cache reuse).
	if f.Usage.ChatCalls != srv.ChatCalls() || f.Usage.CachedCalls != 0 {
		t.Errorf("usage %+v, server %d", f.Usage, srv.ChatCalls())
	}
}

// A judge that stops answering: the whole-run time budget ends the run,
// what finished is saved as incomplete, exit 3.
func TestMaxDurationSavesWhatFinished(t *testing.T) {
	srv := openaitest.NewServer(t)
	srv.Inject(openaitest.Stall().Times(-1))
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, map[string]string{"OPENAI_API_KEY": "k"}, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl",
		"--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--no-cache", "--max-duration", "300ms", "--out", out)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "time budget --max-duration=300ms reached") {
		t.Errorf("stderr does not name the budget:\n%s", r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("nothing saved: %v", err)
	}
	if !strings.Contains(f.Incomplete, "time budget") {
		t.Errorf("incomplete = %q", f.Incomplete)
	}
}

// A judge that refuses everything does not produce a green run: exit 3,
// with the results saved (the message: transcript run-judge-refuses).
func TestJudgeFailingEverywhereExits3(t *testing.T) {
	srv := openaitest.NewServer(t)
	srv.Inject(openaitest.Refusal().Times(-1))
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, map[string]string{"OPENAI_API_KEY": "k"}, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--metrics", "faithfulness",
		"--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--no-cache", "--out", out)
	if r.code != 3 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := results.Read(out); err != nil {
		t.Fatalf("results not saved: %v", err)
	}
}

// --claims-atomicity and --claims-coverage change the claims the judge is
// asked for (and nothing else), and the judge fingerprint, so a baseline
// judged with other claims shows as a judge change.
func TestClaimsLevelsReachTheJudge(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"default low/low", nil, `"atomicity":"low","coverage":"low"`},
		{"high atomicity", []string{"--claims-atomicity", "high"}, `"atomicity":"high","coverage":"low"`},
		{"high/high", []string{"--claims-atomicity", "high", "--claims-coverage", "high"}, `"atomicity":"high","coverage":"high"`},
	}
	fingerprints := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"run", "--quiet", "--dataset", repo + "/testdata/demo/golden.jsonl", "--base-url", srv.URL,
				"--model", "judge-model", "--embedding-model", "embed-model", "--no-cache", "--metrics", "factual_correctness", "--out", out}, tt.args...)
			if r := gate(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, args...); r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			claims := 0
			for _, req := range srv.Requests() {
				if req.Step != "claims" {
					continue
				}
				claims++
				if body := string(req.Body); !strings.Contains(body, strings.ReplaceAll(tt.want, `"`, `\"`)) {
					t.Fatalf("claims request without %s:\n%.400s", tt.want, body)
				}
			}
			// Response and reference of 20 samples; 2 responses equal their
			// reference and are asked once.
			if claims != 2*20-2 {
				t.Errorf("%d claims requests, want 38", claims)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			for name, fp := range fingerprints {
				if fp == f.Judge.Fingerprint {
					t.Errorf("fingerprint %s equals that of %q", fp, name)
				}
			}
			fingerprints[tt.name] = f.Judge.Fingerprint
		})
	}
}
