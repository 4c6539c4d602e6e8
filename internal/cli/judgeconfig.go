package cli

import (
	"flag"
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/yamlcheck"
)

// judgeFileKeys are the judge settings a --judge-config file may give in
// its judge: section, by flag name. The API key itself is not among them:
// it comes from the environment (--api-key-env names the variable).
var judgeFileKeys = map[string]bool{
	"judge": true, "model": true, "embedding-model": true, "base-url": true, "api-key-env": true,
	"azure-endpoint": true, "azure-api-version": true, "azure-deployment": true, "azure-embedding-deployment": true,
	"header": true, "rpm": true, "tpm": true, "request-timeout": true, "max-retries": true,
	"seed": true, "no-seed": true, "max-completion-tokens": true, "response-format": true, "prices": true,
	"concurrency": true, "strictness": true, "claims-atomicity": true, "claims-coverage": true,
}

// judgeConfigTop are the top-level keys of a judge config file: one file
// may hold the target: section too (--target-config) and a version.
var judgeConfigTop = []string{"version", "judge", "target"}

// applyJudgeConfig sets the judge flags of fs from the judge: section of
// the file path, except those given on the command line (a flag wins over
// the file). Each value goes through its flag, checked as if typed; every
// problem is reported with its file:line:col, exit 2.
func applyJudgeConfig(env Env, fs *flag.FlagSet, path string) error {
	data, err := inputfile.ReadFile(env.abs(path), inputfile.ConfigLimit())
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("--judge-config: %w", err))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var keys []string
	for k := range judgeFileKeys {
		if fs.Lookup(k) != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var p yamlcheck.Parser
	if root := p.Document(data, "the judge config file", judgeConfigTop); root != nil {
		p.Mapping(root, "at top level", judgeConfigTop, func(key string, _, v *yaml.Node) {
			if key != "judge" || !p.IsMapping(v, "judge", "{model: gpt-4o, rpm: 500}") {
				return
			}
			p.Mapping(v, "in judge", keys, func(name string, _, v *yaml.Node) {
				if given[name] {
					return
				}
				for _, val := range judgeValues(&p, name, v) {
					if err := fs.Set(name, val.Value); err != nil {
						p.Add(val, "%s", judgeProblem(fs, name, val.Value, err))
					}
				}
			})
		})
	}
	if len(p.Problems) > 0 {
		return usageErr("--judge-config: %s", yamlcheck.Format(path, p.Sorted()))
	}
	return nil
}

// judgeValues are the scalar values of setting name: one, or for header
// a list of NAME=VALUE or a mapping of names to values.
func judgeValues(p *yamlcheck.Parser, name string, v *yaml.Node) []*yaml.Node {
	switch {
	case v.Kind == yaml.ScalarNode && !yamlcheck.IsNull(v):
		return []*yaml.Node{v}
	case name == "header" && v.Kind == yaml.SequenceNode:
		var out []*yaml.Node
		for _, item := range v.Content {
			out = append(out, judgeValues(p, name, yamlcheck.Deref(item))...)
		}
		return out
	case name == "header" && v.Kind == yaml.MappingNode:
		var out []*yaml.Node
		p.Mapping(v, "in judge.header", nil, func(key string, k, val *yaml.Node) {
			if val.Kind != yaml.ScalarNode {
				p.Add(val, "judge.header.%s: expected a text, got %s", key, yamlcheck.Describe(val))
				return
			}
			n := *val
			n.Value = key + "=" + val.Value
			out = append(out, &n)
		})
		return out
	}
	want := "a value"
	if name == "header" {
		want = "NAME=VALUE, a list of them or a mapping of names to values"
	}
	p.Add(v, "judge.%s: expected %s, got %s", name, want, yamlcheck.Describe(v))
	return nil
}

// judgeConfigOf is the --judge-config file of fs ("" = none).
func judgeConfigOf(fs *flag.FlagSet) string {
	if f := fs.Lookup("judge-config"); f != nil {
		return f.Value.String()
	}
	return ""
}

// judgeKeys names settings as keys of the judge: section.
var judgeKeys = app.Namer{Name: func(key string) string { return "judge." + key }, ValueSep: " "}

// judgeProblem words the refusal of value for setting name.
func judgeProblem(fs *flag.FlagSet, name, value string, err error) string {
	if ps := takeProblems(fs); len(ps) > 0 {
		return ps[0].Render(judgeKeys)
	}
	return fmt.Sprintf("judge.%s %q: %v", name, value, err)
}
