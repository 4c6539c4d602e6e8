package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// importDir holds the table fixtures: 20 samples with an id column,
// faithfulness, answer_relevancy and hops (a metric raggate does not
// know: a count of retrieval hops, where fewer is better). base.csv has
// no answer_relevancy for q07; head-worse.csv loses about 0.14 of
// faithfulness on every sample; head-more-hops.csv takes about 1.6 more
// hops per sample.
const importDir = "testdata/import"

func fixture(name string) string { return filepath.Join(importDir, name) }

// importTo converts a fixture into a results file in a temporary
// directory and returns its path.
func importTo(t *testing.T, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(name, ".csv")+".json")
	if r := gate(t, nil, "import", fixture(name), "--out", out); r.code != 0 {
		t.Fatalf("gate import %s: exit %d\n%s", name, r.code, r.stderr)
	}
	return out
}

func TestImportWritesResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sub", "results.json")
	r := gate(t, nil, "import", fixture("base.csv"), "--out", out)
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"base.csv", "table", "20 samples", "3 metrics", "faithfulness", "answer_relevancy", "hops",
		"19 scored, 1 undefined", "not in raggate's catalogue"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "wrote "+out) {
		t.Errorf("stderr does not say where the results went:\n%s", r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatalf("the written file is not a results file: %v", err)
	}
	if len(f.Samples) != 20 || f.Samples[0].ID != "q01" || f.Samples[0].Scores["faithfulness"] != 0.909 {
		t.Fatalf("samples: %d, first %+v", len(f.Samples), f.Samples[0])
	}
	if _, ok := f.Metric("hops"); !ok {
		t.Errorf("hops is not described in the results file: %+v", f.UserMetrics)
	}

	// Flags may come before the file too.
	out2 := filepath.Join(t.TempDir(), "r.json")
	if r := gate(t, nil, "import", "--out", out2, "--format", "table", fixture("base.csv")); r.code != 0 {
		t.Fatalf("flags first: exit %d\n%s", r.code, r.stderr)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(out2)
	if string(a) != string(b) {
		t.Error("the same file imported twice gave two different results files")
	}
}

// A bad cell is exit 2 with the importer's file:line, and nothing is
// written.
func TestImportBadFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results.json")
	r := gate(t, nil, "import", fixture("bad.csv"), "--out", out)
	if r.code != 2 || !strings.Contains(r.stderr, "bad.csv:4:") || !strings.Contains(r.stderr, "high") {
		t.Fatalf("exit %d, stderr %q: want 2 with bad.csv:4 and the cell", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a results file was written from a bad scores file")
	}
	r = gate(t, nil, "import", fixture("out-of-range.csv"), "--out", out)
	if r.code != 2 || !strings.Contains(r.stderr, "out-of-range.csv:2:") || !strings.Contains(r.stderr, "faithfulness") {
		t.Fatalf("out of range: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestImportUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"no file", []string{"import", "--out", filepath.Join(dir, "r.json")}, []string{"import", "scores file"}},
		{"two files", []string{"import", fixture("base.csv"), fixture("head-same.csv"), "--out", filepath.Join(dir, "r.json")}, []string{"one scores file"}},
		{"no out", []string{"import", fixture("base.csv")}, []string{"--out"}},
		{"bad format", []string{"import", "--format", "csv", fixture("base.csv"), "--out", filepath.Join(dir, "r.json")}, []string{"--format", "ragas, promptfoo, deepeval or table"}},
		{"missing file", []string{"import", filepath.Join(dir, "nope.csv"), "--out", filepath.Join(dir, "r.json")}, []string{"nope.csv"}},
		{"out is the input", []string{"import", fixture("base.csv"), "--out", fixture("base.csv")}, []string{"would overwrite"}},
	} {
		r := gate(t, nil, c.args...)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", c.name, r.code, r.stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.name, w, r.stderr)
			}
		}
	}
}

// A raggate results file needs no import.
func TestImportResultsFile(t *testing.T) {
	r := gate(t, nil, "import", importTo(t, "base.csv"), "--out", filepath.Join(t.TempDir(), "again.json"))
	if r.code != 2 || !strings.Contains(r.stderr, "already a raggate results file") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// A file that is not of the forced format is exit 2 naming the file.
func TestImportForcedFormat(t *testing.T) {
	r := gate(t, nil, "import", "--format", "promptfoo", fixture("base.csv"), "--out", filepath.Join(t.TempDir(), "r.json"))
	if r.code != 2 || !strings.Contains(r.stderr, "base.csv") {
		t.Fatalf("exit %d, stderr %q: want 2 naming the file", r.code, r.stderr)
	}
}

// gate compare reads scores files on either side, and mixes them with
// results files.
func TestCompareScoresFiles(t *testing.T) {
	r := gate(t, nil, "compare", "--base", fixture("base.csv"), "--head", fixture("head-worse.csv"))
	if r.code != 1 || !strings.Contains(r.stdout, "faithfulness") || !strings.Contains(r.stdout, "regress") {
		t.Fatalf("worse head: exit %d, want 1 naming faithfulness\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = gate(t, nil, "compare", "--base", importTo(t, "base.csv"), "--head", fixture("head-same.csv"))
	if r.code != 0 {
		t.Fatalf("same head against the imported base: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = gate(t, nil, "compare", "--base", fixture("base.csv"), "--head", fixture("bad.csv"))
	if r.code != 2 || !strings.Contains(r.stderr, "--head") || !strings.Contains(r.stderr, "bad.csv:4:") {
		t.Fatalf("bad head: exit %d, stderr %q", r.code, r.stderr)
	}
	r = gate(t, nil, "compare", "--head", fixture("head-same.csv"), "--scores-format", "deepeval")
	if r.code != 2 || !strings.Contains(r.stderr, "head-same.csv") {
		t.Fatalf("forced format: exit %d, stderr %q", r.code, r.stderr)
	}
}

// An imported metric raggate does not know is higher-is-better unless
// the thresholds say direction: lower; they may name it because the
// files define it.
func TestCompareImportedDirection(t *testing.T) {
	dir := t.TempDir()
	th := filepath.Join(dir, "thresholds.yaml")
	os.WriteFile(th, []byte("version: 1\nmetrics:\n  hops: {direction: lower, tolerance: 0.5}\n"), 0o644)
	r := gate(t, nil, "compare", "--base", fixture("base.csv"), "--head", fixture("head-more-hops.csv"), "--thresholds", th, "--format", "json")
	if r.code != 1 || !strings.Contains(r.stdout, `"direction": "lower"`) {
		t.Fatalf("direction lower: exit %d, want 1 (more hops is worse)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	os.WriteFile(th, []byte("version: 1\nmetrics:\n  hops: {tolerance: 0.5}\n"), 0o644)
	if r := gate(t, nil, "compare", "--base", fixture("base.csv"), "--head", fixture("head-more-hops.csv"), "--thresholds", th); r.code != 0 {
		t.Fatalf("default direction (higher): exit %d, want 0 (more hops is an improvement)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// gate baseline put stores a scores file as a results file.
func TestBaselinePutScoresFile(t *testing.T) {
	store := filepath.Join(t.TempDir(), "baseline.json")
	r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", fixture("base.csv"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	f, err := results.Read(store)
	if err != nil || len(f.Samples) != 20 {
		t.Fatalf("stored baseline: %v, %+v", err, f)
	}
	r = gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", fixture("bad.csv"))
	if r.code != 2 || !strings.Contains(r.stderr, "bad.csv:4:") {
		t.Fatalf("bad file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// gate check --scores gates a scores file against the baseline without a
// dataset or a judge: exit 1 on a regression, 0 on a pass, with the
// report file written as a native check writes it.
func TestCheckScores(t *testing.T) {
	dir := t.TempDir()
	base := importTo(t, "base.csv")
	rep := filepath.Join(dir, "report.md")
	r := gate(t, nil, "check", "--scores", fixture("head-worse.csv"), "--baseline", base, "--report", rep)
	if r.code != 1 || !strings.Contains(r.stdout, "faithfulness") {
		t.Fatalf("worse: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if md := readFile(t, rep); !strings.Contains(md, "faithfulness") || !strings.Contains(md, "| Metric |") {
		t.Errorf("report:\n%s", md)
	}
	if strings.Contains(r.stderr, "judge") {
		t.Errorf("a scores check mentions a judge:\n%s", r.stderr)
	}
	out := filepath.Join(dir, "head.json")
	r = gate(t, nil, "check", "--scores", fixture("head-same.csv"), "--baseline", base, "--out", out)
	if r.code != 0 {
		t.Fatalf("same: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if f, err := results.Read(out); err != nil || len(f.Samples) != 20 {
		t.Errorf("--out: %v", err)
	}
	// Without a baseline: floors only, a pass.
	if r := gate(t, nil, "check", "--scores", fixture("head-worse.csv")); r.code != 0 || !strings.Contains(r.stderr, "floors only") {
		t.Fatalf("no baseline: exit %d\n%s", r.code, r.stderr)
	}
	// --out is written only when given.
	if _, err := os.Stat("results.json"); err == nil {
		t.Error("check --scores wrote results.json in the working directory")
	}
}

func TestCheckScoresUsage(t *testing.T) {
	r := gate(t, nil, "check", "--scores", fixture("head-same.csv"), "--dataset", "../../testdata/demo/golden.jsonl")
	if r.code != 2 || !strings.Contains(r.stderr, "--scores") || !strings.Contains(r.stderr, "--dataset") {
		t.Fatalf("both: exit %d, stderr %q", r.code, r.stderr)
	}
	r = gate(t, nil, "check")
	if r.code != 2 || !strings.Contains(r.stderr, "--dataset") || !strings.Contains(r.stderr, "--scores") {
		t.Fatalf("neither: exit %d, stderr %q", r.code, r.stderr)
	}
	r = gate(t, nil, "check", "--scores", fixture("bad.csv"))
	if r.code != 2 || !strings.Contains(r.stderr, "--scores") || !strings.Contains(r.stderr, "bad.csv:4:") {
		t.Fatalf("bad file: exit %d, stderr %q", r.code, r.stderr)
	}
	// The thresholds may name the imported metrics.
	th := filepath.Join(t.TempDir(), "t.yaml")
	os.WriteFile(th, []byte("version: 1\nmetrics:\n  hops: {direction: lower, tolerance: 0.5}\n"), 0o644)
	r = gate(t, nil, "check", "--scores", fixture("head-more-hops.csv"), "--baseline", importTo(t, "base.csv"), "--thresholds", th)
	if r.code != 1 || !strings.Contains(r.stdout, "hops") {
		t.Fatalf("more hops, direction lower: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// A JSON object that is neither a results file nor a known scores file
// says both.
func TestCompareUnknownJSON(t *testing.T) {
	p := filepath.Join(t.TempDir(), "scores.json")
	os.WriteFile(p, []byte(`{"rows": [{"q": "a", "s": 1}]}`), 0o644)
	r := gate(t, nil, "compare", "--head", p)
	if r.code != 2 || !strings.Contains(r.stderr, "--head") || !strings.Contains(r.stderr, `no "schema" field`) || !strings.Contains(r.stderr, "Ragas, promptfoo, DeepEval, table") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
