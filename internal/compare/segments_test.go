package compare

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// topicFiles builds 60 paired samples in three topics of 20. Faithfulness
// drops by 0.2 on billing (every billing sample a little worse, with
// noise) and is unchanged elsewhere, where the samples move a lot both
// ways; context_recall is unchanged everywhere.
func topicFiles() (*results.File, *results.File) {
	rng := rand.New(rand.NewPCG(9, 9))
	topics := []string{"billing", "shipping", "account"}
	var bs, hs []results.Sample
	for i := range 60 {
		id := fmt.Sprintf("q-%03d", i)
		topic := topics[i/20]
		noise := func() float64 { return rng.NormFloat64() * 0.02 }
		d := 0.4 // the unchanged topics move up or down by 0.4, as often
		if i%2 == 1 {
			d = -0.4
		}
		if topic == "billing" {
			d = -0.2 + 0.15*float64(1-2*(i%2)) // -0.05 or -0.35
		}
		b := 0.5 + noise()
		r := 0.7 + noise()
		bs = append(bs, sample(id, "faithfulness", b, "context_recall", r))
		hs = append(hs, sample(id, "faithfulness", b+d+noise(), "context_recall", r+noise()))
		for _, s := range []*results.Sample{&bs[i], &hs[i]} {
			s.Metadata = map[string]string{"topic": topic, "language": "en"}
		}
	}
	return file(bs...), file(hs...)
}

func TestSegmentRegressionFailsTheGate(t *testing.T) {
	b, h := topicFiles()
	cfg := Config{Bootstrap: 500}
	whole := cfg.compareWords(b, h, DefaultThresholds())
	if !whole.Passed || metricOf(t, whole, "faithfulness").Change == VerdictRegression {
		t.Fatalf("fixture: the whole set alone must not fail: %v %v", whole.Verdict, whole.Failures)
	}
	r := cfg.compareWords(b, h, DefaultThresholds().WithSegments("topic"))
	if r.Passed || len(r.Failures) != 1 {
		t.Fatalf("verdict %s, failures %q: want one segment failure", r.Verdict, r.Failures)
	}
	if f := r.Failures[0]; !strings.HasPrefix(f, "faithfulness regressed by 0.2") || !strings.Contains(f, "on topic=billing (p") {
		t.Errorf("failure %q does not name the metric and the segment", f)
	}
	if len(r.Segments) != 1 || r.Segments[0].Key != "topic" || r.Segments[0].Values != 3 || len(r.Segments[0].Segments) != 3 {
		t.Fatalf("segments %+v", r.Segments)
	}
	for _, s := range r.Segments[0].Segments {
		if !s.Tested || s.Pairs != 20 || len(s.Metrics) != 2 {
			t.Fatalf("segment %s: tested %v, %d pairs, %d metrics", s.Value, s.Tested, s.Pairs, len(s.Metrics))
		}
		for _, m := range s.Metrics {
			bad := s.Value == "billing" && m.Metric == "faithfulness"
			if (m.Change == VerdictRegression) != bad || (m.Status == StatusFail) != bad {
				t.Errorf("%s on %s: change %s, status %s", m.Metric, s.Value, m.Change, m.Status)
			}
			if m.N != 20 || m.DeltaCI.Low.IsNaN() || m.PWorseAdj.Value() < m.PWorse.Value() {
				t.Errorf("%s on %s: n %d, CI %v, p %v adjusted %v", m.Metric, s.Value, m.N, m.DeltaCI, m.PWorse, m.PWorseAdj)
			}
		}
	}
	// The segment tests join the family: the whole-set p-values are
	// adjusted over more hypotheses than without segments.
	if a, w := metricOf(t, r, "faithfulness").PWorseAdj, metricOf(t, whole, "faithfulness").PWorseAdj; a.Value() <= w.Value() {
		t.Errorf("whole-set adjusted p %v with segments, %v without: the segments did not join the family", a, w)
	}
	if len(r.TopRegressed) == 0 || r.TopRegressed[0].Segments["topic"] == "" {
		t.Errorf("most regressed samples lack their segment values: %+v", r.TopRegressed)
	}
}

func TestSegmentLevelWarn(t *testing.T) {
	b, h := topicFiles()
	th, err := ParseThresholds("t.yaml", []byte("version: 1\nsegments: [topic]\ndefaults: {segment_level: warn}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := Config{Bootstrap: -1}.compareWords(b, h, th)
	if !r.Passed || r.Verdict != VerdictPassWithWarnings || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "on topic=billing") {
		t.Errorf("verdict %s, warnings %q", r.Verdict, r.Warnings)
	}
	// A metric's own level: warn applies to its segments too.
	th, _ = ParseThresholds("t.yaml", []byte("version: 1\nsegments: [topic]\nmetrics: {faithfulness: {level: warn}}\n"))
	if r := (Config{Bootstrap: -1}).compareWords(b, h, th); !r.Passed || len(r.Warnings) != 1 {
		t.Errorf("metric level warn: verdict %s, warnings %q", r.Verdict, r.Warnings)
	}
	// A report-only metric's segments never fail either.
	th, _ = ParseThresholds("t.yaml", []byte("version: 1\nsegments: [topic]\nreport_only: [faithfulness]\n"))
	if r := (Config{Bootstrap: -1}).compareWords(b, h, th); !r.Passed || len(r.Warnings) != 0 {
		t.Errorf("report-only: verdict %s, failures %q", r.Verdict, r.Failures)
	}
}

func TestSegmentEdges(t *testing.T) {
	b, h := topicFiles()
	// Ten billing samples lose their topic: they form the "(none)"
	// segment; "shipping" keeps only 5 samples, too few to test.
	for i := 0; i < 10; i++ {
		delete(b.Samples[i].Metadata, "topic")
		h.Samples[i].Metadata["topic"] = " "
	}
	for i := 20; i < 35; i++ {
		b.Samples[i].Metadata["topic"], h.Samples[i].Metadata["topic"] = "account", "account"
	}
	r := Config{Bootstrap: -1}.compareWords(b, h, DefaultThresholds().WithSegments("topic", "Topic", "language"))
	segs := map[string]Segment{}
	for _, s := range r.Segments[0].Segments {
		segs[s.Value] = s
	}
	if s := segs[NoSegmentValue]; s.Pairs != 10 || !s.Tested {
		t.Errorf("(none) segment: %+v", s)
	}
	if s := segs["shipping"]; s.Pairs != 5 || s.Tested || len(s.Metrics) != 0 {
		t.Errorf("small segment: %+v", s)
	}
	if r.Segments[0].Segments[0].Value != "account" {
		t.Errorf("segments not ordered by size: %+v", r.Segments[0].Segments)
	}
	all := strings.Join(append(r.Warnings, r.Notes...), "\n")
	for _, want := range []string{
		`segment key "Topic" is in no paired sample's metadata, so no segment was compared; did you mean "topic"?`,
		`segment key "language" has one value among the paired samples`,
		"segments with fewer than 10 paired samples, listed but not tested: topic=shipping (5)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings and notes lack %q:\n%s", want, all)
		}
	}
}

func TestSegmentValueCap(t *testing.T) {
	var bs, hs []results.Sample
	for i := range 600 {
		id := fmt.Sprintf("q-%03d", i)
		bs = append(bs, sample(id, "faithfulness", 0.5))
		hs = append(hs, sample(id, "faithfulness", 0.5))
		// value v0 has 60 samples, the others 9 or fewer.
		v := fmt.Sprintf("v%d", i%60)
		if i < 60 {
			v = "v0"
		}
		bs[i].Metadata, hs[i].Metadata = map[string]string{"doc": v}, map[string]string{"doc": v}
	}
	r := Config{Bootstrap: -1}.compareWords(file(bs...), file(hs...), DefaultThresholds().WithSegments("doc"))
	k := r.Segments[0]
	if k.Values != 60 || k.Omitted != 60-MaxSegmentValues || len(k.Segments) != MaxSegmentValues || k.Segments[0].Value != "v0" {
		t.Errorf("values %d, omitted %d, listed %d, first %q", k.Values, k.Omitted, len(k.Segments), k.Segments[0].Value)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), `segment key "doc" has 60 values: only the 50 with the most paired samples are compared`) {
		t.Errorf("no cap note: %q", r.Notes)
	}
}

func TestParseThresholdsSegments(t *testing.T) {
	th, err := ParseThresholds("t.yaml", []byte("version: 1\nsegments: [topic, Product Area]\ndefaults:\n  segment_level: warn\n"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(th.Segments, "|") != "topic|Product Area" || th.Defaults.SegmentLevel != LevelWarn {
		t.Errorf("segments %q, level %q", th.Segments, th.Defaults.SegmentLevel)
	}
	if got := th.WithSegments("Product Area", "language", " ").Segments; strings.Join(got, "|") != "topic|Product Area|language" {
		t.Errorf("union %q", got)
	}
	if th, _ := ParseThresholds("t.yaml", []byte("version: 1\n")); th.For("faithfulness").Level != LevelFail || th.resolvedDefaults().SegmentLevel == LevelWarn {
		t.Error("segments must fail by default")
	}
	tests := []struct{ yaml, want string }{
		{"version: 1\nsegments: topic\n", `t.yaml:2:11: segments: expected a list of dataset column names, such as [topic, language], got "topic"`},
		{"version: 1\nsegments: [topic, {a: 1}]\n", "t.yaml:2:19: segments: expected a dataset column name, got a mapping"},
		{"version: 1\nsegments: [topic, \"\"]\n", `t.yaml:2:19: segments: expected a dataset column name, got ""`},
		{"version: 1\nsegments:\n  - topic\n  - topic\n", `t.yaml:4:5: duplicate segment key "topic" in segments, first at line 3`},
		{"version: 1\nsegmnets: [topic]\n", `t.yaml:2:1: unknown key "segmnets" at top level; did you mean "segments"?`},
		{"version: 1\ndefaults: {segment_level: warning}\n", `t.yaml:2:27: defaults.segment_level: "warning" is not one of fail | warn; did you mean "warn"?`},
		{"version: 1\ndefaults: {segment_levle: warn}\n", `t.yaml:2:12: unknown key "segment_levle" in defaults; did you mean "segment_level"?`},
		{"version: 1\nsegments: [a, b, c, d, e, f, g, h, i, j, k]\n", "t.yaml:2:11: segments: 11 keys, at most 10"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := ParseThresholds("t.yaml", []byte(tt.yaml))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// BenchmarkCompareSegments compares 5,000 samples over five metrics,
// without segment keys and with three keys of 50 values each (150
// segments of about 100 pairs, 750 segment tests), with the default
// bootstrap and permutation draws: each key costs about one more
// whole-set comparison.
func BenchmarkCompareSegments(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"context_precision", "context_recall", "faithfulness", "answer_relevancy", "factual_correctness"}
	base, head := simulate(rng, 5000, names, 0)
	for i := range base.Samples {
		md := map[string]string{}
		for k := range 3 {
			md[fmt.Sprintf("key%d", k)] = fmt.Sprintf("v%02d", rng.IntN(50))
		}
		base.Samples[i].Metadata, head.Samples[i].Metadata = md, md
	}
	for _, keys := range [][]string{nil, {"key0", "key1", "key2"}} {
		th := DefaultThresholds().WithSegments(keys...)
		b.Run(fmt.Sprintf("keys=%d", len(keys)), func(b *testing.B) {
			for range b.N {
				if r := compareWords(base, head, th); len(r.Segments) != len(keys) {
					b.Fatal("segments missing")
				}
			}
		})
	}
}

// TestSegmentLostScores: a segment whose scores went undefined on head fails
// with the lost-scores sentence naming the segment.
func TestSegmentLostScores(t *testing.T) {
	b, h := topicFiles()
	for i := range h.Samples {
		if i >= 20 && i < 32 { // twelve shipping samples lose their faithfulness
			h.Samples[i].Scores["faithfulness"] = results.NaN()
			h.Samples[i].Undefined = map[string]string{"faithfulness": "judge returned invalid JSON"}
		}
	}
	r := Config{Bootstrap: -1}.compareWords(b, h, DefaultThresholds().WithSegments("topic"))
	want := "faithfulness on topic=shipping lost its score on 12 paired samples (scored on base, undefined on head; 0 the other way, p"
	found := false
	for _, f := range r.Failures {
		found = found || strings.HasPrefix(f, want) && strings.HasSuffix(f, "most often: judge returned invalid JSON")
	}
	if r.Passed || !found {
		t.Errorf("failures %q lack %q", r.Failures, want)
	}
	for _, s := range r.Segments[0].Segments {
		for _, m := range s.Metrics {
			if lost := s.Value == "shipping" && m.Metric == "faithfulness"; lost != (m.Verdict == VerdictLostScores) || lost && (m.Lost != 12 || m.Status != StatusFail) {
				t.Errorf("%s on %s: %+v", m.Metric, s.Value, m)
			}
		}
	}
}
