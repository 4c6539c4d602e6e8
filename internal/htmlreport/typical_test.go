package htmlreport

import (
	"fmt"
	"math/rand"
	"strings"

	"github.com/raggate/raggate/internal/results"
)

var lorem = strings.Fields(`the battery stores usable energy and delivers continuous power with peaks
for up to ten seconds units can be combined in one system for a total of storage solar panels produce
most of their output around midday warranty covers ten years or cycles whichever comes first installer
must be certified inverter connects to the grid through a dedicated circuit breaker app shows the state`)

func sentence(rng *rand.Rand, words int) string {
	ws := make([]string, words)
	for i := range ws {
		ws[i] = lorem[rng.Intn(len(lorem))]
	}
	return strings.ToUpper(ws[0][:1]) + strings.Join(ws, " ")[1:] + "."
}

// typicalFiles makes n paired samples like bench/memory.sh's: a question,
// a response of about 40 words (changed on a third of the head samples),
// five contexts of about 350 characters, a reference, and the evidence
// of faithfulness, factual correctness and context precision; scores of
// eight metrics.
func typicalFiles(n int) (base, head *results.File) {
	rng := rand.New(rand.NewSource(1))
	ms := []string{"faithfulness", "factual_correctness", "context_precision", "context_recall", "answer_relevancy", "semantic_similarity", "string_similarity", "noise_sensitivity_relevant"}
	mk := func() *results.File {
		return &results.File{Schema: results.Schema, Config: results.Config{Metrics: ms}}
	}
	base, head = mk(), mk()
	for i := range n {
		b := results.Sample{ID: fmt.Sprintf("q-%05d", i), Question: sentence(rng, 12), Scores: map[string]results.Score{},
			Metadata: map[string]string{"topic": []string{"specs", "install", "warranty", "app"}[i%4]}, InputHash: fmt.Sprint(i)}
		for _, m := range ms {
			b.Scores[m] = results.Score(rng.Float64())
		}
		h := b
		h.Scores = map[string]results.Score{}
		for _, m := range ms {
			h.Scores[m] = b.Scores[m]
		}
		ctxs := make([]string, 5)
		for k := range ctxs {
			ctxs[k] = sentence(rng, 55)
		}
		resp := sentence(rng, 40)
		b.SetTexts(results.Texts{Response: resp, Contexts: ctxs, Evidence: evidence(rng, resp)})
		hresp := resp
		if i%3 == 0 {
			hresp = sentence(rng, 40)
			h.InputHash += "-changed"
			h.Scores["faithfulness"] = results.Score(rng.Float64() * b.Scores["faithfulness"].Value())
		}
		h.SetTexts(results.Texts{Response: hresp, Contexts: ctxs, Evidence: evidence(rng, hresp)})
		base.Samples = append(base.Samples, b)
		head.Samples = append(head.Samples, h)
	}
	return base, head
}

func evidence(rng *rand.Rand, resp string) map[string][]results.Evidence {
	stmts := []results.Evidence{{Text: resp[:len(resp)/2], Verdict: 1, Reason: "found in context 1"}, {Text: resp[len(resp)/2:], Verdict: rng.Intn(2), Reason: "4/9 content words found"}}
	claims := append([]results.Evidence{}, stmts...)
	for k := range claims {
		claims[k].From = "response"
	}
	useful := make([]results.Evidence, 5)
	for k := range useful {
		useful[k] = results.Evidence{Context: k + 1, Verdict: rng.Intn(2), Reason: "the context states the figure asked for"}
	}
	return map[string][]results.Evidence{"faithfulness": stmts, "factual_correctness": claims, "context_precision": useful}
}
