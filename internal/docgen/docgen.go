// Package docgen generates the parts of raggate's documentation that restate
// facts of the code or of action.yml, so that they cannot drift from them: the
// action's inputs and outputs tables (docs/action.md, from action.yml) and the
// list of packages with what each imports (docs/development.md, from the
// package docs and import lists).
//
// Its tests fail when a generated part is stale (`go test ./internal/docgen
// -update` rewrites it), when a relative link of README.md or docs/ leads to
// no file or heading, and when the README stops being a front page. It
// imports the standard library and the YAML parser only, and nothing of the
// gate imports it.
package docgen

import (
	"fmt"
	"strings"
)

// Fill returns page with the body of its generated region name replaced by
// body. A region is the text between a line starting with
// "<!-- BEGIN GENERATED name" and the line "<!-- END GENERATED name -->";
// both lines are kept. It is an error when page has no such region, or more
// than one.
func Fill(page, name, body string) (string, error) {
	begin := "<!-- BEGIN GENERATED " + name + " "
	end := "<!-- END GENERATED " + name + " -->"
	if n := strings.Count(page, "\n"+begin); n != 1 {
		return "", fmt.Errorf("generated region %q: %d BEGIN lines, want 1", name, n)
	}
	i := strings.Index(page, "\n"+begin) + 1
	j := strings.Index(page[i:], "\n")
	if j < 0 {
		return "", fmt.Errorf("generated region %q: no END line", name)
	}
	start := i + j + 1
	k := strings.Index(page[start:], end)
	if k < 0 || (k > 0 && page[start+k-1] != '\n') {
		return "", fmt.Errorf("generated region %q: no END line %q", name, end)
	}
	if strings.Contains(page[start+k+len(end):], "\n"+begin) {
		return "", fmt.Errorf("generated region %q: more than one", name)
	}
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return page[:start] + body + page[start+k:], nil
}

// cell makes text fit one markdown table cell: one line, pipes escaped.
func cell(text string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(text), " "), "|", `\|`)
}
