package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var (
	// flagRow is a flag in the generated reference (docs/flags.md).
	flagRow = regexp.MustCompile("(?m)^\\| `(--[a-z0-9-]+)")
	// flagWord is a long flag named in prose or a table.
	flagWord = regexp.MustCompile(`(?:^|[^\w-])(--[a-z][a-z0-9-]*)`)
)

// notGateFlags are long options the docs name that belong to other
// programs, or to gate help, or are a pattern of gate flags.
var notGateFlags = map[string]string{
	"--all":            "gate help CMD --all",
	"--ignore-missing": "sha256sum",
	"--rm":             "docker run",
	"--target-":        "the pattern --target-*-path",
	"--yes":            "npx (docs/importing-workflows.md)",
}

// The hand-written pages (the command tables of docs/commands.md, the
// judge and target pages, the README) name only flags that exist: the
// generated reference, docs/flags.md, is the list of every flag of every
// command, kept current by internal/cli's TestFlagReference.
func TestDocsNameOnlyRealFlags(t *testing.T) {
	ref, err := os.ReadFile(filepath.Join(root, "docs", "flags.md"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, m := range flagRow.FindAllStringSubmatch(string(ref), -1) {
		known[m[1]] = true
	}
	if len(known) < 50 {
		t.Fatalf("docs/flags.md lists %d flags; is it the generated reference?", len(known))
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	unknown := map[string][]string{}
	for _, p := range pages {
		if strings.HasSuffix(p, "flags.md") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range flagWord.FindAllStringSubmatch(string(b), -1) {
			if f := m[1]; !known[f] && notGateFlags[f] == "" {
				unknown[f] = append(unknown[f], filepath.Base(p))
			}
		}
	}
	names := make([]string, 0, len(unknown))
	for f := range unknown {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		t.Errorf("%s is named in %s but is no flag of any command (docs/flags.md)", f, strings.Join(unknown[f], ", "))
	}
}

// The check finds a flag that does not exist.
func TestDocsFlagCheckCatchesAnUnknownFlag(t *testing.T) {
	var found []string
	for _, m := range flagWord.FindAllStringSubmatch("use `--max-contexts 5` or --no-such-flag, not a-b--c", -1) {
		found = append(found, m[1])
	}
	if strings.Join(found, " ") != "--max-contexts --no-such-flag" {
		t.Errorf("found %q", found)
	}
}
