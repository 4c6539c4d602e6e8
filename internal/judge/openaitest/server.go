// Package openaitest is an httptest fake of an OpenAI-compatible API for
// tests: POST /v1/chat/completions and /v1/embeddings, and the Azure OpenAI
// shapes /openai/deployments/{deployment}/chat/completions?api-version=...
// and .../embeddings.
//
// The fake behaves like a careful judge, by content rather than by call
// order: it reads the step input (the JSON object after "Input:" in the
// user message, as judge.Render lays it out) and answers the step: the
// statements step splits the text on ". ", verify says 1 when most of a
// statement's words occur in the evidence, useful always says 1, the
// question step echoes the response as a question, and embeddings are
// deterministic hashed bag-of-words vectors. It honours n, returns usage,
// records every request with its raw body, and can be told to misbehave:
// rate limits with headers, HTML 5xx pages (small or large), errors
// quoting the request's credentials, truncated bodies,
// finish_reason length or content_filter, refusals, empty choices,
// context_length_exceeded, rejecting json_schema / n / seed / temperature,
// ignoring n (as Ollama does), stalling, closing the connection mid-body,
// and latency; Close in the middle of a run is a crash of the server.
package openaitest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Message is a chat message as the fake received it.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type message = Message

// Request is one request the fake received.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	// Body is the raw JSON body.
	Body []byte
	// Kind is "chat" or "embeddings" ("" for unknown paths).
	Kind string
	// Deployment is the Azure deployment of the path, if any.
	Deployment string
	Model      string

	// Chat requests.
	Messages []Message
	// Step is the judge step inferred from the input JSON object.
	Step string
	// N is the n sent (0 when absent).
	N int
	// Temperature and Seed are nil when absent from the body.
	Temperature *float64
	Seed        *int
	// ResponseFormat is the response_format type sent ("" when absent),
	// SchemaName the json_schema name and Strict its strict flag.
	ResponseFormat string
	SchemaName     string
	Strict         bool
	// MaxCompletionTokens and MaxTokens are 0 when absent.
	MaxCompletionTokens, MaxTokens int

	// Embedding requests.
	Inputs []string

	// Status is the HTTP status answered (0 while in flight or when the
	// client gave up first).
	Status int
}

// Server is the fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL for OpenAI clients (ends in /v1).
	URL string
	// Endpoint is the server root, the Azure OpenAI endpoint.
	Endpoint string

	srv *httptest.Server

	mu     sync.Mutex
	cfg    config
	reqs   []*Request
	faults []*Fault

	chatCalls, chatRequests, embedCalls, embedTexts atomic.Int64
	inFlight, maxInFlight                           atomic.Int64
	// closed makes a closed server drop any request that still reaches it
	// (on a connection accepted just before Close).
	closed atomic.Bool
}

type config struct {
	latency        time.Duration
	apiKey         string
	dim            int
	maxInputChars  int
	rejectSchema   bool
	rejectFormat   bool
	rejectN        bool
	ignoreN        bool
	rejectSeed     bool
	rejectTemp     bool
	rejectMaxCompl bool
}

// Option configures the fake (NewServer or Server.Set).
type Option func(*config)

// WithLatency delays every answer by d (the request's context cuts the
// delay short).
func WithLatency(d time.Duration) Option { return func(c *config) { c.latency = d } }

// WithAPIKey makes the fake require key, as "Authorization: Bearer key" or
// (Azure) "api-key: key"; other requests get 401.
func WithAPIKey(key string) Option { return func(c *config) { c.apiKey = key } }

// WithEmbeddingDim sets the embedding dimension (default 64).
func WithEmbeddingDim(n int) Option { return func(c *config) { c.dim = n } }

// WithMaxInputChars answers 400 context_length_exceeded to a chat request
// whose messages, or an embeddings request one of whose inputs, is longer
// than n characters (0: no limit).
func WithMaxInputChars(n int) Option { return func(c *config) { c.maxInputChars = n } }

// RejectJSONSchema answers 400 to response_format json_schema, as servers
// and models without structured outputs do.
func RejectJSONSchema(on bool) Option { return func(c *config) { c.rejectSchema = on } }

// RejectResponseFormat answers 400 to any response_format.
func RejectResponseFormat(on bool) Option { return func(c *config) { c.rejectFormat = on } }

// RejectN answers 400 to n > 1, as reasoning models do.
func RejectN(on bool) Option { return func(c *config) { c.rejectN = on } }

// IgnoreN returns one choice whatever n, as Ollama does.
func IgnoreN(on bool) Option { return func(c *config) { c.ignoreN = on } }

// RejectSeed answers 400 to a request with seed.
func RejectSeed(on bool) Option { return func(c *config) { c.rejectSeed = on } }

// RejectTemperature answers 400 to a temperature other than 1, as reasoning
// models do.
func RejectTemperature(on bool) Option { return func(c *config) { c.rejectTemp = on } }

// RejectMaxCompletionTokens answers 400 to max_completion_tokens, as older
// Azure api-versions do.
func RejectMaxCompletionTokens(on bool) Option { return func(c *config) { c.rejectMaxCompl = on } }

// NewServer starts a fake closed at the end of the test.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{cfg: config{dim: 64}}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.Endpoint = s.srv.URL
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.Close)
	return s
}

// Close shuts the server down: new connections are refused, then stalled
// requests are released (their connections closed).
func (s *Server) Close() {
	s.closed.Store(true)
	s.srv.Listener.Close()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Set changes options while the server runs.
func (s *Server) Set(opts ...Option) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range opts {
		o(&s.cfg)
	}
}

// Inject queues faults; each matching request takes the first fault that
// matches it, until its count is used up.
func (s *Server) Inject(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range faults {
		f := f
		if f.Count == 0 {
			f.Count = 1
		}
		s.faults = append(s.faults, &f)
	}
}

// ClearFaults drops the queued faults.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Requests returns copies of the requests received so far, in arrival
// order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = *r
	}
	return out
}

// Reset forgets the recorded requests and zeroes the counters.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
	s.chatCalls.Store(0)
	s.chatRequests.Store(0)
	s.embedCalls.Store(0)
	s.embedTexts.Store(0)
	s.maxInFlight.Store(s.inFlight.Load())
}

// ChatCalls counts chat requests answered with 200.
func (s *Server) ChatCalls() int { return int(s.chatCalls.Load()) }

// ChatRequests counts all chat requests, failed ones included.
func (s *Server) ChatRequests() int { return int(s.chatRequests.Load()) }

// EmbeddingCalls counts embeddings requests answered with 200.
func (s *Server) EmbeddingCalls() int { return int(s.embedCalls.Load()) }

// EmbeddedTexts counts the texts of embeddings requests answered with 200.
func (s *Server) EmbeddedTexts() int { return int(s.embedTexts.Load()) }

// MaxInFlight is the largest number of requests handled at once.
func (s *Server) MaxInFlight() int { return int(s.maxInFlight.Load()) }

// InFlight is the number of requests being handled now.
func (s *Server) InFlight() int { return int(s.inFlight.Load()) }

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if s.closed.Load() {
		panic(http.ErrAbortHandler) // closes the connection without an answer
	}
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxInFlight.Load()
		if n <= m || s.maxInFlight.CompareAndSwap(m, n) {
			break
		}
	}
	body, _ := io.ReadAll(r.Body)
	rec := &Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
	kind, deployment, azure := route(r.URL.Path)
	rec.Kind, rec.Deployment = kind, deployment
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	cfg := s.cfg
	s.mu.Unlock()
	status := func(code int) {
		s.mu.Lock()
		rec.Status = code
		s.mu.Unlock()
	}

	if cfg.latency > 0 {
		t := time.NewTimer(cfg.latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	if r.Method != http.MethodPost || kind == "" || (azure && r.URL.Query().Get("api-version") == "") {
		status(http.StatusNotFound)
		writeJSON(w, http.StatusNotFound, nil, `{"error":{"code":"404","message":"Resource not found"}}`)
		return
	}
	if cfg.apiKey != "" {
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if azure {
			got = r.Header.Get("api-key")
		}
		if got != cfg.apiKey {
			f := Unauthorized()
			status(f.Status)
			writeJSON(w, f.Status, nil, f.Body)
			return
		}
	}
	switch kind {
	case "chat":
		s.chatRequests.Add(1)
		code := s.chat(w, r, rec, cfg)
		status(code)
		if code == http.StatusOK {
			s.chatCalls.Add(1)
		}
	case "embeddings":
		code, texts := s.embeddings(w, r, rec, cfg)
		status(code)
		if code == http.StatusOK {
			s.embedCalls.Add(1)
			s.embedTexts.Add(int64(texts))
		}
	}
}

// route returns the kind of endpoint, the Azure deployment, and whether the
// path has the Azure shape.
func route(path string) (kind, deployment string, azure bool) {
	switch path {
	case "/v1/chat/completions", "/chat/completions":
		return "chat", "", false
	case "/v1/embeddings", "/embeddings":
		return "embeddings", "", false
	}
	rest, ok := strings.CutPrefix(path, "/openai/deployments/")
	if !ok {
		return "", "", false
	}
	d, op, ok := strings.Cut(rest, "/")
	if !ok || d == "" {
		return "", "", true
	}
	switch op {
	case "chat/completions":
		return "chat", d, true
	case "embeddings":
		return "embeddings", d, true
	}
	return "", d, true
}

// takeFault pops the first queued fault matching the request.
func (s *Server) takeFault(embeddings bool, step string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if !f.matches(embeddings, step) {
			continue
		}
		g := *f
		if f.Count > 0 {
			f.Count--
			if f.Count == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return &g
	}
	return nil
}

// applyStatus answers with the fault's status, or stalls; it reports
// whether the request was answered.
func applyStatus(w http.ResponseWriter, r *http.Request, f *Fault) (int, bool) {
	if f == nil {
		return 0, false
	}
	if f.Stall {
		<-r.Context().Done()
		return 0, true
	}
	if f.Disconnect {
		disconnect(w)
		return 0, true
	}
	if f.Status == 0 {
		return 0, false
	}
	ct := f.ContentType
	if ct == "" {
		ct = "application/json"
	}
	for k, v := range f.Header {
		w.Header().Set(k, v)
	}
	body := f.Body
	if f.EchoCredentials {
		body = echoBody(r, f.Status)
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(f.Status)
	_, _ = io.WriteString(w, body)
	return f.Status, true
}

// disconnect promises a body, sends part of it and closes the connection.
func disconnect(w http.ResponseWriter) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic("openaitest: cannot hijack the connection: " + err.Error())
	}
	defer conn.Close()
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"id\":\"chatcmpl-fake\",\"object\":\"chat.comp")
	_ = buf.Flush()
}

type chatRequest struct {
	Model               string          `json:"model"`
	Messages            []message       `json:"messages"`
	N                   *int            `json:"n"`
	Temperature         *float64        `json:"temperature"`
	Seed                *int            `json:"seed"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	ResponseFormat      *responseFormat `json:"response_format"`
}

type responseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Strict bool            `json:"strict"`
		Schema json.RawMessage `json:"schema"`
	} `json:"json_schema"`
}

func badRequest(w http.ResponseWriter, code, param, message string) int {
	f := apiError(http.StatusBadRequest, "invalid_request_error", code, param, message)
	writeJSON(w, f.Status, nil, f.Body)
	return f.Status
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request, rec *Request, cfg config) int {
	var req chatRequest
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		return badRequest(w, "", "", "We could not parse the JSON body of your request: "+err.Error())
	}
	in, found := findInput(req.Messages)
	step := s.recordChat(rec, &req, in, found)
	if code, done := rejectChat(w, &req, cfg); done {
		return code
	}
	f := s.takeFault(false, step)
	if code, done := applyStatus(w, r, f); done {
		return code
	}
	if f == nil {
		f = &Fault{}
	}

	content := "I could not find the input."
	if found {
		content = answer(step, in)
	}
	if f.Content != nil {
		content = *f.Content
	}
	promptChars := 0
	for _, m := range req.Messages {
		promptChars += len(m.Content)
	}
	var vary func(i int) string
	if found && step == "critic" && f.Content == nil {
		// Each vote is its own choice: the sample's fake_votes column
		// (such as "1,0,1") gives vote i, counted across fill-in calls
		// by their seed offset from 42.
		offset := 0
		if req.Seed != nil && *req.Seed >= 42 {
			offset = *req.Seed - 42
		}
		vary = func(i int) string { return criticAnswer(in, i+offset) }
	}
	choices, completion := chatChoices(&req, cfg, content, f, vary)
	model := req.Model
	if rec.Deployment != "" && model == "" {
		model = rec.Deployment
	}
	resp := map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": model,
		"system_fingerprint": "fp_fake",
		"choices":            choices,
		"usage": map[string]any{
			"prompt_tokens": tokens(strings.Repeat("x", promptChars)), "completion_tokens": completion,
			"total_tokens": tokens(strings.Repeat("x", promptChars)) + completion,
		},
	}
	body := mustJSON(resp)
	if f.Truncate {
		body = body[:len(body)/2]
	}
	writeJSON(w, http.StatusOK, nil, body)
	return http.StatusOK
}

// recordChat records the parameters of a chat request in rec and returns
// the metric step the request is for.
func (s *Server) recordChat(rec *Request, req *chatRequest, in map[string]json.RawMessage, found bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Model, rec.Messages, rec.Temperature, rec.Seed = req.Model, req.Messages, req.Temperature, req.Seed
	if req.N != nil {
		rec.N = *req.N
	}
	if req.MaxTokens != nil {
		rec.MaxTokens = *req.MaxTokens
	}
	if req.MaxCompletionTokens != nil {
		rec.MaxCompletionTokens = *req.MaxCompletionTokens
	}
	if rf := req.ResponseFormat; rf != nil {
		rec.ResponseFormat = rf.Type
		if rf.JSONSchema != nil {
			rec.SchemaName, rec.Strict = rf.JSONSchema.Name, rf.JSONSchema.Strict
		}
	}
	if found {
		rec.Step = stepOf(in)
	}
	return rec.Step
}

// rejectChat answers the errors a server configured to reject some
// parameters (or long inputs) gives; done reports whether it answered.
func rejectChat(w http.ResponseWriter, req *chatRequest, cfg config) (code int, done bool) {
	switch {
	case cfg.rejectMaxCompl && req.MaxCompletionTokens != nil:
		return badRequest(w, "", "", "Unrecognized request argument supplied: max_completion_tokens"), true
	case cfg.rejectTemp && req.Temperature != nil && *req.Temperature != 1:
		return badRequest(w, "unsupported_value", "temperature", "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."), true
	case cfg.rejectSeed && req.Seed != nil:
		return badRequest(w, "unsupported_parameter", "seed", "Unsupported parameter: 'seed' is not supported with this model."), true
	case cfg.rejectN && req.N != nil && *req.N > 1:
		return badRequest(w, "unsupported_value", "n", "Unsupported value: 'n' must be 1 with this model."), true
	case cfg.rejectFormat && req.ResponseFormat != nil:
		return badRequest(w, "", "response_format", "Invalid parameter: 'response_format' is not supported with this model."), true
	case cfg.rejectSchema && req.ResponseFormat != nil && req.ResponseFormat.Type == "json_schema":
		return badRequest(w, "", "response_format", "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."), true
	}
	if cfg.maxInputChars > 0 {
		total := 0
		for _, m := range req.Messages {
			total += len(m.Content)
		}
		if total > cfg.maxInputChars {
			f := ContextTooLong()
			writeJSON(w, f.Status, nil, f.Body)
			return f.Status, true
		}
	}
	return 0, false
}

// chatChoices builds the choices of a chat answer with the given content,
// shaped by the fault f, and counts their completion tokens.
func chatChoices(req *chatRequest, cfg config, content string, f *Fault, vary func(i int) string) (choices []map[string]any, completion int) {
	count := 1
	if req.N != nil && *req.N > 1 && !cfg.ignoreN {
		count = *req.N
	}
	choices = []map[string]any{}
	if f.EmptyChoices {
		return choices, 0
	}
	for i := range count {
		if vary != nil {
			content = vary(i)
		}
		msg := map[string]any{"role": "assistant", "content": content, "refusal": nil}
		finish := "stop"
		switch {
		case f.Refusal != "":
			msg["content"], msg["refusal"] = nil, f.Refusal
		case f.FinishReason == "length":
			msg["content"] = content[:len(content)/2]
			finish = "length"
		case f.FinishReason != "":
			msg["content"] = ""
			finish = f.FinishReason
		}
		if c, ok := msg["content"].(string); ok {
			completion += tokens(c)
		}
		choices = append(choices, map[string]any{"index": i, "message": msg, "finish_reason": finish, "logprobs": nil})
	}
	return choices, completion
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request, rec *Request, cfg config) (int, int) {
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		return badRequest(w, "", "", "We could not parse the JSON body of your request: "+err.Error()), 0
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			return badRequest(w, "", "input", "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference."), 0
		}
		inputs = []string{one}
	}
	s.mu.Lock()
	rec.Model, rec.Inputs = req.Model, inputs
	s.mu.Unlock()
	if len(inputs) == 0 {
		return badRequest(w, "", "input", "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference."), 0
	}
	for _, in := range inputs {
		if cfg.maxInputChars > 0 && len(in) > cfg.maxInputChars {
			f := ContextTooLong()
			writeJSON(w, f.Status, nil, f.Body)
			return f.Status, 0
		}
	}
	f := s.takeFault(true, "")
	if code, done := applyStatus(w, r, f); done {
		return code, 0
	}
	data := make([]map[string]any, len(inputs))
	total := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Vector(in, cfg.dim)}
		total += tokens(in)
	}
	body := mustJSON(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]any{"prompt_tokens": total, "total_tokens": total},
	})
	if f != nil && f.Truncate {
		body = body[:len(body)/2]
	}
	writeJSON(w, http.StatusOK, nil, body)
	return http.StatusOK, len(inputs)
}

// tokens is the fake's token count: a quarter of the characters, at least 1.
func tokens(s string) int { return len(s)/4 + 1 }

func writeJSON(w http.ResponseWriter, status int, header map[string]string, body string) {
	for k, v := range header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// Wait blocks until n requests are in flight or ctx is done (for tests
// that need a request to be stalled at the server).
func (s *Server) Wait(ctx context.Context, n int) error {
	for s.InFlight() < n {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return nil
}
