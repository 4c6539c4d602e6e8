package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge/openaitest"

	"github.com/raggate/raggate/internal/results"
)

const demo = repo + "/testdata/demo/golden.jsonl"

// demoRow is what a pipeline answered for a demo question: the golden
// file's response and retrieved contexts stand in for a real pipeline.
type demoRow struct {
	ID         string   `json:"id"`
	UserInput  string   `json:"user_input"`
	Response   string   `json:"response"`
	Contexts   []string `json:"retrieved_contexts"`
	ContextIDs []string `json:"retrieved_context_ids"`
}

func demoRows(t *testing.T) map[string]demoRow {
	t.Helper()
	f, err := os.Open(demo)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]demoRow{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r demoRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows[r.UserInput] = r
	}
	return rows
}

// demoService is a RAG service over the demo: POST {"q": question} ->
// {"answer", "docs": [{"text", "id"}], "usage"}, after delay. fail, when
// set, may answer instead (returning true).
func demoService(t *testing.T, delay time.Duration, fail func(w http.ResponseWriter, q string) bool) *httptest.Server {
	t.Helper()
	rows := demoRows(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Q string }
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		time.Sleep(delay)
		if fail != nil && fail(w, req.Q) {
			return
		}
		row, ok := rows[req.Q]
		if !ok {
			http.Error(w, "unknown question", http.StatusNotFound)
			return
		}
		type doc struct {
			Text string `json:"text"`
			ID   string `json:"id"`
		}
		docs := make([]doc, len(row.Contexts))
		for i := range row.Contexts {
			docs[i] = doc{row.Contexts[i], row.ContextIDs[i]}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"answer": row.Response, "docs": docs,
			"usage": map[string]int{"prompt_tokens": 50 * len(docs), "completion_tokens": len(row.Response) / 4}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// targetArgs are the flags of a run against a demoService.
func targetArgs(url string) []string {
	return []string{"--target", url, "--target-body", `{"q": "{{user_input}}"}`, "--target-response-path", "answer",
		"--target-contexts-path", "docs[*].text", "--target-context-ids-path", "docs[*].id", "--target-retries", "0", "--quiet"}
}

func readResults(t *testing.T, path string) *results.File {
	t.Helper()
	f, err := results.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestRunTargetHTTP(t *testing.T) {
	dir := t.TempDir()
	srv := demoService(t, time.Millisecond, nil)
	plain := filepath.Join(dir, "plain.json")
	if r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", plain, "--quiet"); r.code != 0 {
		t.Fatalf("plain run: exit %d\n%s", r.code, r.stderr)
	}
	out, saved := filepath.Join(dir, "target.json"), filepath.Join(dir, "answers.jsonl")
	// The target answers with the golden file's responses and contexts,
	// to a copy of the golden file without them: every judged score (and
	// input hash) must equal the plain run's.
	questions := withoutAnswers(t, dir)
	args := append([]string{"run", "--dataset", questions, "--judge", "offline", "--out", out, "--save-responses", saved}, targetArgs(srv.URL)...)
	if r := gate(t, nil, args...); r.code != 0 {
		t.Fatalf("target run: exit %d\n%s", r.code, r.stderr)
	}
	p, f := readResults(t, plain), readResults(t, out)
	assertSameScores(t, p, f)
	// The results record what the target answered, as the HTML report
	// shows it: here the golden file's responses and contexts.
	for i, s := range f.Samples {
		if s.Response == "" || s.Response != p.Samples[i].Response || !slices.Equal(s.Contexts, p.Samples[i].Contexts) {
			t.Fatalf("sample %s: recorded response %q and %d contexts, want the target's answer %q and %d contexts",
				s.ID, s.Response, len(s.Contexts), p.Samples[i].Response, len(p.Samples[i].Contexts))
		}
	}
	for _, m := range []string{colLatency, colTokens} {
		if s, ok := f.Summary[m]; !ok || s.N != 20 {
			t.Errorf("target metric %s: summary %+v, want 20 scores", m, s)
		}
	}
	for _, s := range f.Samples {
		tc := s.Target
		if tc == nil || tc.Status != results.TargetOK || tc.LatencyMS <= 0 || tc.TotalTokens == 0 || len(tc.ContextIDs) == 0 || tc.Attempts != 1 {
			t.Fatalf("sample %s: target record %+v", s.ID, tc)
		}
		if raw := s.Raw[colTokens]; int(raw) != tc.TotalTokens {
			t.Errorf("sample %s: target_tokens %v, want the reported %d", s.ID, raw, tc.TotalTokens)
		}
	}
	// Re-judging the saved answers calls no target and scores the same.
	again := filepath.Join(dir, "again.json")
	if r := gate(t, nil, "run", "--dataset", questions, "--responses", saved, "--judge", "offline", "--out", again, "--quiet"); r.code != 0 {
		t.Fatalf("re-judge: exit %d\n%s", r.code, r.stderr)
	}
	assertSameScores(t, p, readResults(t, again))
}

// A target that returns its contexts but not their ids: the dataset's
// retrieved ids described other contexts, so the id metrics are not scored
// on them (left out of the default suite, or undefined when asked for).
func TestRunTargetContextsWithoutIDsDropTheDatasetIDs(t *testing.T) {
	dir := t.TempDir()
	srv := demoService(t, 0, nil)
	args := []string{"run", "--dataset", demo, "--judge", "offline", "--target", srv.URL, "--target-body", `{"q": "{{user_input}}"}`,
		"--target-response-path", "answer", "--target-contexts-path", "docs[*].text", "--quiet"}
	out := filepath.Join(dir, "default.json")
	if r := gate(t, nil, append(args, "--out", out)...); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, ok := readResults(t, out).Summary["id_context_precision"]; ok {
		t.Error("id_context_precision scored on the dataset's ids of contexts the target replaced")
	}
	asked := filepath.Join(dir, "asked.json")
	if r := gate(t, nil, append(args, "--out", asked, "--metrics", "id_context_precision,faithfulness", "--max-undefined", "1")...); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, s := range readResults(t, asked).Samples {
		if v := s.Scores["id_context_precision"]; !v.IsNaN() || !strings.Contains(s.Undefined["id_context_precision"], "retrieved_context_ids") {
			t.Fatalf("sample %s: id_context_precision %v (%q), want undefined for want of ids", s.ID, v, s.Undefined["id_context_precision"])
		}
	}
}

// assertSameScores checks that every metric of want scores the same in got.
func assertSameScores(t *testing.T, want, got *results.File) {
	t.Helper()
	byID := map[string]results.Sample{}
	for _, s := range got.Samples {
		byID[s.ID] = s
	}
	for _, s := range want.Samples {
		for m, v := range s.Scores {
			g, ok := byID[s.ID].Scores[m]
			if !ok || (v.IsNaN() != g.IsNaN()) || (!v.IsNaN() && v != g) {
				t.Fatalf("sample %s %s: %v, want %v", s.ID, m, g, v)
			}
		}
		if h := byID[s.ID].InputHash; h != s.InputHash {
			t.Fatalf("sample %s: input hash %s, want %s", s.ID, h, s.InputHash)
		}
	}
}

// withoutAnswers writes the demo's questions without the pipeline's
// outputs (response, retrieved contexts and their ids) and returns its path.
func withoutAnswers(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		delete(row, "response")
		delete(row, "retrieved_contexts")
		delete(row, "retrieved_context_ids")
		j, _ := json.Marshal(row)
		b.Write(j)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "questions.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunTargetFailuresAreGated(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := demoService(t, 0, func(w http.ResponseWriter, q string) bool {
		calls.Add(1)
		if strings.Contains(q, "warranty") {
			http.Error(w, "upstream vector store down", http.StatusBadGateway)
			return true
		}
		return false
	})
	out := filepath.Join(dir, "r.json")
	args := append([]string{"run", "--dataset", demo, "--judge", "offline", "--out", out}, targetArgs(srv.URL)...)
	r := gate(t, nil, args...)
	if r.code != ExitOperational || !strings.Contains(r.stderr, "the target failed on") || !strings.Contains(r.stderr, "HTTP 502 Bad Gateway") {
		t.Fatalf("exit %d, want 3 naming the failure\n%s", r.code, r.stderr)
	}
	f := readResults(t, out)
	n, id, _ := f.TargetFailures()
	if n == 0 || !strings.Contains(r.stderr, "sample "+id) {
		t.Fatalf("%d failures recorded; stderr %s", n, r.stderr)
	}
	var first *results.Sample
	for i := range f.Samples {
		if f.Samples[i].ID == id {
			first = &f.Samples[i]
		}
	}
	for m, v := range first.Scores {
		if !v.IsNaN() || first.KindOf(m) != results.KindTarget || !strings.Contains(first.Undefined[m], "HTTP 502") {
			t.Errorf("%s of a failed call: %v (%s, %q); want undefined, kind target", m, v, first.KindOf(m), first.Undefined[m])
		}
	}
	if first.Target.Code != 502 {
		t.Errorf("code = %d", first.Target.Code)
	}
	// Within --max-target-failures, the run passes; the failed calls are
	// saved with their reason, and re-judging the saved answers treats
	// them as failed calls again, not as empty answers.
	share := fmt.Sprint(float64(n) / float64(len(f.Samples)))
	saved := filepath.Join(dir, "answers.jsonl")
	if r := gate(t, nil, append(args, "--max-target-failures", share, "--save-responses", saved)...); r.code != 0 {
		t.Fatalf("with --max-target-failures %s: exit %d\n%s", share, r.code, r.stderr)
	}
	again := filepath.Join(dir, "again.json")
	rejudge := []string{"run", "--dataset", demo, "--responses", saved, "--judge", "offline", "--out", again, "--quiet"}
	if r := gate(t, nil, rejudge...); r.code != ExitOperational || !strings.Contains(r.stderr, "sample "+id+": target call failed: HTTP 502") {
		t.Fatalf("re-judge: exit %d, want 3 naming the failed call\n%s", r.code, r.stderr)
	}
	g := readResults(t, again)
	if m, gid, _ := g.TargetFailures(); m != n || gid != id {
		t.Errorf("re-judged: %d target failures (first %s), want %d (first %s)", m, gid, n, id)
	}
}

func TestRunTargetMalformedReply(t *testing.T) {
	srv := demoService(t, 0, nil)
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "--dataset", demo, "--judge", "offline", "--out", out}, targetArgs(srv.URL)...)
	args = append(args, "--target-response-path", "data.answer")
	r := gate(t, nil, args...)
	if r.code != ExitOperational || !strings.Contains(r.stderr, `first: sample k2-001: response path "data.answer" matches nothing in the reply`) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

func TestRunTargetUsageErrors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "http://127.0.0.1:1", "--responses", demo}, "--target and --responses"},
		{[]string{"--target", "http://x", "--target-cmd", "y"}, "--target and --target-cmd"},
		{[]string{"--save-responses", "a.jsonl"}, "--save-responses needs a target"},
		{[]string{"--target", "http://x", "--target-concurrency", "0"}, "--target-concurrency 0: want 1 to 1000"},
		{[]string{"--target", "http://x", "--max-target-failures", "2"}, "--max-target-failures 2"},
		{[]string{"--target", "http://x", "--target-body", `{"q": "{{user_inptu}}"}`}, "{{user_inptu}} is neither a field nor a column"},
		{[]string{"--target", "http://x", "--target-header", "Authorization=Bearer ${RAG_TOKEN}"}, "$RAG_TOKEN is not set"},
		{[]string{"--target-config", "missing.yaml"}, "missing.yaml"},
	} {
		args := append([]string{"run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet"}, tc.args...)
		r := gate(t, nil, args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
}

func TestRunTargetCancelledSavesWhatFinished(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	srv := demoService(t, 20*time.Millisecond, func(w http.ResponseWriter, q string) bool {
		if calls.Add(1) == 8 {
			cancel()
		}
		return false
	})
	out, saved := filepath.Join(dir, "r.json"), filepath.Join(dir, "answers.jsonl")
	args := append([]string{"run", "--dataset", demo, "--judge", "offline", "--out", out, "--save-responses", saved, "--target-concurrency", "2"}, targetArgs(srv.URL)...)
	var stdout, stderr strings.Builder
	code := Main(ctx, args, Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != ExitCancelled || !strings.Contains(stderr.String(), "answers are saved in "+saved) {
		t.Fatalf("exit %d, want 130 naming the saved answers\n%s", code, stderr.String())
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(data), "\n")
	if lines < 5 || lines >= 20 {
		t.Errorf("%d answers saved after cancelling at the 8th call", lines)
	}
	// Answers are judged as they arrive: what was judged before the stop
	// is kept too, marked incomplete.
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("no results file for the samples judged before the stop: %v", err)
	}
	if !strings.HasPrefix(f.Incomplete, "cancelled: ") || len(f.Samples) > lines {
		t.Errorf("results: incomplete %q, %d samples judged of %d answered", f.Incomplete, len(f.Samples), lines)
	}
}

// A stop during the calls without --save-responses, and a judge that
// fails mid-run, keep the answers received beside the results: re-judging
// them costs no call to the pipeline.
func TestRunTargetStoppedKeepsAnswersBesideResults(t *testing.T) {
	dir := t.TempDir()
	srv := demoService(t, 0, nil)
	judgeSrv := openaitest.NewServer(t)
	judgeSrv.Inject(openaitest.Unauthorized())
	out := filepath.Join(dir, "run.json")
	r := gate(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, append([]string{"run", "--dataset", demo, "--metrics", "faithfulness",
		"--base-url", judgeSrv.URL, "--model", "m", "--no-cache", "--max-retries", "0", "--out", out, "--quiet"}, targetArgs(srv.URL)...)...)
	saved := filepath.Join(dir, "run.responses.jsonl")
	if r.code != ExitOperational || !strings.Contains(r.stderr, "answers are saved in "+saved) {
		t.Fatalf("exit %d, want 3 naming the saved answers\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(saved)
	if err != nil || strings.Count(string(data), "\n") == 0 {
		t.Fatalf("answers not saved beside the results: %v", err)
	}
}

func TestRunTargetConfigFile(t *testing.T) {
	dir := t.TempDir()
	srv := demoService(t, 0, nil)
	cfg := filepath.Join(dir, "target.yaml")
	yaml := fmt.Sprintf("target:\n  url: %s\n  headers: {X-Team: \"${TEAM}\"}\n  body: {q: \"{{user_input}}\"}\n  response: answer\n  contexts: docs[*].text\n  concurrency: 4\n", srv.URL)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	r := gate(t, map[string]string{"TEAM": "search"}, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--target-config", cfg, "--quiet")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if f := readResults(t, out); f.Samples[0].Target == nil || f.Samples[0].Target.Status != results.TargetOK {
		t.Errorf("target record %+v", f.Samples[0].Target)
	}
	// --target replaces the file's target, even a command.
	cmdCfg := filepath.Join(dir, "cmd.yaml")
	if err := os.WriteFile(cmdCfg, []byte("target:\n  command: exit 1\n  response: answer\n  contexts: docs[*].text\n  body: {q: \"{{user_input}}\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--target-config", cmdCfg, "--target", srv.URL, "--quiet"); r.code != 0 {
		t.Fatalf("--target over a command config: exit %d\n%s", r.code, r.stderr)
	}
}

func TestActionTargetInputs(t *testing.T) {
	ws := t.TempDir()
	questions := withoutAnswers(t, ws)
	srv := demoService(t, 0, nil)
	cfg := "response: answer\n  contexts: docs[*].text\n  context_ids: docs[*].id\n  body: {q: \"{{user_input}}\"}\n  headers: {Authorization: \"Bearer ${RAG_TOKEN}\"}\n"
	if err := os.WriteFile(filepath.Join(ws, "target.yaml"), []byte("target:\n  "+cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := actionEnv(t, nil, "workflow_dispatch", map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}},
		map[string]string{"dataset": filepath.Base(questions), "judge": "offline", "target": srv.URL, "target-config": "target.yaml",
			"baseline-store": "file", "baseline-path": "baseline.json", "comment": "false", "mode": "check"})
	env["GITHUB_WORKSPACE"] = ws
	env["RAG_TOKEN"] = "tok-123456"
	r := gate(t, env, "action")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f := readResults(t, filepath.Join(ws, "raggate-results.json"))
	if len(f.Samples) != 20 || f.Samples[0].Target == nil || f.Samples[0].Target.Status != results.TargetOK {
		t.Fatalf("%d samples, first target record %+v", len(f.Samples), f.Samples[0].Target)
	}
	if _, ok := f.Summary[colLatency]; !ok {
		t.Errorf("no %s metric in the action's results", colLatency)
	}
	masked := false
	for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
		switch {
		case line == "::add-mask::Bearer tok-123456":
			masked = true
		case line == "::add-mask::tok-123456": // the token alone is a secret too

		case strings.Contains(line, "tok-123456"):
			t.Errorf("the expanded header value reached the log: %s", line)
		}
	}
	if !masked {
		t.Error("the expanded header value was not masked for the runner")
	}
}

// The test binary doubles as a command target: with $GATE_CLI_TARGET set
// to the demo file, TestMain answers JSON Lines requests with the demo's
// responses instead of running the tests.
func TestMain(m *testing.M) {
	if path := os.Getenv("GATE_CLI_TARGET"); path != "" {
		os.Exit(demoCommand(path))
	}
	os.Exit(m.Run())
}

func demoCommand(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rows := map[string]demoRow{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r demoRow
		_ = json.Unmarshal([]byte(line), &r)
		rows[r.ID] = r
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var req struct{ ID string }
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "bad request:", err)
			return 2
		}
		r := rows[req.ID]
		b, _ := json.Marshal(map[string]any{"response": r.Response, "retrieved_contexts": r.Contexts, "retrieved_context_ids": r.ContextIDs, "usage": 120})
		fmt.Println(string(b))
	}
	return 0
}

func TestRunTargetCommand(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.json")
	if r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", plain, "--quiet"); r.code != 0 {
		t.Fatalf("plain run: exit %d\n%s", r.code, r.stderr)
	}
	abs, err := filepath.Abs(demo)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GATE_CLI_TARGET", abs)
	questions := withoutAnswers(t, dir)
	for _, perSample := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("cmd-%v.json", perSample))
		args := []string{"run", "--dataset", questions, "--judge", "offline", "--out", out, "--quiet",
			"--target-cmd", fmt.Sprintf("%q -test.run=^$", os.Args[0]), "--target-concurrency", "3"}
		if perSample {
			args = append(args, "--target-per-sample")
		}
		if r := gate(t, nil, args...); r.code != 0 {
			t.Fatalf("per-sample %v: exit %d\n%s", perSample, r.code, r.stderr)
		}
		f := readResults(t, out)
		assertSameScores(t, readResults(t, plain), f)
		if tc := f.Samples[0].Target; tc == nil || tc.TotalTokens != 120 {
			t.Errorf("per-sample %v: target record %+v", perSample, tc)
		}
	}
}

// A slower pipeline fails the gate on target_latency_ms: the metric is
// ln(latency), so a tolerance of ln(1.10) = 0.0953 means "10% slower".
func TestCheckGatesTargetLatency(t *testing.T) {
	dir := t.TempDir()
	questions := withoutAnswers(t, dir)
	th := filepath.Join(dir, "thresholds.yaml")
	if err := os.WriteFile(th, []byte("version: 1\nmetrics:\n  target_latency_ms: {tolerance: 0.0953}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fast, slow := demoService(t, 10*time.Millisecond, nil), demoService(t, 60*time.Millisecond, nil)
	base := filepath.Join(dir, "base.json")
	if r := gate(t, nil, append([]string{"run", "--dataset", questions, "--judge", "offline", "--out", base}, targetArgs(fast.URL)...)...); r.code != 0 {
		t.Fatalf("base: exit %d\n%s", r.code, r.stderr)
	}
	head := filepath.Join(dir, "head.json")
	args := append([]string{"check", "--dataset", questions, "--judge", "offline", "--out", head, "--baseline", base, "--thresholds", th, "--format", "json"}, targetArgs(slow.URL)...)
	r := gate(t, nil, args...)
	if r.code != ExitFail {
		t.Fatalf("a pipeline 6x slower: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var rep struct {
		Metrics []struct {
			Metric  string `json:"metric"`
			Verdict string `json:"verdict"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	for _, m := range rep.Metrics {
		want := "~"
		if m.Metric == colLatency {
			want = "regression"
		}
		if m.Verdict != want && m.Metric != colLatency && m.Verdict == "regression" || m.Metric == colLatency && m.Verdict != want {
			t.Errorf("%s: verdict %q, want %q", m.Metric, m.Verdict, want)
		}
	}
}

// A target that quotes the request's credentials back in an error must not
// put them in the results, the saved answers or the log.
func TestTargetErrorsAreRedacted(t *testing.T) {
	dir := t.TempDir()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad credentials: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	defer srv.Close()
	out, saved := filepath.Join(dir, "r.json"), filepath.Join(dir, "answers.jsonl")
	r := gate(t, map[string]string{"RAG_TOKEN": "sk-rag-0123456789"}, "run", "--dataset", demo, "--judge", "offline", "--out", out,
		"--save-responses", saved, "--target", srv.URL, "--target-header", "Authorization=Bearer ${RAG_TOKEN}", "--quiet")
	if r.code != ExitOperational || !strings.Contains(r.stderr, "HTTP 401") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for name, text := range map[string]string{"stderr": r.stderr, "results": readText(t, out), "answers": readText(t, saved)} {
		if strings.Contains(text, "sk-rag-0123456789") {
			t.Errorf("the header value is in the %s", name)
		}
		if !strings.Contains(text, "[REDACTED]") {
			t.Errorf("the %s do not show the redacted error", name)
		}
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Out of time during the calls: exit 3, and without --save-responses the
// finished answers go beside the results file.
func TestRunTargetTimeBudgetSavesBesideResults(t *testing.T) {
	dir := t.TempDir()
	srv := demoService(t, 150*time.Millisecond, nil)
	out := filepath.Join(dir, "run.json")
	args := append([]string{"run", "--dataset", demo, "--judge", "offline", "--out", out, "--max-duration", "400ms", "--target-concurrency", "2"}, targetArgs(srv.URL)...)
	r := gate(t, nil, args...)
	saved := filepath.Join(dir, "run.responses.jsonl")
	if r.code != ExitOperational || !strings.Contains(r.stderr, "time budget --max-duration=400ms reached") || !strings.Contains(r.stderr, saved) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(readText(t, saved), "\n"); n < 2 || n >= 20 {
		t.Errorf("%d answers saved", n)
	}
}

// A dry run calls no target: answers are estimated from the references.
func TestDryRunWithTargetCallsNothing(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := demoService(t, 0, func(w http.ResponseWriter, q string) bool { calls.Add(1); return false })
	r := gate(t, nil, append([]string{"run", "--dataset", withoutAnswers(t, dir), "--dry-run", "--judge", "openai", "--base-url", "http://127.0.0.1:9/v1",
		"--model", "m", "--embedding-model", "e", "--out", filepath.Join(dir, "r.json")}, targetArgs(srv.URL)...)...)
	if r.code != 0 || calls.Load() != 0 || !strings.Contains(r.stdout, "each answer is estimated as the reference") || strings.Contains(r.stdout, "chat calls         0 ") {
		t.Fatalf("exit %d, %d target calls\n%s\n%s", r.code, calls.Load(), r.stdout, r.stderr)
	}
}
