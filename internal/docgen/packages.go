package docgen

import (
	"bufio"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Packages renders the packages of the Go module whose go.mod is in root as
// a markdown list, in path order: each package with the first sentence of
// its doc comment and the packages of the module it imports (test files
// left out). Directories named testdata, or starting with "." or "_", are
// skipped, as the go command skips them.
func Packages(root string) (string, error) {
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		var own []string
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module+"/") {
				own = append(own, "`"+strings.TrimPrefix(imp, module+"/")+"`")
			}
		}
		imports := "Imports no other package of the module."
		if len(own) > 0 {
			imports = "Imports " + strings.Join(own, ", ") + "."
		}
		doc := pkg.Doc
		if doc == "" {
			doc = "(no package doc)"
		}
		fmt.Fprintf(&b, "- `%s`: %s %s\n", filepath.ToSlash(rel), strings.Join(strings.Fields(doc), " "), imports)
		return nil
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

// modulePath reads the module path from a go.mod file.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}
