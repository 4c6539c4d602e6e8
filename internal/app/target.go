package app

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/internal/eval"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/suggest"
	"github.com/raggate/raggate/internal/target"
	"github.com/raggate/raggate/metrics"
)

// The metadata columns a target call adds to its sample, read by the
// target metrics (targetDefinitions) and written to --save-responses.
const (
	colLatency          = "target_latency_ms"
	colTokens           = "target_tokens"
	colPromptTokens     = "target_prompt_tokens"
	colCompletionTokens = "target_completion_tokens"
	colTargetError      = "target_error"
)

// TargetConfig is the pipeline a run calls instead of reading its
// responses (flags --target-*, action inputs target and target-config).
// The numeric settings are nil when not given, so that a setting
// overrides the config file and a 0 given is refused.
type TargetConfig struct {
	URL, Cmd, Config     string
	PerSample            bool
	Method, Body         string
	Headers              []string // NAME=VALUE, ${VAR} expanded
	Response, Contexts   string
	ContextIDs, Usage    string
	ID                   string
	Concurrency, Retries *int
	Timeout              *time.Duration
	SaveResponses        string
	MaxFailures          float64
	// Env names variables a command target is given although they hold
	// the gate's secrets (--target-env; added to the file's env:).
	Env []string
	// NoConfigCommand refuses a command: from the config file (the
	// action, unless allow-command-target: the file is the checkout's).
	NoConfigCommand bool
}

// Configured reports whether a target is set.
func (t *TargetConfig) Configured() bool { return t.URL != "" || t.Cmd != "" || t.Config != "" }

func (t *TargetConfig) configured() bool { return t.Configured() }

// targetConfig is the target's configuration: the config file's target
// section with the flags laid over it.
func (o *runState) targetConfig(env Env) (target.Config, error) {
	t := &o.Target
	var c target.Config
	if t.Config != "" {
		var err error
		if c, err = target.LoadConfig(env.abs(t.Config)); err != nil {
			return c, InputErr("--target-config", err)
		}
	}
	// The file's headers, each named by its line; a --target-header
	// replaces the file's header of the same name, whatever its case.
	fileHeaders := c.Headers
	c.Headers = map[string]string{}
	c.HeaderFrom = map[string]string{}
	for k, v := range fileHeaders {
		c.Headers[k] = v
		c.HeaderFrom[k] = t.Config
		if line := c.Lines["headers."+k]; line > 0 {
			c.HeaderFrom[k] = fmt.Sprintf("%s:%d", t.Config, line)
		}
	}
	// A value a flag gives replaces the file's, and a problem with it is
	// the flag's, not said at the file's line.
	over := func(dst *string, v, key string) {
		if v != "" {
			*dst = v
			c.ForgetLine(key)
		}
	}
	// A URL or command given replaces the file's, whichever kind it is.
	if t.URL != "" || t.Cmd != "" {
		c.ForgetLine("url")
		c.ForgetLine("command")
	}
	if t.URL != "" {
		c.URL, c.Command = t.URL, ""
	}
	if t.Cmd != "" {
		c.Command, c.URL = t.Cmd, ""
	}
	over(&c.Method, t.Method, "method")
	over(&c.Response, t.Response, "response")
	over(&c.Contexts, t.Contexts, "contexts")
	over(&c.ContextIDs, t.ContextIDs, "context_ids")
	over(&c.Usage, t.Usage, "usage")
	over(&c.ID, t.ID, "id")
	if t.Body != "" {
		c.Body = t.Body
		c.ForgetLine("body")
	}
	if t.PerSample && !c.PerSample {
		c.PerSample = true
		c.ForgetLine("per_sample")
	}
	for _, kv := range t.Headers {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		for fk := range c.Headers {
			if strings.EqualFold(fk, k) {
				delete(c.Headers, fk)
				delete(c.HeaderFrom, fk)
			}
		}
		c.Headers[k] = v
		c.HeaderFrom[k] = "--target-header"
		c.ForgetLine("headers." + k)
	}
	if t.Concurrency != nil {
		c.Concurrency = *t.Concurrency
		c.ForgetLine("concurrency")
	}
	if t.Timeout != nil {
		c.Timeout = *t.Timeout
		c.ForgetLine("timeout")
	}
	if t.Retries != nil {
		r := *t.Retries
		c.Retries = &r
		c.ForgetLine("retries")
	}
	if err := o.checkFileExpansions(env, fileHeaders, c); err != nil {
		return c, err
	}
	c.Env = append(c.Env, t.Env...)
	return c, nil
}

// checkFileExpansions refuses a header of the target config file (one the
// flags do not replace) that expands one of the gate's own secrets (the
// judge key's variable, GITHUB_TOKEN, GH_TOKEN, ACTIONS_*, INPUT_*, a
// variable holding a configured secret) that the command line does not
// grant by name (--target-env; the action's target-env input). The file
// may come from the pull request under review, so its own env: grants
// nothing here: a URL target needs no opt-in, and would otherwise send
// the runner's tokens to any host the pull request names.
func (o *runState) checkFileExpansions(env Env, fileHeaders map[string]string, c target.Config) error {
	t := &o.Target
	var msgs []string
	for _, k := range slices.Sorted(maps.Keys(fileHeaders)) {
		at, ok := c.HeaderFrom[k]
		if !ok || at == "--target-header" {
			continue // replaced by --target-header
		}
		for _, name := range target.EnvRefs(fileHeaders[k]) {
			if slices.Contains(t.Env, name) || !o.gateOwnSecret(env, name, env.getenv(name)) {
				continue
			}
			msgs = append(msgs, fmt.Sprintf("%s: header %s expands ${%s}, a secret of the gate itself (the judge key, the GitHub token, the runner's ACTIONS_* and INPUT_* variables): "+
				"the file may come from the pull request under review, so it cannot send it to a target on its own (its env: does not grant it); "+
				"if the pipeline needs it, grant it by name where the workflow decides: --target-env %s (the action's input target-env: %s), or put the value in a variable of its own",
				at, k, name, name, name))
		}
	}
	if len(msgs) > 0 {
		return usageErr("%s", strings.Join(msgs, "; "))
	}
	return nil
}

// buildTarget reads and checks the target's configuration, before the
// dataset: a bad one is exit 2 with nothing called.
func (o *runState) buildTarget(env Env) error {
	if !o.Target.configured() || o.target != nil {
		return nil
	}
	c, err := o.targetConfig(env)
	if err != nil {
		return asUsage(err)
	}
	if o.Target.NoConfigCommand && c.Command != "" && o.Target.Cmd == "" {
		at := o.Target.Config
		if line := c.Lines["command"]; line > 0 {
			at = fmt.Sprintf("%s:%d: the file", at, line)
		}
		return usageErr("%s has a command: target, which the action runs only with the input allow-command-target: true: "+
			"the file comes from the checkout, so a pull request could run any program with the step's environment (README Security); "+
			"call the pipeline at a URL, or give the command in the target input", at)
	}
	if err := checkEnvNames(c.Env); err != nil {
		return err
	}
	b, err := target.Build(c, env.getenv, env.Dir)
	if err != nil {
		return asUsage(err)
	}
	if cmd, ok := b.Target.(*target.Command); ok {
		cmd.Env = o.targetEnviron(env, c.Env)
	}
	env.protect(b.Secrets...)
	o.target = b
	return nil
}

// checkEnvNames refuses names that cannot be environment variables.
func checkEnvNames(names []string) error {
	for _, n := range names {
		if !target.EnvName.MatchString(n) {
			return usageErr("target environment variable %q (--target-env, env:): want a name such as OPENAI_API_KEY", n)
		}
	}
	return nil
}

// targetEnviron is the environment a command target starts with: the
// process's, without the gate's own secrets (the judge key's variable,
// GITHUB_TOKEN and GH_TOKEN, the runner's ACTIONS_* and the action's
// INPUT_* variables, and any variable holding a configured secret), but
// with the variables allow names.
func (o *runState) targetEnviron(env Env, allow []string) []string {
	environ := env.Environ
	if environ == nil {
		environ = os.Environ
	}
	out := []string{}
	for _, kv := range environ() {
		name, value, _ := strings.Cut(kv, "=")
		if slices.Contains(allow, name) || !o.gateSecret(env, name, value) {
			out = append(out, kv)
		}
	}
	return out
}

// gateSecret reports whether the variable name=value is one of the gate's
// secrets, which a command target does not inherit.
func (o *runState) gateSecret(env Env, name, value string) bool {
	// A value that merely holds a secret ("Bearer <key>", a URL with the
	// token in it) is one too.
	return o.gateSecretName(name) || env.Red.IsSecret(value) || env.Red.IsSecret(strings.TrimSpace(value)) ||
		(env.Red != nil && env.Red.String(value) != value)
}

// gateSecretName reports whether a variable is one of the gate's own by
// its name: the judge key's, GITHUB_TOKEN, GH_TOKEN, ACTIONS_*, INPUT_*.
func (o *runState) gateSecretName(name string) bool {
	upper := strings.ToUpper(name)
	return upper == "GITHUB_TOKEN" || upper == "GH_TOKEN" || strings.HasPrefix(upper, "ACTIONS_") || strings.HasPrefix(upper, "INPUT_") ||
		(o.APIKeyEnv != "" && upper == strings.ToUpper(o.APIKeyEnv))
}

// gateOwnSecret reports whether the variable name=value holds one of the
// gate's own secrets (by its name, or a value equal to the judge's key or
// --header values or the GitHub token), which a target config file may
// not expand. Unlike gateSecret, the target's own header values, which
// are secrets too, do not count.
func (o *runState) gateOwnSecret(env Env, name, value string) bool {
	if o.gateSecretName(name) {
		return true
	}
	value = strings.TrimSpace(value)
	if value == "" {
		return false
	}
	own := []string{o.APIKey, env.getenv("GITHUB_TOKEN"), env.getenv("GH_TOKEN")}
	if o.APIKeyEnv != "" {
		own = append(own, env.getenv(o.APIKeyEnv))
	}
	for _, h := range o.Headers {
		if i := strings.IndexAny(h, "=:"); i >= 0 {
			own = append(own, h[i+1:])
		}
	}
	for _, v := range own {
		// Equal, or holding it ("Bearer <token>", a URL with it inside);
		// very short values are too common to be anyone's secret.
		if v = strings.TrimSpace(v); v == value || len(v) >= minOwnSecret && strings.Contains(value, v) {
			return true
		}
	}
	return false
}

// minOwnSecret is the shortest secret of the gate's own looked for inside
// a longer variable value.
const minOwnSecret = 8

// targetProblems checks the target flags' values and combinations.
func (o *Settings) targetProblems() []Problem {
	t := &o.Target
	var ps []Problem
	if t.URL != "" && t.Cmd != "" {
		ps = append(ps, Conflict("target", "target-cmd", "give the URL of the pipeline or a command that runs it, not both"))
	}
	if t.configured() && o.Responses != "" {
		ps = append(ps, Conflict("target", "responses", "the target answers the questions; to re-judge saved answers, give --responses alone"))
	}
	if !t.configured() && t.SaveResponses != "" {
		ps = append(ps, Plain("save-responses", "%s needs a target (--target, --target-cmd or --target-config): it saves the target's answers"))
	}
	for _, kv := range t.Headers {
		if p := CheckTargetHeader(kv); p != nil {
			ps = append(ps, *p)
		}
	}
	add := func(p *Problem) {
		if p != nil {
			ps = append(ps, *p)
		}
	}
	if t.Concurrency != nil {
		add(CheckInt("target-concurrency", *t.Concurrency, nil))
	}
	if t.Retries != nil {
		add(CheckInt("target-retries", *t.Retries, nil))
	}
	if t.Timeout != nil {
		add(CheckDuration("target-timeout", *t.Timeout))
	}
	add(CheckShare("max-target-failures", t.MaxFailures))
	return ps
}

// targetDefinitions are the numeric metrics of a target run: the wall
// latency of each call (log-transformed: a difference is a ratio) and the
// tokens the pipeline reports. A metrics file may define metrics of the
// same names to replace them. They are report-only unless the thresholds
// give them a rule or list them in gate (Definition.Reported).
func targetDefinitions() []metrics.Definition {
	return []metrics.Definition{
		{Name: colLatency, Kind: metrics.KindNumeric, Description: "wall latency of the target call, in ms (scored as its natural log)",
			Reads: []string{colLatency}, Direction: metrics.LowerIsBetter, Transform: metrics.TransformLog, Reported: true},
		{Name: colTokens, Kind: metrics.KindNumeric, Description: "tokens the target reports using for the answer",
			Reads: []string{colTokens}, Direction: metrics.LowerIsBetter, Transform: metrics.TransformNone, Reported: true},
	}
}

// resolveMetrics is eval.Resolve, saying of a target metric named outside
// a target run that it is one.
func resolveMetrics(names []string, user []metrics.Metric) ([]metrics.Metric, error) {
	ms, err := eval.Resolve(names, user...)
	if err == nil {
		return ms, nil
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n != colLatency && n != colTokens || slices.ContainsFunc(user, func(m metrics.Metric) bool { return m.Name == n }) {
			continue
		}
		if _, ok := metrics.Lookup(n); !ok {
			return nil, fmt.Errorf("%q is a metric of a target run (the pipeline called with --target, --target-cmd or --target-config): "+
				"it measures the calls the gate makes; give a target, or leave it out of --metrics", n)
		}
	}
	return nil, err
}

// userDefinitions are the metrics file's definitions and, with a target,
// the target metrics the file does not define.
func (o *RunConfig) userDefinitions() []metrics.Definition {
	defs := o.UserDefs
	if !o.Target.configured() {
		return defs
	}
	defs = slices.Clone(defs)
	for _, d := range targetDefinitions() {
		if !slices.ContainsFunc(defs, func(x metrics.Definition) bool { return x.Name == d.Name }) {
			defs = append(defs, d)
		}
	}
	return defs
}

// targetProvides reports whether the run's target fills field f, for the
// choice of the default suite before any call: the response and the
// retrieved contexts always (a target that returns no contexts leaves the
// dataset's, or none), their ids when a path for them is configured.
func (o *runState) targetProvides(f metrics.Field) bool {
	b := o.target
	if b == nil {
		return false
	}
	switch f {
	case metrics.Response, metrics.RetrievedContexts:
		return true
	case metrics.RetrievedContextIDs:
		return b.ContextIDsPath
	}
	return false
}

// targetColumns are the columns a target run adds to its samples: the
// user-defined metrics may read them although the dataset lacks them.
func (o *runState) targetColumns() []string {
	if !o.Target.configured() {
		return nil
	}
	return []string{colLatency, colTokens, colPromptTokens, colCompletionTokens}
}

// checkTargetFields fails when a request template reads a column that no
// sample of the dataset has, or when the dataset has a column the target
// run writes.
func (o *runState) checkTargetFields(ds *dataset.Dataset) error {
	b := o.target
	if b == nil {
		return nil
	}
	have := map[string]bool{}
	for _, f := range target.SampleFields {
		have[f] = true
	}
	for _, s := range ds.All() {
		for k := range s.Metadata {
			have[k] = true
		}
	}
	if err := reservedColumns(ds.Path, have); err != nil {
		return err
	}
	var problems []string
	for _, name := range b.Fields {
		if have[name] {
			continue
		}
		msg := fmt.Sprintf("{{%s}} is neither a field nor a column of %s", name, ds.Path)
		if s := suggest.Closest(name, slices.Sorted(maps.Keys(have))); s != "" {
			msg += fmt.Sprintf(": did you mean {{%s}}?", s)
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 {
		return usageErr("target request: %s; placeholders name sample fields (%s) or dataset columns", strings.Join(problems, "; "), strings.Join(target.SampleFields, ", "))
	}
	return lackingAsked(ds, b.Fields)
}

// lackingAsked fails when a sample lacks a sample field the target's
// request sends (a question missing from a row would be sent as ""): it
// names the first ones with their lines.
func lackingAsked(ds *dataset.Dataset, placeholders []string) error {
	for _, name := range placeholders {
		f := metrics.Field(name)
		if !slices.Contains(metrics.Fields, f) {
			continue // the id, or a column
		}
		var where []string
		n := 0
		for i := range ds.Len() {
			if ds.Has(i, f) {
				continue
			}
			if n++; n <= 3 {
				where = append(where, fmt.Sprintf("%s (sample %s)", ds.Where(i), ds.ID(i)))
			}
		}
		if n > 0 {
			return usageErr("target request sends {{%s}}, which %d of %d samples lack: %s; add it to every sample, or leave it out of the request",
				name, n, ds.Len(), strings.Join(where, ", "))
		}
	}
	return nil
}

// reservedColumns fails when the dataset of a target run has a column the
// run writes itself: it would stand in for the pipeline's figures (the
// latency and tokens) when the target reports none.
func reservedColumns(path string, have map[string]bool) error {
	var found []string
	for _, c := range []string{colLatency, colTokens, colPromptTokens, colCompletionTokens, colTargetError} {
		if have[c] {
			found = append(found, c)
		}
	}
	if len(found) == 0 {
		return nil
	}
	slices.Sort(found)
	return usageErr("%s has the column(s) %s, which a target run writes itself: rename or drop them (to re-judge saved answers, give --responses instead of a target)",
		path, strings.Join(found, ", "))
}

// targetCall is the record of one sample's call for its results.
func targetCall(o *target.Outcome) *results.TargetCall {
	tc := &results.TargetCall{Status: results.TargetOK, LatencyMS: ms(o.Latency), Attempts: o.Attempts, Code: o.Code()}
	if o.Err != nil {
		tc.Status, tc.Error = results.TargetFailed, o.Err.Error()
		return tc
	}
	if u := o.Reply.Usage; u != nil {
		tc.PromptTokens, tc.CompletionTokens, tc.TotalTokens = u.PromptTokens, u.CompletionTokens, u.TotalTokens
	}
	tc.ContextIDs = o.Reply.ContextIDs
	return tc
}

// capCallIDs keeps, in each call's record, as many context ids as the
// sample kept contexts (--max-contexts): a target returning 200,000 ids
// must not fill the results file.
func capCallIDs(calls map[string]*results.TargetCall, limit int) {
	if limit <= 0 {
		return
	}
	for _, tc := range calls {
		if len(tc.ContextIDs) > limit {
			tc.ContextIDs = tc.ContextIDs[:limit:limit]
		}
	}
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// TargetSecrets reads and checks the target's configuration of c before
// any call (a bad one is a usage error) and returns the secrets its
// requests carry (header values from its config file and the
// environment), for a front end to mask before anything can quote them.
func TargetSecrets(env Env, c RunConfig) ([]string, error) {
	o := &runState{RunConfig: c}
	if err := o.buildTarget(env); err != nil || o.target == nil {
		return nil, err
	}
	return o.target.Secrets, nil
}
