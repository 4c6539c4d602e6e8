package action

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/ghaction"
)

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// action.yml and the code must not drift apart: every input it declares is
// read, every output it declares is set, and the defaults it documents are
// the code's.
func TestActionYAMLMatchesCode(t *testing.T) {
	var spec struct {
		Inputs map[string]struct {
			Default  string `yaml:"default"`
			Required bool   `yaml:"required"`
		} `yaml:"inputs"`
		Outputs map[string]any `yaml:"outputs"`
		Runs    struct {
			Using string   `yaml:"using"`
			Image string   `yaml:"image"`
			Args  []string `yaml:"args"`
		} `yaml:"runs"`
	}
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Runs.Using != "docker" || !strings.HasPrefix(spec.Runs.Image, "docker://") || len(spec.Runs.Args) != 1 || spec.Runs.Args[0] != "action" {
		t.Errorf("runs = %+v, want a docker action on the published image running `gate action`", spec.Runs)
	}
	src := readFile(t, "action.go")
	for name := range spec.Inputs {
		if !strings.Contains(src, `"`+name+`"`) {
			t.Errorf("input %q is declared in action.yml but never read", name)
		}
	}
	for name := range spec.Outputs {
		if !strings.Contains(src, `"`+name+`"`) {
			t.Errorf("output %q is declared in action.yml but never set", name)
		}
	}
	// The defaults the code applies when an input is empty.
	o, st, err := actionOptions(ghaction.NewInputs(func(string) string { return "" }), &ghaction.Context{}, app.Env{})
	if err == nil {
		t.Fatal("no dataset accepted")
	}
	checks := map[string]string{
		"judge": o.Judge, "concurrency": fmt.Sprint(o.Concurrency), "cache-dir": o.CacheDir,
		"results": o.Out, "report": o.Report, "baseline-store": st.store, "baseline-branch": st.storeBranch,
		"gate-name": st.gate, "comment": fmt.Sprint(st.comment), "fail-on-regression": fmt.Sprint(st.failOnRegression),
		"skip-without-key": fmt.Sprint(st.skipWithoutKey), "max-target-failures": fmt.Sprint(o.Target.MaxFailures),
		"allow-command-target": fmt.Sprint(!o.Target.NoConfigCommand),
		"record-texts":         fmt.Sprint(o.RecordTexts),
		// The judge alone chooses default models (OpenAI's, or Azure's
		// deployments): the action must not pick its own.
		"model": o.Model, "embedding-model": o.EmbeddingModel,
	}
	for name, got := range checks {
		if d := spec.Inputs[name].Default; d != got {
			t.Errorf("input %s: action.yml default %q, code default %q", name, d, got)
		}
	}
}

func TestActionStrictFieldsInput(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
		err   bool
	}{{"", false, false}, {"true", true, false}, {"false", false, false}, {"maybe", false, true}} {
		env := map[string]string{ghaction.InputEnv("dataset"): "golden.jsonl", ghaction.InputEnv("strict-fields"): tt.value}
		o, _, err := actionOptions(ghaction.NewInputs(func(k string) string { return env[k] }), &ghaction.Context{}, app.Env{})
		if tt.err {
			if err == nil || !strings.Contains(err.Error(), "strict-fields") {
				t.Errorf("%q: error %v, want one naming strict-fields", tt.value, err)
			}
			continue
		}
		if err != nil || o.StrictFields != tt.want {
			t.Errorf("%q: StrictFields %v (error %v), want %v", tt.value, o.StrictFields, err, tt.want)
		}
	}
}

func TestActionSegmentByInput(t *testing.T) {
	env := map[string]string{ghaction.InputEnv("dataset"): "golden.jsonl", ghaction.InputEnv("segment-by"): "topic\nProduct Area, language"}
	o, _, err := actionOptions(ghaction.NewInputs(func(k string) string { return env[k] }), &ghaction.Context{}, app.Env{})
	if err != nil || strings.Join(o.SegmentBy, "|") != "topic|Product Area|language" {
		t.Errorf("keys %q, err %v", o.SegmentBy, err)
	}
}
