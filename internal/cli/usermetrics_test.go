package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/ghtest"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/usermetric"
)

// userDataset writes a dataset whose samples carry the fake judge's votes
// and levels, and a latency column.
func userDataset(t *testing.T, dir string) string {
	t.Helper()
	rows := []struct{ id, resp, votes, level, latency string }{
		{"a", "See section 4.2: yes.", "1,0,1", "3", "120"},
		{"b", "Yes.", "0,0,1", "1", "250"},
		{"c", "Per section 2, no.", "1,1,1", "2", "90"},
		{"d", "No idea.", "0,1,0", "3", "400"},
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, `{"id":%q,"user_input":"Can I bring a bike?","response":%q,"fake_votes":%q,"fake_level":%q,"latency_ms":%s}`+"\n",
			r.id, r.resp, r.votes, r.level, r.latency)
	}
	p := filepath.Join(dir, "golden.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const userMetricsFile = `version: 1
metrics:
  cites_section:
    kind: critic
    description: the answer names the section it relies on
    reads: [user_input, response, fake_votes]
    definition: Does the response name the section of the conditions that supports it?
    votes: 3
  tone:
    kind: rubric
    description: tone of the answer
    reads: [response, fake_level]
    definition: The tone of the response.
    rubric:
      1: rude
      2: curt
      3: warm
  latency:
    kind: numeric
    description: end-to-end latency
    reads: [latency_ms]
    direction: lower
    transform: log
`

func writeFile(t *testing.T, p, text string) string {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Critic (majority of 3 votes in one call with n = 3), rubric (level
// normalised, raw kept) and numeric (log, raw kept) through the CLI and
// the OpenAI-compatible fake; then the cache, then a changed criterion.
func TestUserMetricsOpenAI(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
	dir := t.TempDir()
	ds := userDataset(t, dir)
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), userMetricsFile)
	env := map[string]string{"OPENAI_API_KEY": "sk-test"}
	run := func(out string) *results.File {
		t.Helper()
		r := gate(t, env, "run", "--quiet", "--dataset", ds, "--metrics-file", mf, "--metrics", "cites_section,tone,latency",
			"--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--cache-dir", filepath.Join(dir, "cache"), "--out", out)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		f, err := results.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := run(filepath.Join(dir, "r1.json"))
	// 4 samples x (1 critic call with n=3 + 1 rubric call).
	if got := srv.ChatRequests(); got != 8 {
		t.Errorf("chat requests %d, want 8 (one per critic with n=3, one per rubric)", got)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), `"criterion":"Does the response`) && r.N != 3 {
			t.Errorf("critic request with n=%d, want 3", r.N)
		}
	}
	want := map[string][3]float64{ // critic, tone, raw tone level
		"a": {1, 1, 3}, "b": {0, 0, 1}, "c": {1, 0.5, 2}, "d": {0, 1, 3},
	}
	for _, s := range f.Samples {
		w := want[s.ID]
		if got := s.Scores["cites_section"].Value(); got != w[0] {
			t.Errorf("%s: critic %v, want %v (majority of %s)", s.ID, got, w[0], s.Metadata["fake_votes"])
		}
		if got := s.Scores["tone"].Value(); got != w[1] || s.Raw["tone"].Value() != w[2] {
			t.Errorf("%s: tone %v (level %v), want %v (level %v)", s.ID, got, s.Raw["tone"], w[1], w[2])
		}
		if !strings.Contains(s.Reasons["cites_section"], "of 3 votes yes") {
			t.Errorf("%s: critic reason %q", s.ID, s.Reasons["cites_section"])
		}
		lat := s.Raw["latency"].Value()
		if math.Abs(s.Scores["latency"].Value()-math.Log(lat)) > 1e-12 {
			t.Errorf("%s: latency score %v for %v ms, want its log", s.ID, s.Scores["latency"], lat)
		}
	}
	if len(f.UserMetrics) != 3 || f.Judge.UserMetrics == "" {
		t.Fatalf("user metrics not recorded: %+v, judge %+v", f.UserMetrics, f.Judge)
	}
	if f.Usage.PerMetric["cites_section"].ChatCalls != 4 {
		t.Errorf("per-metric usage %+v", f.Usage.PerMetric)
	}

	// Cached: no call.
	before := srv.ChatRequests()
	g := run(filepath.Join(dir, "r2.json"))
	if srv.ChatRequests() != before || g.Usage.CachedCalls != 8 {
		t.Errorf("re-run: %d requests, usage %+v; want all 8 from the cache", srv.ChatRequests()-before, g.Usage)
	}
	// A changed criterion asks again (its 4 calls), and changes the fingerprint.
	writeFile(t, mf, strings.Replace(userMetricsFile, "supports it?", "supports the answer?", 1))
	h := run(filepath.Join(dir, "r3.json"))
	if got := srv.ChatRequests() - before; got != 4 {
		t.Errorf("after editing the criterion: %d requests, want 4 (the critic's, not the rubric's)", got)
	}
	if h.Judge.Fingerprint == f.Judge.Fingerprint {
		t.Error("a changed definition kept the judge fingerprint")
	}
}

// A server that refuses n gets one call per vote.
func TestUserMetricsVotesWithoutN(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"), openaitest.RejectN(true))
	dir := t.TempDir()
	ds := userDataset(t, dir)
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), userMetricsFile)
	out := filepath.Join(dir, "r.json")
	r := gate(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, "run", "--quiet", "--dataset", ds, "--metrics-file", mf,
		"--metrics", "cites_section", "--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--no-cache", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := srv.ChatCalls(); got != 12 {
		t.Errorf("%d chat calls answered, want 12 (3 votes x 4 samples)", got)
	}
	f, _ := results.Read(out)
	for _, s := range f.Samples {
		if want := map[string]float64{"a": 1, "b": 0, "c": 1, "d": 0}[s.ID]; s.Scores["cites_section"].Value() != want {
			t.Errorf("%s: %v, want %v", s.ID, s.Scores["cites_section"], want)
		}
	}
}

// The dry run prices the user metrics' calls: one per critic and rubric.
func TestUserMetricsDryRun(t *testing.T) {
	dir := t.TempDir()
	ds := userDataset(t, dir)
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), userMetricsFile)
	r := gate(t, nil, "run", "--dry-run", "--dataset", ds, "--metrics-file", mf, "--metrics", "cites_section,tone,latency", "--out", filepath.Join(dir, "r.json"))
	if r.code != 0 || !strings.Contains(r.stdout, "chat calls         8 (2.0 per sample") || !strings.Contains(r.stdout, "estimated cost     $") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Bad definitions are exit 2 with file:line, before the dataset is read or
// the judge is called.
func TestUserMetricsBadFile(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
	dir := t.TempDir()
	ds := userDataset(t, dir)
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), `version: 1
metrics:
  cites:
    kind: critic
    description: d
    reads: [response]
    definition: Does it cite?
    votes: 2
  faithfulness:
    kind: numeric
    description: d
    reads: [x]
    direction: lower
  tone:
    kind: rubric
    description: d
    reads: [response]
    definition: tone
    rubric: {}
    scale: 5
  cites:
    kind: critic
`)
	r := gate(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, "check", "--dataset", ds, "--metrics-file", mf, "--base-url", srv.URL,
		"--model", "m", "--embedding-model", "e", "--no-cache", "--out", filepath.Join(dir, "r.json"))
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"metrics.yaml:8:12: metrics.cites.votes: 2; want an odd number",
		"metrics.yaml:9:3: metric \"faithfulness\" is a built-in metric",
		"metrics.yaml:19:13: metrics.tone.rubric: expected at least two levels",
		"metrics.yaml:20:5: unknown key \"scale\" in metrics.tone",
		"metrics.yaml:21:3: duplicate metric \"cites\", first at line 3",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if srv.ChatRequests() != 0 {
		t.Errorf("%d judge calls before refusing the metrics file", srv.ChatRequests())
	}
}

// A column no sample has is exit 2 before judging, naming the nearest.
func TestUserMetricsMissingColumn(t *testing.T) {
	dir := t.TempDir()
	ds := userDataset(t, dir)
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), strings.Replace(userMetricsFile, "reads: [latency_ms]", "reads: [latncy_ms]", 1))
	r := gate(t, nil, "run", "--judge", "offline", "--dataset", ds, "--metrics-file", mf, "--out", filepath.Join(dir, "r.json"))
	if r.code != 2 || !strings.Contains(r.stderr, `metric latency: "latncy_ms" is not a column of`) || !strings.Contains(r.stderr, `did you mean "latency_ms"?`) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
}

// The offline judge leaves critic and rubric undefined ("needs an LLM
// judge", kind data: not a judge failure, so --max-undefined does not
// stop the run) and computes numeric metrics.
func TestUserMetricsOffline(t *testing.T) {
	dir := t.TempDir()
	ds := userDataset(t, dir)
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), userMetricsFile)
	out := filepath.Join(dir, "r.json")
	r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", ds, "--metrics-file", mf, "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, _ := results.Read(out)
	for _, s := range f.Samples {
		for _, m := range []string{"cites_section", "tone"} {
			if !s.Scores[m].IsNaN() || s.Undefined[m] != "needs an LLM judge" || s.KindOf(m) != results.KindData {
				t.Errorf("%s %s: %v %q %q", s.ID, m, s.Scores[m], s.Undefined[m], s.KindOf(m))
			}
		}
		if s.Scores["latency"].IsNaN() {
			t.Errorf("%s: latency undefined: %s", s.ID, s.Undefined["latency"])
		}
	}
}

// The example metrics file at the top of the repository parses, and its
// thresholds counterpart names its metrics.
func TestMetricsExampleParses(t *testing.T) {
	defs, err := usermetric.LoadFile(filepath.Join(repo, "metrics.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) < 3 {
		t.Fatalf("%d definitions, want the three kinds", len(defs))
	}
}

// A change under review is measured with the metrics file of its base
// commit, read through the API; the checkout's copy (here broken, and
// defining another metric) is never read.
func TestActionReadsMetricsFileAtBase(t *testing.T) {
	const repo = "acme/support-rag"
	gh := ghtest.NewServer(t, ghtest.Enterprise())
	gh.AddRepo(repo, "main")
	gh.UseIntegrationToken(ghtest.ActionsBot)
	gh.PutFile(repo, "main", "metrics.yaml", []byte(userMetricsFile))
	base := gh.BranchHead(repo, "main")
	head := gh.AddCommit(repo, "queued", base)

	ws := t.TempDir()
	userDataset(t, ws)
	writeFile(t, filepath.Join(ws, "metrics.yaml"), "version: 1\nmetrics:\n  faster: {kind: numeric, votes: 2}\n")
	payload := map[string]any{
		"action":      "checks_requested",
		"repository":  map[string]any{"full_name": repo, "default_branch": "main"},
		"merge_group": map[string]any{"head_sha": head, "head_ref": "refs/heads/gh-readonly-queue/main/pr-1", "base_sha": base, "base_ref": "refs/heads/main"},
	}
	env := actionEnv(t, gh, "merge_group", payload, map[string]string{"dataset": "golden.jsonl", "judge": "offline", "metrics-file": "metrics.yaml", "github-token": "t"})
	env["GITHUB_WORKSPACE"] = ws
	r := gate(t, env, "action")
	if r.code != 0 {
		t.Fatalf("exit %d: the checkout's metrics file was read?\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	f, err := results.Read(filepath.Join(ws, "raggate-results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.UserMetrics) != 3 || f.UserMetrics[2].Name != "latency" || f.Summary["latency"].N != 4 {
		t.Errorf("user metrics %+v, latency %+v; want the base commit's", f.UserMetrics, f.Summary["latency"])
	}
}

// gate check end to end with a numeric metric: a responses file whose
// latencies are 30% higher fails the gate; the same latencies pass.
func TestCheckNumericLatencyGate(t *testing.T) {
	dir := t.TempDir()
	var golden, same, slow strings.Builder
	for i := range 30 {
		lat := 500 + 37*i%400
		fmt.Fprintf(&golden, `{"id":"q-%d","user_input":"question %d"}`+"\n", i, i)
		fmt.Fprintf(&same, `{"id":"q-%d","response":"answer %d","latency_ms":%d}`+"\n", i, i, lat)
		fmt.Fprintf(&slow, `{"id":"q-%d","response":"answer %d","latency_ms":%d}`+"\n", i, i, lat*13/10+i%3)
	}
	ds := writeFile(t, filepath.Join(dir, "golden.jsonl"), golden.String())
	sameP := writeFile(t, filepath.Join(dir, "same.jsonl"), same.String())
	slowP := writeFile(t, filepath.Join(dir, "slow.jsonl"), slow.String())
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), userMetricsFile)
	th := writeFile(t, filepath.Join(dir, "t.yaml"), "version: 1\nmetrics:\n  latency: {tolerance: 0.0953}\n")
	check := func(responses, out string, baseline ...string) runResult {
		args := []string{"check", "--quiet", "--judge", "offline", "--dataset", ds, "--responses", responses, "--metrics-file", mf,
			"--metrics", "latency", "--thresholds", th, "--out", filepath.Join(dir, out)}
		if len(baseline) > 0 {
			args = append(args, "--baseline", baseline[0])
		}
		return gate(t, nil, args...)
	}
	if r := check(sameP, "base.json"); r.code != 0 {
		t.Fatalf("base: exit %d\n%s", r.code, r.stderr)
	}
	base := filepath.Join(dir, "base.json")
	if r := check(sameP, "same.json", base); r.code != 0 {
		t.Errorf("unchanged latencies: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := check(slowP, "slow.json", base)
	if r.code != 1 || !strings.Contains(r.stdout, "latency regressed") {
		t.Errorf("30%% slower: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Shards of a run with user-defined metrics merge into one file that keeps
// the definitions and the raw values.
func TestUserMetricsShardsMerge(t *testing.T) {
	dir := t.TempDir()
	ds := userDataset(t, dir)
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), userMetricsFile)
	var shards []string
	for i := 1; i <= 2; i++ {
		out := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", ds, "--metrics-file", mf, "--metrics", "latency", "--shard", fmt.Sprintf("%d/2", i), "--out", out); r.code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, r.code, r.stderr)
		}
		shards = append(shards, out)
	}
	out := filepath.Join(dir, "merged.json")
	if r := gate(t, nil, append([]string{"merge", "--out", out}, shards...)...); r.code != 0 {
		t.Fatalf("merge: exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Samples) != 4 || len(f.UserMetrics) != 1 || f.UserMetrics[0].Name != "latency" || f.Judge.UserMetrics == "" {
		t.Fatalf("merged: %d samples, user metrics %+v, judge %+v", len(f.Samples), f.UserMetrics, f.Judge)
	}
	for _, s := range f.Samples {
		if s.Raw["latency"].Value() < 90 {
			t.Errorf("%s: raw latency %v", s.ID, s.Raw["latency"])
		}
	}
}
