package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// The pure packages: scoring, statistics, rendering, file formats and
// dataset loading must never import the network stack or an API client,
// directly or through another package.
var pure = []string{
	"github.com/raggate/raggate/metrics",
	"github.com/raggate/raggate/internal/compare",
	"github.com/raggate/raggate/internal/report",
	"github.com/raggate/raggate/internal/results",
	"github.com/raggate/raggate/internal/dataset",
	"github.com/raggate/raggate/internal/redact",
	"github.com/raggate/raggate/internal/atomicfile",
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
				t.Errorf("%s depends on %s; pure packages must not reach the network (DESIGN.md dependency rule)", pkg, dep)
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
