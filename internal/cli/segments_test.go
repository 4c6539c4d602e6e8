package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/compare"
)

// writeTopicDataset writes 60 samples in three topics (a "topic" column
// the gate keeps as metadata); with wrongBilling the billing answers quote
// a price the context does not support.
func writeTopicDataset(t *testing.T, path string, wrongBilling bool) {
	t.Helper()
	topics := []string{"billing", "shipping", "account"}
	var b strings.Builder
	for i := range 60 {
		topic := topics[i%3]
		price := 10 + i
		answer := price
		if wrongBilling && topic == "billing" {
			answer = price + 7
		}
		row := map[string]any{
			"id":                 fmt.Sprintf("q-%03d", i),
			"user_input":         fmt.Sprintf("How much does the model %d adapter cost?", i),
			"retrieved_contexts": []string{fmt.Sprintf("The model %d adapter costs %d dollars and ships within two days.", i, price)},
			"response":           fmt.Sprintf("The model %d adapter costs %d dollars.", i, answer),
			"topic":              topic,
		}
		line, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckSegmentBy(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.jsonl"), filepath.Join(dir, "bad.jsonl")
	writeTopicDataset(t, good, false)
	writeTopicDataset(t, bad, true)
	base := filepath.Join(dir, "base.json")
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", good, "--out", base); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	check := func(extra ...string) (runResult, compare.Report) {
		t.Helper()
		args := append([]string{"check", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", bad,
			"--baseline", base, "--out", filepath.Join(dir, "head.json"), "--format", "json"}, extra...)
		r := gate(t, nil, args...)
		var rep compare.Report
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("exit %d, report: %v\n%s", r.code, err, r.stderr)
		}
		return r, rep
	}
	r, rep := check("--segment-by", "topic")
	if r.code != 1 || len(rep.Segments) != 1 || len(rep.Segments[0].Segments) != 3 {
		t.Fatalf("exit %d, segments %+v", r.code, rep.Segments)
	}
	found := false
	for _, f := range rep.Failures {
		found = found || strings.HasPrefix(f, "faithfulness regressed by") && strings.Contains(f, " on topic=billing (p")
	}
	if !found {
		t.Errorf("failures %q do not name faithfulness on topic=billing", rep.Failures)
	}
	for _, s := range rep.Segments[0].Segments {
		if got := s.Metrics[0].Change; (got == compare.VerdictRegression) != (s.Value == "billing") {
			t.Errorf("topic=%s: %s", s.Value, got)
		}
	}

	// The same key from the thresholds file: the union with the flag's
	// keys is used.
	th := filepath.Join(dir, "raggate.yaml")
	if err := os.WriteFile(th, []byte("version: 1\nsegments: [topic]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, rep = check("--thresholds", th, "--segment-by", "topic")
	if r.code != 1 || len(rep.Segments) != 1 {
		t.Errorf("thresholds and flag: exit %d, %d keys", r.code, len(rep.Segments))
	}
	// A misspelt key is exit 2 before any judge call: transcript
	// check-segment-by-typo.
	// gate compare of two results files only warns: the judging is done.
	r = gate(t, nil, "compare", "--base", base, "--head", filepath.Join(dir, "head.json"), "--segment-by", "Topic,topic", "--format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("compare: exit %d: %v\n%s", r.code, err, r.stderr)
	}
	if r.code != 1 || len(rep.Segments) != 2 || !strings.Contains(strings.Join(rep.Warnings, "\n"), `segment key "Topic" is in no paired sample's metadata, so no segment was compared; did you mean "topic"?`) {
		t.Errorf("compare: exit %d, %d keys, warnings %q", r.code, len(rep.Segments), rep.Warnings)
	}

	// Text output lists the segment.
	r = gate(t, nil, "compare", "--base", base, "--head", filepath.Join(dir, "head.json"), "--segment-by", "topic")
	if r.code != 1 || !strings.Contains(r.stdout, "  - topic=billing: faithfulness ") {
		t.Errorf("compare: exit %d\n%s", r.code, r.stdout)
	}
}

// Repeated and comma-separated keys add up (bad keys: transcript
// compare-segment-by).
func TestSegmentByKeysAddUp(t *testing.T) {
	var o Options
	fs := newFlagSet("compare", Env{Stderr: io.Discard}, "")
	o.bindCompare(fs)
	if err := fs.Parse([]string{"--segment-by", "topic, language", "--segment-by", "Product Area"}); err != nil || strings.Join(o.SegmentBy, "|") != "topic|language|Product Area" {
		t.Errorf("keys %q, err %v", o.SegmentBy, err)
	}
}

// The action's segment-by input reaches the comparison: the report names
// the billing segment.
func TestActionSegmentBy(t *testing.T) {
	ws := t.TempDir()
	good, bad := filepath.Join(ws, "good.jsonl"), filepath.Join(ws, "golden.jsonl")
	writeTopicDataset(t, good, false)
	writeTopicDataset(t, bad, true)
	if r := gate(t, nil, "run", "--quiet", "--judge", "offline", "--metrics", "faithfulness", "--dataset", good, "--out", filepath.Join(ws, "base.json")); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	env := actionEnv(t, nil, "workflow_dispatch", dispatchPayload(), map[string]string{
		"dataset": "golden.jsonl", "judge": "offline", "metrics": "faithfulness", "baseline-store": "file", "baseline-path": "base.json",
		"report": "r.md", "segment-by": "topic",
	})
	env["GITHUB_WORKSPACE"] = ws
	r := gate(t, env, "action")
	md, err := os.ReadFile(filepath.Join(ws, "r.md"))
	if err != nil {
		t.Fatalf("exit %d, no report: %v\n%s", r.code, err, r.stderr)
	}
	if r.code != 1 || !strings.Contains(string(md), "| topic=billing | faithfulness |") || !strings.Contains(r.stdout, "on topic=billing") {
		t.Errorf("exit %d\n%s\n%s", r.code, md, r.stdout)
	}
}
