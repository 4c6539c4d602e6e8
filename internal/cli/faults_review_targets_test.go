package cli

// Faults a black-box review of issue 22 found in the target fixes
// (findings 1, 2, 3, 6, 8, 14 and three of 15): header secrets that leak
// through their parts, a target config expanding the gate's own secrets,
// a program's stderr injecting workflow commands, and errors worded in Go
// internals. Each case runs the real command in-process through Main.
// Run only these with
//
//	go test ./internal/cli -run ReviewTarget

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// Finding 1: the value a ${VAR} expands to is a secret of its own, and so
// is the credential of "Bearer X" and each value of a cookie, wherever
// the pipeline echoes them.
func TestReviewTargetHeaderPartsAreSecrets(t *testing.T) {
	dir := t.TempDir()
	const tok, sess = "sk-live-TOKEN12345", "sess-0123456789"
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string {
		return fmt.Sprintf(`{"response": "debug: token %s session %s. The K2 stores 13.5 kWh.", "retrieved_contexts": ["ctx %s"]}`, tok, sess, tok)
	})
	out, saved := filepath.Join(dir, "r.json"), filepath.Join(dir, "answers.jsonl")
	env := map[string]string{"TOK": tok, "SESS": sess}
	r := gate(t, env, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", out, "--save-responses", saved, "--quiet",
		"--target", srv.URL, "--target-header", "Authorization=Bearer ${TOK}", "--target-header", "Cookie=session=${SESS}; theme=dark")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for name, text := range map[string]string{"stderr": r.stderr, "results": readText(t, out), "saved responses": readText(t, saved)} {
		for _, secret := range []string{tok, sess} {
			if strings.Contains(text, secret) {
				t.Errorf("the %s hold the secret %q", name, secret)
			}
		}
	}
	// A literal Bearer credential (no ${VAR}) is a secret too.
	r = gate(t, nil, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", out, "--quiet",
		"--target", srv.URL, "--target-header", "Authorization=Bearer "+tok)
	if r.code != 0 || strings.Contains(readText(t, out), tok) {
		t.Errorf("a literal Bearer token: exit %d, or in the results\n%s", r.code, r.stderr)
	}
}

// Finding 1, the action: the bare token is registered with ::add-mask::.
func TestReviewTargetActionMasksHeaderParts(t *testing.T) {
	env := targetConfigAction(t, "target:\n  url: http://127.0.0.1:1/ask\n  retries: 0\n  headers:\n    Authorization: Bearer ${RAG_TOKEN}\n    Cookie: \"session=${RAG_SESSION}; theme=dark\"\n")
	env["RAG_TOKEN"], env["RAG_SESSION"] = "sk-live-TOKEN12345", "sess-0123456789"
	r := gate(t, env, "action")
	for _, want := range []string{"::add-mask::sk-live-TOKEN12345\n", "::add-mask::sess-0123456789\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q\n%s\n%s", want, r.stdout, r.stderr)
		}
	}
}

// Finding 2: a target config (which may come from the pull request) does
// not expand the gate's own secrets unless the command line grants them;
// its own env: does not.
func TestReviewTargetConfigCannotExpandGateSecrets(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "The K2 stores 13.5 kWh."}` })
	env := map[string]string{"GITHUB_TOKEN": "ghp_0123456789abcdef", "OPENAI_API_KEY": "sk-judge-0123456789",
		"ACTIONS_RUNTIME_TOKEN": "rt-0123456789", "RAG_TOKEN": "rag-0123456789"}
	cfg := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(config string, extra ...string) runResult {
		args := append([]string{"run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet", "--target-config", config}, extra...)
		return gate(t, env, args...)
	}
	for _, v := range []string{"GITHUB_TOKEN", "OPENAI_API_KEY", "ACTIONS_RUNTIME_TOKEN"} {
		c := cfg(v+".yaml", "target:\n  url: "+srv.URL+"\n  headers:\n    X-Leak: ${"+v+"}\n")
		r := run(c)
		if r.code != ExitUsage || !strings.Contains(r.stderr, v) || !strings.Contains(r.stderr, "--target-env "+v) {
			t.Errorf("%s: exit %d, want 2 naming it and --target-env\n%s", v, r.code, r.stderr)
		}
		// The file's own env: grants nothing.
		c = cfg(v+"-env.yaml", "target:\n  url: "+srv.URL+"\n  env: ["+v+"]\n  headers:\n    X-Leak: ${"+v+"}\n")
		if r := run(c); r.code != ExitUsage {
			t.Errorf("%s with the file's env: exit %d, want 2\n%s", v, r.code, r.stderr)
		}
		// The command line grants it.
		if r := run(c, "--target-env", v); r.code != 0 {
			t.Errorf("%s granted by --target-env: exit %d\n%s", v, r.code, r.stderr)
		}
	}
	if calls.Load() == 0 {
		t.Fatal("no call was made with a granted variable")
	}
	before := calls.Load()
	if r := run(cfg("rag.yaml", "target:\n  url: "+srv.URL+"\n  headers:\n    X-Rag-Token: ${RAG_TOKEN}\n")); r.code != 0 || calls.Load() == before {
		t.Errorf("an ordinary variable: exit %d\n%s", r.code, r.stderr)
	}
	// A --target-header given on the command line is the workflow's: it may.
	if r := gate(t, env, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet",
		"--target", srv.URL, "--target-header", "Authorization=Bearer ${OPENAI_API_KEY}"); r.code != 0 {
		t.Errorf("--target-header with the judge key: exit %d\n%s", r.code, r.stderr)
	}
}

// Finding 2, the action: a target-config from the checkout cannot send
// the runner's token anywhere.
func TestReviewTargetActionConfigCannotExpandRunnerToken(t *testing.T) {
	env := targetConfigAction(t, "target:\n  url: http://127.0.0.1:1/ask\n  headers:\n    X-Leak: ${ACTIONS_RUNTIME_TOKEN}\n")
	env["ACTIONS_RUNTIME_TOKEN"] = "rt-0123456789"
	r := gate(t, env, "action")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "ACTIONS_RUNTIME_TOKEN") || !strings.Contains(r.stderr, "target-env") {
		t.Fatalf("exit %d, want 2 naming ACTIONS_RUNTIME_TOKEN and target-env\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// Finding 3: a program's stderr cannot start a line of the gate's output
// (a workflow command), and the count of dead processes agrees with the
// documented rule.
func TestReviewTargetStderrInjectsNoCommand(t *testing.T) {
	dir := t.TempDir()
	cmd := shellTarget(t, dir, `printf 'Traceback\n::set-output name=verdict::pass\r\n  ::error file=x::injected\n' >&2
exit 1
`)
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", faultDataset(t, dir, 20), "--judge", "offline", "--out", out, "--quiet",
		"--target-cmd", cmd, "--target-concurrency", "8", "--target-retries", "0")
	if r.code == 0 || !strings.Contains(r.stderr, "injected") {
		t.Fatalf("exit %d, want a failure quoting the stderr\n%s", r.code, r.stderr)
	}
	for _, text := range []string{r.stderr, r.stdout} {
		for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if strings.HasPrefix(strings.TrimSpace(line), "::") {
				t.Errorf("a line of the gate's output starts a workflow command: %q\n%s", line, text)
			}
		}
	}
	gaveUp := ""
	for _, s := range readResults(t, out).Samples {
		if s.Target != nil && strings.Contains(s.Target.Error, "gave up") {
			gaveUp = s.Target.Error
		}
	}
	if !strings.Contains(gaveUp, "3 processes in a row exited") && !strings.Contains(gaveUp, "no new one is started after 3") {
		t.Errorf("the count of dead processes disagrees with docs/targets.md (3 in a row): %q", gaveUp)
	}
}

// Finding 15: a Host header is refused (the host comes from the URL).
func TestReviewTargetHostHeaderRefused(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "x"}` })
	r := gate(t, nil, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet",
		"--target", srv.URL, "--target-header", "Host=evil.com")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "Host") || !strings.Contains(r.stderr, "URL") || calls.Load() != 0 {
		t.Fatalf("exit %d, %d calls; want 2 saying the Host comes from the URL\n%s", r.code, calls.Load(), r.stderr)
	}
}

// Finding 15: a secret query value ended by ";" is redacted.
func TestReviewTargetSemicolonQuerySecret(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "debug: QSECRET1 seen. The K2 stores 13.5 kWh."}` })
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", out, "--quiet",
		"--target", srv.URL+"/?api_key=QSECRET1;x=1")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(readText(t, out), "QSECRET1") {
		t.Errorf("the value of ?api_key= (ended by ;) is in the results")
	}
}

// Finding 15: a --responses file over the size limit is named as such.
func TestReviewTargetResponsesSizeNamesFlag(t *testing.T) {
	dir := t.TempDir()
	resp := filepath.Join(dir, "responses.jsonl")
	if err := os.WriteFile(resp, []byte(strings.Repeat(`{"id": "x", "response": "`+strings.Repeat("a", 100)+`"}`+"\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gate(t, nil, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet",
		"--responses", resp, "--max-dataset-size", "4K")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--responses") {
		t.Fatalf("exit %d, want 2 naming --responses\n%s", r.code, r.stderr)
	}
}

// Finding 14: target config errors in the user's terms, with file:line.
func TestReviewTargetConfigErrorsInUserTerms(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"timeout", "target:\n  url: http://127.0.0.1:1/\n  timeout: 10\n", "t.yaml:3: timeout: want a duration such as 30s or 2m"},
		{"empty", "", "t.yaml: is empty: want a target: section"},
		{"concurrency", "target:\n  url: http://127.0.0.1:1/\n  concurrency: 2.5\n", "t.yaml:3: concurrency: want a whole number 1 to 1000"},
	} {
		p := filepath.Join(dir, "t.yaml")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		r := gate(t, nil, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet", "--target-config", p)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, want 2 with %q\n%s", c.name, r.code, c.want, r.stderr)
		}
		for _, internal := range []string{"!!", "unmarshal", "time.Duration", "EOF"} {
			if strings.Contains(r.stderr, internal) {
				t.Errorf("%s: Go internals (%s) in %s", c.name, internal, r.stderr)
			}
		}
	}
}

// Finding 3: whatever reaches the gate's stderr, no line of it starts a
// workflow command.
func TestReviewTargetStderrGuard(t *testing.T) {
	var b strings.Builder
	w := commandGuard(&b)
	for _, p := range []string{"gate: x\n::set-output name=verdict::pass\n", "  ::error::y\r\n", "::warning::", "z\n", "ok ::not at start\n", "##[error]legacy\n", " #", "#[warning]w\n", "## heading\n"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	for _, line := range strings.FieldsFunc(b.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l := strings.TrimSpace(line); strings.HasPrefix(l, "::") || strings.HasPrefix(l, "##[") {
			t.Errorf("line %q starts a workflow command in %q", line, b.String())
		}
	}
	if !strings.Contains(b.String(), "ok ::not at start\n") || !strings.Contains(b.String(), "set-output name=verdict::pass") || !strings.Contains(b.String(), "\n## heading\n") {
		t.Errorf("the text was changed beyond the line starts: %q", b.String())
	}
}

// A variable that merely holds one of the gate's secrets ("Bearer <judge
// key>", a URL with the GitHub token inside) is not inherited either.
func TestReviewTargetEnvHoldingASecret(t *testing.T) {
	dir := t.TempDir()
	cmd := shellTarget(t, dir, envNamesScript)
	environ := []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=sk-judge-0123456789", "GITHUB_TOKEN=ghp_0123456789abc",
		"WRAPPED=Bearer sk-judge-0123456789", "DB_URL=postgres://u:ghp_0123456789abc@db/x", "RAG_SETTING=fast"}
	env := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	out := filepath.Join(dir, "r.json")
	r := gateEnviron(t, env, environ, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", out, "--quiet", "--target-cmd", cmd)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	names := strings.Fields(readResults(t, out).Samples[0].Response)
	if !slices.Contains(names, "RAG_SETTING") {
		t.Errorf("the target's environment lacks RAG_SETTING: %v", names)
	}
	for _, secret := range []string{"WRAPPED", "DB_URL", "OPENAI_API_KEY", "GITHUB_TOKEN"} {
		if slices.Contains(names, secret) {
			t.Errorf("the target inherited %s: %v", secret, names)
		}
	}
}

// The context ids a target returns are recorded up to --max-contexts, like
// the contexts judged: 200,000 ids must not fill the results file.
func TestReviewTargetContextIDsCapped(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string {
		ids := make([]string, 200)
		for i := range ids {
			ids[i] = fmt.Sprintf("%q", fmt.Sprintf("doc-%d", i))
		}
		return `{"response": "It stores 13.5 kWh.", "retrieved_contexts": [], "retrieved_context_ids": [` + strings.Join(ids, ",") + `]}`
	})
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", faultDataset(t, dir, 2), "--judge", "offline", "--out", out, "--quiet",
		"--target", srv.URL, "--max-contexts", "10")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, s := range readResults(t, out).Samples {
		if s.Target == nil || len(s.Target.ContextIDs) != 10 || len(s.ContextIDs) > 10 {
			t.Errorf("sample %s: target %+v, ids %d; want 10 ids recorded", s.ID, s.Target, len(s.ContextIDs))
		}
	}
}

// targetConfigAction is the environment of a check-mode action run in a
// fresh workspace whose target.yaml (target-config, from the checkout)
// holds cfg, on questions without answers.
func targetConfigAction(t *testing.T, cfg string) map[string]string {
	t.Helper()
	ws := t.TempDir()
	questions := withoutAnswers(t, ws)
	if err := os.WriteFile(filepath.Join(ws, "target.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{"dataset": filepath.Base(questions), "judge": "offline", "target-config": "target.yaml",
		"baseline-store": "file", "baseline-path": "baseline.json", "comment": "false", "mode": "check"}
	env := actionEnv(t, nil, "workflow_dispatch", map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}}, inputs)
	env["GITHUB_WORKSPACE"] = ws
	return env
}
