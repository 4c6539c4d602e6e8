package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A run whose only gated metric is a user-defined one (user metrics are
// gated by default) is a baseline: a comparison gates that metric, so
// baseline put must not refuse it as scoring nothing gated.
func TestBaselinePutAcceptsAGatedUserMetric(t *testing.T) {
	dir := t.TempDir()
	ds, mf := latencyDataset(t, dir)
	out := filepath.Join(dir, "r.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics-file", mf, "--metrics", "latency_ms,string_similarity", "--out", out); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	store := filepath.Join(dir, "store.json")
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", out); r.code != 0 {
		t.Fatalf("baseline put of a run gating latency_ms: exit %d\n%s", r.code, r.stderr)
	}
	// Listed as report_only, it gates nothing: refused.
	th := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(th, []byte("version: 1\nreport_only: [latency_ms]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", out, "--thresholds", th); r.code != ExitUsage {
		t.Fatalf("baseline put with latency_ms report-only: exit %d, want 2\n%s", r.code, r.stderr)
	}
}

// A results file may hold reasons of any length (written before reasons
// were bounded, or by hand): every report says them bounded, on one line.
func TestReportsBoundReasonsFromFiles(t *testing.T) {
	base := demoBaseline(t)
	head := demoBaseline(t)
	long := strings.Repeat("the judge\tsaid\nno. ", 20000) // 380 KB with tabs and line breaks
	for i := range head.Samples {
		s := &head.Samples[i]
		s.Scores["faithfulness"] = 0
		if s.Reasons == nil {
			s.Reasons = map[string]string{}
		}
		s.Reasons["faithfulness"] = long
	}
	hp, bp := writeResults(t, head), writeResults(t, base)
	for _, format := range []string{"json", "html", "markdown"} {
		r := gate(t, nil, "compare", "--base", bp, "--head", hp, "--format", format)
		if r.code != 1 {
			t.Fatalf("%s: exit %d, want 1 (faithfulness fell to 0)\n%s", format, r.code, r.stderr)
		}
		if len(r.stdout) > 200<<10 || strings.Contains(r.stdout, "said\nno") || strings.Contains(r.stdout, `said\nno`) {
			t.Errorf("%s report: %d bytes, or a reason with its line break: reasons must be cut to one line", format, len(r.stdout))
		}
	}
}

// Calibrating numeric metrics only says there is nothing to calibrate,
// instead of an empty table and an empty thresholds snippet.
func TestCalibrateOnlyNumericMetrics(t *testing.T) {
	dir := t.TempDir()
	ds, mf := latencyDataset(t, dir)
	r := gate(t, nil, "calibrate", "--quiet", "--dataset", ds, "--judge", "offline", "--metrics-file", mf, "--metrics", "latency_ms", "--out", filepath.Join(dir, "c.json"))
	if r.code != 0 || !strings.Contains(r.stdout, "Nothing to calibrate: latency_ms is numeric") || strings.Contains(r.stdout, "metrics:\n") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// latencyDataset writes the demo dataset with a latency_ms column and a
// metrics file defining latency_ms, a numeric metric (lower is better).
func latencyDataset(t *testing.T, dir string) (dataset, metricsFile string) {
	t.Helper()
	data, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		lines = append(lines, strings.TrimSuffix(l, "}")+`, "latency_ms": `+strconv.Itoa(100+37*i)+"}")
	}
	dataset, metricsFile = filepath.Join(dir, "d.jsonl"), filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(dataset, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(metricsFile, []byte("version: 1\nmetrics:\n  latency_ms:\n    kind: numeric\n    description: latency\n    reads: [latency_ms]\n    direction: lower\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dataset, metricsFile
}
