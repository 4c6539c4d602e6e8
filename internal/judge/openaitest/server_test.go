package openaitest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/metrics"
)

func post(t *testing.T, url string, header map[string]string, body any) (int, http.Header, []byte) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

// chatBody renders req the way the judge does.
func chatBody(t *testing.T, req judge.Request, extra map[string]any) map[string]any {
	t.Helper()
	r, err := judge.Render(req)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{
		"model": "m",
		"messages": []map[string]string{
			{"role": "system", "content": r.System},
			{"role": "user", "content": r.User},
		},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": r.SchemaName, "strict": true, "schema": r.Schema}},
	}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

type completion struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func TestAnswersByContent(t *testing.T) {
	s := openaitest.NewServer(t)
	reqs := []judge.Request{
		{Step: metrics.StepStatements, Input: metrics.StatementsInput{Question: "q", Text: "Paris is in France. It is big."}},
		{Step: metrics.StepVerify, Input: metrics.VerifyInput{Statements: []string{"Paris is in France", "Rome is in Spain"}, Evidence: "Paris is a city in France."}},
		{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "q", Context: "c", Answer: "a"}},
		{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: "I don't know."}, N: 3},
	}
	want := []string{
		`{"statements":["Paris is in France","It is big"]}`,
		`[true false]`,
		`1`,
		`3 x {I don't know? 1}`,
	}
	// Ask in reverse order: answers depend on content, not call order.
	for i := len(reqs) - 1; i >= 0; i-- {
		req := reqs[i]
		status, _, body := post(t, s.URL+"/chat/completions", nil, chatBody(t, req, map[string]any{"n": req.Count(), "temperature": 0}))
		if status != 200 {
			t.Fatalf("%s: status %d: %s", req.Step, status, body)
		}
		var c completion
		if err := json.Unmarshal(body, &c); err != nil {
			t.Fatal(err)
		}
		if len(c.Choices) != req.Count() || c.Usage.PromptTokens == 0 || c.Usage.CompletionTokens == 0 {
			t.Fatalf("%s: %d choices, usage %+v", req.Step, len(c.Choices), c.Usage)
		}
		var got string
		switch req.Step {
		case metrics.StepStatements:
			got = *c.Choices[0].Message.Content
		default:
			var answers []judge.Answer
			for _, ch := range c.Choices {
				a, err := judge.Parse(req, *ch.Message.Content)
				if err != nil {
					t.Fatalf("%s: %v", req.Step, err)
				}
				answers = append(answers, a)
			}
			switch req.Step {
			case metrics.StepVerify:
				got = fmtBools(answers[0].Verify.Bools())
			case metrics.StepUseful:
				got = fmtInt(answers[0].Useful.Verdict)
			case metrics.StepQuestion:
				q := answers[0].Questions[0]
				got = fmtInt(len(answers)) + " x {" + q.Question + " " + fmtInt(q.Noncommittal) + "}"
			}
		}
		if got != want[i] {
			t.Errorf("%s: got %s, want %s", req.Step, got, want[i])
		}
	}
	rs := s.Requests()
	if len(rs) != 4 || rs[0].Step != "question" || rs[0].N != 3 || rs[0].Temperature == nil || rs[3].Step != "statements" {
		t.Errorf("recorded %+v", rs)
	}
	if s.ChatCalls() != 4 {
		t.Errorf("ChatCalls = %d", s.ChatCalls())
	}
}

func fmtBools(b []bool) string { return fmt.Sprint(b) }

func fmtInt(n int) string { return fmt.Sprint(n) }

func TestFaults(t *testing.T) {
	req := judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "q", Context: "c", Answer: "a"}}
	s := openaitest.NewServer(t)
	s.Inject(
		openaitest.RateLimited(map[string]string{"retry-after": "3"}),
		openaitest.HTMLError(502).ForStep("verify"), // not matched by a useful request
		openaitest.Refusal().Times(2),
	)
	status, h, body := post(t, s.URL+"/chat/completions", nil, chatBody(t, req, nil))
	if status != 429 || h.Get("retry-after") != "3" || !strings.Contains(string(body), "rate_limit_exceeded") {
		t.Fatalf("first: %d %v %s", status, h, body)
	}
	for range 2 {
		_, _, body = post(t, s.URL+"/chat/completions", nil, chatBody(t, req, nil))
		var c completion
		_ = json.Unmarshal(body, &c)
		if c.Choices[0].Message.Refusal == nil || c.Choices[0].Message.Content != nil {
			t.Fatalf("want a refusal: %s", body)
		}
	}
	status, _, _ = post(t, s.URL+"/chat/completions", nil, chatBody(t, req, nil))
	if status != 200 {
		t.Fatalf("faults not used up: %d", status)
	}
	if s.ChatRequests() != 4 || s.ChatCalls() != 3 {
		t.Errorf("requests %d calls %d", s.ChatRequests(), s.ChatCalls())
	}
	t.Run("truncated", func(t *testing.T) {
		s.Inject(openaitest.Truncated())
		_, _, body := post(t, s.URL+"/chat/completions", nil, chatBody(t, req, nil))
		if json.Valid(body) {
			t.Errorf("body is valid JSON: %s", body)
		}
	})
	t.Run("length", func(t *testing.T) {
		s.Inject(openaitest.Length())
		_, _, body := post(t, s.URL+"/chat/completions", nil, chatBody(t, req, nil))
		var c completion
		_ = json.Unmarshal(body, &c)
		if c.Choices[0].FinishReason != "length" || json.Valid([]byte(*c.Choices[0].Message.Content)) {
			t.Errorf("want a cut reply: %s", body)
		}
	})
}

func TestServerOptions(t *testing.T) {
	req := judge.Request{Step: metrics.StepQuestion, Input: metrics.QuestionInput{Response: "Yes."}, N: 3}
	tests := []struct {
		opt    openaitest.Option
		extra  map[string]any
		status int
		param  string
	}{
		{openaitest.RejectJSONSchema(true), nil, 400, "response_format"},
		{openaitest.RejectN(true), map[string]any{"n": 3}, 400, "n"},
		{openaitest.RejectSeed(true), map[string]any{"seed": 1}, 400, "seed"},
		{openaitest.RejectTemperature(true), map[string]any{"temperature": 0}, 400, "temperature"},
		{openaitest.RejectMaxCompletionTokens(true), map[string]any{"max_completion_tokens": 10}, 400, ""},
		{openaitest.IgnoreN(true), map[string]any{"n": 3}, 200, ""},
	}
	for _, tt := range tests {
		s := openaitest.NewServer(t, tt.opt)
		status, _, body := post(t, s.URL+"/chat/completions", nil, chatBody(t, req, tt.extra))
		if status != tt.status {
			t.Errorf("%s: status %d", body, status)
			continue
		}
		if tt.param != "" && !strings.Contains(string(body), `"param":"`+tt.param+`"`) {
			t.Errorf("%s: no param %s", body, tt.param)
		}
		if status == 200 {
			var c completion
			_ = json.Unmarshal(body, &c)
			if len(c.Choices) != 1 {
				t.Errorf("IgnoreN: %d choices", len(c.Choices))
			}
		}
	}
}

func TestAzureAndAuth(t *testing.T) {
	s := openaitest.NewServer(t, openaitest.WithAPIKey("k"))
	req := judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "q", Context: "c", Answer: "a"}}
	body := chatBody(t, req, nil)
	if st, _, _ := post(t, s.URL+"/chat/completions", map[string]string{"Authorization": "Bearer wrong"}, body); st != 401 {
		t.Errorf("wrong key: %d", st)
	}
	if st, _, _ := post(t, s.URL+"/chat/completions", map[string]string{"Authorization": "Bearer k"}, body); st != 200 {
		t.Errorf("right key: %d", st)
	}
	az := s.Endpoint + "/openai/deployments/dep/chat/completions"
	if st, _, _ := post(t, az, map[string]string{"api-key": "k"}, body); st != 404 {
		t.Errorf("Azure without api-version: %d", st)
	}
	if st, _, _ := post(t, az+"?api-version=2024-10-21", map[string]string{"api-key": "k"}, body); st != 200 {
		t.Errorf("Azure: %d", st)
	}
	rs := s.Requests()
	if rs[len(rs)-1].Deployment != "dep" {
		t.Errorf("deployment %q", rs[len(rs)-1].Deployment)
	}
}

func TestEmbeddings(t *testing.T) {
	s := openaitest.NewServer(t, openaitest.WithEmbeddingDim(256))
	status, _, body := post(t, s.URL+"/embeddings", nil, map[string]any{"model": "e", "input": []string{"red apple", "green apple"}})
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	var resp struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Data) != 2 || len(resp.Data[1].Embedding) != 256 || resp.Usage.PromptTokens == 0 {
		t.Fatalf("%s", body)
	}
	sim := metrics.CosineSimilarity(resp.Data[0].Embedding, resp.Data[1].Embedding)
	if sim <= 0 || sim >= 1 {
		t.Errorf("texts sharing a word: similarity %v", sim)
	}
	if s.EmbeddingCalls() != 1 || s.EmbeddedTexts() != 2 {
		t.Errorf("counters %d %d", s.EmbeddingCalls(), s.EmbeddedTexts())
	}
}

// Disconnect promises a body and closes the connection in its middle; a
// closed server answers nothing, even on a connection it still holds.
func TestDisconnectAndClose(t *testing.T) {
	req := judge.Request{Step: metrics.StepUseful, Input: metrics.UsefulInput{Question: "q", Context: "c", Answer: "a"}}
	s := openaitest.NewServer(t)
	s.Inject(openaitest.Disconnect())
	b, _ := json.Marshal(chatBody(t, req, nil))
	resp, err := http.Post(s.URL+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, read error %v: want 200 and a body cut short", resp.StatusCode, err)
	}
	s.Close()
	if _, err := http.Post(s.URL+"/chat/completions", "application/json", bytes.NewReader(b)); err == nil {
		t.Error("a closed server answered")
	}
}
