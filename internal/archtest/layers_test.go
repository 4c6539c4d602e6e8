package archtest

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/raggate/raggate"

// layerRow is a row of ARCHITECTURE.md's layer table:
// | N | name | `pkg`, `pkg` | owns |.
var layerRow = regexp.MustCompile(`^\|\s*(\d+)\s*\|[^|]*\|([^|]*)\|`)

// quoted are the `pkg` names of a cell or a paragraph.
var quoted = regexp.MustCompile("`([a-z0-9_/]+)`")

// architecture is what ARCHITECTURE.md declares: the layer of every
// shipped package and the test-support packages.
type architecture struct {
	layer       map[string]int
	testSupport map[string]bool
}

// readArchitecture parses ARCHITECTURE.md, the one declaration of the
// layers that this test enforces.
func readArchitecture(t *testing.T, text string) architecture {
	t.Helper()
	a := architecture{layer: map[string]int{}, testSupport: map[string]bool{}}
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if m := layerRow.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			for _, q := range quoted.FindAllStringSubmatch(m[2], -1) {
				if prev, ok := a.layer[q[1]]; ok {
					t.Errorf("ARCHITECTURE.md: %s is in layers %d and %d", q[1], prev, n)
				}
				a.layer[q[1]] = n
			}
		}
		if strings.HasPrefix(line, "Test support,") {
			for _, l := range lines[i:] { // to the end of the paragraph
				if strings.TrimSpace(l) == "" {
					break
				}
				for _, q := range quoted.FindAllStringSubmatch(l, -1) {
					a.testSupport[q[1]] = true
				}
			}
		}
	}
	if len(a.layer) == 0 {
		t.Fatal("ARCHITECTURE.md: no layer table found")
	}
	return a
}

// imports lists each package of the module with the module packages it
// imports (tests excluded).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module+"/")
		m[pkg] = nil
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				m[pkg] = append(m[pkg], rel)
			}
		}
	}
	return m
}

// layerViolations checks the dependency rule: every package is placed,
// imports only packages of lower layers, and no shipped package imports
// a test-support package.
func layerViolations(a architecture, deps map[string][]string) []string {
	var bad []string
	for pkg, imps := range deps {
		if a.testSupport[pkg] {
			continue
		}
		l, ok := a.layer[pkg]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is in no layer: add it to ARCHITECTURE.md's layer table", pkg))
			continue
		}
		for _, imp := range imps {
			il, placed := a.layer[imp]
			switch {
			case a.testSupport[imp]:
				bad = append(bad, fmt.Sprintf("%s imports the test-support package %s", pkg, imp))
			case placed && il >= l:
				bad = append(bad, fmt.Sprintf("%s (layer %d) imports %s (layer %d): a package may import only lower layers", pkg, l, imp, il))
			}
		}
	}
	for pkg := range a.layer {
		if _, ok := deps[pkg]; !ok {
			bad = append(bad, fmt.Sprintf("ARCHITECTURE.md places %s, which is not a package of the module", pkg))
		}
	}
	return bad
}

// TestLayers enforces the layer order ARCHITECTURE.md describes.
func TestLayers(t *testing.T) {
	text, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range layerViolations(readArchitecture(t, string(text)), imports(t)) {
		t.Error(v)
	}
}

// TestLayersCatchViolations makes sure the layer check can fail: an
// upward import, an import within a layer, an unplaced package and a
// shipped package importing test support are each reported.
func TestLayersCatchViolations(t *testing.T) {
	a := readArchitecture(t, "| layer | name | packages | owns |\n|---|---|---|---|\n"+
		"| 0 | low | `low`, `peer` | x |\n| 1 | high | `high` | y |\n\nTest support, imported by tests only: `fake`.\n")
	for _, tt := range []struct {
		deps map[string][]string
		want string
	}{
		{map[string][]string{"low": {"high"}, "high": nil, "peer": nil}, "low (layer 0) imports high (layer 1)"},
		{map[string][]string{"low": {"peer"}, "high": nil, "peer": nil}, "low (layer 0) imports peer (layer 0)"},
		{map[string][]string{"low": nil, "high": nil, "peer": nil, "new": nil}, "new is in no layer"},
		{map[string][]string{"low": nil, "high": {"fake"}, "peer": nil, "fake": nil}, "high imports the test-support package fake"},
		{map[string][]string{"low": nil, "high": nil}, "places peer, which is not a package"},
	} {
		got := strings.Join(layerViolations(a, tt.deps), "\n")
		if !strings.Contains(got, tt.want) {
			t.Errorf("deps %v: violations %q, want one saying %q", tt.deps, got, tt.want)
		}
	}
	if ok := layerViolations(a, map[string][]string{"low": nil, "peer": nil, "high": {"low", "peer"}, "fake": {"high"}}); len(ok) != 0 {
		t.Errorf("a valid graph reported: %q", ok)
	}
}
