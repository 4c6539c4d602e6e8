package openaicompat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/neterr"
	"github.com/raggate/raggate/internal/retry"
)

// failure is what to do about a failed attempt.
type failure int

const (
	failRetry     failure = iota // transient: back off and retry (bounded)
	failRateLimit                // 429: pause every caller, then retry
	failFatal                    // stop the run
	failUndefined                // this step is undefined, the run goes on
)

// errEmptyChoices is a 200 answer without choices (retryable).
var errEmptyChoices = errors.New("the response has no choices")

// apiDetails extracts the HTTP status and error fields of a go-openai error.
func apiDetails(err error) (status int, code, typ, msg string, param string, isAPI bool) {
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		if apiErr.Code != nil {
			code = fmt.Sprint(apiErr.Code)
		}
		if apiErr.Param != nil {
			param = *apiErr.Param
		}
		return apiErr.HTTPStatusCode, code, apiErr.Type, apiErr.Message, param, true
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.HTTPStatusCode, "", "", snippet(reqErr.Body), "", false
	}
	return 0, "", "", "", "", false
}

// snippet shortens an error body (an HTML page, say) for a message.
func snippet(b []byte) string {
	return capText(string(b), 200)
}

// maxErrorText caps what a message quotes of a server's answer.
const maxErrorText = 300

// capText flattens whitespace and cuts s to about n bytes (at a rune
// boundary), saying how long it was.
func capText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes in all)", s[:cut], len(s))
}

// serverError is a failed HTTP answer, worded in a few hundred characters
// whatever the server sent; errors.As still finds the go-openai error.
type serverError struct {
	msg string
	err error
}

func (e *serverError) Error() string { return e.msg }
func (e *serverError) Unwrap() error { return e.err }

// brief rewords the errors go-openai returns for failed HTTP answers,
// whose messages quote the whole body (a 20 KB HTML page from a proxy or
// a website): the status, the start of the message, and for an HTML page
// what to check.
func brief(err error) error {
	switch e := err.(type) {
	case *openai.APIError:
		if e.HTTPStatusCode == 0 {
			return err
		}
		return &serverError{msg: fmt.Sprintf("HTTP %s: %s", httpStatus(e.HTTPStatusCode, e.HTTPStatus), capText(e.Message, maxErrorText)), err: err}
	case *openai.RequestError:
		return &serverError{msg: describeBody(httpStatus(e.HTTPStatusCode, e.HTTPStatus), e.Body), err: err}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return err // worded with the request time-out by the caller
	}
	return neterr.Wrap(err)
}

func httpStatus(code int, status string) string {
	if status != "" {
		return status
	}
	return strconv.Itoa(code)
}

// describeBody words a non-JSON error body.
func describeBody(status string, body []byte) string {
	if !isHTML(body) {
		return fmt.Sprintf("HTTP %s: %s", status, orDefault(capText(string(body), maxErrorText), "(empty body)"))
	}
	title := ""
	if m := htmlTitle.FindSubmatch(body); m != nil {
		title = fmt.Sprintf(", titled %q", capText(string(m[1]), 80))
	}
	return fmt.Sprintf("HTTP %s: the server returned an HTML page (%d bytes%s), not an API answer: is --base-url pointing at the API (usually ending in /v1)?", status, len(body), title)
}

var htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// isHTML reports whether an error body is a web page.
func isHTML(b []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(b[:min(len(b), 512)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) ||
		bytes.Contains(head, []byte("<html")) || bytes.Contains(head, []byte("<body"))
}

// classify decides what a failed attempt of a chat or (embeddings true) an
// embeddings call means. It returns the error to report (for fatal and
// undefined failures: worded for the user).
func (j *Judge) classify(err error, embeddings bool) (failure, error) {
	status, code, typ, msg, _, _ := apiDetails(err)
	lower := strings.ToLower(msg)
	var redirect *redirectError
	switch {
	case errors.As(err, &redirect):
		return failFatal, err
	case status == 0:
		// Transport error, timeout, or a 200 body that is not a valid
		// response (cut mid-JSON, HTML from a proxy, no choices).
		return failRetry, err
	case status == http.StatusTooManyRequests:
		// Only OpenAI's explicit code means the money ran out. Other
		// servers word per-minute limits with "quota" ("Quota exceeded for
		// metric ... Please retry in 16s"): those are rate limits to wait out.
		if code == "insufficient_quota" || typ == "insufficient_quota" {
			return failFatal, fmt.Errorf("judge quota exhausted (HTTP 429 %s): check the plan and billing of the account behind %s, or use another key: %w",
				orDefault(code, "insufficient_quota"), j.keyEnv, err)
		}
		return failRateLimit, err
	case status == http.StatusUnauthorized:
		return failFatal, fmt.Errorf("judge rejected the API key (HTTP 401): check %s%s and --base-url: %w", j.keyEnv, j.azureHint(), err)
	case status == http.StatusForbidden:
		return failFatal, fmt.Errorf("judge denied access (HTTP 403): check that the key in %s may use %s (project, organization, region): %w", j.keyEnv, j.modelOf(embeddings), err)
	case status == http.StatusNotFound:
		return failFatal, fmt.Errorf("judge endpoint or model not found (HTTP 404): check --base-url and that %s exists%s: %w", j.modelOf(embeddings), j.azureHint(), err)
	case code == "context_length_exceeded" || strings.Contains(lower, "maximum context length") || strings.Contains(lower, "context length") && strings.Contains(lower, "exceed") || status == http.StatusRequestEntityTooLarge:
		return failUndefined, &judge.Undefined{Reason: "too long for the judge model's context", Err: err}
	case code == "content_filter" || code == "content_policy_violation" || strings.Contains(lower, "content management policy"):
		return failUndefined, &judge.Undefined{Reason: "judge refused (content filter)", Err: err}
	case status == http.StatusRequestTimeout || status == http.StatusConflict || status >= 500:
		return failRetry, err
	case status >= 400:
		j.warnOnce("bad-request", "judge: the endpoint rejected a request (HTTP %d): %s; the step is marked undefined. If every step fails this way, check --model, --base-url and the server's support for the OpenAI chat API", status, capText(orDefault(msg, err.Error()), maxErrorText))
		return failUndefined, &judge.Undefined{Reason: fmt.Sprintf("judge rejected the request (HTTP %d)", status), Err: err}
	}
	return failRetry, err
}

// modelOf names the model (Azure: deployment) a chat or an embeddings
// call used, with the flag that sets it.
func (j *Judge) modelOf(embeddings bool) string {
	azure := j.provider == ProviderAzure
	switch {
	case embeddings && azure:
		return fmt.Sprintf("embedding model %q (--azure-embedding-deployment)", j.embModel)
	case embeddings:
		return fmt.Sprintf("embedding model %q (--embedding-model)", j.embModel)
	case azure:
		return fmt.Sprintf("model %q (--azure-deployment)", j.chatModel)
	}
	return fmt.Sprintf("model %q (--model)", j.chatModel)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (j *Judge) azureHint() string {
	if j.provider == ProviderAzure {
		return " (Azure: the endpoint, deployment name and api-version)"
	}
	return ""
}

// mentions reports whether a 400 error is about request parameter name.
func mentions(param, msg, name string) bool {
	if param == name {
		return true
	}
	msg = strings.ToLower(msg)
	for _, q := range []string{"'", "\"", "`"} {
		if strings.Contains(msg, q+name+q) {
			return true
		}
	}
	if len(name) > 2 && strings.Contains(msg, name) {
		return true
	}
	return false
}

// valueWording recognises 400s about a parameter's value rather than the
// parameter itself.
var valueWording = regexp.MustCompile(`(?i)(too large|too small|too high|too low|exceeds|greater than|less than|at most|at least|maximum value|minimum value|must be (an? )?(integer|number|positive|between)|out of range|invalid value)`)

// unsupportedWording recognises 400s that say a parameter is not supported.
var unsupportedWording = regexp.MustCompile(`(?i)(unsupported|not supported|does not support|unrecognized|unknown (parameter|field|argument)|not allowed|not permitted|extra (inputs|fields) are not permitted|instead)`)

// valueProblem reports whether a 400 message is about a value (and does
// not also say that the parameter is unsupported).
func valueProblem(msg string) bool {
	return valueWording.MatchString(msg) && !unsupportedWording.MatchString(msg)
}

// mentionsN recognises the wordings of servers that refuse n > 1.
var mentionsN = regexp.MustCompile(`(?i)(['"\x60]n['"\x60]|\bn must be\b|\bn=1\b|\bn > 1\b|\bparameter n\b|\bbest_of\b)`)

// adapt reacts to a 400 that refuses an optional parameter the attempt sent:
// it drops the parameter (or downgrades the response format) for the rest
// of the run and reports true, so the attempt is repeated at once.
func (j *Judge) adapt(err error, s sent) bool {
	status, code, _, msg, param, _ := apiDetails(err)
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return false
	}
	if code == "context_length_exceeded" {
		return false
	}
	j.capsMu.Lock()
	defer j.capsMu.Unlock()
	c := &j.caps
	switch {
	case valueProblem(msg):
		// "max_completion_tokens is too large", "seed must be an integer":
		// the parameter is supported, its value is not. Dropping the
		// parameter for the rest of the run would be wrong.
		return false
	case s.maxCompletion && mentions(param, msg, "max_completion_tokens"):
		c.maxCompletion = false
		j.logf("judge: the endpoint refuses max_completion_tokens; sending max_tokens instead for the rest of the run")
	case s.format == formatSchema && (mentions(param, msg, "response_format") || mentions(param, msg, "json_schema")):
		if c.format == formatSchema {
			c.format = formatObject
			j.logf("judge: the endpoint does not support structured outputs (response_format json_schema); using json_object for the rest of the run (answers are still validated locally)")
		}
	case s.format == formatObject && (mentions(param, msg, "response_format") || mentions(param, msg, "json_object")):
		if c.format == formatObject {
			c.format = formatNone
			j.logf("judge: the endpoint does not support response_format; asking for JSON in the prompt only for the rest of the run")
		}
	case s.n > 1 && (param == "n" || mentionsN.MatchString(msg)):
		if c.n {
			c.n = false
			j.logf("judge: the endpoint refuses n > 1; asking one choice per call for the rest of the run")
		}
	case s.seed && mentions(param, msg, "seed"):
		if c.seed {
			c.seed = false
			j.logf("judge: the endpoint refuses seed; not sending it for the rest of the run")
		}
	case s.temperature && mentions(param, msg, "temperature"):
		if c.temperature {
			c.temperature = false
			j.logf("judge: the endpoint refuses temperature 0 (a reasoning model?); using the model's default temperature for the rest of the run")
		}
	default:
		return false
	}
	return true
}

// tryAgainIn finds "try again in 20s", "Please try again in 1.5s",
// "try again in 120ms", "Try again in 60 seconds" in error messages.
var tryAgainIn = regexp.MustCompile(`(?i)(?:try again|retry) in ([0-9]+(?:\.[0-9]+)?)\s*(ms|milliseconds?|s|secs?|seconds?)\b`)

// rateLimitWait returns how long a 429 asks to wait: retry-after-ms,
// then retry-after (seconds or an HTTP date), then the x-ratelimit-reset-*
// of the exhausted limit, then the message ("try again in 1.5s", "retry in
// 16s"), then the longest reset. ok is false when nothing says.
func rateLimitWait(h http.Header, msg string, now time.Time) (time.Duration, bool) {
	for _, k := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			if ms, err := strconv.ParseFloat(v, 64); err == nil {
				if d, ok := duration(ms, time.Millisecond); ok {
					return d, true
				}
			}
		}
	}
	if d, ok := retry.RetryAfter(h.Get("retry-after"), now); ok {
		return d, true
	}
	var exhausted, present []time.Duration
	for _, kind := range []string{"requests", "tokens"} {
		v := strings.TrimSpace(h.Get("x-ratelimit-reset-" + kind))
		if v == "" {
			continue
		}
		d, err := parseReset(v)
		if err != nil {
			continue
		}
		present = append(present, d)
		if strings.TrimSpace(h.Get("x-ratelimit-remaining-"+kind)) == "0" {
			exhausted = append(exhausted, d)
		}
	}
	if len(exhausted) > 0 {
		return maxOf(exhausted), true
	}
	// Nothing announced as exhausted: a request that asked for more tokens
	// than were left (remaining tokens above 0). The message says how long
	// to wait; else wait for the longest reset, not the shortest, which is
	// usually the requests window of a few milliseconds.
	if m := tryAgainIn.FindStringSubmatch(msg); m != nil {
		x, _ := strconv.ParseFloat(m[1], 64)
		unit := time.Second
		if strings.HasPrefix(strings.ToLower(m[2]), "m") {
			unit = time.Millisecond
		}
		return duration(x, unit)
	}
	if len(present) > 0 {
		return maxOf(present), true
	}
	return 0, false
}

// parseReset reads an x-ratelimit-reset-* value: a Go-style duration
// ("6m0s", "1s", "20ms", "1m30.5s") or plain seconds.
func parseReset(v string) (time.Duration, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return max(0, d), nil
	}
	s, err := strconv.ParseFloat(v, 64)
	d, ok := duration(s, time.Second)
	if err != nil || !ok {
		return 0, fmt.Errorf("bad reset %q", v)
	}
	return d, nil
}

// duration converts x units into a duration: false for negative, NaN or
// infinite values; a day at most.
func duration(x float64, unit time.Duration) (time.Duration, bool) {
	if math.IsNaN(x) || x < 0 {
		return 0, false
	}
	const most = 24 * time.Hour
	if x*float64(unit) >= float64(most) {
		return most, true
	}
	return time.Duration(x * float64(unit)), true
}

func maxOf(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds[1:] {
		m = max(m, d)
	}
	return m
}
