package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Data faults of the black-box review of issue 22 (/work/notes/review22.md):
// baselines with nothing to compare, context id turnover, empty golden
// fields, unbounded texts, Parquet row counts, segment keys, sibling
// columns, FIFO datasets and invalid rubric values.

// TestReviewSegmentCapCountsDistinctKeys (review 12): the segment key cap
// counts distinct keys after trimming spaces; a repeated key counts once.
func TestReviewSegmentCapCountsDistinctKeys(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "d.jsonl")
	writeTopicDataset(t, ds, false)
	base := filepath.Join(dir, "base.json")
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds, "--out", base); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	for name, keys := range map[string]string{
		"repeated":       strings.Repeat("topic,", 10) + "topic",
		"spaced repeats": "topic, topic ,topic,  topic, topic,topic ,topic,topic,topic,topic, topic",
	} {
		t.Run(name, func(t *testing.T) {
			r := gate(t, nil, "check", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds,
				"--baseline", base, "--out", filepath.Join(t.TempDir(), "h.json"), "--segment-by", keys)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
			}
		})
	}
	t.Run("eleven distinct keys", func(t *testing.T) {
		r := gate(t, nil, "check", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds,
			"--baseline", base, "--out", filepath.Join(t.TempDir(), "h.json"), "--segment-by", "k0, k1,k2,k3,k4,k5,k6,k7,k8,k9,k10, k0")
		if r.code != 2 || !strings.Contains(r.stderr, "11 keys") {
			t.Fatalf("exit %d, want 2 with \"11 keys\"\n%s", r.code, r.stderr)
		}
	})
}

// writeRows writes rows as a JSON Lines file in a temporary directory.
func writeRows(t *testing.T, rows []map[string]any) string {
	t.Helper()
	var b strings.Builder
	for _, row := range rows {
		line, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "d.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReviewSiblingColumnsAreNotTypos (review 13): columns that differ in
// one short token (a/b, gpt4o/gpt4) are siblings, kept as metadata; a real
// typo's "did you mean" says how to keep a column that is not a typo.
func TestReviewSiblingColumnsAreNotTypos(t *testing.T) {
	for _, pair := range [][2]string{{"answer_a", "answer_b"}, {"model_a_answer", "model_b_answer"}, {"answer_gpt4o", "answer_gpt4"}} {
		t.Run(pair[0]+"/"+pair[1], func(t *testing.T) {
			var rows []map[string]any
			for i := range 3 {
				rows = append(rows, map[string]any{"id": fmt.Sprint(i), "user_input": "What colour is the sky?",
					"retrieved_contexts": []string{"The sky is blue."}, pair[0]: "The sky is blue.", pair[1]: "Blue."})
			}
			ds := writeRows(t, rows)
			r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds,
				"--field", "response="+pair[0], "--out", filepath.Join(t.TempDir(), "r.json"))
			if r.code != 0 {
				t.Fatalf("exit %d, want 0\n%s", r.code, r.stderr)
			}
		})
	}
	t.Run("a typo says how to keep the column", func(t *testing.T) {
		ds := writeRows(t, []map[string]any{{"id": "1", "user_input": "q", "retrieved_contexts": []string{"c"}, "response": "c", "respnse": "x"}})
		r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", ds,
			"--out", filepath.Join(t.TempDir(), "r.json"))
		if r.code != 2 {
			t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
		}
		for _, want := range []string{`did you mean "response"?`, "if it is a column of its own, rename it in the file; no option keeps it"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
			}
		}
	})
}

// TestReviewFIFODatasetWithoutWriterIsCancellable (review 5): a --dataset
// that is a named pipe nobody writes to blocks in open; cancelling the run
// (SIGINT and SIGTERM cancel the context in main) ends it promptly with
// the cancelled exit code.
func TestReviewFIFODatasetWithoutWriterIsCancellable(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, cmd := range []string{"run", "check"} {
		t.Run(cmd, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan runResult, 1)
			go func() {
				var stdout, stderr bytes.Buffer
				args := []string{cmd, "--dataset", fifo, "--judge", "offline", "--out", filepath.Join(dir, cmd+".json")}
				if cmd == "check" {
					args = append(args, "--baseline", repo+"/testdata/demo/baseline.json")
				}
				code := Main(ctx, args, Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
				done <- runResult{code, stdout.String(), stderr.String()}
			}()
			time.Sleep(200 * time.Millisecond) // the gate is waiting in open
			cancel()
			select {
			case r := <-done:
				if r.code != ExitCancelled || !strings.Contains(r.stderr, "cancelled") {
					t.Errorf("exit %d, want %d saying it was cancelled:\n%s", r.code, ExitCancelled, r.stderr)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the gate still waits for a writer 5s after it was cancelled")
			}
		})
	}
}

// TestReviewEmptyReferenceScoresNothing (review 9): an empty golden field
// makes every metric that needs it undefined as the data's doing, so a
// dataset of empty references (and no contexts) has nothing scorable:
// exit 2, as item 18 of issue 22 says, not string_presence 1.0 and exit 0.
// (Empty retrieved_contexts are the pipeline's output, not golden data:
// faithfulness 0 on them is a score.)
func TestReviewEmptyReferenceScoresNothing(t *testing.T) {
	ds := sndDemoRows(t, []string{"id", "user_input", "response"}, func(row map[string]any) {
		row["reference"] = ""
	})
	r := gate(t, nil, "run", "--quiet", "--dataset", ds, "--judge", "offline", "--out", filepath.Join(t.TempDir(), "r.json"))
	if r.code != 2 {
		t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "empty field reference") {
		t.Errorf("stderr does not name the empty field:\n%s", r.stderr)
	}
	for _, m := range []string{"string_presence", "exact_match", "string_similarity"} {
		r := gate(t, nil, "run", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics", m, "--out", filepath.Join(t.TempDir(), "r.json"))
		if r.code != 2 || !strings.Contains(r.stderr, m+": empty field reference") {
			t.Errorf("%s: exit %d, want 2 naming \"%s: empty field reference\"\n%s", m, r.code, m, r.stderr)
		}
	}
}

// TestReviewInvalidPerSampleRubric (review 15): a rubric_column value
// that is not a valid rubric (a level out of range, a level twice) leaves
// the metric undefined with kind data and a reason naming the column and
// the value, and the run warns, counting such samples.
func TestReviewInvalidPerSampleRubric(t *testing.T) {
	srv := openaitest.NewServer(t, openaitest.WithAPIKey("sk-test"))
	dir := t.TempDir()
	rubrics := map[string]string{
		"ok":    `{"1": "rude", "2": "curt", "3": "warm"}`,
		"range": `{"1": "rude", "5000000": "warm"}`,
		"dup":   `{"1": "rude", " 1": "curt", "3": "warm"}`,
	}
	var rows []map[string]any
	for _, id := range []string{"ok", "range", "dup"} {
		rows = append(rows, map[string]any{"id": id, "user_input": "Can I bring a bike?", "response": "Yes.", "fake_level": "3", "tone_rubric": rubrics[id]})
	}
	ds := writeRows(t, rows)
	mf := writeFile(t, filepath.Join(dir, "metrics.yaml"), `version: 1
metrics:
  tone:
    kind: rubric
    description: tone of the answer
    reads: [response, fake_level]
    definition: The tone of the response.
    rubric_column: tone_rubric
`)
	out := filepath.Join(dir, "r.json")
	r := gate(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, "run", "--dataset", ds, "--metrics-file", mf, "--metrics", "tone",
		"--base-url", srv.URL, "--model", "m", "--embedding-model", "e", "--no-cache", "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "2 of 3 samples") || !strings.Contains(r.stderr, "tone_rubric") {
		t.Errorf("stderr does not warn of 2 of 3 samples with an invalid tone_rubric:\n%s", r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Samples {
		if s.ID == "ok" {
			if s.Scores["tone"].IsNaN() {
				t.Errorf("ok: undefined (%s)", s.Undefined["tone"])
			}
			continue
		}
		reason := s.Undefined["tone"]
		if !s.Scores["tone"].IsNaN() || s.KindOf("tone") != results.KindData {
			t.Errorf("%s: score %v kind %s, want undefined, kind data", s.ID, s.Scores["tone"], s.KindOf("tone"))
		}
		for _, want := range []string{"invalid rubric in column tone_rubric", rubrics[s.ID]} {
			if !strings.Contains(reason, want) {
				t.Errorf("%s: reason %q lacks %q", s.ID, reason, want)
			}
		}
	}
}

// TestReviewEmptyBaselineIsNotComparable (review 4): a baseline whose
// samples list is empty, or whose samples carry no scores, lacked nothing:
// every gated metric is not comparable and the check fails (exit 1), not
// "passed with warnings ... the base's data lacked what it needs", and no
// "(warn level)" where the thresholds set no level.
func TestReviewEmptyBaselineIsNotComparable(t *testing.T) {
	for name, alter := range map[string]func(f *results.File){
		"no samples": func(f *results.File) { f.Samples = nil },
		"no scores": func(f *results.File) {
			for i := range f.Samples {
				f.Samples[i].Scores, f.Samples[i].Undefined, f.Samples[i].UndefinedKind = map[string]results.Score{}, nil, nil
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			base := demoBaseline(t)
			alter(base)
			base.Summary = nil
			r := gate(t, nil, "compare", "--base", writeResults(t, base), "--head", repo+"/testdata/demo/baseline.json")
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, "faithfulness is not comparable: the baseline has no score for it") {
				t.Errorf("stdout does not say faithfulness is not comparable:\n%s", r.stdout)
			}
			for _, bad := range []string{"lacked what it needs", "(warn level)"} {
				if strings.Contains(r.stdout, bad) {
					t.Errorf("stdout says %q:\n%s", bad, r.stdout)
				}
			}
		})
	}
}

// TestReviewZeroPairsIsNotTooFewPairs (review 4): a run whose gated
// metrics are all new (the baseline scored only a report-only metric) and
// whose report-only metric pairs nowhere does not headline "too few
// paired samples to test (0; ...)": zero pairs is not "too few", and a
// report-only metric is a note, not the headline.
func TestReviewZeroPairsIsNotTooFewPairs(t *testing.T) {
	base, head := demoBaseline(t), demoBaseline(t)
	base.Config.Metrics, base.Summary, head.Summary = []string{"semantic_similarity"}, nil, nil
	for i := range base.Samples {
		s := &base.Samples[i]
		s.Scores = map[string]results.Score{"semantic_similarity": 0.9}
		s.Undefined, s.UndefinedKind = nil, nil
		h := &head.Samples[i]
		h.Scores["semantic_similarity"] = results.NaN()
		h.Undefined = map[string]string{"semantic_similarity": "undefined by the metric's definition for this sample"}
		h.UndefinedKind = map[string]results.UndefinedKind{"semantic_similarity": results.KindMetric}
	}
	head.Config.Metrics = append(head.Config.Metrics, "semantic_similarity")
	r := gate(t, nil, "compare", "--base", writeResults(t, base), "--head", writeResults(t, head))
	for _, bad := range []string{"too few paired samples to test (0", "too few pairs (n=0)", "(0), ", "(warn level)"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("stdout says %q:\n%s", bad, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "raggate: PASS: no gated metric compared") {
		t.Errorf("the headline does not say no gated metric was compared:\n%s", r.stdout)
	}
}

// writeIDRows writes 30 samples with context ids only: retrieved(i) and
// reference(i) give each sample's ids.
func writeIDRows(t *testing.T, retrieved, reference func(i int) []string) string {
	t.Helper()
	var rows []map[string]any
	for i := range 30 {
		rows = append(rows, map[string]any{"id": fmt.Sprintf("s%d", i), "user_input": fmt.Sprintf("q%d", i),
			"retrieved_context_ids": retrieved(i), "reference_context_ids": reference(i)})
	}
	return writeRows(t, rows)
}

// TestReviewContextIDTurnover (review 7): new context ids that still hit
// the head's updated reference ids are compared and gated (a real drop
// fails); new ids that miss the reference are the ambiguous case, left out
// with one warning that names both causes and how to tell them apart, and
// no "(warn level)" where no level is set.
func TestReviewContextIDTurnover(t *testing.T) {
	dir := t.TempDir()
	th := writeFile(t, filepath.Join(dir, "th.yaml"), "version: 1\ngate: [id_context_precision, id_context_recall]\n")
	ids := func(f string, k int) func(i int) []string {
		return func(i int) []string { return []string{fmt.Sprintf(f, i), fmt.Sprintf(f, i+k)} }
	}
	run := func(ds string) string {
		out := filepath.Join(t.TempDir(), "r.json")
		if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "id_context_precision,id_context_recall", "--dataset", ds, "--out", out); r.code != 0 {
			t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
		}
		return out
	}
	base := run(writeIDRows(t, ids("doc-%d", 1), ids("doc-%d", 1)))

	t.Run("new ids that miss the reference", func(t *testing.T) {
		head := run(writeIDRows(t, ids("junk-%d", 100), ids("doc-%d", 1)))
		r := gate(t, nil, "compare", "--base", base, "--head", head, "--thresholds", th)
		if r.code != 0 {
			t.Fatalf("exit %d, want 0 (left out, with a warning)\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if n := strings.Count(r.stdout, "context ids changed: id metrics not comparable"); n != 1 {
			t.Errorf("the warning is printed %d times, want once:\n%s", n, r.stdout)
		}
		for _, want := range []string{"re-chunked", "reference_context_ids are stale", "the retriever broke", "text-based context metrics"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
			}
		}
		if strings.Contains(r.stdout, "(warn level)") {
			t.Errorf("stdout says (warn level) with no level set:\n%s", r.stdout)
		}
	})
	t.Run("new ids that hit the updated reference", func(t *testing.T) {
		head := run(writeIDRows(t, func(i int) []string { return []string{fmt.Sprintf("new-%d", i), fmt.Sprintf("junk-%d", i)} },
			ids("new-%d", 50)))
		r := gate(t, nil, "compare", "--base", base, "--head", head, "--thresholds", th)
		if r.code != 1 || !strings.Contains(r.stdout, "id_context_recall regressed") {
			t.Fatalf("exit %d, want 1 with id_context_recall regressed\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stdout, "context ids changed") {
			t.Errorf("the ids are said changed:\n%s", r.stdout)
		}
	})
}

// A baseline that scored only report-only metrics gates nothing: a head
// of empty answers, whose report-only string_similarity was compared (and
// regressed) while every gated metric is new, must not read "no
// significant regression": the headline warns that no gated metric was
// compared.
func TestReviewReportOnlyBaselineGatesNothing(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "ro.json")
	if r := gate(t, nil, "run", "--dataset", demo, "--judge", "offline", "--quiet", "--metrics", "exact_match,string_similarity", "--out", base); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSpace(readText(t, demo)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		row["response"] = ""
		out, _ := json.Marshal(row)
		b.Write(append(out, '\n'))
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gate(t, nil, "check", "--dataset", empty, "--judge", "offline", "--baseline", base, "--out", filepath.Join(dir, "h.json"))
	if strings.Contains(r.stdout, "no significant regression") || !strings.Contains(r.stdout, "no gated metric compared") {
		t.Fatalf("exit %d; want the headline to say no gated metric was compared\n%s", r.code, r.stdout)
	}
}

// A retriever that breaks on most samples but still returns the base's
// ids on the others was not re-chunked: its drop is compared and fails
// (a worse drop never passes where a smaller one fails).
func TestReviewPartialIDBreakageFails(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, good func(i int) bool) string {
		var b strings.Builder
		for i := range 30 {
			ids := []string{fmt.Sprintf("doc-%d", i), fmt.Sprintf("doc-%d", i+1)}
			if !good(i) {
				ids = []string{fmt.Sprintf("junk-%d", i), fmt.Sprintf("junk-%d", i+100)}
			}
			row, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("q%02d", i), "user_input": fmt.Sprintf("Question %d?", i),
				"retrieved_context_ids": ids, "reference_context_ids": []string{fmt.Sprintf("doc-%d", i)}})
			b.Write(append(row, '\n'))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	th := filepath.Join(dir, "th.yaml")
	if err := os.WriteFile(th, []byte("version: 1\ngate: [id_context_recall, id_context_precision]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(ds, out string) {
		if r := gate(t, nil, "run", "--dataset", ds, "--judge", "offline", "--quiet", "--metrics", "id_context_recall,id_context_precision", "--out", out); r.code != 0 {
			t.Fatalf("run %s: exit %d\n%s", ds, r.code, r.stderr)
		}
	}
	base, head := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
	run(write("base.jsonl", func(int) bool { return true }), base)
	run(write("head.jsonl", func(i int) bool { return i%5 < 2 }), head) // 40% keep the base's ids
	r := gate(t, nil, "compare", "--base", base, "--head", head, "--thresholds", th)
	if r.code != ExitFail || strings.Contains(r.stdout, "not comparable") {
		t.Fatalf("exit %d, want %d (a compared regression)\n%s", r.code, ExitFail, r.stdout)
	}
}
