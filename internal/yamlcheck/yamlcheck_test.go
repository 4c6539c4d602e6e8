package yamlcheck

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The shared reader reports every problem with its position, in file
// order, with a suggestion for a misspelt key.
func TestParserProblems(t *testing.T) {
	p := &Parser{}
	root := p.Document([]byte("version: x\ncolour: 1\nversion: 2\n"), "the test file", []string{"version", "color"})
	p.Mapping(root, "at top level", []string{"version", "color"}, func(key string, _, v *yaml.Node) {
		p.Integer(v, key)
	})
	got := Format("f.yaml", p.Sorted())
	want := "f.yaml:1:10: version: \"x\" is not an integer\n" +
		"f.yaml:2:1: unknown key \"colour\" at top level; did you mean \"color\"?\n" +
		"f.yaml:3:1: duplicate key \"version\" at top level (first at line 1)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for in, msg := range map[string]string{"": "is empty", "- a\n": "expected a mapping", "a: 1\n---\nb: 2\n": "a second YAML document", "a: [\n": "invalid YAML"} {
		p := &Parser{}
		if root := p.Document([]byte(in), "the test file", []string{"a"}); root != nil || len(p.Problems) != 1 || !strings.Contains(p.Problems[0].Msg, msg) {
			t.Errorf("%q: %+v, want %q", in, p.Problems, msg)
		}
	}
}
