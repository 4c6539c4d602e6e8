package offline

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/agree"
	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/metrics"
)

// humanRow is one row of a human-labelled faithfulness set.
type humanRow struct {
	id, question, response string
	contexts               []string
	good                   bool
	pair                   string // pairwise sets: the group of the two candidates
}

func loadAttributionBench(t testing.TB) []humanRow {
	f, err := os.Open("../../../testdata/datasets/attributionbench/dev.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []humanRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var r struct {
			ID, Question, Claim string
			References          []string
			Label               string `json:"attribution_label"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, humanRow{id: r.ID, question: r.Question, response: r.Claim, contexts: r.References, good: r.Label == "attributable"})
	}
	return rows
}

// overlap is the trivial baseline: the share of the response's distinct
// content words (stems) found in the contexts; NaN without content words.
func overlap(response string, contexts []string) float64 {
	r := newBag(response)
	if len(r.stems) == 0 {
		return math.NaN()
	}
	c := newBag(strings.Join(contexts, "\n"))
	n := 0
	for _, s := range r.stems {
		if c.stemSet.has(s) {
			n++
		}
	}
	return float64(n) / float64(len(r.stems))
}

func judgeFaithfulness(t testing.TB, rows []humanRow) []float64 {
	samples := make([]metrics.Sample, len(rows))
	for i, r := range rows {
		samples[i] = metrics.Sample{ID: r.id, UserInput: r.question, Response: r.response, RetrievedContexts: r.contexts,
			Present: map[metrics.Field]bool{metrics.UserInput: true, metrics.Response: true, metrics.RetrievedContexts: true}}
	}
	m, _ := metrics.Lookup(metrics.FaithfulnessName)
	res, err := eval.Run(context.Background(), New(Options{}), samples, eval.Options{Metrics: []metrics.Metric{m}})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(rows))
	for i, s := range res.Samples {
		out[i] = s.Scores[metrics.FaithfulnessName]
	}
	return out
}

func binaryAUC(rows []humanRow, scores []float64) agree.BinaryResult {
	var items []agree.Item
	for i, r := range rows {
		if math.IsNaN(scores[i]) {
			continue
		}
		l := 0.0
		if r.good {
			l = 1
		}
		items = append(items, agree.Item{ID: r.id, Score: scores[i], Label: l})
	}
	return agree.Binary(items, 0.5, agree.Options{Seed: 1, Resamples: 1000})
}

func TestScratchAB(t *testing.T) {
	rows := loadAttributionBench(t)
	js := judgeFaithfulness(t, rows)
	bs := make([]float64, len(rows))
	for i, r := range rows {
		bs[i] = overlap(r.response, r.contexts)
		if math.IsNaN(js[i]) {
			bs[i] = math.NaN()
		}
	}
	j, b := binaryAUC(rows, js), binaryAUC(rows, bs)
	t.Logf("judge AUC %.3f [%.3f, %.3f] n=%d; baseline %.3f [%.3f, %.3f] n=%d", j.AUC.Value, j.AUC.Low, j.AUC.High, j.N, b.AUC.Value, b.AUC.Low, b.AUC.High, b.N)
}
