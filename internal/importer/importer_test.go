package importer

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

var (
	qRefund = "How long is the refund window?"
	qShip   = "Do you ship abroad?"
)

// want is what a test expects of one sample.
type want struct {
	id        string
	scores    map[string]float64 // NaN: undefined
	kind      map[string]results.UndefinedKind
	contexts  []string
	response  string
	metadata  map[string]string
	reason    map[string]string // substring of the reason of a score
	undefined map[string]string // substring of the undefined reason
}

func TestRead(t *testing.T) {
	nan := math.NaN()
	refundCtx := []string{"Refunds are accepted within 30 days.", "Items must be unused; it's the store's policy."}
	shipCtx := []string{"We ship to the EU and the UK.\nShipping takes 5 days."}
	ragasJSON := []want{
		{id: deriveID(qRefund), scores: map[string]float64{"faithfulness": 1, "answer_relevancy": 0.9412, "context_recall": 1}, contexts: refundCtx, response: "You can get a refund within 30 days."},
		{id: deriveID(qShip), scores: map[string]float64{"faithfulness": nan, "answer_relevancy": 0.88}, contexts: shipCtx,
			kind: map[string]results.UndefinedKind{"faithfulness": results.KindJudge}, undefined: map[string]string{"faithfulness": "the ragas file has no score (null)"}},
	}
	for _, tc := range []struct {
		file     string
		format   Format
		metrics  []string // Config.Metrics, in order
		samples  []want
		user     map[string]metrics.Direction
		provider string
		model    string
		prompts  string
	}{
		{file: "ragas_index.csv", format: Ragas,
			metrics: []string{"faithfulness", "answer_relevancy", "context_precision", "context_recall", "factual_correctness", "noise_sensitivity_relevant", "nv_accuracy"},
			user:    map[string]metrics.Direction{"nv_accuracy": metrics.HigherIsBetter},
			samples: []want{
				{id: deriveID(qRefund), scores: map[string]float64{"faithfulness": 1, "answer_relevancy": 0.9412, "context_precision": 0.9999999999, "factual_correctness": 0.67, "noise_sensitivity_relevant": 0, "nv_accuracy": 0.75},
					contexts: refundCtx, metadata: map[string]string{"topic": "billing"}},
				{id: deriveID(qShip), scores: map[string]float64{"faithfulness": nan, "noise_sensitivity_relevant": nan, "factual_correctness": 1},
					contexts: []string{"We ship to the EU and the UK.\nShipping takes 5 days."}, response: "Yes, we ship to the EU and the UK.",
					undefined: map[string]string{"faithfulness": "no score (an empty cell)"}},
				{id: deriveID("What is the warranty?"), scores: map[string]float64{"faithfulness": nan, "context_recall": 0}, contexts: []string{},
					undefined: map[string]string{"faithfulness": "no score (NaN)"}},
			},
			provider: "ragas", prompts: "ragas"},
		{file: "ragas_v01.csv", format: Ragas,
			metrics: []string{"faithfulness", "answer_relevancy", "context_precision", "context_recall", "context_entity_recall"},
			user:    map[string]metrics.Direction{"context_entity_recall": metrics.HigherIsBetter},
			samples: []want{
				{id: deriveID(qRefund), scores: map[string]float64{"faithfulness": 1, "context_entity_recall": 0.5},
					contexts: []string{"Refunds are accepted within 30 days.", "Items must be unused."}, response: "You can get a refund within 30 days."},
				{id: deriveID(qShip), scores: map[string]float64{"faithfulness": nan, "context_precision": nan, "context_recall": 1},
					undefined: map[string]string{"faithfulness": "(nan)", "context_precision": "(None)"}},
			},
			provider: "ragas", prompts: "ragas"},
		{file: "ragas_records.json", format: Ragas, metrics: []string{"faithfulness", "answer_relevancy", "context_recall"}, samples: ragasJSON, provider: "ragas", prompts: "ragas"},
		{file: "ragas_columns.json", format: Ragas, metrics: []string{"faithfulness", "answer_relevancy", "context_recall"}, samples: ragasJSON, provider: "ragas", prompts: "ragas"},
		{file: "ragas_split.json", format: Ragas, metrics: []string{"faithfulness", "answer_relevancy", "context_recall"}, samples: ragasJSON, provider: "ragas", prompts: "ragas"},
		{file: "ragas_index.json", format: Ragas, metrics: []string{"faithfulness", "answer_relevancy", "context_recall"}, samples: ragasJSON, provider: "ragas", prompts: "ragas"},
		{file: "ragas.jsonl", format: Ragas, metrics: []string{"faithfulness", "answer_relevancy", "context_recall"},
			samples: []want{
				{id: "refund-window", scores: map[string]float64{"faithfulness": 1}, contexts: refundCtx},
				{id: "ship-abroad", scores: map[string]float64{"faithfulness": nan, "answer_relevancy": 0.88}},
			}, provider: "ragas", prompts: "ragas"},
		{file: "table.csv", format: Table, metrics: []string{"helpfulness", "latency_ms"},
			user: map[string]metrics.Direction{"helpfulness": metrics.HigherIsBetter, "latency_ms": metrics.LowerIsBetter},
			samples: []want{
				{id: "refund-window", scores: map[string]float64{"helpfulness": 4.5, "latency_ms": 812}, metadata: map[string]string{"segment": "billing"}},
				{id: "ship-abroad", scores: map[string]float64{"helpfulness": nan, "latency_ms": 1030}, undefined: map[string]string{"helpfulness": "the table file has no score"}},
				{id: "warranty", scores: map[string]float64{"helpfulness": 2, "latency_ms": nan}},
			}, provider: "table", prompts: "table"},
		{file: "table.jsonl", format: Table, metrics: []string{"helpfulness", "latency_ms"},
			samples: []want{
				{id: "refund-window", scores: map[string]float64{"helpfulness": 4.5, "latency_ms": 812}, metadata: map[string]string{"segment": "billing"}},
				{id: "warranty", scores: map[string]float64{"helpfulness": 2, "latency_ms": nan}},
			}, provider: "table", prompts: "table"},
		{file: "promptfoo_v3.json", format: Promptfoo,
			// The named scores in the file's order, not alphabetical.
			metrics: []string{"faithfulness", "answer_relevance", "score", "pass", "latency_ms", "cost"},
			user:    map[string]metrics.Direction{"answer_relevance": metrics.HigherIsBetter, "score": metrics.HigherIsBetter, "pass": metrics.HigherIsBetter, "latency_ms": metrics.LowerIsBetter, "cost": metrics.LowerIsBetter},
			samples: []want{
				{id: "refund window", scores: map[string]float64{"faithfulness": 1, "answer_relevance": 0.9, "score": 0.95, "pass": 1, "latency_ms": 812, "cost": 0.0002},
					contexts: []string{"Refunds are accepted within 30 days."}, response: "Within 30 days.",
					metadata: map[string]string{"topic": "billing", "owner": "payments", "provider": "support-bot"}},
				{id: "ship abroad", scores: map[string]float64{"faithfulness": 0, "pass": 0, "score": 0.25},
					reason: map[string]string{"faithfulness": "worldwide shipping", "pass": "worldwide shipping"}},
				{id: "warranty", scores: map[string]float64{"faithfulness": nan, "score": nan, "pass": nan, "latency_ms": nan},
					kind:      map[string]results.UndefinedKind{"score": results.KindTarget, "faithfulness": results.KindTarget},
					undefined: map[string]string{"score": "the provider call failed: API error: 429"}},
			},
			provider: "promptfoo", model: "openai:gpt-4.1", prompts: "promptfoo 0.112.3"},
		{file: "promptfoo_old.json", format: Promptfoo, metrics: []string{"score", "pass", "latency_ms"},
			samples: []want{
				{id: deriveID(qRefund) + " [openai:gpt-3.5-turbo]", scores: map[string]float64{"score": 1, "pass": 1, "latency_ms": 420}, response: "30 days"},
				{id: deriveID(qShip) + " [openai:gpt-3.5-turbo]", scores: map[string]float64{"pass": 0}, reason: map[string]string{"pass": `contain "EU"`}},
				{id: deriveID(qShip) + " [openai:gpt-4]", scores: map[string]float64{"pass": nan}, kind: map[string]results.UndefinedKind{"pass": results.KindTarget},
					undefined: map[string]string{"pass": "failed: timeout"}},
			},
			provider: "promptfoo", prompts: "promptfoo"},
		{file: "deepeval_run.json", format: DeepEval,
			metrics: []string{"faithfulness", "answer_relevancy", "context_precision", "context_recall", "contextual_relevancy", "hallucination", "correctness_geval"},
			user:    map[string]metrics.Direction{"contextual_relevancy": metrics.HigherIsBetter, "hallucination": metrics.LowerIsBetter, "correctness_geval": metrics.HigherIsBetter},
			samples: []want{
				{id: "refund window", scores: map[string]float64{"faithfulness": 1, "answer_relevancy": 0.9, "context_precision": 1, "context_recall": 1, "contextual_relevancy": 0.8, "hallucination": 0, "correctness_geval": 0.8},
					contexts: []string{"Refunds are accepted within 30 days."}, response: "Within 30 days.", metadata: map[string]string{"topic": "billing"}},
				{id: "ship abroad", scores: map[string]float64{"faithfulness": 0, "contextual_relevancy": nan, "hallucination": 1},
					reason:    map[string]string{"faithfulness": "worldwide shipping"},
					undefined: map[string]string{"contextual_relevancy": "invalid JSON"}, kind: map[string]results.UndefinedKind{"contextual_relevancy": results.KindJudge}},
			},
			provider: "deepeval", model: "gpt-4o", prompts: "deepeval"},
		{file: "deepeval_snake.json", format: DeepEval, metrics: []string{"faithfulness"},
			samples: []want{
				{id: deriveID(qRefund), scores: map[string]float64{"faithfulness": 1}, contexts: []string{"Refunds are accepted within 30 days."}, response: "Within 30 days."},
				{id: deriveID(qShip), scores: map[string]float64{"faithfulness": 0.5}},
			},
			provider: "deepeval", model: "gpt-4o-mini", prompts: "deepeval"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if f, ok := Sniff(data); !ok || f != tc.format {
				t.Errorf("Sniff = %q, %v; want %q", f, ok, tc.format)
			}
			f, format, err := Read(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if format != tc.format {
				t.Errorf("format %q, want %q", format, tc.format)
			}
			if !slices.Equal(f.Config.Metrics, tc.metrics) {
				t.Errorf("metrics %v, want %v", f.Config.Metrics, tc.metrics)
			}
			for name, dir := range tc.user {
				m, ok := f.Metric(name)
				if !ok || m.User == nil {
					t.Errorf("%s is not a user metric of the file", name)
					continue
				}
				if m.Direction != dir || m.User.Kind != metrics.KindNumeric {
					t.Errorf("%s: direction %v kind %v, want %v numeric", name, m.Direction, m.User.Kind, dir)
				}
			}
			for _, m := range f.Config.Metrics {
				if _, ok := f.Summary[m]; !ok {
					t.Errorf("no summary of %s", m)
				}
			}
			if f.Judge.Provider != tc.provider || f.Judge.Model != tc.model || f.Judge.Prompts != tc.prompts {
				t.Errorf("judge %q %q %q, want %q %q %q", f.Judge.Provider, f.Judge.Model, f.Judge.Prompts, tc.provider, tc.model, tc.prompts)
			}
			for _, w := range tc.samples {
				checkSample(t, f, w)
			}
			checkValid(t, f)
		})
	}
}

func checkSample(t *testing.T, f *results.File, w want) {
	t.Helper()
	var s *results.Sample
	var ids []string
	for i := range f.Samples {
		ids = append(ids, f.Samples[i].ID)
		if f.Samples[i].ID == w.id {
			s = &f.Samples[i]
		}
	}
	if s == nil {
		t.Errorf("no sample %q; the samples are %q", w.id, ids)
		return
	}
	for m, v := range w.scores {
		got, ok := s.Scores[m]
		switch {
		case !ok:
			t.Errorf("%s: no %s score", w.id, m)
		case math.IsNaN(v) != got.IsNaN() || (!math.IsNaN(v) && math.Abs(got.Value()-v) > 1e-12):
			t.Errorf("%s: %s = %v, want %v", w.id, m, got.Value(), v)
		case math.IsNaN(v) && s.Undefined[m] == "":
			t.Errorf("%s: %s is undefined without a reason", w.id, m)
		}
	}
	for m, k := range w.kind {
		if got := s.KindOf(m); got != k {
			t.Errorf("%s: %s undefined kind %q, want %q", w.id, m, got, k)
		}
	}
	for m, sub := range w.undefined {
		if !strings.Contains(s.Undefined[m], sub) {
			t.Errorf("%s: %s undefined reason %q, want it to say %q", w.id, m, s.Undefined[m], sub)
		}
	}
	for m, sub := range w.reason {
		if !strings.Contains(s.Reasons[m], sub) {
			t.Errorf("%s: %s reason %q, want it to say %q", w.id, m, s.Reasons[m], sub)
		}
	}
	if w.contexts != nil && !slices.Equal(s.Contexts, w.contexts) && !(len(w.contexts) == 0 && len(s.Contexts) == 0) {
		t.Errorf("%s: contexts %q, want %q", w.id, s.Contexts, w.contexts)
	}
	if w.response != "" && s.Response != w.response {
		t.Errorf("%s: response %q, want %q", w.id, s.Response, w.response)
	}
	for k, v := range w.metadata {
		if s.Metadata[k] != v {
			t.Errorf("%s: metadata %s = %q, want %q (metadata %v)", w.id, k, s.Metadata[k], v, s.Metadata)
		}
	}
}

// TestErrors checks that a file raggate cannot read is refused with what
// to fix, at the line where the problem is.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		content string
		format  Format
		line    int
		want    []string
	}{
		{name: "aggregate scores only", file: "scores.csv", content: "metric,score\nfaithfulness,1.0\nanswer_relevancy,0.97\n",
			want: []string{"matches none of the formats", "ragas: a CSV", "promptfoo: the JSON", "deepeval: a DeepEval", "table: a CSV", "--format"}},
		{name: "raggate results file", file: "r.json", content: `{"schema": "raggate.results/v1", "samples": []}`,
			want: []string{"raggate results file already"}},
		{name: "same question twice", file: "dup.csv", content: "user_input,faithfulness\nq1,1\nq2,0.5\nq1,0.7\n", line: 4,
			want: []string{"row 3 has the same sample id", "as row 1 (line 2)", "derived from user_input", "Add an id column"}},
		{name: "duplicate id column", file: "dup.jsonl", content: "{\"id\":\"a\",\"m\":1}\n{\"id\":\"b\",\"m\":1}\n{\"id\":\"a\",\"m\":0}\n", line: 3,
			want: []string{"row 3 has the same sample id \"a\" as row 1 (line 1)"}},
		{name: "known metric out of range", file: "range.csv", content: "user_input,faithfulness\nq1,1\nq2,1.5\n", line: 3,
			want: []string{"row 2: faithfulness is 1.5, outside [0, 1]", "Rename it"}},
		{name: "known metric not a number", file: "nan.csv", content: "user_input,faithfulness\nq1,1\nq2,high\n", line: 3,
			want: []string{"row 2: faithfulness is \"high\", not a number"}},
		{name: "bad python list", file: "list.csv", content: "user_input,retrieved_contexts,faithfulness\nq1,\"['a', 'b]\",1\n", line: 2,
			want: []string{"row 1: retrieved_contexts", "does not end with its quote"}},
		{name: "table without id", file: "t.csv", content: "name,helpfulness\na,1\n", format: Table, line: 1,
			want: []string{"no id: a table file needs an id (or sample_id) column", "the columns are name, helpfulness"}},
		{name: "ragas without metric", file: "nom.csv", content: "user_input,response\nq1,a\n", line: 1,
			want: []string{"no metric column"}},
		{name: "empty user_input", file: "e.csv", content: "user_input,faithfulness\n,1\n", line: 2,
			want: []string{"row 1 has an empty user_input, so it has no id; add an id column"}},
		{name: "ragged csv", file: "rag.csv", content: "user_input,faithfulness\nq1,1,extra\n", line: 2,
			want: []string{"row 1 has 3 cells but the header has 2 columns"}},
		{name: "infinite score", file: "inf.csv", content: "id,speed\na,inf\n", line: 2,
			want: []string{"speed is inf; a score is a finite number"}},
		{name: "deepeval same input", file: "d.json", line: 4,
			content: "{\"testCases\": [\n {\"name\": \"test_case_0\", \"input\": \"q\", \"metricsData\": [{\"name\": \"Faithfulness\", \"score\": 1}]},\n\n {\"name\": \"test_case_1\", \"input\": \"q\", \"metricsData\": [{\"name\": \"Faithfulness\", \"score\": 0}]}]}",
			want:    []string{"testCases[1] has the same sample id", "as testCases[0] (line 2)", "derived from the input"}},
		{name: "promptfoo without results", file: "p.json", content: `{"evalId": "x", "results": {"version": 3}}`, format: Promptfoo,
			want: []string{"no results: promptfoo's output holds them under results.results"}},
		{name: "forced deepeval on csv", file: "x.csv", content: "user_input,faithfulness\nq,1\n", format: DeepEval,
			want: []string{"no test cases"}},
		{name: "two names for one metric", file: "two.csv", content: "user_input,factual_correctness,factual_correctness(mode=f1)\nq,1,1\n",
			want: []string{`metrics "factual_correctness" and "factual_correctness(mode=f1)" are both factual_correctness`}},
		{name: "invalid json lines", file: "bad.jsonl", content: "{\"id\":\"a\",\"m\":1}\n{\"id\":\"b\",\"m\":\n", format: Table, line: 2,
			want: []string{"not valid JSON"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := Read(path, Options{Format: tc.format})
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInput) {
				t.Errorf("error %v is not ErrInput", err)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error", err)
			}
			if e.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", e.Line, tc.line, err)
			}
			if !strings.HasPrefix(err.Error(), path) {
				t.Errorf("%q does not start with the path", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not say %q", err, w)
				}
			}
		})
	}
}

func TestReadMissingFile(t *testing.T) {
	_, _, err := Read(filepath.Join(t.TempDir(), "none.csv"), Options{})
	if !errors.Is(err, ErrInput) {
		t.Fatalf("err %v, want ErrInput", err)
	}
	_, _, err = Read(t.TempDir(), Options{})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err %v, want a directory refused", err)
	}
	path := filepath.Join("testdata", "ragas_index.csv")
	_, _, err = Read(path, Options{MaxSize: 10})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err %v, want too large", err)
	}
}

// TestJudgeIdentity checks that the judge fingerprint is computed as a
// run's (eval.Fingerprint) and changes with the tool, its version and the
// evaluation model, so that a comparison reports a judge change.
func TestJudgeIdentity(t *testing.T) {
	read := func(file string, opt Options) *results.File {
		t.Helper()
		f, _, err := Read(filepath.Join("testdata", file), opt)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	pf := read("promptfoo_v3.json", Options{})
	info := judge.Info{Provider: "promptfoo", Model: "openai:gpt-4.1", Prompts: "promptfoo 0.112.3"}
	if got, want := pf.Judge.Fingerprint, eval.Fingerprint(info); got != want {
		t.Errorf("fingerprint %s, want eval.Fingerprint's %s", got, want)
	}
	a := read("ragas_records.json", Options{})
	b := read("ragas_records.json", Options{Model: "gpt-4o"})
	c := read("ragas_records.json", Options{Model: "gpt-4o-mini"})
	if b.Judge.Model != "gpt-4o" {
		t.Errorf("Options.Model not recorded: %q", b.Judge.Model)
	}
	fps := map[string]bool{a.Judge.Fingerprint: true, b.Judge.Fingerprint: true, c.Judge.Fingerprint: true, pf.Judge.Fingerprint: true}
	if len(fps) != 4 {
		t.Errorf("fingerprints do not tell tools and models apart: %v", fps)
	}
	if read("ragas_columns.json", Options{}).Judge.Fingerprint != a.Judge.Fingerprint {
		t.Error("the same tool and model gave another fingerprint")
	}
	r := compare.Compare(a, c, compare.DefaultThresholds())
	if !r.JudgeChanged {
		t.Error("a comparison of ragas scores by two models does not report a judge change")
	}
}

// TestInputsAsRun checks the input hash and the dataset identity: the
// input hash is a run's (eval.InputHash) of the same test case, and the
// dataset hash depends on the golden data, not on the scores.
func TestInputsAsRun(t *testing.T) {
	f, _, err := Read(filepath.Join("testdata", "ragas.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Sample{ID: "refund-window"}
	s.Set(metrics.UserInput, qRefund)
	s.Set(metrics.Reference, "Refunds are accepted within 30 days of purchase.")
	// The hash is a run's of the test case: the response and retrieved
	// contexts are what the pipeline returned, not its inputs.
	if got, want := f.Samples[0].InputHash, eval.InputHash(&s); got != want {
		t.Errorf("input hash %s, want a run's %s", got, want)
	}
	if f.Samples[0].Question != qRefund {
		t.Errorf("question %q", f.Samples[0].Question)
	}
	other := strings.ReplaceAll(mustRead(t, "ragas.jsonl"), `"answer_relevancy":0.88`, `"answer_relevancy":0.5`)
	g := readString(t, "ragas.jsonl", other)
	if g.Dataset.SHA256 != f.Dataset.SHA256 {
		t.Error("other scores of the same golden data changed the dataset hash")
	}
	moved := strings.ReplaceAll(mustRead(t, "ragas.jsonl"), "within 30 days of purchase", "within 14 days of purchase")
	if h := readString(t, "ragas.jsonl", moved); h.Dataset.SHA256 == f.Dataset.SHA256 {
		t.Error("another reference did not change the dataset hash")
	}
	if f.Dataset.Path != "ragas.jsonl" || f.Dataset.Samples != 2 {
		t.Errorf("dataset %+v", f.Dataset)
	}
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readString(t *testing.T, name, content string) *results.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, err := Read(path, Options{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCompareImports runs a comparison of two imports of the same tool,
// head worse on faithfulness for every sample, as gate compare would.
func TestCompareImports(t *testing.T) {
	var base, head strings.Builder
	base.WriteString("id,user_input,faithfulness,latency\n")
	head.WriteString("id,user_input,faithfulness,latency\n")
	for i := range 40 {
		q := "question " + string(rune('a'+i%26)) + strings.Repeat("!", i/26)
		base.WriteString("s" + itoa(i) + "," + q + ",0.9,100\n")
		head.WriteString("s" + itoa(i) + "," + q + ",0.4,100\n")
	}
	b := readString(t, "base.csv", base.String())
	h := readString(t, "head.csv", head.String())
	r := compare.Compare(b, h, compare.DefaultThresholds())
	if r.JudgeChanged || r.DatasetChanged {
		t.Errorf("judge changed %v, dataset changed %v between two imports of the same data", r.JudgeChanged, r.DatasetChanged)
	}
	if r.Passed {
		t.Errorf("a drop of faithfulness from 0.9 to 0.4 on 40 samples did not fail the comparison")
	}
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + string(rune('0'+i/10)) + string(rune('0'+i%10)))
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"Answer Relevancy":                 "answer_relevancy",
		"factual_correctness(mode=f1)":     "factual_correctness_mode_f1",
		"noise_sensitivity(mode=relevant)": "noise_sensitivity_mode_relevant",
		"Correctness [GEval]":              "correctness_geval",
		"latencyMs":                        "latency_ms",
		"nv_accuracy":                      "nv_accuracy",
		"ROUGE-L":                          "rouge_l",
		"  ":                               "",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"factual_correctness(mode=f1)":            "factual_correctness",
		"noise_sensitivity(mode=irrelevant)":      "noise_sensitivity_irrelevant",
		"Faithfulness":                            "faithfulness",
		"Contextual Precision":                    "context_precision",
		"llm_context_precision_without_reference": "context_utilization",
		"response_relevancy":                      "answer_relevancy",
	} {
		if got, known := metricName(in); got != want || !known {
			t.Errorf("metricName(%q) = %q, %v; want %q, known", in, got, known, want)
		}
	}
	for _, in := range []string{"factual_correctness(mode=precision)", "Contextual Relevancy", "nv_accuracy", "context_entity_recall"} {
		if _, known := metricName(in); known {
			t.Errorf("metricName(%q) is a catalogue metric; its semantics differ", in)
		}
	}
}

func TestParseList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`['a', "it's", 'x\'y']`, []string{"a", "it's", "x'y"}},
		{`['line\nbreak', 'nb\xa0sp', 'lrm\u200e']`, []string{"line\nbreak", "nb\u00a0sp", "lrm\u200e"}},
		{`["json", "list"]`, []string{"json", "list"}},
		{"['numpy' 'array'\n 'wrapped']", []string{"numpy", "array", "wrapped"}},
		{`[]`, []string{}},
		{`['back\\slash']`, []string{`back\slash`}},
		{`["\ud83d\ude00"]`, []string{"😀"}},
	} {
		got, ok, err := parseList(tc.in)
		if err != nil || !ok || !slices.Equal(got, tc.want) {
			t.Errorf("parseList(%q) = %q, %v, %v; want %q", tc.in, got, ok, err, tc.want)
		}
	}
	for _, in := range []string{`['open`, `['a', 3]`, `['a'] tail`, `['\x4']`} {
		if _, ok, err := parseList(in); !ok || err == nil {
			t.Errorf("parseList(%q): ok %v err %v; want an error", in, ok, err)
		}
	}
	if _, ok, _ := parseList("plain text"); ok {
		t.Error("plain text read as a list")
	}
}
