// Package redact removes configured secrets from text before it leaves the
// process. A Redactor knows the secrets of a run (API key, extra header
// values, GitHub token, the userinfo and query values of a base URL) and
// replaces every occurrence, in the forms a server or library may echo
// them (as is, URL-escaped, JSON-escaped, as HTTP basic credentials), by
// Mask. It is pure: no I/O, no dependencies beyond the standard library.
//
// Values shorter than MinLen are not treated as secrets: redacting "a" or
// "1" would mangle every message while protecting nothing a guess would
// not find.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strings"
	"sync"
)

// MinLen is the length (in bytes) from which a value is redacted.
const MinLen = 4

// Mask replaces a secret.
const Mask = "[REDACTED]"

// Redactor replaces secrets in text. The zero value and a nil *Redactor
// redact nothing. It is safe for concurrent use; Add may be called while
// other goroutines redact.
type Redactor struct {
	mu      sync.RWMutex
	secrets map[string]bool
	forms   *strings.Replacer
}

// New returns a Redactor for secrets (values shorter than MinLen are
// ignored).
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Secrets returns the values of vs that are long enough to be secrets,
// without repeats, in their first order.
func Secrets(vs ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vs {
		if len(v) >= MinLen && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Add registers more secrets.
func (r *Redactor) Add(secrets ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.secrets == nil {
		r.secrets = map[string]bool{}
	}
	changed := false
	for _, s := range Secrets(secrets...) {
		if !r.secrets[s] {
			r.secrets[s] = true
			changed = true
		}
	}
	if changed {
		r.forms = replacer(r.secrets)
	}
}

// replacer replaces every form of every secret, longest first so that a
// secret containing another is replaced whole.
func replacer(secrets map[string]bool) *strings.Replacer {
	forms := map[string]bool{}
	for s := range secrets {
		for _, f := range variants(s) {
			if len(f) >= MinLen {
				forms[f] = true
			}
		}
	}
	list := make([]string, 0, len(forms))
	for f := range forms {
		list = append(list, f)
	}
	sort.Slice(list, func(i, j int) bool {
		if len(list[i]) != len(list[j]) {
			return len(list[i]) > len(list[j])
		}
		return list[i] < list[j]
	})
	args := make([]string, 0, 2*len(list))
	for _, f := range list {
		args = append(args, f, Mask)
	}
	return strings.NewReplacer(args...)
}

// variants are the forms in which s may be echoed: as is, trimmed,
// URL-escaped (query and path, and fully percent-encoded with %20 for a
// space as encodeURIComponent does, in upper- and lower-case hex),
// JSON-escaped, and escaped as in a GitHub workflow command (an
// annotation's message).
func variants(s string) []string {
	q := url.QueryEscape(s)
	pct := strings.ReplaceAll(q, "+", "%20")
	out := []string{s, strings.TrimSpace(s), q, url.PathEscape(s), pct, lowerHex(pct), lowerHex(q),
		uriComponent.Replace(pct), workflowEscape.Replace(s)}
	if b, err := json.Marshal(s); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	return out
}

// uriComponent undoes the escapes of url.QueryEscape that
// encodeURIComponent does not make.
var uriComponent = strings.NewReplacer("%21", "!", "%27", "'", "%28", "(", "%29", ")", "%2A", "*")

// lowerHex writes the percent escapes of s in lower-case hex (%2f).
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for j := i + 1; j <= i+2; j++ {
				if b[j] >= 'A' && b[j] <= 'F' {
					b[j] += 'a' - 'A'
				}
			}
		}
	}
	return string(b)
}

// HeaderSecrets returns the parts of a header value that are credentials,
// each a secret of its own besides the whole value: the credential of an
// authorization scheme ("Bearer X", "token X", "Basic X" and its decoded
// password), and each value of a cookie-like list ("a=b; c=d").
func HeaderSecrets(value string) []string {
	v := strings.TrimSpace(value)
	out := []string{value, v}
	if scheme, cred, ok := strings.Cut(v, " "); ok && !strings.ContainsAny(scheme, "=;,") {
		cred = strings.TrimSpace(cred)
		out = append(out, cred)
		if strings.EqualFold(scheme, "basic") {
			if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
				user, pass, _ := strings.Cut(string(dec), ":")
				out = append(out, string(dec), user, pass)
			}
		}
	}
	if strings.Contains(v, "=") {
		for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == ',' }) {
			if _, val, ok := strings.Cut(part, "="); ok {
				out = append(out, strings.Trim(strings.TrimSpace(val), `"`))
			}
		}
	}
	return Secrets(out...)
}

var workflowEscape = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")

// String returns s with every secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	forms := r.forms
	r.mu.RUnlock()
	if forms == nil {
		return s
	}
	return forms.Replace(s)
}

// IsSecret reports whether v is one of the secrets (as given).
func (r *Redactor) IsSecret(v string) bool {
	if r == nil {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.secrets[v]
}

// Strings redacts every element of ss in place.
func (r *Redactor) Strings(ss []string) {
	for i, s := range ss {
		ss[i] = r.String(s)
	}
}

// Map redacts every value of m in place.
func (r *Redactor) Map(m map[string]string) {
	for k, v := range m {
		m[k] = r.String(v)
	}
}

// Error returns err with a redacted message; errors.Is and errors.As still
// see the original chain. It returns nil for nil.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &redacted{msg: msg, err: err}
}

type redacted struct {
	msg string
	err error
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// Writer returns a writer that redacts each Write before passing it on to
// w. A secret split across two Write calls is not recognised: callers
// write whole messages (one fmt.Fprintf per message), as the CLI does.
func (r *Redactor) Writer(w io.Writer) *Writer { return &Writer{r: r, W: w} }

// Writer is an io.Writer that redacts; W is the writer it wraps.
type Writer struct {
	r *Redactor
	W io.Writer
}

// Write implements io.Writer. It reports len(p) written when the redacted
// text was written whole.
func (w *Writer) Write(p []byte) (int, error) {
	s := w.r.String(string(p))
	if _, err := io.WriteString(w.W, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// URLCredentials returns the parts of a URL that are credentials: the
// user name and password of its userinfo (and their HTTP basic
// credentials), and the values of the query parameters whose names look
// secret (SecretName). The other query values are settings (?mode=fast)
// that also occur in ordinary text. It is the rule for a target's URL,
// whose query is the pipeline's; URLSecrets is the stricter one of the
// judge's endpoint.
func URLCredentials(raw string) []string { return urlSecrets(raw, SecretName) }

// secretWords are the parts of a parameter name that mark its value as a
// credential; secretNames are whole names that do.
var (
	secretWords = []string{"key", "token", "secret", "passw", "passwd", "pwd", "signature", "credential", "auth", "session", "cookie", "jwt", "bearer", "hmac"}
	secretNames = []string{"sig", "code", "pass", "sas"}
)

// SecretName reports whether a query parameter (or variable) name looks
// like it holds a credential: it contains key, token, secret, passw (pwd),
// signature, credential, auth (not author), session, cookie, jwt, bearer or
// hmac, or is sig, code, pass or sas, case and separators aside (api_key,
// X-Api-Key, accessToken, sig).
func SecretName(name string) bool {
	n := strings.ToLower(name)
	n = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, n)
	if n == "" {
		return false
	}
	for _, w := range secretNames {
		if n == w {
			return true
		}
	}
	for _, w := range secretWords {
		if i := strings.Index(n, w); i >= 0 {
			if w == "auth" && strings.HasPrefix(n[i:], "author") && !strings.HasPrefix(n[i:], "authoriz") {
				continue
			}
			return true
		}
	}
	return false
}

// splitURL returns the user name, password and query of a URL; one that
// does not parse is split by hand, so that its secrets are still found.
func splitURL(raw string) (user, pass, query string) {
	raw = strings.TrimSpace(raw)
	if u, err := url.Parse(raw); err == nil {
		if u.User != nil {
			user = u.User.Username()
			pass, _ = u.User.Password()
		}
		return user, pass, u.RawQuery
	}
	rest := raw
	if _, after, ok := strings.Cut(rest, "//"); ok {
		rest = after
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest, query = rest[:i], rest[i:]
		_, query, _ = strings.Cut(query, "?")
	}
	if info, _, ok := strings.Cut(rest, "@"); ok {
		user, pass, _ = strings.Cut(info, ":")
	}
	query, _, _ = strings.Cut(query, "#")
	return user, pass, query
}

// URLSecrets returns the secret parts of a URL: the user name and
// password of its userinfo (and their HTTP basic credentials), and the
// values of its query parameters. A URL that does not parse is split by
// hand, so that its secrets are still found.
func URLSecrets(raw string) []string {
	return urlSecrets(raw, func(string) bool { return true })
}

// urlSecrets returns the userinfo of a URL (and its HTTP basic
// credentials) and the values of the query parameters whose names secret
// accepts, as they are and unescaped.
func urlSecrets(raw string, secret func(name string) bool) []string {
	user, pass, query := splitURL(raw)
	var out []string
	if user != "" || pass != "" {
		out = append(out, user, pass, base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
	}
	// ";" separated parameters once and some servers still take it.
	for _, kv := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if !secret(k) {
			continue
		}
		out = append(out, v)
		if u, err := url.QueryUnescape(v); err == nil {
			out = append(out, u)
		}
	}
	return Secrets(out...)
}
