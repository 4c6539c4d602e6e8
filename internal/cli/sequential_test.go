package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// seqDataset writes n samples built from the public amnesty_qa rows (each
// with a fresh id and a topic), with each response passed through edit.
func seqDataset(t *testing.T, path string, n int, edit func(i int, response string) string) {
	t.Helper()
	f, err := os.Open(repo + "/testdata/datasets/amnesty_qa/amnesty_qa_eval.english_v3.fef186d.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var row map[string]any
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	var b strings.Builder
	for i := range n {
		row := map[string]any{}
		for k, v := range rows[i%len(rows)] {
			row[k] = v
		}
		row["id"] = fmt.Sprintf("s-%04d", i)
		row["topic"] = []string{"rights", "climate", "labour"}[i%3]
		row["latency_ms"] = 800 + i%7*10
		row["response"] = edit(i, row["response"].(string))
		line, _ := json.Marshal(row)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// seqFixture is a base run of n samples and two heads that change every
// answer: one that changes nothing that matters (a trailing space), one
// that breaks a third of the answers.
func seqFixture(t *testing.T, n int) (dir, base string) {
	t.Helper()
	dir = t.TempDir()
	seqDataset(t, filepath.Join(dir, "base.jsonl"), n, func(_ int, r string) string { return r })
	seqDataset(t, filepath.Join(dir, "same.jsonl"), n, func(_ int, r string) string { return r + " " })
	rng := rand.New(rand.NewPCG(1, 2))
	seqDataset(t, filepath.Join(dir, "broken.jsonl"), n, func(_ int, r string) string {
		if rng.IntN(3) == 0 {
			return "I do not know."
		}
		return r + " "
	})
	base = filepath.Join(dir, "base.json")
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", filepath.Join(dir, "base.jsonl"), "--out", base); r.code != 0 {
		t.Fatalf("base run: exit %d\n%s", r.code, r.stderr)
	}
	return dir, base
}

// A head that breaks answers fails early: the check judges a fraction of
// the samples, marks the others not judged, says what it saved, and a
// later comparison of the same files reaches the same verdict.
func TestSequentialBrokenHeadFailsEarly(t *testing.T) {
	dir, base := seqFixture(t, 600)
	head := filepath.Join(dir, "head.json")
	r := gate(t, nil, "check", "--sequential", "--sequential-batch", "40", "--judge", "offline",
		"--dataset", filepath.Join(dir, "broken.jsonl"), "--baseline", base, "--out", head)
	if r.code != 1 {
		t.Fatalf("broken head: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "Sequential check: decided after") || !strings.Contains(r.stdout, "of the samples not judged") ||
		!strings.Contains(r.stdout, "regressed by") || !strings.Contains(r.stdout, "(shown by the sequential test)") {
		t.Errorf("the report does not say when the check decided:\n%s", r.stdout)
	}
	f := readResults(t, head)
	q := f.Config.Sequential
	if q == nil || q.Batch != 40 || q.Total != 600 || q.DecidedAfter == 0 || q.DecidedAfter%40 != 0 || q.Judged >= 600 {
		t.Fatalf("sequential record %+v: want batch 40, 600 samples, decided after a whole batch, before the end", q)
	}
	// The samples not judged carry the inputs a full run records: the
	// same input hash and metadata (read back from the run's samples).
	full := filepath.Join(dir, "full.json")
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", filepath.Join(dir, "broken.jsonl"), "--out", full); r.code != 0 {
		t.Fatalf("full run: exit %d\n%s", r.code, r.stderr)
	}
	want := map[string]results.Sample{}
	for _, s := range readResults(t, full).Samples {
		want[s.ID] = s
	}
	judged, notJudged := 0, 0
	seqs := map[int]bool{}
	for _, s := range f.Samples {
		if w := want[s.ID]; s.InputHash == "" || s.InputHash != w.InputHash || fmt.Sprint(s.Metadata) != fmt.Sprint(w.Metadata) {
			t.Fatalf("sample %s (seq %d): input hash %q, metadata %v; a full run records %q, %v", s.ID, s.Seq, s.InputHash, s.Metadata, w.InputHash, w.Metadata)
		}
		if s.Seq > 0 {
			judged++
			if seqs[s.Seq] {
				t.Fatalf("position %d given twice", s.Seq)
			}
			seqs[s.Seq] = true
			continue
		}
		notJudged++
		for m, v := range s.Scores {
			if !v.IsNaN() || s.KindOf(m) != results.KindNotJudged || !strings.Contains(s.Undefined[m], "not judged") {
				t.Fatalf("sample %s left unjudged: %s = %v (%s, %q), want undefined, kind not_judged", s.ID, m, v, s.KindOf(m), s.Undefined[m])
			}
		}
	}
	if judged != q.Judged || judged+notJudged != 600 {
		t.Fatalf("%d judged + %d not judged, record says %d judged of %d", judged, notJudged, q.Judged, q.Total)
	}
	// The judged samples are a random draw: not the first ones of the file.
	if first := f.Samples[judged-1]; first.Seq > 0 && judged < 600 {
		lastIDs := 0
		for _, s := range f.Samples[:judged] {
			if s.Seq > 0 {
				lastIDs++
			}
		}
		if lastIDs == judged {
			t.Errorf("the judged samples are the first %d of the dataset: the order is not random", judged)
		}
	}
	cmp := gate(t, nil, "compare", "--base", base, "--head", head, "--format", "json")
	if cmp.code != 1 {
		t.Fatalf("compare of the same files: exit %d, want 1\n%s", cmp.code, cmp.stderr)
	}
	var rep struct {
		Sequential struct {
			DecidedAfter int `json:"decided_after"`
			Judged       int `json:"judged"`
		} `json:"sequential"`
		Metrics []struct {
			Metric     string `json:"metric"`
			Change     string `json:"change"`
			Sequential *struct {
				Decision string `json:"decision"`
			} `json:"sequential"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(cmp.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Sequential.DecidedAfter != q.DecidedAfter {
		t.Errorf("compare replays a decision after %d samples, the check decided after %d", rep.Sequential.DecidedAfter, q.DecidedAfter)
	}
	failed := false
	for _, m := range rep.Metrics {
		if m.Sequential != nil && m.Sequential.Decision == "failed" && m.Change == "regression" {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no gated metric failed sequentially in the replay: %s", cmp.stdout)
	}
	// The comment and the HTML report say it too, and the usage section
	// what a full run would have cost.
	md := gate(t, nil, "compare", "--base", base, "--head", head, "--format", "markdown")
	if !strings.Contains(md.stdout, "**Sequential check: decided after ") {
		t.Errorf("the markdown comment does not say when the check decided:\n%s", md.stdout)
	}
	html := gate(t, nil, "compare", "--base", base, "--head", head, "--format", "html")
	if !strings.Contains(html.stdout, `<p class="sequential">Sequential check: decided after `) {
		t.Errorf("the HTML report does not say when the check decided")
	}
	// A partial run cannot stand for a branch.
	put := gate(t, nil, "baseline", "put", "--store", "file", "--path", filepath.Join(dir, "stored.json"), "--results", head)
	if put.code != 2 || !strings.Contains(put.stderr, "sequential check that judged") {
		t.Errorf("baseline put of a sequential check: exit %d, want 2 naming it\n%s%s", put.code, put.stdout, put.stderr)
	}
}

// A head that changes every answer and nothing that matters passes: the
// samples left unjudged count neither as undefined nor as lost scores.
func TestSequentialUnchangedQualityPasses(t *testing.T) {
	dir, base := seqFixture(t, 600)
	head := filepath.Join(dir, "head.json")
	r := gate(t, nil, "check", "--sequential", "--sequential-batch", "40", "--judge", "offline",
		"--dataset", filepath.Join(dir, "same.jsonl"), "--baseline", base, "--out", head)
	if r.code != 0 {
		t.Fatalf("same quality: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "Sequential check:") {
		t.Errorf("no sequential line in the report:\n%s", r.stdout)
	}
	// Unchanged inputs come first and are judged in full: a rerun on the
	// base's own data decides only once all of them are judged.
	again := filepath.Join(dir, "again.json")
	r = gate(t, nil, "check", "--quiet", "--sequential", "--judge", "offline",
		"--dataset", filepath.Join(dir, "base.jsonl"), "--baseline", base, "--out", again)
	if r.code != 0 {
		t.Fatalf("unchanged head: exit %d\n%s", r.code, r.stderr)
	}
	if q := readResults(t, again).Config.Sequential; q == nil || q.Judged != 600 {
		t.Errorf("unchanged head: %+v, want every sample judged (their answers are cached; the mean over them is exact)", q)
	}
}

// What a sequential check cannot do is refused before any call; the
// thresholds file's sequential: key turns it on, and a wrong value is
// named with its line.
func TestSequentialSettings(t *testing.T) {
	dir, base := seqFixture(t, 60)
	data := filepath.Join(dir, "same.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--repeats", "2"}, "--sequential judges each sample once"},
		{[]string{"--target", "http://127.0.0.1:1/answer"}, "--sequential cannot call a target"},
		{[]string{"--sequential-seed", "x"}, "unsigned integer"},
	} {
		args := append([]string{"check", "--sequential", "--judge", "offline", "--dataset", data, "--baseline", base, "--out", filepath.Join(dir, "h.json")}, tc.args...)
		r := gate(t, nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 with %q\n%s", tc.args, r.code, tc.want, r.stderr)
		}
	}
	th := filepath.Join(dir, "t.yaml")
	os.WriteFile(th, []byte("version: 1\nsequential: {batch: 20}\n"), 0o644)
	head := filepath.Join(dir, "head.json")
	if r := gate(t, nil, "check", "--quiet", "--judge", "offline", "--dataset", data, "--baseline", base, "--thresholds", th, "--out", head); r.code != 0 {
		t.Fatalf("sequential: in the thresholds: exit %d\n%s", r.code, r.stderr)
	}
	if q := readResults(t, head).Config.Sequential; q == nil || q.Batch != 20 {
		t.Errorf("sequential: {batch: 20} in the thresholds file: results record %+v", q)
	}
	os.WriteFile(th, []byte("version: 1\nsequential: maybe\n"), 0o644)
	if r := gate(t, nil, "check", "--quiet", "--judge", "offline", "--dataset", data, "--baseline", base, "--thresholds", th, "--out", head); r.code != 2 || !strings.Contains(r.stderr, "t.yaml:2:") {
		t.Errorf("sequential: maybe: exit %d, want 2 with t.yaml:2\n%s", r.code, r.stderr)
	}
}

// What the review of sequential checks found, held: a partial sequential
// file is no base; --sequential keeps the thresholds file's batch, and the
// batch flag alone needs a sequential check; a run stopped before deciding
// says so; the reads stay close to the decision.
func TestSequentialReviewed(t *testing.T) {
	dir, base := seqFixture(t, 600)
	broken := filepath.Join(dir, "broken.jsonl")
	head := filepath.Join(dir, "head.json")
	if r := gate(t, nil, "check", "--quiet", "--sequential", "--sequential-batch", "20", "--judge", "offline",
		"--dataset", broken, "--baseline", base, "--out", head); r.code != 1 {
		t.Fatalf("broken head: exit %d\n%s", r.code, r.stderr)
	}
	q := readResults(t, head).Config.Sequential
	// The judge evaluates max(4, 2 x 8) samples at once: the reads stay
	// within twice that of the samples looked at.
	if q.DecidedAfter == 0 || q.Judged > q.DecidedAfter+2*16+20 {
		t.Errorf("decided after %d, judged %d: the run read far beyond the decision", q.DecidedAfter, q.Judged)
	}
	for _, args := range [][]string{
		{"compare", "--base", head, "--head", base},
		{"check", "--judge", "offline", "--dataset", broken, "--baseline", head, "--out", filepath.Join(dir, "x.json")},
	} {
		r := gate(t, nil, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "it cannot be a base") {
			t.Errorf("%v: exit %d, want 2 refusing a partial base\n%s", args[0], r.code, r.stderr)
		}
	}
	th := filepath.Join(dir, "t.yaml")
	os.WriteFile(th, []byte("version: 1\nsequential: {batch: 30}\n"), 0o644)
	h2 := filepath.Join(dir, "h2.json")
	if r := gate(t, nil, "check", "--quiet", "--sequential", "--judge", "offline", "--dataset", broken, "--baseline", base,
		"--thresholds", th, "--out", h2); r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if q := readResults(t, h2).Config.Sequential; q.Batch != 30 {
		t.Errorf("--sequential with sequential: {batch: 30}: batch %d, want 30", q.Batch)
	}
	r := gate(t, nil, "check", "--quiet", "--sequential-batch", "30", "--judge", "offline", "--dataset", broken, "--baseline", base, "--out", h2)
	if r.code != 2 || !strings.Contains(r.stderr, "add --sequential") {
		t.Errorf("--sequential-batch alone: exit %d, want 2\n%s", r.code, r.stderr)
	}
	// A time budget that ends the run before a decision: the unjudged
	// samples and the report say the run stopped, not that it decided.
	stopped := filepath.Join(dir, "stopped.json")
	r = gate(t, nil, "check", "--sequential", "--sequential-batch", "500", "--max-duration", "1ms", "--judge", "offline",
		"--dataset", filepath.Join(dir, "same.jsonl"), "--baseline", base, "--out", stopped)
	if r.code != 3 {
		t.Fatalf("time budget: exit %d, want 3\n%s", r.code, r.stderr)
	}
	f := readResults(t, stopped)
	for _, s := range f.Samples {
		if s.Seq == 0 {
			for m := range s.Scores {
				if !strings.Contains(s.Undefined[m], "the run stopped (") {
					t.Fatalf("unjudged sample of a stopped run: %q", s.Undefined[m])
				}
				break
			}
			break
		}
	}
	if c := gate(t, nil, "compare", "--base", base, "--head", stopped); !strings.Contains(c.stdout, "Sequential check: stopped before deciding") {
		t.Errorf("the report of a stopped run does not say it stopped:\n%s", c.stdout)
	}
}

// A check decided over segments replays the same way in a comparison that
// names no segment: the file records the keys it decided over.
func TestSequentialSegmentsReplay(t *testing.T) {
	dir, base := seqFixture(t, 600)
	head := filepath.Join(dir, "head.json")
	if r := gate(t, nil, "check", "--quiet", "--sequential", "--sequential-batch", "30", "--segment-by", "topic", "--judge", "offline",
		"--dataset", filepath.Join(dir, "broken.jsonl"), "--baseline", base, "--out", head); r.code != 1 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	q := readResults(t, head).Config.Sequential
	if len(q.Segments) != 1 || q.Segments[0] != "topic" {
		t.Fatalf("segments recorded %v, want [topic]", q.Segments)
	}
	r := gate(t, nil, "compare", "--base", base, "--head", head, "--format", "json")
	var rep struct {
		Sequential struct {
			DecidedAfter int `json:"decided_after"`
		} `json:"sequential"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Sequential.DecidedAfter != q.DecidedAfter {
		t.Errorf("compare without --segment-by replays a decision after %d; the check decided after %d", rep.Sequential.DecidedAfter, q.DecidedAfter)
	}
}

// segmentBreakingCheck runs a sequential check segmented by topic, against
// base, of a head that breaks half of the answers of topic "rights", with
// a faithfulness tolerance of 0.15 (the thresholds file th).
func segmentBreakingCheck(t *testing.T, dir, base string) (r runResult, head, th string) {
	t.Helper()
	data := filepath.Join(dir, "segbad.jsonl")
	seqDataset(t, data, 600, func(i int, r string) string {
		if i%3 == 0 && i%2 == 0 { // half of topic "rights"
			return "I do not know."
		}
		return r + " "
	})
	th = filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(th, []byte("version: 1\nmetrics:\n  faithfulness: {tolerance: 0.15}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head = filepath.Join(dir, "head.json")
	r = gate(t, nil, "check", "--sequential", "--segment-by", "topic", "--judge", "offline", "--thresholds", th,
		"--dataset", data, "--baseline", base, "--out", head)
	return r, head, th
}

// A check that fails on one segment only fails the same in a comparison
// that names no segment (the file records the keys), and the floor
// message quotes the head mean the decision read.
func TestSequentialSegmentFailureReplays(t *testing.T) {
	dir, base := seqFixture(t, 600)
	r, head, th := segmentBreakingCheck(t, dir, base)
	if r.code != 1 || !strings.Contains(r.stdout, "topic=rights") {
		t.Fatalf("check: exit %d, want 1 on topic=rights\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	c := gate(t, nil, "compare", "--base", base, "--head", head, "--thresholds", th)
	if c.code != 1 || !strings.Contains(c.stdout, "topic=rights") {
		t.Errorf("compare without --segment-by: exit %d, want 1 on topic=rights as the check\n%s", c.code, c.stdout)
	}
}

// The segments of a sequential check are the head's: over a base whose
// samples carry no topic, a head that breaks half of one topic fails on it
// while it judges, and its comparison replays the same decision.
func TestSequentialSegmentsFromHead(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "bare.jsonl")
	seqDataset(t, bare, 600, func(_ int, r string) string { return r })
	raw, err := os.ReadFile(bare)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		delete(row, "topic")
		out, _ := json.Marshal(row)
		b.Write(out)
		b.WriteByte('\n')
	}
	os.WriteFile(bare, []byte(b.String()), 0o644)
	base := filepath.Join(dir, "base.json")
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--dataset", bare, "--out", base); r.code != 0 {
		t.Fatalf("base run: exit %d\n%s", r.code, r.stderr)
	}
	r, head, th := segmentBreakingCheck(t, dir, base)
	q := readResults(t, head).Config.Sequential
	if r.code != 1 || !strings.Contains(r.stdout, "topic=rights") || q.DecidedAfter == 0 || q.Judged >= 600 {
		t.Fatalf("check: exit %d, decided after %d, want 1 on topic=rights before the end\n%s\n%s", r.code, q.DecidedAfter, r.stdout, r.stderr)
	}
	c := gate(t, nil, "compare", "--base", base, "--head", head, "--thresholds", th, "--format", "json")
	var rep struct {
		Sequential struct {
			DecidedAfter int `json:"decided_after"`
		} `json:"sequential"`
	}
	if err := json.Unmarshal([]byte(c.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if c.code != 1 || rep.Sequential.DecidedAfter != q.DecidedAfter {
		t.Errorf("compare: exit %d, decided after %d; the check: exit 1, decided after %d", c.code, rep.Sequential.DecidedAfter, q.DecidedAfter)
	}
}

// A gated numeric metric needs every sample to pass, not to fail: a broken
// head still stops at the first failure, and the numeric metric is said to
// be left undecided.
func TestSequentialNumericMetricStopsOnFailure(t *testing.T) {
	dir, _ := seqFixture(t, 600)
	mf := filepath.Join(dir, "metrics.yaml")
	os.WriteFile(mf, []byte("version: 1\nmetrics:\n  latency:\n    kind: numeric\n    description: latency in ms\n    reads: [latency_ms]\n    direction: lower\n"), 0o644)
	th := filepath.Join(dir, "t.yaml")
	os.WriteFile(th, []byte("version: 1\ngate: [faithfulness, latency]\n"), 0o644)
	base := filepath.Join(dir, "base-lat.json")
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics-file", mf, "--dataset", filepath.Join(dir, "base.jsonl"), "--out", base); r.code != 0 {
		t.Fatalf("base: exit %d\n%s", r.code, r.stderr)
	}
	head := filepath.Join(dir, "head.json")
	r := gate(t, nil, "check", "--sequential", "--judge", "offline", "--metrics-file", mf, "--thresholds", th,
		"--dataset", filepath.Join(dir, "broken.jsonl"), "--baseline", base, "--out", head)
	if r.code != 1 {
		t.Fatalf("broken head: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if q := readResults(t, head).Config.Sequential; q.Judged >= q.Total {
		t.Errorf("judged %d of %d: a failure should stop the check even with a numeric metric gated", q.Judged, q.Total)
	}
	if !strings.Contains(r.stdout, "Not decided when the check stopped on a failure: latency") {
		t.Errorf("the report does not say latency was left undecided:\n%s", r.stdout)
	}
}
