package eval

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/offline"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// The fingerprint is compared across versions (a baseline judged by the
// same judge must keep its fingerprint): the demo baseline's must still
// match the offline judge's.
func TestFingerprintOfDemoBaseline(t *testing.T) {
	base, err := results.Read(filepath.Join("..", "..", "testdata", "demo", "baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Fingerprint(offline.New(offline.Options{}).Info()); got != base.Judge.Fingerprint {
		t.Errorf("Fingerprint(offline) = %s, the demo baseline has %s: baselines of an unchanged judge would read as a judge change", got, base.Judge.Fingerprint)
	}
	info := offline.New(offline.Options{}).Info()
	info.Prompts += " claims=high/low"
	if Fingerprint(info) == base.Judge.Fingerprint {
		t.Error("the fingerprint ignores the prompts")
	}
}

func TestInputsOf(t *testing.T) {
	s := metrics.Sample{ID: "a", UserInput: "q", Response: "r", Metadata: map[string]string{"topic": "x"}}
	other := s
	other.Response = "r2"
	noMeta := s
	noMeta.ID, noMeta.Metadata = "b", nil
	in := InputsOf([]metrics.Sample{s, noMeta})
	if in.Hash["a"] != InputHash(&s) || len(in.Hash["a"]) != 16 {
		t.Errorf("hash of a = %q, want InputHash (16 hex digits) %q", in.Hash["a"], InputHash(&s))
	}
	if InputHash(&other) == InputHash(&s) {
		t.Error("a changed response keeps the input hash")
	}
	if _, ok := in.Metadata["b"]; ok || in.Metadata["a"]["topic"] != "x" {
		t.Errorf("metadata = %v, want only a's", in.Metadata)
	}
}

func TestNewFile(t *testing.T) {
	nan := math.NaN()
	run := func(ids ...string) *Result {
		r := &Result{Metrics: []string{"faithfulness", "context_recall"}}
		for k, id := range ids {
			r.Samples = append(r.Samples, SampleResult{ID: id, Question: "q " + id,
				Scores:        map[string]float64{"faithfulness": 0.5 + 0.1*float64(k), "context_recall": nan},
				Undefined:     map[string]string{"context_recall": "missing field reference"},
				UndefinedKind: map[string]results.UndefinedKind{"context_recall": results.KindData},
			})
		}
		return r
	}
	in := Inputs{Hash: map[string]string{"a": "ha", "b": "hb"}, Metadata: map[string]map[string]string{"b": {"topic": "x"}}}
	p := Provenance{Version: "v1", Dataset: results.Dataset{Path: "d.jsonl", Samples: 9}, Judge: judge.Info{Provider: "offline"},
		Shard: "1/2", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))}

	t.Run("one run", func(t *testing.T) {
		f := NewFile(p, in, []*Result{run("a", "b")})
		if f.Schema != results.Schema || f.Tool.Version != "v1" || f.Dataset.Samples != 9 || f.Shard != "1/2" || f.Config.Repeats != 1 {
			t.Errorf("header = %+v", f)
		}
		if want := time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC); !f.CreatedAt.Equal(want) || f.CreatedAt.Location() != time.UTC {
			t.Errorf("created_at = %v, want %v in UTC, whole seconds", f.CreatedAt, want)
		}
		if f.Judge.Fingerprint != Fingerprint(p.Judge) {
			t.Errorf("fingerprint = %q", f.Judge.Fingerprint)
		}
		b := f.Samples[1]
		if b.InputHash != "hb" || b.Metadata["topic"] != "x" || b.Runs != nil || b.Question != "q b" {
			t.Errorf("sample b = %+v", b)
		}
		if b.Undefined["context_recall"] != "missing field reference" || b.KindOf("context_recall") != results.KindData {
			t.Errorf("undefined of b = %v %v", b.Undefined, b.UndefinedKind)
		}
		if f.Summary["faithfulness"].N != 2 || f.Summary["context_recall"].Undefined != 2 {
			t.Errorf("summary = %+v", f.Summary)
		}
	})
	t.Run("repeats average and keep the runs", func(t *testing.T) {
		r2 := run("a", "b")
		r2.Samples[0].Scores["faithfulness"] = 0.7
		p := p
		p.Repeats = 2
		f := NewFile(p, in, []*Result{run("a", "b"), r2})
		a := f.Samples[0]
		if got := a.Scores["faithfulness"].Value(); math.Abs(got-0.6) > 1e-12 {
			t.Errorf("mean = %v, want 0.6", got)
		}
		if want := []results.Score{0.5, 0.7}; !reflect.DeepEqual(a.Runs["faithfulness"], want) || f.Config.Repeats != 2 {
			t.Errorf("runs = %v, repeats %d", a.Runs, f.Config.Repeats)
		}
	})
	t.Run("a stopped last repeat keeps what every repeat judged", func(t *testing.T) {
		f := NewFile(p, in, []*Result{run("a", "b"), run("b")})
		if len(f.Samples) != 1 || f.Samples[0].ID != "b" {
			t.Errorf("samples = %+v, want b only", f.Samples)
		}
	})
}

func TestUsageOf(t *testing.T) {
	total := judge.Usage{ChatCalls: 3, CachedCalls: 1, PromptTokens: 10, CompletionTokens: 5, EmbeddingTokens: 7, EmbeddingCalls: 2}
	u := UsageOf(total, map[string]judge.Usage{"faithfulness": {ChatCalls: 2}})
	want := results.Usage{ChatCalls: 3, CachedCalls: 1, PromptTokens: 10, CompletionTokens: 5, EmbeddingTokens: 7, EmbeddingCalls: 2,
		PerMetric: map[string]results.Usage{"faithfulness": {ChatCalls: 2}}}
	if !reflect.DeepEqual(u, want) {
		t.Errorf("UsageOf = %+v, want %+v", u, want)
	}
	if u := UsageOf(total, nil); u.PerMetric != nil {
		t.Errorf("no per-metric usage gives %v, want nil (omitted from the file)", u.PerMetric)
	}
}

// SampleOf and Combine, which a run uses to write its records one at a
// time, make the samples NewFile makes from whole runs.
func TestCombineMakesNewFileSamples(t *testing.T) {
	nan := math.NaN()
	one := func(f, c float64, reason string) SampleResult {
		r := SampleResult{ID: "a", Question: "q a", Scores: map[string]float64{"faithfulness": f, "context_recall": c},
			Reasons: map[string]string{"faithfulness": reason}, Raw: map[string]float64{"faithfulness": 7}}
		if math.IsNaN(c) {
			r.Undefined = map[string]string{"context_recall": "judge failed: " + reason}
			r.UndefinedKind = map[string]results.UndefinedKind{"context_recall": results.KindJudge}
		}
		return r
	}
	for _, runs := range [][]SampleResult{
		{one(0.5, nan, "x")},
		{one(0.5, 0.2, "x"), one(0.7, nan, "y"), one(nan, 0.4, "z")},
		{one(0.5, nan, "x"), one(0.7, nan, "y")},
	} {
		var whole []*Result
		var recs []results.Sample
		for _, r := range runs {
			whole = append(whole, &Result{Metrics: []string{"faithfulness", "context_recall"}, Samples: []SampleResult{r}})
			recs = append(recs, SampleOf(&r))
		}
		in := Inputs{Hash: map[string]string{"a": "h"}, Metadata: map[string]map[string]string{"a": {"topic": "t"}}}
		want := NewFile(Provenance{}, in, whole).Samples[0]
		recs[0].InputHash, recs[0].Metadata = "h", map[string]string{"topic": "t"}
		got := Combine(recs)
		wb, _ := results.Marshal(&results.File{Samples: []results.Sample{want}})
		gb, _ := results.Marshal(&results.File{Samples: []results.Sample{got}})
		if string(wb) != string(gb) {
			t.Errorf("%d repeats: Combine\n%s\nNewFile\n%s", len(runs), gb, wb)
		}
	}
}
