package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The judge: section of --judge-config gives judge settings by flag name;
// a flag on the command line wins; values are checked as flags are, and
// problems name the file, line and column.
func TestJudgeConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("judge.yaml", "version: 1\ntarget:\n  url: http://localhost:1\njudge:\n  model: gpt-4o\n  header: {X-Org: acme}\n  max-completion-tokens: 100\n")
	bad := write("bad.yaml", "judge:\n  rpm: -3\n  modle: x\n  concurrency: lots\n")
	dataset := "../../testdata/demo/golden.jsonl"
	for _, tt := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"file", []string{"--judge-config", good}, 0, []string{`judge model "gpt-4o"`}},
		{"flag wins", []string{"--judge-config", good, "--model", "gpt-4o-mini"}, 0, []string{`judge model "gpt-4o-mini"`}},
		{"bad values", []string{"--judge-config", bad}, 2, []string{
			"bad.yaml:2:8: judge.rpm -3: want 0 (no limit) or more requests per minute",
			`bad.yaml:3:3: unknown key "modle" in judge; did you mean "model"?`,
			`bad.yaml:4:16: judge.concurrency "lots": want an integer, 1 to 1000`}},
		{"bad value given as a flag too", []string{"--judge-config", bad, "--rpm", "5", "--concurrency", "2"}, 2, []string{"modle"}},
		{"missing", []string{"--judge-config", filepath.Join(dir, "nope.yaml")}, 2, []string{"--judge-config: ", "nope.yaml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := gate(t, nil, append([]string{"run", "--dataset", dataset, "--dry-run", "--out", filepath.Join(dir, "r.json")}, tt.args...)...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, tt.code, r.stdout, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stdout+r.stderr, w) {
					t.Errorf("output lacks %q\n%s%s", w, r.stdout, r.stderr)
				}
			}
		})
	}
}

// A bad flag value is refused as it is parsed, with what the flag
// wants, every one of the command line together; nothing is read.
func TestFlagValuesCheckedAsParsed(t *testing.T) {
	r := gate(t, nil, "run", "--dataset", "no-such.jsonl", "--concurrency", "x", "--max-undefined", "2", "--judge", "gpt", "--target-timeout", "0s", "--max-dataset-size", "3T")
	want := []string{`--concurrency "x": want an integer, 1 to 1000`, "--max-undefined 2: want a share from 0 to 1",
		`--judge "gpt": want auto, offline, openai or azure`, "--target-timeout 0s: want 10ms to 1h",
		`--max-dataset-size: want a size in bytes`}
	if r.code != 2 || strings.Contains(r.stderr, "no-such") || strings.Contains(r.stderr, "Usage:") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks %q\n%s", w, r.stderr)
		}
	}
}
