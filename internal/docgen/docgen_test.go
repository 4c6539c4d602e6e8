package docgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/goldenfile"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// The generated parts of docs/ are what the generators make of the
// repository as it is; -update rewrites them.
func TestGeneratedDocsAreCurrent(t *testing.T) {
	yml, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	inputs, outputs, err := ActionTables(yml)
	if err != nil {
		t.Fatal(err)
	}
	packages, err := Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		page    string
		regions map[string]string
	}{
		{"docs/action.md", map[string]string{"inputs": inputs, "outputs": outputs}},
		{"docs/development.md", map[string]string{"packages": packages}},
	}
	for _, p := range pages {
		path := filepath.Join(root, p.page)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := string(b)
		want := got
		for name, body := range p.regions {
			if want, err = Fill(want, name, body); err != nil {
				t.Fatalf("%s: %v", p.page, err)
			}
		}
		if got == want {
			continue
		}
		if goldenfile.Update() {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is stale: regenerate it with go test ./internal/docgen -update, and review the diff", p.page)
	}
}

func TestActionTables(t *testing.T) {
	yml := `
name: x
inputs:
  dataset:
    description: The dataset.
    required: true
  mode:
    description: "check | baseline"
    default: ""
  judge:
    description: >-
      Judge provider,
      folded.
    default: auto
outputs:
  verdict:
    description: pass or fail.
runs: {using: docker, image: Dockerfile}
`
	in, out, err := ActionTables([]byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	wantIn := "| input | default | description |\n|---|---|---|\n" +
		"| `dataset` | required | The dataset. |\n" +
		"| `mode` |  | check \\| baseline |\n" +
		"| `judge` | `auto` | Judge provider, folded. |\n"
	if in != wantIn {
		t.Errorf("inputs:\n%s\nwant:\n%s", in, wantIn)
	}
	if wantOut := "| output | description |\n|---|---|\n| `verdict` | pass or fail. |\n"; out != wantOut {
		t.Errorf("outputs:\n%s\nwant:\n%s", out, wantOut)
	}
	if _, _, err := ActionTables([]byte("name: x\ninputs: {}\n")); err == nil {
		t.Error("an action.yml without outputs was accepted")
	}
	if _, _, err := ActionTables([]byte("- a list\n")); err == nil {
		t.Error("an action.yml that is not a mapping was accepted")
	}
}

func TestFill(t *testing.T) {
	page := "# T\n\n<!-- BEGIN GENERATED x (note) -->\nold\n<!-- END GENERATED x -->\ntail\n"
	got, err := Fill(page, "x", "new")
	if want := "# T\n\n<!-- BEGIN GENERATED x (note) -->\nnew\n<!-- END GENERATED x -->\ntail\n"; err != nil || got != want {
		t.Errorf("Fill = %q, %v; want %q", got, err, want)
	}
	for name, bad := range map[string]string{
		"no region":  "# T\n",
		"no END":     "# T\n<!-- BEGIN GENERATED x -->\nold\n",
		"two":        page + page,
		"END inline": "# T\n<!-- BEGIN GENERATED x -->\nold <!-- END GENERATED x -->\n",
	} {
		if _, err := Fill(bad, "x", "new"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Every package of the module is listed with its own imports only.
func TestPackages(t *testing.T) {
	list, err := Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- `metrics`: Package metrics is raggate's public, pure metric library",
		"- `internal/atomicfile`: Package atomicfile writes files atomically",
		"Imports `internal/dataset`.", // parquetfile, and nothing else of the module
	} {
		if !strings.Contains(list, want) {
			t.Errorf("package list lacks %q:\n%s", want, list)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
		path, _, _ := strings.Cut(strings.TrimPrefix(l, "- `"), "`")
		if strings.Contains(path, "testdata") || strings.HasPrefix(path, ".") {
			t.Errorf("listed: %s", path)
		}
		if strings.HasPrefix(l, "- `internal/atomicfile`:") && !strings.HasSuffix(l, "Imports no other package of the module.") {
			t.Errorf("atomicfile, which imports no other package of the module: %s", l)
		}
	}
}
