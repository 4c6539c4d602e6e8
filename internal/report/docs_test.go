package report

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The comment and the example thresholds file point readers to documents
// shipped in the repository (the README), never to files users cannot
// open.
func TestUserTextNamesOnlyShippedDocuments(t *testing.T) {
	doc := regexp.MustCompile(`\b[\w./-]+\.md\b`)
	check := func(where, text string) {
		for _, name := range doc.FindAllString(text, -1) {
			if _, err := os.Stat(filepath.Join("..", "..", name)); err != nil {
				t.Errorf("%s names %s, which is not in the repository", where, name)
			}
		}
	}
	for _, c := range cases {
		check(c.name+" comment", Markdown(c.make(t), optsFor(c.name)))
	}
	example, err := os.ReadFile(filepath.Join("..", "..", "thresholds.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	check("thresholds.example.yaml", string(example))
}
