package docgen

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func readFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The README is a front page: short, opening with the two commands a
// newcomer runs first (CI runs the second), with the pull-request workflow,
// a picture of the comment and one of the HTML report.
func TestReadmeIsAFrontPage(t *testing.T) {
	readme := readFile(t, "README.md")
	if n := strings.Count(readme, "\n"); n >= 300 {
		t.Errorf("README.md has %d lines: keep it under 300 and put the reference in docs/", n)
	}
	const commands = "# raggate\n\n```sh\n" +
		"go run ./cmd/gate check --dataset testdata/demo/golden.jsonl --baseline testdata/demo/baseline.json --judge offline\n" +
		"go test -race -shuffle=on ./...\n```\n"
	if !strings.HasPrefix(readme, commands) {
		t.Errorf("README.md does not open with the two commands:\n%s", commands)
	}
	if !strings.Contains(readFile(t, ".ci/run"), "\ngo test -race -shuffle=on ./...\n") {
		t.Error(".ci/run does not run the README's test command")
	}
	for _, want := range []string{"uses: raggate/raggate@v1", "````markdown\n### ", "](docs/html-report.png)"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	if i, j := strings.Index(readme, "uses: raggate/raggate@v1"), strings.Index(readme, "\n## Quick start"); i < 0 || j < 0 || i > j {
		t.Error("the pull-request workflow should come before the quick start, near the top")
	}
}

// The README's picture of the sticky comment is a piece of the golden
// comment the report tests render, so it shows what the gate posts.
func TestReadmeCommentIsTheGolden(t *testing.T) {
	readme := readFile(t, "README.md")
	_, sample, ok := strings.Cut(readme, "````markdown\n")
	sample, _, ok2 := strings.Cut(sample, "````\n")
	if !ok || !ok2 || len(sample) < 500 {
		t.Fatal("README.md has no ````markdown sample of the comment")
	}
	if golden := readFile(t, "internal/report/testdata/regression.md"); !strings.Contains(golden, sample) {
		t.Error("README.md's comment sample is not a piece of internal/report/testdata/regression.md: copy it again from there")
	}
}

// Every workflow shown in the docs or in examples/ gives the action only
// inputs that action.yml declares.
func TestWorkflowsUseDeclaredInputs(t *testing.T) {
	var spec struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, "action.yml")), &spec); err != nil {
		t.Fatal(err)
	}
	var workflows []struct{ where, text string }
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	for _, p := range docs(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(m[1], "jobs:") {
				workflows = append(workflows, struct{ where, text string }{p, m[1]})
			}
		}
	}
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "workflows", "*.yml"))
	for _, p := range examples {
		workflows = append(workflows, struct{ where, text string }{p, readFile(t, strings.TrimPrefix(p, root+"/"))})
	}
	uses := 0
	for _, w := range workflows {
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Uses string         `yaml:"uses"`
					With map[string]any `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(w.text), &wf); err != nil {
			t.Errorf("%s: a workflow that does not parse: %v", w.where, err)
			continue
		}
		for job, j := range wf.Jobs {
			for _, s := range j.Steps {
				if !strings.HasPrefix(s.Uses, "raggate/raggate@") && s.Uses != "./" {
					continue
				}
				uses++
				for in := range s.With {
					if _, ok := spec.Inputs[in]; !ok {
						t.Errorf("%s: job %s gives the action input %q, which action.yml does not declare", w.where, job, in)
					}
				}
			}
		}
	}
	if uses < 4 {
		t.Errorf("found the action in %d workflow steps only", uses)
	}
}

// Messages, action.yml and the example files send readers to sections of
// the README by name ("see README Targets"): each such name is the text of
// a link of the README, which leads to the page.
func TestCitedSectionsAreOnTheFrontPage(t *testing.T) {
	cites := []*regexp.Regexp{
		regexp.MustCompile(`README(?:'s)?,? ((?:\\?"[^"\\]+\\?"(?:, )?)+)`), // README "Segments"; README, "Metrics", "Reading the metrics"
		regexp.MustCompile(`README:? ([A-Z][a-z-]+(?: [a-z-]+)*)[.)]`),      // See README User-defined metrics.
		regexp.MustCompile(`see ([A-Z][a-z-]+(?: [a-z-]+)*) in README\.md`), // (see Targets in README.md)
	}
	quoted := regexp.MustCompile(`\\?"([^"\\]+)\\?"`)
	cited := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "docs" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, "_test.go") || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, re := range cites {
			for _, m := range re.FindAllStringSubmatch(string(b), -1) {
				names := []string{m[1]}
				if q := quoted.FindAllStringSubmatch(m[1], -1); q != nil {
					names = names[:0]
					for _, n := range q {
						names = append(names, n[1])
					}
				}
				for _, n := range names {
					cited[n] = p
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cited) < 5 {
		t.Fatalf("found only %d cited README sections (%v): is the pattern still right?", len(cited), cited)
	}
	linkText := map[string]bool{}
	for _, m := range regexp.MustCompile(`\[([^\]]+)\]\(`).FindAllStringSubmatch(readFile(t, "README.md"), -1) {
		linkText[strings.ToLower(m[1])] = true
	}
	for name, where := range cited {
		if !linkText[strings.ToLower(name)] {
			t.Errorf("%s sends readers to README %q, which is not a link of README.md", where, name)
		}
	}
}
