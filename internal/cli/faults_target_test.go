package cli

// Faults of targets (README "Targets", "Security"): replies that would be
// judged against the wrong data, answers carrying secrets, redirects,
// what a command target inherits, and settings that must be refused before
// the first call. Each case runs the real command in-process through Main.
// Run only these with
//
//	go test ./internal/cli -run FaultTarget

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
)

// gateEnviron runs the CLI in-process with env for Getenv and environ as
// the process environment a command target starts from.
func gateEnviron(t *testing.T, env map[string]string, environ []string, args ...string) runResult {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv:  func(k string) string { return env[k] },
		Environ: func() []string { return environ },
	})
	return runResult{code, out.String(), errb.String()}
}

// jsonService answers every POST with reply(id of the request's sample),
// and counts the calls.
func jsonService(t *testing.T, calls *atomic.Int32, reply func(id string) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct{ ID string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(reply(req.ID)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// shellTarget writes a POSIX shell script and returns the command running it.
func shellTarget(t *testing.T, dir, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the command target is a POSIX shell script")
	}
	p := filepath.Join(dir, "target.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "sh " + p
}

// Item 2: a reply whose contexts are null under an explicit path is
// malformed; under the default path it has no contexts. The dataset's
// contexts are never judged as the pipeline's.
func TestFaultTargetNullContexts(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string {
		return `{"answer": "The Kestrel K2 stores 13.5 kWh of usable energy.", "retrieved_contexts": null}`
	})
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target", srv.URL,
		"--target-response-path", "answer", "--target-contexts-path", "retrieved_contexts")
	if r.code != ExitOperational || !strings.Contains(r.stderr, `contexts path "retrieved_contexts": null in the reply`) {
		t.Fatalf("explicit path: exit %d, want 3 naming the null contexts\n%s", r.code, r.stderr)
	}
	r = gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target", srv.URL, "--target-response-path", "answer")
	if r.code == 0 && r.stderr != "" {
		t.Logf("default path: %s", r.stderr)
	}
	for _, s := range readResults(t, out).Samples {
		if len(s.Contexts) != 0 {
			t.Fatalf("default path: sample %s judged with %d contexts the target did not return: %q", s.ID, len(s.Contexts), s.Contexts)
		}
	}
}

// Item 3: one extra line from a command target must not shift the later
// answers onto the wrong samples.
func TestFaultTargetStrayLineShiftsNothing(t *testing.T) {
	dir := t.TempDir()
	cmd := shellTarget(t, dir, `n=0
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id": *"\([^"]*\)".*/\1/')
  n=$((n+1))
  printf '{"id": "%s", "response": "answer for %s"}\n' "$id" "$id"
  if [ $n = 1 ]; then printf '{"id": "%s", "response": "answer for %s"}\n' "$id" "$id"; fi
done
`)
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target-cmd", cmd,
		"--target-concurrency", "1", "--target-body", `{"id": "{{id}}"}`, "--max-target-failures", "1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f := readResults(t, out)
	failed := 0
	for _, s := range f.Samples {
		if s.Target != nil && s.Target.Status != "ok" {
			failed++
			continue
		}
		if want := "answer for " + s.ID; s.Response != want {
			t.Errorf("sample %s was judged on %q, want %q (a shifted answer)", s.ID, s.Response, want)
		}
	}
	if failed == 0 {
		t.Error("the stray line failed no call")
	}
}

// Item 3 without ids: a program that greets on stdout before its first
// request answers every question with the previous question's reply. The
// extra line is found when the process stops, whatever the timing, so
// every answer it gave fails its call; none is judged, and the results
// record no response for them (neither the shifted one nor the golden
// file's). The reason each records is a sentence, however long the line.
func TestFaultTargetBannerShiftsNothing(t *testing.T) {
	dir := t.TempDir()
	cmd := shellTarget(t, dir, `printf '{"response": "index loaded %0500d\\n%0500d"}\n' 1 2
while IFS= read -r line; do
  echo '{"response": "an answer"}'
done
`)
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target-cmd", cmd,
		"--target-concurrency", "2")
	if r.code != ExitOperational || !strings.Contains(r.stderr, "wrote more lines than it was sent requests") {
		t.Fatalf("exit %d, want %d naming the extra line\n%s", r.code, ExitOperational, r.stderr)
	}
	for _, s := range readResults(t, out).Samples {
		if s.Target == nil || s.Target.Status == "ok" || s.Response != "" || len(s.Contexts) > 0 {
			t.Errorf("sample %s: target %+v, response %q, contexts %q; want a failed call with no texts", s.ID, s.Target, s.Response, s.Contexts)
		}
		for m, why := range s.Undefined {
			if len([]rune(why)) > results.MaxReason || strings.ContainsAny(why, "\n\r") || why == "" {
				t.Errorf("sample %s, %s: reason of %d characters, want one line of at most %d: %q", s.ID, m, len([]rune(why)), results.MaxReason, why)
			}
		}
	}
}

// Item 5: an answer that quotes a secret is redacted as it comes back,
// before the saved responses, the judge's prompts, its cache or the
// results see it.
func TestFaultTargetSecretsInAnswers(t *testing.T) {
	dir := t.TempDir()
	const judgeKey, ragToken, ghToken = "sk-judge-0123456789", "rag-0123456789", "ghp_0123456789abcdef"
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(id string) string {
		return fmt.Sprintf(`{"response": "debug: keys %s %s %s. The K2 stores 13.5 kWh.", "retrieved_contexts": ["The K2 stores 13.5 kWh; token %s"]}`, judgeKey, ragToken, ghToken, ragToken)
	})
	judgeSrv := openaitest.NewServer(t)
	cache := filepath.Join(dir, "cache")
	out, saved := filepath.Join(dir, "r.json"), filepath.Join(dir, "answers.jsonl")
	env := map[string]string{"OPENAI_API_KEY": judgeKey, "RAG_TOKEN": ragToken, "GITHUB_TOKEN": ghToken}
	r := gate(t, env, "run", "--dataset", faultDataset(t, dir, 3), "--metrics", faultMetrics, "--base-url", judgeSrv.URL, "--model", "m",
		"--embedding-model", "e", "--cache-dir", cache, "--out", out, "--save-responses", saved, "--quiet",
		"--target", srv.URL, "--target-header", "X-Rag-Token=${RAG_TOKEN}")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	texts := map[string]string{"stderr": r.stderr, "stdout": r.stdout, "results": readText(t, out), "saved responses": readText(t, saved)}
	for i, req := range judgeSrv.Requests() {
		texts[fmt.Sprintf("judge request %d", i)] = string(req.Body)
	}
	_ = filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			texts["cache file "+filepath.Base(p)] = readText(t, p)
		}
		return nil
	})
	if len(judgeSrv.Requests()) == 0 || !strings.Contains(texts["saved responses"], "[REDACTED]") {
		t.Fatalf("nothing judged or saved:\n%s", texts["saved responses"])
	}
	for name, text := range texts {
		for _, secret := range []string{judgeKey, ragToken, ghToken} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s hold the secret %q", name, secret)
			}
		}
	}
}

// Item 6: a redirect is not followed by a target call: the secret header
// does not reach the other host, and the call fails naming the Location.
func TestFaultTargetRedirectNotFollowed(t *testing.T) {
	dir := t.TempDir()
	var reached atomic.Int32
	other := jsonService(t, &reached, func(string) string { return `{"response": "from elsewhere"}` })
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/ask", http.StatusTemporaryRedirect)
	}))
	defer front.Close()
	r := gate(t, map[string]string{"RAG_TOKEN": "rag-0123456789"}, "run", "--dataset", faultDataset(t, dir, 3), "--judge", "offline",
		"--out", filepath.Join(dir, "r.json"), "--quiet", "--target", front.URL, "--target-header", "X-Api-Key=${RAG_TOKEN}")
	if r.code != ExitOperational || !strings.Contains(r.stderr, "HTTP 307") || !strings.Contains(r.stderr, other.URL+"/ask") || reached.Load() != 0 {
		t.Fatalf("exit %d, %d calls reached the other host; want 3 naming the Location and none\n%s", r.code, reached.Load(), r.stderr)
	}
}

// envNamesScript answers every request with the names of its environment.
const envNamesScript = `while IFS= read -r line; do
  printf '{"response": "%s"}\n' "$(env | cut -d= -f1 | sort | tr '\n' ' ')"
done
`

// Item 7: a command target starts without the gate's secrets, plus what
// --target-env (env: in the config) names.
func TestFaultTargetCommandEnvironment(t *testing.T) {
	dir := t.TempDir()
	cmd := shellTarget(t, dir, envNamesScript)
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/ci", "OPENAI_API_KEY=sk-judge-0123456789", "GITHUB_TOKEN=ghp_0123456789",
		"ACTIONS_RUNTIME_TOKEN=rt-0123456789", "ACTIONS_ID_TOKEN_REQUEST_URL=https://x", "INPUT_API-KEY=sk-judge-0123456789",
		"INPUT_DATASET=golden.jsonl", "JUDGE_HEADER=hdr-0123456789", "RAG_SETTING=fast", "PIPELINE_KEY=pk-0123456789"}
	env := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	out := filepath.Join(dir, "r.json")
	r := gateEnviron(t, env, environ, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", out, "--quiet",
		"--header", "X-Judge=hdr-0123456789", "--target-cmd", cmd, "--target-env", "PIPELINE_KEY")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	names := strings.Fields(readResults(t, out).Samples[0].Response)
	for _, want := range []string{"PATH", "HOME", "RAG_SETTING", "PIPELINE_KEY"} {
		if !slices.Contains(names, want) {
			t.Errorf("the target's environment lacks %s: %v", want, names)
		}
	}
	for _, secret := range []string{"OPENAI_API_KEY", "GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL", "INPUT_DATASET", "JUDGE_HEADER"} {
		if slices.Contains(names, secret) {
			t.Errorf("the target inherited %s: %v", secret, names)
		}
	}
	// The config file's env: list lets the pipeline have the judge's key.
	cfg := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(cfg, []byte("target:\n  command: "+cmd+"\n  env: [OPENAI_API_KEY]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := gateEnviron(t, env, environ, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", out, "--quiet", "--target-config", cfg); r.code != 0 {
		t.Fatalf("config env: exit %d\n%s", r.code, r.stderr)
	}
	if names := strings.Fields(readResults(t, out).Samples[0].Response); !slices.Contains(names, "OPENAI_API_KEY") || slices.Contains(names, "GITHUB_TOKEN") {
		t.Errorf("with env: [OPENAI_API_KEY]: %v", names)
	}
}

// Item 7, the action: a command: target from target-config (the checkout
// of a pull request) is refused unless the workflow allows it.
func TestFaultTargetActionRefusesCheckoutCommand(t *testing.T) {
	ws := t.TempDir()
	questions := withoutAnswers(t, ws)
	if err := os.WriteFile(filepath.Join(ws, "target.yaml"), []byte("target:\n  command: cat /proc/self/environ\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{"dataset": filepath.Base(questions), "judge": "offline", "target-config": "target.yaml",
		"baseline-store": "file", "baseline-path": "baseline.json", "comment": "false", "mode": "check"}
	env := actionEnv(t, nil, "workflow_dispatch", map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}, inputs)
	env["GITHUB_WORKSPACE"] = ws
	r := gate(t, env, "action")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "allow-command-target") {
		t.Fatalf("exit %d, want 2 naming allow-command-target\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// Item 8: only query values whose names look secret are secrets; the
// others are settings, and answers keep their words.
func TestFaultTargetURLQueryNotSecret(t *testing.T) {
	dir := t.TempDir()
	srv := demoService(t, 0, nil)
	out := filepath.Join(dir, "r.json")
	args := append([]string{"run", "--dataset", demo, "--judge", "offline", "--out", out}, targetArgs(srv.URL+"/?mode=energy&api_key=k-0123456789")...)
	r := gate(t, nil, args...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	text := readText(t, out)
	if !strings.Contains(text, "usable energy") || strings.Contains(text, "usable [REDACTED]") {
		t.Errorf("the value of ?mode= was redacted from the answers")
	}
	if strings.Contains(text, "k-0123456789") {
		t.Errorf("the value of ?api_key= is in the results")
	}
}

// Item 10: a dataset column named like a column the target run writes is
// refused: it would stand in for the pipeline's figures.
func TestFaultTargetReservedColumns(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(ds, []byte(`{"id": "a", "user_input": "q?", "target_tokens": 5, "target_latency_ms": 3}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "x"}` })
	r := gate(t, nil, "run", "--dataset", ds, "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet", "--target", srv.URL)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "target_latency_ms, target_tokens") || calls.Load() != 0 {
		t.Fatalf("exit %d, %d calls; want 2 naming the columns, before any call\n%s", r.code, calls.Load(), r.stderr)
	}
}

// Item 12: a per-sample program that writes without end is stopped at the
// reply cap.
func TestFaultTargetPerSampleReplyCap(t *testing.T) {
	dir := t.TempDir()
	if runtime.GOOS == "windows" {
		t.Skip("needs yes(1)")
	}
	r := gate(t, nil, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet",
		"--target-cmd", "yes", "--target-per-sample", "--target-retries", "0")
	if r.code != ExitOperational || !strings.Contains(r.stderr, "reply larger than 16 MiB") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

// Item 15: where a stopped run saves its answers (<out>.responses.jsonl)
// is checked like --out: it never replaces an input.
func TestFaultTargetDerivedPathNeverOverwritesInput(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "tsx.responses.jsonl")
	golden := readText(t, demo)
	if err := os.WriteFile(ds, []byte(golden), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "x"}` })
	r := gate(t, nil, "run", "--dataset", ds, "--judge", "offline", "--out", filepath.Join(dir, "tsx.json"), "--quiet", "--target", srv.URL)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "would overwrite --dataset") || calls.Load() != 0 {
		t.Fatalf("exit %d, %d calls; want 2 before any call\n%s", r.code, calls.Load(), r.stderr)
	}
	if readText(t, ds) != golden {
		t.Error("the dataset was changed")
	}
}

// Item 19 (targets): bad settings are exit 2 before any call; a reply with
// data after its JSON is malformed.
func TestFaultTargetUpFrontChecks(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "x"}` })
	cfg := func(name, body string) string {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte("target:\n  url: "+srv.URL+"\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"header value with a trailing newline", map[string]string{"RAG_TOKEN": "rag-0123456789\n"},
			[]string{"--target", srv.URL, "--target-header", "X-Api-Key=${RAG_TOKEN}"}, "header X-Api-Key: the value holds a line break"},
		{"concurrency: 0", nil, []string{"--target-config", cfg("conc", "  concurrency: 0\n")}, ":3: concurrency: want a whole number 1 to 1000"},
		{"timeout: 0s", nil, []string{"--target-config", cfg("timeout", "  timeout: 0s\n")}, ":3: timeout 0s: want 10ms to 1h"},
		{"a [*] response path", nil, []string{"--target", srv.URL, "--target-response-path", "data[*].answer"}, `response path "data[*].answer" selects a list`},
	} {
		r := gate(t, tc.env, append([]string{"run", "--dataset", demo, "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet"}, tc.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) || calls.Load() != 0 {
			t.Errorf("%s: exit %d, %d calls; want 2 with %q before any call\n%s", tc.name, r.code, calls.Load(), tc.want, r.stderr)
		}
		if strings.Contains(r.stderr, "rag-0123456789") {
			t.Errorf("%s: the header value is shown", tc.name)
		}
	}
	two := jsonService(t, &calls, func(string) string { return `{"response": "a"}` + "\n" + `{"response": "b"}` })
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet", "--target", two.URL)
	if r.code != ExitOperational || !strings.Contains(r.stderr, "more after the reply's JSON value") {
		t.Errorf("two replies in one: exit %d\n%s", r.code, r.stderr)
	}
}

// A run whose every target call failed, allowed by --max-target-failures
// 1, is never silent: a warning on stderr and in the results file.
func TestFaultTargetAllFailedWarns(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet",
		"--target", "http://127.0.0.1:9/ask", "--target-retries", "0", "--max-target-failures", "1")
	if r.code != 0 || !strings.Contains(r.stderr, "the target answered none of the 20 samples") {
		t.Fatalf("exit %d, want 0 with a warning\n%s", r.code, r.stderr)
	}
	if w := readResults(t, out).Warnings; len(w) == 0 || !strings.Contains(strings.Join(w, "\n"), "answered none") {
		t.Errorf("results warnings %q", w)
	}
}
