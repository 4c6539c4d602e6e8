package archtest

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The pure packages: scoring, statistics, rendering, file formats and
// dataset loading must never import the network stack or an API client,
// directly or through another package.
var pure = []string{
	"github.com/raggate/raggate/metrics",
	"github.com/raggate/raggate/internal/compare",
	"github.com/raggate/raggate/internal/agree",
	"github.com/raggate/raggate/internal/report",
	"github.com/raggate/raggate/internal/htmlreport",
	"github.com/raggate/raggate/internal/results",
	"github.com/raggate/raggate/internal/dataset",
	"github.com/raggate/raggate/internal/redact",
	"github.com/raggate/raggate/internal/atomicfile",
	"github.com/raggate/raggate/internal/inputfile",
	"github.com/raggate/raggate/internal/textdist",
	"github.com/raggate/raggate/internal/suggest",
	"github.com/raggate/raggate/internal/anytime",
	"github.com/raggate/raggate/internal/importer",
}

var forbidden = []string{
	"net/http",
	"github.com/sashabaranov/go-openai",
	"github.com/google/go-github",
}

// forbiddenDeps lists the forbidden packages pkg depends on, transitively.
func forbiddenDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	var bad []string
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				bad = append(bad, dep)
			}
		}
	}
	return bad
}

func TestDependencyRule(t *testing.T) {
	for _, pkg := range pure {
		t.Run(pkg, func(t *testing.T) {
			for _, dep := range forbiddenDeps(t, pkg) {
				t.Errorf("%s depends on %s; pure packages must not reach the network (ARCHITECTURE.md dependency rule)", pkg, dep)
			}
		})
	}
}

// TestRuleCatchesViolations makes sure the check can fail: a package that
// reaches net/http indirectly must be reported.
func TestRuleCatchesViolations(t *testing.T) {
	if bad := forbiddenDeps(t, "net/http/httptest"); len(bad) == 0 {
		t.Fatal("net/http/httptest depends on net/http, but the check found nothing: it would miss violations")
	}
}

// githubEdge are the packages that may import go-github directly: package
// ghapi (client, error kinds, reads at a ref), and those built on it.
var githubEdge = map[string]bool{
	"github.com/raggate/raggate/internal/ghapi":     true,
	"github.com/raggate/raggate/internal/ghcomment": true,
	"github.com/raggate/raggate/internal/baseline":  true,
	"github.com/raggate/raggate/internal/app":       true,
	"github.com/raggate/raggate/internal/action":    true,
	"github.com/raggate/raggate/internal/ghtest":    true,
}

// TestGitHubClientOnlyAtTheEdge: no other package imports go-github, so
// GitHub errors are classified in one place.
func TestGitHubClientOnlyAtTheEdge(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/raggate/raggate/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "github.com/google/go-github/") && !githubEdge[f[0]] {
				t.Errorf("%s imports %s; only %v may (use package ghapi)", f[0], imp, keys(githubEdge))
			}
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, strings.TrimPrefix(k, "github.com/raggate/raggate/"))
	}
	sort.Strings(out)
	return out
}
