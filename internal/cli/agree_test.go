package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
)

// labelled is the demo dataset with human labels: each question's good
// response (human=Yes, grade 5) and, for 15 of them, a degraded one
// (human=No, grade 1 or 2), paired by the column pair.
var labelled = repo + "/testdata/demo/labelled.jsonl"

// agreeJSON is gate agree's JSON report, as far as the tests read it.
type agreeJSON struct {
	Judge    string `json:"judge"`
	Kind     string `json:"kind"`
	Rows     int    `json:"rows"`
	Unpaired int    `json:"unpaired"`
	Metrics  []struct {
		Metric string `json:"metric"`
		Binary *struct {
			N   int `json:"n"`
			AUC struct {
				Value *float64 `json:"value"`
				Low   *float64 `json:"ci_low"`
				High  *float64 `json:"ci_high"`
			} `json:"auc"`
			At struct {
				Threshold float64        `json:"threshold"`
				Confusion map[string]int `json:"confusion"`
			} `json:"at_threshold"`
		} `json:"binary"`
		Graded *struct {
			Spearman struct {
				Value *float64 `json:"value"`
				N     int      `json:"n"`
			} `json:"spearman"`
		} `json:"graded"`
		Pairwise *struct {
			N        int `json:"n"`
			Accuracy struct {
				Value *float64 `json:"value"`
			} `json:"accuracy"`
			Wins, Ties, Losses int
		} `json:"pairwise"`
		Disagreements []struct {
			ID    string `json:"id"`
			Label string `json:"label"`
		} `json:"disagreements"`
	} `json:"metrics"`
}

func decodeAgree(t *testing.T, out string) agreeJSON {
	t.Helper()
	var r agreeJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, out)
	}
	return r
}

// TestAgreeOfflineJudgeLabelKinds judges the labelled demo with the
// offline judge once, then reads its results file for each label kind.
func TestAgreeOfflineJudgeLabelKinds(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "agree", "--dataset", labelled, "--judge", "offline", "--label", "human", "--positive", "yes",
		"--metrics", "faithfulness,string_similarity", "--out", out, "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := decodeAgree(t, r.stdout)
	if rep.Kind != "binary" || rep.Rows != 35 || len(rep.Metrics) != 2 || !strings.Contains(rep.Judge, "offline") {
		t.Fatalf("report %+v", rep)
	}
	b := rep.Metrics[0].Binary
	// The offline judge catches the invented facts of the degraded
	// responses: all 20 good ones score at least 0.5, 14 of the 15 bad
	// ones below.
	if b == nil || b.N != 35 || *b.AUC.Value < 0.9 || *b.AUC.Low > *b.AUC.Value || *b.AUC.High < *b.AUC.Value ||
		b.At.Confusion["tp"] != 20 || b.At.Confusion["fn"] != 0 || b.At.Confusion["tn"] != 14 || b.At.Confusion["fp"] != 1 {
		t.Fatalf("faithfulness binary %+v", b)
	}
	if d := rep.Metrics[0].Disagreements; len(d) == 0 || d[0].Label != "No" || !strings.HasSuffix(d[0].ID, "-b") {
		t.Errorf("disagreements %+v, want a degraded response labelled No first", d)
	}
	if f, err := results.Read(out); err != nil || len(f.Samples) != 35 || f.Samples[0].Metadata["human"] != "Yes" {
		t.Fatalf("results file: %v", err)
	}

	t.Run("graded", func(t *testing.T) {
		r := gate(t, nil, "agree", "--results", out, "--label", "grade", "--format", "json")
		rep := decodeAgree(t, r.stdout)
		if r.code != 0 || rep.Kind != "graded" {
			t.Fatalf("exit %d, kind %q\n%s", r.code, rep.Kind, r.stderr)
		}
		s := rep.Metrics[0].Graded.Spearman
		if s.N != 35 || *s.Value < 0.7 {
			t.Errorf("faithfulness Spearman %+v", s)
		}
	})
	t.Run("pairwise", func(t *testing.T) {
		r := gate(t, nil, "agree", "--results", out, "--label", "grade", "--pair-by", "pair", "--format", "json")
		rep := decodeAgree(t, r.stdout)
		if r.code != 0 || rep.Kind != "pairwise" || rep.Unpaired != 5 {
			t.Fatalf("exit %d, report %+v\n%s", r.code, rep, r.stderr)
		}
		p := rep.Metrics[0].Pairwise
		// 15 pairs, all won: the graded support ranks even the two
		// degraded responses whose statements all pass the verdict's cut
		// below their good ones.
		if p.N != 15 || p.Wins != 15 || p.Ties != 0 || p.Losses != 0 || math.Abs(*p.Accuracy.Value-1) > 1e-9 {
			t.Errorf("faithfulness pairwise %+v", p)
		}
	})
	t.Run("min", func(t *testing.T) {
		r := gate(t, nil, "agree", "--results", out, "--label", "human", "--positive", "Yes", "--min", "faithfulness:kappa=0.95")
		if r.code != 1 || !strings.Contains(r.stderr, "faithfulness kappa 0.94") || !strings.Contains(r.stdout, "ROC AUC") {
			t.Errorf("exit %d, want 1 below the minimum\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		r = gate(t, nil, "agree", "--results", out, "--label", "human", "--positive", "Yes", "--min", "auc=0.8")
		if r.code != 0 {
			t.Errorf("exit %d, want 0 above the minimum\n%s", r.code, r.stderr)
		}
	})
}

// TestAgreeOpenAIJudge runs gate agree with the LLM judge against the
// OpenAI-compatible fake, then reads its results file again: no call.
func TestAgreeOpenAIJudge(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	env := map[string]string{"OPENAI_API_KEY": "sk-test"}
	r := gate(t, env, "agree", "--quiet", "--dataset", labelled, "--base-url", srv.URL, "--model", "judge-model",
		"--metrics", "faithfulness", "--no-cache", "--label", "human", "--positive", "yes", "--out", out, "--format", "markdown")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	calls := srv.ChatCalls()
	if calls == 0 || !strings.Contains(r.stdout, "openai judge-model") || !strings.Contains(r.stdout, "| faithfulness | 35 |") {
		t.Fatalf("%d calls; report:\n%s", calls, r.stdout)
	}
	again := gate(t, env, "agree", "--results", out, "--label", "human", "--positive", "yes", "--format", "markdown")
	// The same figures; only the source line differs.
	figures := func(s string) string { _, after, _ := strings.Cut(s, "**Agreement per metric"); return after }
	if again.code != 0 || srv.ChatCalls() != calls || figures(again.stdout) != figures(r.stdout) || figures(r.stdout) == "" {
		t.Errorf("--results: exit %d, %d more judge calls\n%s\n%s", again.code, srv.ChatCalls()-calls, again.stdout, again.stderr)
	}
}

// Label problems are exit 2 before any judge call.
func TestAgreeBadLabels(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
	env := map[string]string{"OPENAI_API_KEY": "sk-test"}
	dir := t.TempDir()
	triple := filepath.Join(dir, "triple.jsonl")
	if err := os.WriteFile(triple, []byte(`{"id":"a","user_input":"q","response":"r","p":"x","l":1}
{"id":"b","user_input":"q","response":"r","p":"x","l":0}
{"id":"c","user_input":"q","response":"r","p":"x","l":0}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no such column", []string{"--dataset", labelled, "--label", "humna"}, `no row has a column "humna"`},
		{"text without positive", []string{"--dataset", labelled, "--label", "human"}, `e.g. --positive "Yes"`},
		{"binary not 0/1", []string{"--dataset", labelled, "--label", "grade", "--kind", "binary"}, "binary labels are 0 or 1"},
		{"pair of three", []string{"--dataset", triple, "--label", "l", "--pair-by", "p"}, `pair p="x" has 3 labelled rows`},
		{"no label", []string{"--dataset", labelled}, "--label is required"},
		{"both sources", []string{"--dataset", labelled, "--results", "r.json", "--label", "human"}, "--results and --dataset"},
		{"bad min", []string{"--dataset", labelled, "--label", "human", "--min", "auc"}, "want FIGURE=VALUE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"agree", "--base-url", srv.URL, "--model", "m", "--no-cache", "--out", filepath.Join(dir, "r.json")}, tt.args...)
			r := gate(t, env, args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, want 2 with %q\n%s", r.code, tt.want, r.stderr)
			}
		})
	}
	if srv.ChatCalls() != 0 {
		t.Errorf("%d judge calls, want none before the labels are checked", srv.ChatCalls())
	}
}

// A metric the offline judge declines, asked for by name, stays undefined
// with the reason, and is not a judge failure (exit 0, not 3).
func TestOfflineJudgeDeclinesNamedMetric(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline",
		"--metrics", "faithfulness,answer_relevancy", "--out", out)
	if r.code != 0 || !strings.Contains(r.stderr, "offline judge cannot score answer_relevancy reliably; use an LLM judge") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Samples[0]
	if !s.Scores["answer_relevancy"].IsNaN() || s.Undefined["answer_relevancy"] != "offline judge cannot score answer_relevancy reliably; use an LLM judge" ||
		s.Scores["faithfulness"].IsNaN() {
		t.Errorf("sample %+v", s)
	}
}

// TestAgreeUserMetric measures a user-defined numeric metric defined in a
// metrics file (gate agree loads it like gate run) and honours its
// direction: the grade column read as a lower-is-better cost ranks every
// good answer below every bad one.
func TestAgreeUserMetric(t *testing.T) {
	dir := t.TempDir()
	mf := filepath.Join(dir, "metrics.yaml")
	os.WriteFile(mf, []byte("version: 1\nmetrics:\n  slowness:\n    kind: numeric\n    reads: [grade]\n    direction: lower\n    description: grade read as a cost\n"), 0o644)
	r := gate(t, nil, "agree", "--dataset", labelled, "--judge", "offline", "--metrics-file", mf, "--metrics", "slowness",
		"--label", "human", "--positive", "Yes", "--out", filepath.Join(dir, "r.json"), "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := decodeAgree(t, r.stdout)
	if len(rep.Metrics) != 1 || rep.Metrics[0].Metric != "slowness" || rep.Metrics[0].Binary == nil {
		t.Fatalf("report %+v", rep)
	}
	// Grade 5 (good) is the higher cost here, so a lower-is-better metric
	// ranks every good answer below every bad one: AUC 0.
	if auc := rep.Metrics[0].Binary.AUC.Value; auc == nil || *auc != 0 {
		t.Errorf("AUC of a lower-is-better metric that ranks backwards = %v, want 0", auc)
	}
}
