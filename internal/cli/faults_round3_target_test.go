package cli

// Faults of target configuration and target runs, round 3: every value of
// a target config file refused at its line, merge keys, a timeout floor,
// the target metrics named in --metrics, and saved answers that re-judge
// to what was judged. Run only these with
//
//	go test ./internal/cli -run FaultRound3

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// writeTargetConfig writes a target config file t.yaml in dir.
func writeTargetConfig(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Item 1: a bad value in the target config file is exit 2 before any
// call, said at the line of its key (a merged key: where it is written).
func TestFaultRound3ConfigValuesAtTheirLine(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "x"}` })
	u := srv.URL
	for _, tc := range []struct{ name, yaml, want string }{
		{"body not JSON", "target:\n  url: " + u + "\n  body: '{not json'\n", `t.yaml:3: request body "{not json" is not JSON`},
		{"body a number", "target:\n  url: " + u + "\n  body: 5\n", "t.yaml:3: body: want a mapping"},
		{"body key not text", "target:\n  url: " + u + "\n  body:\n    query: '{{user_input}}'\n    1: x\n", "t.yaml:5: body: the key 1 is not text"},
		{"body .inf", "target:\n  url: " + u + "\n  body: {a: .inf}\n", "t.yaml:3: body: .inf is not a JSON number"},
		{"response list", "target:\n  url: " + u + "\n  response: 'a[*]'\n", `t.yaml:3: response path "a[*]" selects a list`},
		{"contexts bad path", "target:\n  url: " + u + "\n  contexts: 'a[x'\n", "t.yaml:3: contexts: path"},
		{"method DELETE", "target:\n  url: " + u + "\n  method: DELETE\n", `t.yaml:3: method "DELETE": want POST, PUT, PATCH or GET`},
		{"url scheme", "target:\n  url: ftp://example.com/ask\n", `t.yaml:2: URL "ftp://example.com/ask"`},
		{"url and command", "target:\n  url: " + u + "\n  command: cat\n", "t.yaml:3: give a URL or a command, not both"},
		{"per_sample with url", "target:\n  url: " + u + "\n  per_sample: true\n", "t.yaml:3: per_sample"},
		{"header name", "target:\n  url: " + u + "\n  headers:\n    X-A: b\n    Bad Name: x\n", `t.yaml:5: header name "Bad Name"`},
		{"header unset", "target:\n  url: " + u + "\n  headers:\n    X-Key: ${ROUND3_UNSET}\n", "t.yaml:4: header X-Key: $ROUND3_UNSET is not set"},
		{"env name", "target:\n  command: cat\n  env: [OK_NAME, 1BAD]\n", `t.yaml:3: env: "1BAD" is not a variable name`},
	} {
		cfg := writeTargetConfig(t, dir, tc.yaml)
		r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet", "--target-config", cfg)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: exit %d, want 2 saying %q\n%s", tc.name, r.code, tc.want, r.stderr)
		}
	}
	// A flag that replaces the file's value takes the problem with it: it
	// is the flag's, not the file's line.
	cfg := writeTargetConfig(t, dir, "target:\n  url: "+u+"\n  method: GET\n")
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", filepath.Join(dir, "r.json"), "--quiet", "--target-config", cfg, "--target-method", "DELETE")
	if r.code != ExitUsage || !strings.Contains(r.stderr, `target: method "DELETE"`) || strings.Contains(r.stderr, "t.yaml:3") {
		t.Errorf("flag over the file: exit %d, want 2 naming the flag's value without the file's line\n%s", r.code, r.stderr)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d calls made before the configuration was refused", n)
	}
}

// Item 2: merge keys are resolved (YAML 1.1: the mapping's own keys win,
// then the merged ones in order), in the target section, its headers and
// its body; an anchor to merge may be a top-level key. A merge of
// anything but mappings is exit 2 at its line.
func TestFaultRound3ConfigMergeKeys(t *testing.T) {
	dir := t.TempDir()
	var (
		mu      sync.Mutex
		headers []http.Header
		bodies  []map[string]any
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		headers, bodies = append(headers, r.Header.Clone()), append(bodies, body)
		mu.Unlock()
		_, _ = w.Write([]byte(`{"response": "The Kestrel K2 stores 13.5 kWh of usable energy."}`))
	}))
	t.Cleanup(srv.Close)
	cfg := writeTargetConfig(t, dir, `defaults: &defaults
  method: PUT
  timeout: 5s
  headers: &common
    X-Team: rag
    X-Env: ci
  body: &base
    top_k: 5
    query: overridden
target:
  <<: *defaults
  url: `+srv.URL+`
  method: POST
  headers:
    <<: *common
    X-Env: gate
  body:
    <<: *base
    query: "{{user_input}}"
`)
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target-config", cfg, "--metrics", "string_similarity")
	if r.code != 0 {
		t.Fatalf("merge keys: exit %d, want 0\n%s", r.code, r.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 20 {
		t.Fatalf("%d calls, want 20", len(bodies))
	}
	if h := headers[0]; h.Get("X-Team") != "rag" || h.Get("X-Env") != "gate" {
		t.Errorf("headers %v: want X-Team from the merged mapping and X-Env the section's own", h)
	}
	if b := bodies[0]; b["top_k"] != 5.0 || b["query"] == "overridden" || b["query"] == "" {
		t.Errorf("body %v: want top_k merged and the section's own query", b)
	}

	// A merged value is checked where it is written.
	cfg = writeTargetConfig(t, dir, "defaults: &d\n  timeout: 1ns\ntarget:\n  <<: *d\n  url: "+srv.URL+"\n")
	r = gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target-config", cfg)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "t.yaml:2: timeout 1ns") {
		t.Errorf("merged bad value: exit %d, want 2 at line 2\n%s", r.code, r.stderr)
	}
	cfg = writeTargetConfig(t, dir, "target:\n  url: "+srv.URL+"\n  <<: [5]\n")
	r = gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target-config", cfg)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "t.yaml:3: <<: want an alias of a mapping") {
		t.Errorf("merge of a number: exit %d, want 2 at line 3\n%s", r.code, r.stderr)
	}
	// A top-level key still holds only an anchor the target section uses.
	cfg = writeTargetConfig(t, dir, "defaults: &d {timeout: 5s}\ntarget:\n  url: "+srv.URL+"\n")
	r = gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target-config", cfg)
	if r.code != ExitUsage || !strings.Contains(r.stderr, `t.yaml:1: unknown key "defaults" at the top level`) {
		t.Errorf("unused top-level anchor: exit %d, want 2 at line 1\n%s", r.code, r.stderr)
	}
}

// Item 3: a timeout below 10ms would time out every call: refused, in the
// file at its line and as a flag, naming the floor.
func TestFaultRound3TimeoutFloor(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string { return `{"response": "x"}` })
	out := filepath.Join(dir, "r.json")
	cfg := writeTargetConfig(t, dir, "target:\n  url: "+srv.URL+"\n  timeout: 1ns\n")
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target-config", cfg)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "t.yaml:3: timeout 1ns: want 10ms to 1h") {
		t.Errorf("file: exit %d, want 2 at line 3 naming 10ms\n%s", r.code, r.stderr)
	}
	r = gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target", srv.URL, "--target-timeout", "1ns")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "--target-timeout") || !strings.Contains(r.stderr, "10ms") {
		t.Errorf("flag: exit %d, want 2 naming --target-timeout and 10ms\n%s", r.code, r.stderr)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d calls made with a timeout that was refused", n)
	}
	r = gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target", srv.URL, "--target-timeout", "10ms", "--max-target-failures", "1")
	if r.code != 0 {
		t.Errorf("10ms: exit %d, want 0 (the floor itself is allowed)\n%s", r.code, r.stderr)
	}
}

// Item 4: the target metrics can be named in a target run; outside one the
// error says what they are.
func TestFaultRound3TargetMetricsNamed(t *testing.T) {
	dir := t.TempDir()
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string {
		return `{"response": "The Kestrel K2 stores 13.5 kWh.", "usage": {"prompt_tokens": 10, "completion_tokens": 5}}`
	})
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target", srv.URL,
		"--metrics", "target_tokens,target_latency_ms,string_similarity")
	if r.code != 0 {
		t.Fatalf("target run: exit %d, want 0\n%s", r.code, r.stderr)
	}
	f := readResults(t, out)
	for _, m := range []string{"target_tokens", "target_latency_ms", "string_similarity"} {
		if s, ok := f.Summary[m]; !ok || s.N != 20 {
			t.Errorf("%s: summary %+v (present %v), want 20 scores", m, s, ok)
		}
	}
	if s := f.Summary["target_tokens"]; s.Mean.Value() != 15 {
		t.Errorf("target_tokens mean %v, want 15", s.Mean.Value())
	}
	// The same through a config file.
	cfg := writeTargetConfig(t, dir, "target:\n  url: "+srv.URL+"\n")
	if r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--target-config", cfg, "--metrics", "target_latency_ms"); r.code != 0 {
		t.Errorf("target config run: exit %d, want 0\n%s", r.code, r.stderr)
	}
	for _, extra := range [][]string{nil, {"--metrics-file", repo + "/metrics.example.yaml"}} {
		args := append([]string{"run", "--dataset", demo, "--judge", "offline", "--out", out, "--quiet", "--metrics", "target_tokens"}, extra...)
		r = gate(t, nil, args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, `"target_tokens" is a metric of a target run`) {
			t.Errorf("no target %v: exit %d, want 2 saying it is a metric of a target run\n%s", extra, r.code, r.stderr)
		}
	}
}

// Item 5: a reply whose contexts are null under the default path was
// judged with none; the saved row says so ("retrieved_contexts": []), so
// re-judging it with --responses judges the same thing, with the same
// scores, on a dataset that has no contexts of its own.
func TestFaultRound3SavedNullContextsRejudge(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(ds, []byte(`{"id": "a", "user_input": "How much energy can the K2 store?", "reference": "The K2 stores 13.5 kWh.", "reference_contexts": ["The K2 stores 13.5 kWh of usable energy."]}
{"id": "b", "user_input": "How long is the warranty?", "reference": "Ten years.", "reference_contexts": ["The K2 carries a 10-year warranty."]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	srv := jsonService(t, &calls, func(string) string {
		return `{"response": "The K2 stores 13.5 kWh.", "retrieved_contexts": null, "retrieved_context_ids": null}`
	})
	out, saved := filepath.Join(dir, "r.json"), filepath.Join(dir, "answers.jsonl")
	r := gate(t, nil, "run", "--dataset", ds, "--judge", "offline", "--out", out, "--quiet", "--target", srv.URL, "--save-responses", saved)
	if r.code != 0 {
		t.Fatalf("target run: exit %d\n%s", r.code, r.stderr)
	}
	fh, err := os.Open(saved)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var row map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		if string(row["retrieved_contexts"]) != "[]" || string(row["retrieved_context_ids"]) != "[]" {
			t.Errorf("saved row %s: want \"retrieved_contexts\": [] and \"retrieved_context_ids\": [] (judged with none)", sc.Text())
		}
	}
	again := filepath.Join(dir, "again.json")
	r = gate(t, nil, "run", "--dataset", ds, "--judge", "offline", "--out", again, "--quiet", "--responses", saved)
	if r.code != 0 {
		t.Fatalf("re-judge: exit %d\n%s", r.code, r.stderr)
	}
	first, second := readResults(t, out), readResults(t, again)
	for m, s := range first.Summary {
		if strings.HasPrefix(m, "target_") {
			continue
		}
		if s2, ok := second.Summary[m]; !ok || s2.N != s.N || s2.Undefined != s.Undefined || (s.N > 0 && s2.Mean.Value() != s.Mean.Value()) {
			t.Errorf("%s: re-judged %+v (present %v), judged %+v", m, s2, ok, s)
		}
	}
	for m := range second.Summary {
		if _, ok := first.Summary[m]; !ok && !strings.HasPrefix(m, "target_") {
			t.Errorf("%s scored when re-judged, not in the target run", m)
		}
	}
}
