package docgen

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Each workflow of docs/importing-workflows.md is a file of
// examples/workflows/, word for word, so that actionlint (.ci/run) checks
// what the page shows.
func TestImportingWorkflowsAreExampleFiles(t *testing.T) {
	page := readFile(t, "docs/importing-workflows.md")
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(page, -1)
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "workflows", "raggate-scores-*.yml"))
	if len(blocks) != 3 || len(examples) != 3 {
		t.Fatalf("%d workflows on the page, %d raggate-scores-*.yml examples; want 3 of each (Ragas, promptfoo, DeepEval)", len(blocks), len(examples))
	}
	files := map[string]string{}
	for _, p := range examples {
		files[readFile(t, strings.TrimPrefix(p, root+"/"))] = p
	}
	for i, b := range blocks {
		if _, ok := files[b[1]]; !ok {
			t.Errorf("workflow %d of docs/importing-workflows.md is not one of %v word for word: copy it from there", i+1, examples)
		}
	}
}
