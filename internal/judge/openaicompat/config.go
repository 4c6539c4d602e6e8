package openaicompat

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// checkCredentials refuses an API key or extra header that HTTP cannot
// carry (a key pasted with its line break would otherwise fail every
// request as "unreachable"). Errors name the variable or header and the
// problem, never the value.
func checkCredentials(cfg Config) error {
	if p := headerValueProblem(cfg.APIKey); p != "" {
		return fmt.Errorf("judge: the API key in %s %s", orDefault(cfg.APIKeyEnv, DefaultAPIKeyEnv), p)
	}
	names := make([]string, 0, len(cfg.ExtraHeaders))
	for k := range cfg.ExtraHeaders {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if err := checkHeaderName(k); err != nil {
			return fmt.Errorf("judge: %w", err)
		}
		if p := headerValueProblem(cfg.ExtraHeaders[k]); p != "" {
			return fmt.Errorf("judge: the value of header %s %s", k, p)
		}
	}
	return nil
}

// headerValueProblem says what makes v unfit for an HTTP header value ("" when
// nothing does), with the fix.
func headerValueProblem(v string) string {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\n' || c == '\r':
			return "contains a newline: trim it (a secret pasted with a line break, or a key file written by echo, ends with one; e.g. printf '%s' \"$KEY\", or edit the secret)"
		case c < 0x20 && c != '\t' || c == 0x7f:
			return fmt.Sprintf("contains a control character (0x%02x): remove it", c)
		}
	}
	return ""
}

// checkHeaderName reports a name that is not an HTTP token. The name is
// shown: it is what comes before the separator, never the value.
func checkHeaderName(name string) error {
	if name == "" {
		return errors.New("an extra header has an empty header name")
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return fmt.Errorf("%q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only)", name)
		}
	}
	return nil
}

// isTokenChar reports whether c may appear in an HTTP header name
// (RFC 9110 token).
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// splitQuery separates a base URL from its query (dropping any fragment):
// go-openai appends the endpoint path to the base as a string, so the
// query is added to each request by the doer instead.
func splitQuery(raw string) (base, query string) {
	raw, _, _ = strings.Cut(raw, "#")
	base, query, _ = strings.Cut(raw, "?")
	return base, query
}

// displayURL is raw without userinfo and query, for messages: both may
// hold credentials.
func displayURL(raw string) string {
	base, _ := splitQuery(raw)
	scheme, rest, ok := strings.Cut(base, "//")
	if !ok {
		scheme, rest = "", base
	} else {
		scheme += "//"
	}
	host, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	return scheme + host + path
}
