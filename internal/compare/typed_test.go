package compare

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// floatVerb is a fmt verb that formats a floating-point number.
var floatVerb = regexp.MustCompile(`%[-+# 0]*[0-9]*(\.[0-9]+)?[eEfFgG]`)

// Compare decides and records numbers; package report alone words them
// (as benchstat's benchtab is the only place that formats). No source file
// of this package formats a floating-point number into a string: no
// strconv.FormatFloat or AppendFloat, no fmt verb %e %f %g.
func TestComparisonFormatsNoNumbers(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && x.Name == "strconv" && (n.Sel.Name == "FormatFloat" || n.Sel.Name == "AppendFloat") {
					t.Errorf("%s: strconv.%s: package report formats numbers (compare records them)", fset.Position(n.Pos()), n.Sel.Name)
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					if s, err := strconv.Unquote(n.Value); err == nil && floatVerb.MatchString(s) {
						t.Errorf("%s: %q formats a number: package report formats numbers (compare records them)", fset.Position(n.Pos()), s)
					}
				}
			}
			return true
		})
	}
}
