package target

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/redact"
	"github.com/raggate/raggate/internal/yamlcheck"
)

// Config describes a target: the `target:` section of a target config
// file (--target-config), with the --target-* flags laid over it.
type Config struct {
	URL     string            `yaml:"url"`
	Method  string            `yaml:"method"`
	Headers map[string]string `yaml:"headers"`
	// Body is a JSON template: JSON text, or a YAML mapping or list.
	Body      any    `yaml:"body"`
	Command   string `yaml:"command"`
	PerSample bool   `yaml:"per_sample"`
	// Paths into the reply ("" = the default path, see DefaultPaths).
	Response   string `yaml:"response"`
	Contexts   string `yaml:"contexts"`
	ContextIDs string `yaml:"context_ids"`
	Usage      string `yaml:"usage"`
	// ID is the path of the request's id in the reply: when given (or,
	// for a command target, when the reply has an "id"), it must be the
	// sample's id.
	ID string `yaml:"id"`
	// Env names the environment variables a command target is given
	// although they hold the gate's own secrets (see cli's targetEnv).
	Env []string `yaml:"env"`
	// Concurrency, Timeout and Retries: 0 (or nil) = the default.
	Concurrency int           `yaml:"concurrency"`
	Timeout     time.Duration `yaml:"timeout"`
	Retries     *int          `yaml:"retries"`
}

// Defaults of Config.
const (
	DefaultConcurrency = 8
	DefaultTimeout     = 60 * time.Second
	DefaultRetries     = 2
)

// LoadConfig reads the target section of a YAML file.
func LoadConfig(path string) (Config, error) {
	data, err := inputfile.ReadFile(path, inputfile.ConfigLimit())
	if err != nil {
		return Config{}, fmt.Errorf("target config: %w", err)
	}
	return ParseConfig(path, data)
}

// ParseConfig parses a target config file: a mapping with one key,
// target. Unknown keys are errors with their line.
func ParseConfig(name string, data []byte) (Config, error) {
	var doc struct {
		Target *Config `yaml:"target"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return Config{}, configError(name, err)
	}
	if line, err := yamlcheck.ExtraDocument(dec); err != nil {
		return Config{}, configError(name, err)
	} else if line > 0 {
		return Config{}, fmt.Errorf("%s:%d: a second YAML document; a target config holds one (remove the \"---\" line and what follows, or merge it into the first)", name, line)
	}
	if doc.Target == nil {
		return Config{}, fmt.Errorf("%s: no target: section; write target: {url: http://localhost:8000/ask, body: {query: \"{{user_input}}\"}}", name)
	}
	if err := zeroSettings(name, data); err != nil {
		return Config{}, err
	}
	return *doc.Target, nil
}

// zeroSettings refuses a concurrency or timeout written as 0: in Config,
// 0 means "not given" (the default), which is not what the file says.
func zeroSettings(name string, data []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil // the strict decode reported it
	}
	target := mapValue(doc.Content[0], "target")
	if target == nil {
		return nil
	}
	var msgs []string
	for _, f := range []struct{ key, want string }{
		{"concurrency", "want 1 to 1000 calls in flight (leave the key out for the default, 8)"},
		{"timeout", "want more than 0 and at most 1h (leave the key out for the default, 60s)"},
	} {
		v := mapValue(target, f.key)
		if v == nil {
			continue
		}
		if d, err := time.ParseDuration(v.Value); (err == nil && d == 0) || v.Value == "0" {
			msgs = append(msgs, fmt.Sprintf("%s:%d: %s %s: %s", name, v.Line, f.key, v.Value, f.want))
		}
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// mapValue returns the value of key in a YAML mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

var unknownKey = regexp.MustCompile(`^line (\d+): field (\S+) not found in type`)

// configKeys are the keys of the target section, for messages.
const configKeys = "url, method, headers, body, command, per_sample, env, response, contexts, context_ids, usage, id, concurrency, timeout, retries"

// configError words a YAML error as file:line: problem.
func configError(name string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %s (see Targets in README.md)", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	msgs := make([]string, len(te.Errors))
	for i, e := range te.Errors {
		if m := unknownKey.FindStringSubmatch(e); m != nil {
			msgs[i] = fmt.Sprintf("%s:%s: unknown key %q in target (keys: %s)", name, m[1], m[2], configKeys)
			continue
		}
		line, rest, _ := strings.Cut(strings.TrimPrefix(e, "line "), ": ")
		msgs[i] = fmt.Sprintf("%s:%s: %s", name, line, rest)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// Built is a target ready to call, with the options of its run.
type Built struct {
	Target  Target
	Options Options
	// Secrets are the expanded header values and the URL's credentials,
	// to keep out of logs.
	Secrets []string
	// Fields are the sample fields and columns the requests read.
	Fields []string
	// ContextIDsPath is true when the reply's context ids have a
	// configured path.
	ContextIDsPath bool
}

var headerName = regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$")

// validHeaderValue reports whether v can be sent as a header value: no
// control character but the tab (RFC 9110 field-value).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Build checks c and makes its target. getenv expands ${VAR} in header
// values; dir is the working directory of a command target. Every problem
// is reported at once.
func Build(c Config, getenv func(string) string, dir string) (*Built, error) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	b := &Built{Options: Options{Concurrency: c.Concurrency, Timeout: c.Timeout, Retries: DefaultRetries}}
	b.check(c, bad)
	body, err := c.body()
	if err != nil {
		bad("%v", err)
	}
	paths, perr := c.paths()
	if perr != nil {
		bad("%v", perr)
	}
	header := http.Header{}
	for k, v := range c.Headers {
		if !headerName.MatchString(k) {
			bad("header name %q: letters, digits and !#$%%&'*+-.^_`|~ only, such as X-Api-Key", k)
		}
		v = envRef.ReplaceAllStringFunc(v, func(m string) string {
			name := envRef.FindStringSubmatch(m)[1]
			val := getenv(name)
			if val == "" {
				bad("header %s: $%s is not set (set it in the step's env, from a secret)", k, name)
			}
			return val
		})
		if !validHeaderValue(v) {
			// The value is not shown: it is usually a secret.
			bad("header %s: the value holds a line break or another control character (a trailing newline from a secret file?); remove it", k)
		}
		header.Set(k, v)
		b.Secrets = append(b.Secrets, v)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("target: %s", strings.Join(problems, "; "))
	}
	b.Secrets = append(b.Secrets, redact.URLCredentials(c.URL)...)
	b.Fields = append(body.Names(), Placeholders(c.URL)...)
	b.ContextIDsPath = c.ContextIDs != ""
	if c.URL != "" {
		b.Target = &HTTP{URL: c.URL, Method: strings.ToUpper(c.Method), Header: header, Body: body, Paths: paths, Client: NewClient(b.Options.Concurrency)}
	} else {
		b.Target = &Command{Line: c.Command, Dir: dir, Body: body, Paths: paths, PerSample: c.PerSample, Processes: b.Options.Concurrency}
	}
	return b, nil
}

// check validates the settings and fills the defaults of b.Options.
func (b *Built) check(c Config, bad func(string, ...any)) {
	switch {
	case c.URL == "" && c.Command == "":
		bad("give a URL (--target, url:) or a command (--target-cmd, command:)")
	case c.URL != "" && c.Command != "":
		bad("give a URL or a command, not both")
	case c.URL != "":
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("URL %q: want http://host[:port]/path or https://...", c.URL)
		}
		if c.PerSample {
			bad("per_sample (--target-per-sample) applies to a command target")
		}
	}
	switch strings.ToUpper(c.Method) {
	case "", "POST", "PUT", "PATCH", "GET":
	default:
		bad("method %q: want POST, PUT, PATCH or GET", c.Method)
	}
	if b.Options.Concurrency == 0 {
		b.Options.Concurrency = DefaultConcurrency
	}
	if b.Options.Concurrency < 1 || b.Options.Concurrency > 1000 {
		bad("concurrency %d: want 1 to 1000", c.Concurrency)
	}
	if b.Options.Timeout == 0 {
		b.Options.Timeout = DefaultTimeout
	}
	if b.Options.Timeout < 0 || b.Options.Timeout > time.Hour {
		bad("timeout %s: want more than 0 and at most 1h", c.Timeout)
	}
	if c.Retries != nil {
		b.Options.Retries = *c.Retries
		if *c.Retries < 0 || *c.Retries > 20 {
			bad("retries %d: want 0 to 20", *c.Retries)
		}
	}
}

// body returns the request template: the configured one, else
// DefaultBody.
func (c Config) body() (*Template, error) {
	switch v := c.Body.(type) {
	case nil:
		return ParseTemplate(DefaultBody)
	case string:
		return ParseTemplate(v)
	default:
		j, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("body: %v", err)
		}
		return ParseTemplate(string(j))
	}
}

// paths returns the reply paths: the defaults, with the given ones
// replacing them (and made strict).
func (c Config) paths() (Paths, error) {
	ps := DefaultPaths()
	ps.Strict = map[string]bool{}
	for _, f := range []struct {
		name, text string
		dst        *Path
	}{{"response", c.Response, &ps.Response}, {"contexts", c.Contexts, &ps.Contexts}, {"context_ids", c.ContextIDs, &ps.ContextIDs}, {"usage", c.Usage, &ps.Usage}, {"id", c.ID, &ps.ID}} {
		if f.text == "" {
			continue
		}
		p, err := ParsePath(f.text)
		if err != nil {
			return Paths{}, fmt.Errorf("%s: %v", f.name, err)
		}
		if p.Multi() && (f.name == "response" || f.name == "usage" || f.name == "id") {
			return Paths{}, fmt.Errorf("%s path %q selects a list ([*]); the %s is one value: pick one with an index such as [0]", f.name, f.text, f.name)
		}
		*f.dst = p
		ps.Strict[f.name] = true
	}
	return ps, nil
}
