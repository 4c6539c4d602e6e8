package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
)

// Canary secrets: configured, echoed by the judge server, and never to be
// found in anything the gate writes.
const (
	canaryKey    = "sk-canary-KEY-5f2c9e81"
	canaryHeader = "canary-HEADER-77aa1b"
	canaryQuery  = "canary-QUERY-31b8d0"
	canaryPass   = "canary-PASS-0c4f19"
	canaryToken  = "ghs_canaryTOKEN9d0e44"
)

var canaries = []string{canaryKey, canaryHeader, canaryQuery, canaryPass, canaryToken}

// noCanary fails when text holds a canary. Lines of ::add-mask:: commands
// are the one place a secret is written on purpose (the runner reads and
// hides them).
func noCanary(t *testing.T, where, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "::add-mask::") {
			continue
		}
		for _, c := range canaries {
			if strings.Contains(line, c) {
				t.Errorf("%s shows the secret %s: %.300q", where, c, line)
			}
		}
	}
}

// noCanaryInFiles checks every file under dir.
func noCanaryInFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			noCanary(t, p, string(b))
		}
		return nil
	})
}

// canaryJudge is a fake judge reached with every kind of configured
// secret: the key, an extra header, and a password and a key in the base
// URL.
func canaryJudge(t *testing.T) (*openaitest.Server, string) {
	srv := openaitest.NewServer(t)
	return srv, strings.Replace(srv.URL, "http://", "http://proxy-user:"+canaryPass+"@", 1) + "?api-key=" + canaryQuery
}

func judgeArgs(baseURL string) []string {
	return []string{"--quiet", "--dataset", repo + "/testdata/demo/golden.jsonl", "--metrics", "faithfulness,answer_relevancy",
		"--base-url", baseURL, "--header", "X-Proxy-Key=" + canaryHeader, "--model", "m", "--embedding-model", "e", "--no-cache"}
}

// withCanaryIncomplete writes a copy of the results file at src whose
// incomplete reason quotes the secrets, as a baseline saved by an older
// version that did not redact would.
func withCanaryIncomplete(t *testing.T, src, dst string, secrets ...string) {
	t.Helper()
	f, err := results.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	f.Incomplete = "judge failed: HTTP 429: the request carried " + strings.Join(secrets, "; ")
	if err := results.Write(dst, f); err != nil {
		t.Fatal(err)
	}
}

// A judge server that quotes the request's credentials in its 401 and 429
// answers: the secrets appear in no output of gate run and gate check
// (stdout, stderr, results, reports).
func TestSecretsNeverWrittenByRunAndCheck(t *testing.T) {
	faults := []struct {
		name  string
		fault openaitest.Fault
	}{
		{"401 quoting the key", openaitest.Echo(401).Times(-1)},
		{"429 quoting the key until the run gives up", openaitest.Echo(429).Times(-1)},
	}
	env := map[string]string{"OPENAI_API_KEY": canaryKey, "GITHUB_TOKEN": canaryToken}
	for _, cmd := range []string{"run", "check"} {
		for _, f := range faults {
			t.Run(cmd+"/"+f.name, func(t *testing.T) {
				srv, baseURL := canaryJudge(t)
				srv.Inject(f.fault)
				dir := t.TempDir()
				args := append([]string{cmd}, judgeArgs(baseURL)...)
				args = append(args, "--out", filepath.Join(dir, "results.json"))
				if cmd == "check" {
					args = append(args, "--report", filepath.Join(dir, "report.md"))
				}
				r := gate(t, env, args...)
				if r.code != 3 {
					t.Fatalf("exit %d, want 3\n%s", r.code, r.stderr)
				}
				if strings.Contains(r.stderr, "judge: judge:") {
					t.Errorf("doubled prefix:\n%s", r.stderr)
				}
				if !strings.Contains(r.stderr, "[REDACTED]") {
					t.Errorf("stderr does not show where the server quoted a secret:\n%s", r.stderr)
				}
				noCanary(t, "stdout", r.stdout)
				noCanary(t, "stderr", r.stderr)
				noCanaryInFiles(t, dir)
				if f, err := results.Read(filepath.Join(dir, "results.json")); err != nil || f.Incomplete == "" {
					t.Errorf("results not saved as incomplete: %v", err)
				}
			})
		}
	}

	// A check that completes, against a baseline whose incomplete reason
	// quotes the secrets: the report (stdout and file) does not.
	t.Run("check/report", func(t *testing.T) {
		srv, baseURL := canaryJudge(t)
		dir := t.TempDir()
		first := filepath.Join(t.TempDir(), "first.json")
		if r := gate(t, env, append(append([]string{"run"}, judgeArgs(baseURL)...), "--out", first)...); r.code != 0 {
			t.Fatalf("base run: exit %d\n%s", r.code, r.stderr)
		}
		withCanaryIncomplete(t, first, filepath.Join(dir, "base.json"), canaries...)
		srv.Inject(openaitest.Echo(429).Times(3))
		args := append(append([]string{"check"}, judgeArgs(baseURL)...), "--format", "markdown",
			"--baseline", filepath.Join(dir, "base.json"), "--out", filepath.Join(dir, "head.json"), "--report", filepath.Join(dir, "report.md"))
		r := gate(t, env, args...)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		report := readFile(t, filepath.Join(dir, "report.md"))
		if !strings.Contains(report, "incomplete") || !strings.Contains(r.stdout, "incomplete") {
			t.Fatalf("the report does not carry the base's incomplete reason:\n%s", report)
		}
		noCanary(t, "stdout", r.stdout)
		noCanary(t, "stderr", r.stderr)
		_ = os.Remove(filepath.Join(dir, "base.json")) // the planted input
		noCanaryInFiles(t, dir)
	})
}

// The same in the action: nothing secret reaches the log (but the masks),
// the results, the report, the job summary, the outputs or any request
// body the GitHub API received (comments included).
func TestSecretsNeverWrittenByAction(t *testing.T) {
	const ghRepo = "acme/support-rag"
	tests := []struct {
		name     string
		fault    openaitest.Fault
		baseline bool // a stored baseline quoting the secrets
		code     int
	}{
		{"401 quoting the key: error note", openaitest.Echo(401).Times(-1), false, 3},
		{"429 quoting the key until the run gives up: error note", openaitest.Echo(429).Times(-1), false, 3},
		{"passing run against a baseline quoting the secrets", openaitest.Echo(429).Times(3), true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, baseURL := canaryJudge(t)
			gh := ghtest.NewServer(t, ghtest.Enterprise(), ghtest.WithToken(canaryToken))
			gh.AddRepo(ghRepo, "main")
			gh.UseIntegrationToken(ghtest.ActionsBot)
			base := gh.Commit(ghRepo, "main", "initial")
			head := gh.AddCommit(ghRepo, "change", base)
			gh.AddPull(ghRepo, 42, head, "", "main", base)
			ws := t.TempDir()
			dataset, _ := filepath.Abs(filepath.Join(repo, "testdata/demo/golden.jsonl"))
			inputs := map[string]string{
				"dataset": dataset, "metrics": "faithfulness,answer_relevancy",
				"base-url": baseURL, "model": "m", "embedding-model": "e", "api-key": canaryKey,
				"github-token": canaryToken, "cache-dir": filepath.Join(ws, "cache"),
			}
			if tt.baseline {
				first := filepath.Join(t.TempDir(), "first.json")
				if r := gate(t, map[string]string{"OPENAI_API_KEY": canaryKey}, append(append([]string{"run"}, judgeArgs(baseURL)...), "--out", first)...); r.code != 0 {
					t.Fatalf("base run: exit %d\n%s", r.code, r.stderr)
				}
				planted := filepath.Join(t.TempDir(), "base.json")
				// The action has no extra headers: the others.
				withCanaryIncomplete(t, first, planted, canaryKey, canaryQuery, canaryPass, canaryToken)
				b, _ := os.ReadFile(planted)
				gh.PutFile(ghRepo, "raggate-baselines", "baselines/main/"+base+".json", b)
			}
			srv.Inject(tt.fault)
			payload := map[string]any{
				"action": "synchronize", "number": 42,
				"repository": map[string]any{"full_name": ghRepo, "default_branch": "main"},
				"pull_request": map[string]any{"number": 42,
					"head": map[string]any{"sha": head, "ref": "f", "repo": map[string]any{"full_name": ghRepo}},
					"base": map[string]any{"sha": base, "ref": "main", "repo": map[string]any{"full_name": ghRepo}}},
			}
			env := actionEnv(t, gh, "pull_request", payload, inputs)
			env["GITHUB_WORKSPACE"] = ws
			env["GITHUB_TOKEN"] = canaryToken
			r := gate(t, env, "action")
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, s := range []string{canaryKey, canaryToken} {
				if !strings.Contains(r.stdout, "::add-mask::"+s+"\n") {
					t.Errorf("no mask for %s", s)
				}
			}
			noCanary(t, "stdout", r.stdout)
			noCanary(t, "stderr", r.stderr)
			noCanaryInFiles(t, ws)
			noCanary(t, "job summary", readFile(t, env["GITHUB_STEP_SUMMARY"]))
			noCanary(t, "GITHUB_OUTPUT", readFile(t, env["GITHUB_OUTPUT"]))
			posted := 0
			for _, req := range gh.Requests() {
				noCanary(t, req.Method+" "+req.Path, string(req.Body))
				if strings.HasSuffix(req.Path, "/comments") || strings.Contains(req.Path, "/comments/") {
					posted += len(req.Body)
				}
			}
			cs := gh.Comments(ghRepo, 42)
			if len(cs) != 1 || posted == 0 {
				t.Fatalf("%d comments, %d bytes posted: want the sticky comment", len(cs), posted)
			}
			want := "incomplete"
			if tt.code != 0 {
				want = "raggate: error"
			}
			if !strings.Contains(cs[0].Body, want) || !strings.Contains(readFile(t, env["GITHUB_STEP_SUMMARY"]), "REDACTED") {
				t.Errorf("the comment lacks %q or the summary shows no redaction:\n%s", want, cs[0].Body)
			}
		})
	}
}

// The base URL's query reaches the server on every request, after the
// endpoint path.
func TestRunKeepsBaseURLQuery(t *testing.T) {
	srv, baseURL := canaryJudge(t)
	out := filepath.Join(t.TempDir(), "r.json")
	r := gate(t, map[string]string{"OPENAI_API_KEY": canaryKey}, append(append([]string{"run"}, judgeArgs(baseURL)...), "--out", out)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	kinds := map[string]int{}
	for _, req := range srv.Requests() {
		kinds[req.Path]++
		if req.Query.Get("api-key") != canaryQuery {
			t.Errorf("%s?%s: the base URL's query is missing", req.Path, req.Query.Encode())
		}
	}
	if kinds["/v1/chat/completions"] == 0 || kinds["/v1/embeddings"] == 0 || len(kinds) != 2 {
		t.Errorf("paths %v", kinds)
	}
}

// Credentials HTTP cannot carry, and a malformed --header, are usage errors
// found before any request; the message names the header or variable and
// the problem, never the value.
func TestBadCredentialsAreUsageErrors(t *testing.T) {
	tests := []struct {
		name   string
		key    string
		header string
		want   []string
	}{
		{"colon instead of =", canaryKey, "X-Api-Key: " + canaryHeader, []string{`--header "X-Api-Key"`, "NAME=VALUE"}},
		{"colon, value with =", canaryKey, "X-Api-Key: " + canaryHeader + "==", []string{`--header "X-Api-Key"`, "NAME=VALUE"}},
		{"no separator", canaryKey, canaryHeader, []string{"--header", "NAME=VALUE"}},
		{"invalid name", canaryKey, "X Api Key=" + canaryHeader, []string{`"X Api Key"`, "not a valid header name"}},
		{"value with a newline (header injection)", canaryKey, "X-Api-Key=" + canaryHeader + "\nX-Injected: 1", []string{"X-Api-Key", "contains a newline"}},
		{"key with a trailing newline", canaryKey + "\n", "X-Ok=1", []string{"OPENAI_API_KEY", "contains a newline", "trim"}},
		{"key with a CRLF", canaryKey + "\r\n", "X-Ok=1", []string{"OPENAI_API_KEY", "contains a newline"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := openaitest.NewServer(t)
			out := filepath.Join(t.TempDir(), "r.json")
			r := gate(t, map[string]string{"OPENAI_API_KEY": tt.key}, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl",
				"--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--no-cache", "--max-retries", "1",
				"--header", tt.header, "--out", out)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
				}
			}
			noCanary(t, "stderr", r.stderr)
			if strings.Contains(r.stderr, "judge: judge:") {
				t.Errorf("doubled prefix:\n%s", r.stderr)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests made before the configuration was checked", n)
			}
		})
	}
}

// A 20 KB HTML error page is not printed or stored whole: a few hundred
// characters with the status and what to check.
func TestHTMLErrorPageCapped(t *testing.T) {
	for _, status := range []int{502, 404} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			srv := openaitest.NewServer(t)
			srv.Inject(openaitest.LargeHTMLError(status, 20<<10).Times(-1))
			out := filepath.Join(t.TempDir(), "r.json")
			r := gate(t, map[string]string{"OPENAI_API_KEY": "k"}, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl",
				"--metrics", "faithfulness", "--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--no-cache", "--max-retries", "1", "--out", out)
			if r.code != 3 {
				t.Fatalf("exit %d, want 3\n%.2000s", r.code, r.stderr)
			}
			if len(r.stderr) > 2000 || strings.Contains(r.stderr, "Lorem ipsum") {
				t.Errorf("stderr is %d bytes and quotes the page:\n%.3000s", len(r.stderr), r.stderr)
			}
			f, err := results.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Incomplete) > 800 || strings.Contains(f.Incomplete, "Lorem ipsum") {
				t.Errorf("incomplete reason is %d bytes:\n%.3000s", len(f.Incomplete), f.Incomplete)
			}
			for _, w := range []string{"HTTP " + strconv.Itoa(status), "HTML page", "--base-url", "/v1"} {
				if !strings.Contains(r.stderr, w) || !strings.Contains(f.Incomplete, w) {
					t.Errorf("stderr or incomplete reason does not say %q:\n%s\n%s", w, r.stderr, f.Incomplete)
				}
			}
		})
	}
}

// In the action too: a key pasted into a secret with its line break and
// passed in the environment (inputs are trimmed, variables are not) is
// exit 2 naming the variable, before any request.
func TestActionKeyWithNewline(t *testing.T) {
	srv := openaitest.NewServer(t)
	gh := ghtest.NewServer(t, ghtest.Enterprise())
	dataset, _ := filepath.Abs(filepath.Join(repo, "testdata/demo/golden.jsonl"))
	env := actionEnv(t, gh, "workflow_dispatch", map[string]any{"repository": map[string]any{"full_name": "acme/support-rag", "default_branch": "main"}},
		map[string]string{"dataset": dataset, "base-url": srv.URL, "model": "m", "embedding-model": "e",
			"github-token": canaryToken, "baseline-store": "file", "baseline-path": filepath.Join(t.TempDir(), "base.json")})
	env["GITHUB_WORKSPACE"] = t.TempDir()
	env["OPENAI_API_KEY"] = canaryKey + "\n"
	r := gate(t, env, "action")
	if r.code != 2 || !strings.Contains(r.stderr, "the API key in OPENAI_API_KEY contains a newline") {
		t.Fatalf("exit %d, want 2 naming the variable\n%s", r.code, r.stderr)
	}
	noCanary(t, "stdout", r.stdout)
	noCanary(t, "stderr", r.stderr)
	if n := len(srv.Requests()) + len(gh.Requests()); n != 0 {
		t.Errorf("%d requests before the key was checked", n)
	}
}
