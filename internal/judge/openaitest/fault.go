package openaitest

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Fault is a misbehaviour the Server applies to upcoming requests (see
// Server.Inject). Build one with a constructor (RateLimited, HTMLError,
// Truncated, ...) and narrow it with ForStep, ForEmbeddings or Times.
type Fault struct {
	// Status, when non-zero, answers with this HTTP status, Header and Body
	// instead of a completion.
	Status      int
	Header      map[string]string
	Body        string
	ContentType string

	// The following alter a 200 completion.

	// Truncate cuts the response body in the middle of the JSON.
	Truncate bool
	// Disconnect sends the headers and part of the body, then closes the
	// connection (a crashed proxy, a connection reset mid-body).
	Disconnect bool
	// FinishReason replaces "stop" ("length" also cuts the content).
	FinishReason string
	// Refusal sets message.refusal and clears the content.
	Refusal string
	// EmptyChoices answers with "choices": [].
	EmptyChoices bool
	// Content, when set, replaces the assistant content of every choice.
	Content *string
	// Stall holds the request until the client gives up.
	Stall bool
	// EchoCredentials, with Status, answers an OpenAI error body whose
	// message quotes the credentials the request carried (the
	// Authorization and api-key headers, every other X- header, and the
	// URL query), as careless proxies do in their 401 and 429 answers.
	EchoCredentials bool

	// Step limits the fault to chat requests of this step ("statements",
	// "verify", "useful", "question"); empty means any chat request.
	Step string
	// Embeddings applies the fault to /embeddings requests instead of chat.
	Embeddings bool
	// Count is the number of requests the fault applies to: 0 means 1,
	// a negative count means every matching request.
	Count int
}

// ForStep returns f limited to chat requests of step.
func (f Fault) ForStep(step string) Fault { f.Step = step; return f }

// ForEmbeddings returns f applied to embeddings requests.
func (f Fault) ForEmbeddings() Fault { f.Embeddings = true; return f }

// Times returns f applied to n requests (n < 0: all of them).
func (f Fault) Times(n int) Fault { f.Count = n; return f }

// apiError builds an OpenAI-style error body.
func apiError(status int, typ, code, param, message string) Fault {
	body := map[string]any{"message": message, "type": typ, "param": nil, "code": nil}
	if code != "" {
		body["code"] = code
	}
	if param != "" {
		body["param"] = param
	}
	return Fault{Status: status, Body: mustJSON(map[string]any{"error": body}), ContentType: "application/json"}
}

// APIError answers with status and an OpenAI error body
// {"error":{"message","type","param","code"}} (empty code or param: null).
func APIError(status int, typ, code, param, message string) Fault {
	return apiError(status, typ, code, param, message)
}

// RateLimited answers 429 rate_limit_exceeded with the given headers (for
// example "retry-after": "2", "retry-after-ms": "1500",
// "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s").
func RateLimited(header map[string]string) Fault {
	f := apiError(http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "",
		"Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.")
	f.Header = header
	return f
}

// QuotaExceeded answers 429 insufficient_quota.
func QuotaExceeded() Fault {
	return apiError(http.StatusTooManyRequests, "insufficient_quota", "insufficient_quota", "",
		"You exceeded your current quota, please check your plan and billing details.")
}

// Unauthorized answers 401 invalid_api_key.
func Unauthorized() Fault {
	return apiError(http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", "",
		"Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.")
}

// Forbidden answers 403.
func Forbidden() Fault {
	return apiError(http.StatusForbidden, "invalid_request_error", "model_not_available", "",
		"Project proj_test does not have access to model gpt-4o-mini")
}

// HTMLError answers status with an HTML page, as a proxy or load balancer
// in front of the API does.
func HTMLError(status int) Fault {
	return Fault{Status: status, ContentType: "text/html",
		Body: fmt.Sprintf("<html><head><title>%d %s</title></head><body><center><h1>%d %s</h1></center><hr><center>nginx</center></body></html>",
			status, http.StatusText(status), status, http.StatusText(status))}
}

// LargeHTMLError answers status with an HTML page of about size bytes,
// as a web server, CDN or a base URL pointing at a website serves.
func LargeHTMLError(status, size int) Fault {
	f := HTMLError(status)
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(f.Body, "</body></html>"))
	for b.Len() < size {
		b.WriteString("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n")
	}
	b.WriteString("</body></html>")
	f.Body = b.String()
	return f
}

// Echo answers status with an OpenAI error body quoting the request's
// credentials (see Fault.EchoCredentials); with status 429 it carries
// retry-after-ms: 1 so that clients retry at once.
func Echo(status int) Fault {
	f := Fault{Status: status, ContentType: "application/json", EchoCredentials: true}
	if status == http.StatusTooManyRequests {
		f.Header = map[string]string{"retry-after-ms": "1"}
	}
	return f
}

// echoBody is the error body of an EchoCredentials fault.
func echoBody(r *http.Request, status int) string {
	var creds []string
	for _, k := range sortedKeys(r.Header) {
		if k == "Authorization" || k == "Api-Key" || strings.HasPrefix(k, "X-") {
			creds = append(creds, k+": "+strings.Join(r.Header.Values(k), ", "))
		}
	}
	if r.URL.RawQuery != "" {
		creds = append(creds, "query: "+r.URL.RawQuery)
	}
	msg := fmt.Sprintf("%s; the request carried %s", http.StatusText(status), strings.Join(creds, "; "))
	return apiError(status, "invalid_request_error", "", "", msg).Body
}

func sortedKeys(h http.Header) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ContextTooLong answers 400 context_length_exceeded.
func ContextTooLong() Fault {
	return apiError(http.StatusBadRequest, "invalid_request_error", "context_length_exceeded", "messages",
		"This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.")
}

// Truncated answers 200 with a body cut in the middle of the JSON.
func Truncated() Fault { return Fault{Truncate: true} }

// Length answers with finish_reason "length" and the content cut short.
func Length() Fault { return Fault{FinishReason: "length"} }

// ContentFilter answers with finish_reason "content_filter" and no content.
func ContentFilter() Fault { return Fault{FinishReason: "content_filter"} }

// Refusal answers with message.refusal set and no content.
func Refusal() Fault { return Fault{Refusal: "I'm sorry, I can't help with that request."} }

// EmptyChoices answers 200 with "choices": [].
func EmptyChoices() Fault { return Fault{EmptyChoices: true} }

// InvalidContent answers with content as the assistant message of every
// choice (for example prose, or JSON that does not match the schema).
func InvalidContent(content string) Fault { return Fault{Content: &content} }

// Stall holds the request until the client cancels it.
func Stall() Fault { return Fault{Stall: true} }

// Disconnect answers 200 with a Content-Length, sends part of the body and
// closes the connection.
func Disconnect() Fault { return Fault{Disconnect: true} }

func (f Fault) matches(embeddings bool, step string) bool {
	if f.Embeddings != embeddings {
		return false
	}
	return f.Step == "" || f.Step == step
}
