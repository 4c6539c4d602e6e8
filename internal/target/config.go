package target

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
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

	// File is the config file's name and Lines the lines of its keys
	// ("url", "headers.NAME"), for messages: a problem with a value the
	// file gave is said at its line. A value a flag replaced has no line
	// (see ForgetLine). Nil when the config is not from a file.
	File  string         `yaml:"-"`
	Lines map[string]int `yaml:"-"`
	// HeaderFrom says where each header was given, for messages
	// ("--target-header", "t.yaml:4"); a header without one is named
	// alone.
	HeaderFrom map[string]string `yaml:"-"`
}

// ForgetLine drops the line of key, whose value no longer comes from the
// file (a flag replaced it).
func (c *Config) ForgetLine(key string) { delete(c.Lines, key) }

// at is where the value of key came from, "file:line: ", or "" when it
// did not come from the file.
func (c *Config) at(key string) string {
	if line := c.Lines[key]; line > 0 && c.File != "" {
		return fmt.Sprintf("%s:%d: ", c.File, line)
	}
	return ""
}

// Defaults of Config.
const (
	DefaultConcurrency = 8
	DefaultTimeout     = 60 * time.Second
	DefaultRetries     = 2
	// MinTimeout is the shortest timeout of a call: below it no pipeline
	// answers, and every call would fail as timed out.
	MinTimeout = 10 * time.Millisecond
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
// target. Every problem is reported with its line, in the file's terms (a
// UTF-8 byte order mark and a %YAML directive are read past).
func ParseConfig(name string, data []byte) (Config, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	data = yamlDirective.ReplaceAll(data, []byte("#$1"))
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, fmt.Errorf("%s: is empty: want a target: section such as target: {url: http://localhost:8000/ask, body: {query: \"{{user_input}}\"}}", name)
		}
		return Config{}, configError(name, err)
	}
	if line, err := yamlcheck.ExtraDocument(dec); err != nil {
		return Config{}, configError(name, err)
	} else if line > 0 {
		return Config{}, fmt.Errorf("%s:%d: a second YAML document; a target config holds one (remove the \"---\" line and what follows, or merge it into the first)", name, line)
	}
	if len(doc.Content) == 0 || yamlcheck.IsNull(doc.Content[0]) {
		return Config{}, fmt.Errorf("%s: is empty: want a target: section such as target: {url: http://localhost:8000/ask, body: {query: \"{{user_input}}\"}}", name)
	}
	var msgs []string
	bad := func(n *yaml.Node, format string, args ...any) {
		msgs = append(msgs, fmt.Sprintf("%s:%d: %s", name, n.Line, fmt.Sprintf(format, args...)))
	}
	root := yamlcheck.Deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		bad(root, "want a mapping with one key, target:, got %s", yamlcheck.Describe(root))
		return Config{}, errors.New(strings.Join(msgs, "; "))
	}
	var target *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k, v := root.Content[i], root.Content[i+1]; k.Value == "target" {
			target = yamlcheck.Deref(v)
		}
	}
	// Beside target:, a top-level key may only define an anchor that the
	// target section uses (defaults: &defaults {...}, then <<: *defaults).
	used := map[*yaml.Node]bool{}
	if target != nil {
		aliased(target, used, 0)
		// An anchor used through another (target: {<<: *mid}, mid: &mid
		// {<<: *base}) is used too.
		for walked := map[*yaml.Node]bool{}; len(walked) < len(used); {
			for n := range used {
				if !walked[n] {
					walked[n] = true
					aliased(n, used, 0)
				}
			}
		}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "target" && !(v.Anchor != "" && used[v]) {
			bad(k, "unknown key %q at the top level: a target config has one key, target: (a top-level key may only hold an anchor the target section uses, such as defaults: &defaults {timeout: 30s} with <<: *defaults in target:)", k.Value)
		}
	}
	if target == nil && len(msgs) == 0 {
		return Config{}, fmt.Errorf("%s: no target: section; write target: {url: http://localhost:8000/ask, body: {query: \"{{user_input}}\"}}", name)
	}
	if target != nil {
		if target.Kind != yaml.MappingNode {
			bad(target, "target: want a mapping of settings (url: or command:, headers:, body:, ...), got %s", yamlcheck.Describe(target))
		} else {
			target = merged(target, bad)
			checkTarget(target, bad)
		}
	}
	if len(msgs) > 0 {
		return Config{}, errors.New(strings.Join(msgs, "; "))
	}
	var c Config
	if err := target.Decode(&c); err != nil {
		return Config{}, configError(name, err)
	}
	c.File, c.Lines = name, map[string]int{}
	checked := func(*yaml.Node, string, ...any) {} // by checkTarget
	for i := 0; i+1 < len(target.Content); i += 2 {
		k, v := target.Content[i], yamlcheck.Deref(target.Content[i+1])
		c.Lines[k.Value] = k.Line
		switch {
		case k.Value == "headers" && v.Kind == yaml.MappingNode:
			v = merged(v, checked)
			for j := 0; j+1 < len(v.Content); j += 2 {
				c.Lines["headers."+v.Content[j].Value] = v.Content[j].Line
			}
		case k.Value == "body":
			// The body as JSON values, its mappings merged (checked
			// by checkTarget).
			c.Body = bodyValue(v, checked)
		}
	}
	return c, nil
}

// maxNesting bounds the depth of merges and of a body's values.
const maxNesting = 64

// merged returns mapping n with its merge keys (<<: *defaults, or a list
// of aliases) resolved as YAML 1.1 has them: the mapping's own keys
// first, then those of the merged mappings it lacks (an earlier one in a
// list wins). The keys keep their nodes, so their lines are where they
// are written. A merge of anything but mappings is reported with bad.
func merged(n *yaml.Node, bad func(*yaml.Node, string, ...any)) *yaml.Node {
	out := *n
	left := maxExpanded
	out.Content = mergedPairs(n, 0, &left, bad)
	return &out
}

// maxExpanded bounds the nodes a merge or a body expands to: aliases of
// aliases grow exponentially (a "billion laughs" file of a few hundred
// bytes), and a target config has no use for thousands of values.
const maxExpanded = 10000

// spend takes one node from the budget left, reporting with bad, once,
// when it runs out.
func spend(n *yaml.Node, left *int, what string, bad func(*yaml.Node, string, ...any)) bool {
	*left--
	if *left == -1 {
		bad(n, "%s expands to more than %d values (aliases of aliases?): write it out, or alias each value once", what, maxExpanded)
	}
	return *left >= 0
}

func mergedPairs(n *yaml.Node, depth int, left *int, bad func(*yaml.Node, string, ...any)) []*yaml.Node {
	if depth > maxNesting {
		bad(n, "merge keys (<<) nested more than %d deep", maxNesting)
		return nil
	}
	if !spend(n, left, "a merge (<<)", bad) {
		return nil
	}
	var own, from []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!merge" {
			own = append(own, k, v)
			continue
		}
		d := yamlcheck.Deref(v)
		var maps []*yaml.Node
		switch d.Kind {
		case yaml.MappingNode:
			maps = []*yaml.Node{d}
		case yaml.SequenceNode:
			for _, e := range d.Content {
				maps = append(maps, yamlcheck.Deref(e))
			}
		}
		ok := len(maps) > 0
		for _, m := range maps {
			ok = ok && m.Kind == yaml.MappingNode
		}
		if !ok {
			bad(v, "<<: want an alias of a mapping such as <<: *defaults, or a list of them, got %s", yamlcheck.Describe(d))
			continue
		}
		for _, m := range maps {
			from = append(from, mergedPairs(m, depth+1, left, bad)...)
		}
	}
	have := map[string]bool{}
	for i := 0; i < len(own); i += 2 {
		have[own[i].Value] = true
	}
	for i := 0; i+1 < len(from); i += 2 {
		if !have[from[i].Value] {
			have[from[i].Value] = true
			own = append(own, from[i], from[i+1])
		}
	}
	return own
}

// aliased records the nodes that aliases under n name.
func aliased(n *yaml.Node, used map[*yaml.Node]bool, depth int) {
	if n == nil || depth > maxNesting {
		return
	}
	if n.Kind == yaml.AliasNode {
		used[n.Alias] = true
		return
	}
	for _, c := range n.Content {
		aliased(c, used, depth+1)
	}
}

// bodyValue is the body: of the file as a JSON value: JSON text (a
// string) as it is, a mapping or list with its merge keys resolved. What
// JSON cannot hold (a mapping key that is not text, .inf) is reported
// with bad at its line.
func bodyValue(n *yaml.Node, bad func(*yaml.Node, string, ...any)) any {
	left := maxExpanded
	return bodyValueOf(n, 0, &left, bad)
}

func bodyValueOf(n *yaml.Node, depth int, left *int, bad func(*yaml.Node, string, ...any)) any {
	n = yamlcheck.Deref(n)
	if depth > maxNesting {
		bad(n, "body: nested more than %d deep", maxNesting)
		return nil
	}
	if !spend(n, left, "body", bad) {
		return nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		pairs := mergedPairs(n, 0, left, bad)
		for i := 0; i+1 < len(pairs); i += 2 {
			k := yamlcheck.Deref(pairs[i])
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				bad(k, "body: the key %s is not text; JSON keys are text: quote it (\"%s\": ...)", yamlcheck.Describe(k), k.Value)
				continue
			}
			m[k.Value] = bodyValueOf(pairs[i+1], depth+1, left, bad)
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			l = append(l, bodyValueOf(e, depth+1, left, bad))
		}
		return l
	}
	var v any
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool", "!!int":
		if n.Decode(&v) == nil {
			return v
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
		bad(n, "body: %s is not a JSON number", n.Value)
		return nil
	}
	// Text, and what YAML reads as a date or binary: as written.
	return n.Value
}

// yamlDirective is a %YAML line: go-yaml refuses "%YAML 1.2", whose
// differences do not touch a target config; it is read as a comment.
var yamlDirective = regexp.MustCompile(`(?m)^(%YAML[ \t][^\r\n]*)`)

// checkTarget checks the keys and the kinds of the values of the target
// section, reporting each problem at its line.
func checkTarget(target *yaml.Node, bad func(*yaml.Node, string, ...any)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(target.Content); i += 2 {
		k, v := target.Content[i], yamlcheck.Deref(target.Content[i+1])
		if prev, dup := seen[k.Value]; dup {
			bad(k, "duplicate key %q in target (first at line %d)", k.Value, prev)
			continue
		}
		seen[k.Value] = k.Line
		switch k.Value {
		case "url", "method", "command", "response", "contexts", "context_ids", "usage", "id":
			if v.Kind != yaml.ScalarNode {
				bad(v, "%s: want text, got %s", k.Value, yamlcheck.Describe(v))
			}
		case "body":
			switch {
			case v.Kind == yaml.ScalarNode && v.ShortTag() != "!!str" && !yamlcheck.IsNull(v):
				bad(v, "body: want a mapping such as {query: \"{{user_input}}\"}, or JSON text, got %s", yamlcheck.Describe(v))
			case v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode:
				bodyValue(v, bad)
			}
		case "headers":
			if yamlcheck.IsNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				bad(v, "headers: want a mapping of NAME: value, such as {Authorization: \"Bearer ${RAG_TOKEN}\"}, got %s", yamlcheck.Describe(v))
				continue
			}
			v = merged(v, bad)
			names := map[string]*yaml.Node{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				hk, hv := v.Content[j], yamlcheck.Deref(v.Content[j+1])
				if hk.Kind != yaml.ScalarNode || hv.Kind != yaml.ScalarNode || yamlcheck.IsNull(hv) {
					bad(hk, "headers: want a mapping of NAME: value (text), such as {Authorization: \"Bearer ${RAG_TOKEN}\"}")
					continue
				}
				// Header names are case-insensitive: X-Team and x-team are
				// one header, and only one of the values would be sent.
				if prev, dup := names[strings.ToLower(hk.Value)]; dup {
					bad(hk, "headers: %s is the header %s of line %d (names are case-insensitive); keep one", hk.Value, prev.Value, prev.Line)
					continue
				}
				names[strings.ToLower(hk.Value)] = hk
			}
		case "per_sample":
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!bool" {
				bad(v, "per_sample: want true or false, got %s", yamlcheck.Describe(v))
			}
		case "env":
			ok := v.Kind == yaml.SequenceNode
			for _, e := range v.Content {
				ok = ok && yamlcheck.Deref(e).Kind == yaml.ScalarNode
			}
			if !ok && !yamlcheck.IsNull(v) {
				bad(v, "env: want a list of variable names such as [OPENAI_API_KEY], got %s", yamlcheck.Describe(v))
				continue
			}
			for _, e := range v.Content {
				if e = yamlcheck.Deref(e); !EnvName.MatchString(e.Value) {
					bad(e, "env: %q is not a variable name: want a name such as OPENAI_API_KEY", e.Value)
				}
			}
		case "concurrency":
			wholeNumber(v, "concurrency", 1, 1000, "calls in flight (leave the key out for the default, 8)", bad)
		case "retries":
			wholeNumber(v, "retries", 0, 20, "retries of a failed call (leave the key out for the default, 2)", bad)
		case "timeout":
			d, err := time.ParseDuration(v.Value)
			switch {
			case v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || err != nil:
				bad(v, "timeout: want a duration such as 30s or 2m, got %s", yamlcheck.Describe(v))
			case d < MinTimeout || d > time.Hour:
				bad(v, "timeout %s: want %s to 1h (leave the key out for the default, 60s)", v.Value, MinTimeout)
			}
		default:
			bad(k, "unknown key %q in target (keys: %s)", k.Value, configKeys)
		}
	}
}

// configKeys are the keys of the target section, for messages.
const configKeys = "url, method, headers, body, command, per_sample, env, response, contexts, context_ids, usage, id, concurrency, timeout, retries"

// configError words a YAML syntax error as file:line: problem.
func configError(name string, err error) error {
	p := yamlcheck.YAMLProblem(err)
	if p.Line > 0 {
		return fmt.Errorf("%s:%d: %s (see docs/targets.md)", name, p.Line, p.Msg)
	}
	return fmt.Errorf("%s: %s (see docs/targets.md)", name, p.Msg)
}

// wholeNumber checks an integer setting between lo and hi.
func wholeNumber(v *yaml.Node, key string, lo, hi int, what string, bad func(*yaml.Node, string, ...any)) {
	var n int
	if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(&n) != nil {
		bad(v, "%s: want a whole number %d to %d, got %s", key, lo, hi, yamlcheck.Describe(v))
		return
	}
	if n < lo || n > hi {
		bad(v, "%s: want a whole number %d to %d, %s; got %d", key, lo, hi, what, n)
	}
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

// EnvName is the form of an environment variable's name.
var EnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

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

// EnvRefs returns the names of the variables v expands (${NAME}), in
// order.
func EnvRefs(v string) []string {
	var out []string
	for _, m := range envRef.FindAllStringSubmatch(v, -1) {
		out = append(out, m[1])
	}
	return out
}

// Build checks c and makes its target. getenv expands ${VAR} in header
// values; dir is the working directory of a command target. Every problem
// is reported at once; one with a value of the config file at its line.
func Build(c Config, getenv func(string) string, dir string) (*Built, error) {
	var problems []string
	said := false // "target: " before the first problem not in the file
	// bad reports a problem with the value of key (a key of the file, or "").
	bad := func(key, format string, args ...any) {
		at := c.at(key)
		if at == "" && !said {
			at, said = "target: ", true
		}
		problems = append(problems, at+fmt.Sprintf(format, args...))
	}
	b := &Built{Options: Options{Concurrency: c.Concurrency, Timeout: c.Timeout, Retries: DefaultRetries}}
	b.check(c, bad)
	body, err := c.body()
	if err != nil {
		bad("body", "%v", err)
	}
	paths, perr := c.checkPaths(bad)
	header := http.Header{}
	for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
		v, key := c.Headers[k], "headers."+k
		// Named where it was given: a file's header at its line (bad),
		// a flag's by the flag ("--target-header X-A").
		what := "header"
		if from := c.HeaderFrom[k]; strings.HasPrefix(from, "--") {
			what = from
		}
		if !headerName.MatchString(k) {
			bad(key, "%s name %q: letters, digits and !#$%%&'*+-.^_`|~ only, such as X-Api-Key", what, k)
		}
		if strings.EqualFold(k, "Host") {
			bad(key, "%s %s: the host comes from the URL; give it there (url:, --target) instead of a Host header", what, k)
			continue
		}
		v = envRef.ReplaceAllStringFunc(v, func(m string) string {
			ref := envRef.FindStringSubmatch(m)[1]
			val := getenv(ref)
			if val == "" {
				bad(key, "%s %s: $%s is not set (set it in the step's env, from a secret)", what, k, ref)
			}
			// What a variable holds is a secret of its own, wherever
			// in the value it stands.
			b.Secrets = append(b.Secrets, val, strings.TrimSpace(val))
			return val
		})
		if !validHeaderValue(v) {
			// The value is not shown: it is usually a secret.
			bad(key, "%s %s: the value holds a line break or another control character (a trailing newline from a secret file?); remove it", what, k)
		}
		header.Set(k, v)
		// The whole value, and its credential parts (Bearer X, cookie
		// values).
		b.Secrets = append(b.Secrets, redact.HeaderSecrets(v)...)
	}
	if len(problems) > 0 || perr {
		return nil, errors.New(strings.Join(problems, "; "))
	}
	b.Secrets = redact.Secrets(append(b.Secrets, redact.URLCredentials(c.URL)...)...)
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
func (b *Built) check(c Config, bad func(key, format string, args ...any)) {
	switch {
	case c.URL == "" && c.Command == "":
		bad("", "give a URL (--target, url:) or a command (--target-cmd, command:)")
	case c.URL != "" && c.Command != "":
		bad("command", "give a URL or a command, not both")
	case c.URL != "":
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("url", "URL %q: want http://host[:port]/path or https://...", c.URL)
		}
		if c.PerSample {
			bad("per_sample", "per_sample (--target-per-sample) applies to a command target")
		}
	}
	switch strings.ToUpper(c.Method) {
	case "", "POST", "PUT", "PATCH":
	case "GET":
		if c.Body != nil {
			// A GET sends no body: the questions would not reach the
			// pipeline.
			bad("body", "method GET sends no body: put the placeholders in the URL (?q={{user_input}}) and leave out body: (--target-body), or use POST")
		}
	default:
		bad("method", "method %q: want POST, PUT, PATCH or GET", c.Method)
	}
	if b.Options.Concurrency == 0 {
		b.Options.Concurrency = DefaultConcurrency
	}
	if b.Options.Concurrency < 1 || b.Options.Concurrency > 1000 {
		bad("concurrency", "concurrency %d: want 1 to 1000", c.Concurrency)
	}
	if b.Options.Timeout == 0 {
		b.Options.Timeout = DefaultTimeout
	}
	if b.Options.Timeout < MinTimeout || b.Options.Timeout > time.Hour {
		bad("timeout", "timeout %s: want %s to 1h", c.Timeout, MinTimeout)
	}
	if c.Retries != nil {
		b.Options.Retries = *c.Retries
		if *c.Retries < 0 || *c.Retries > 20 {
			bad("retries", "retries %d: want 0 to 20", *c.Retries)
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
	var msgs []string
	ps, failed := c.checkPaths(func(_, format string, args ...any) { msgs = append(msgs, fmt.Sprintf(format, args...)) })
	if failed {
		return Paths{}, errors.New(strings.Join(msgs, "; "))
	}
	return ps, nil
}

// checkPaths is paths reporting each bad path with bad; failed says
// whether there was one.
func (c Config) checkPaths(bad func(key, format string, args ...any)) (ps Paths, failed bool) {
	ps = DefaultPaths()
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
			bad(f.name, "%s: %v", f.name, err)
			failed = true
			continue
		}
		if p.Multi() && (f.name == "response" || f.name == "usage" || f.name == "id") {
			bad(f.name, "%s path %q selects a list ([*]); the %s is one value: pick one with an index such as [0]", f.name, f.text, f.name)
			failed = true
			continue
		}
		*f.dst = p
		ps.Strict[f.name] = true
	}
	return ps, failed
}
