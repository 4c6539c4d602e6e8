package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/results"
)

// gate run records each sample's response, contexts and evidence by
// default, and only scores with --record-texts=false; the temporary file
// that held the texts is gone after the run.
func TestRunRecordsTexts(t *testing.T) {
	dir := t.TempDir()
	tmp := t.TempDir()
	env := map[string]string{"TMPDIR": tmp}
	with, without := filepath.Join(dir, "with.json"), filepath.Join(dir, "without.json")
	t.Setenv("TMPDIR", tmp)
	if r := gate(t, env, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--no-cache", "--out", with); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := gate(t, env, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--no-cache", "--record-texts=false", "--out", without); r.code != 0 {
		t.Fatal(r.stderr)
	}
	f, err := results.Read(with)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Samples[0]
	if !strings.HasPrefix(s.Response, "The Kestrel K2 stores 13.5 kWh") || len(s.Contexts) != 3 || len(s.Evidence["faithfulness"]) == 0 {
		t.Errorf("first sample's texts: response %q, %d contexts, evidence %v", s.Response, len(s.Contexts), s.Evidence)
	}
	g, err := results.Read(without)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range g.Samples {
		if s.HasTexts() {
			t.Fatalf("--record-texts=false recorded the texts of %s", s.ID)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "raggate-texts-*")); len(left) > 0 {
		t.Errorf("the run left its texts file behind: %v", left)
	}
}

// gate compare --format html writes the page; --html-samples limits the
// samples listed and the page says how many it leaves out. gate check
// --report x.html against a baseline that records no texts (written before
// they were recorded) says so and still shows the head's responses.
func TestHTMLReportFormats(t *testing.T) {
	dir := t.TempDir()
	head := filepath.Join(dir, "head.json")
	r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--responses", repo+"/testdata/demo/responses-degraded.jsonl",
		"--judge", "offline", "--no-cache", "--out", head)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	base := repo + "/testdata/demo/baseline.json"
	r = gate(t, nil, "compare", "--base", base, "--head", head, "--format", "html", "--html-samples", "5")
	if r.code != 1 {
		t.Fatalf("compare: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "<!DOCTYPE html>") || !strings.Contains(r.stdout, "15 more samples are not listed") ||
		strings.Count(r.stdout, `<details class="sample"`) != 5 {
		t.Errorf("compare --format html --html-samples 5: not a page of the 5 worst samples")
	}
	// A baseline without texts, as files written before they were recorded.
	textless := filepath.Join(dir, "textless.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--no-cache",
		"--record-texts=false", "--out", textless); r.code != 0 {
		t.Fatal(r.stderr)
	}
	base = textless
	page := filepath.Join(dir, "report.html")
	r = gate(t, nil, "check", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--responses", repo+"/testdata/demo/responses-degraded.jsonl",
		"--judge", "offline", "--no-cache", "--baseline", base, "--out", filepath.Join(dir, "h2.json"), "--report", page)
	if r.code != 1 {
		t.Fatalf("check: exit %d\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="no-base-texts"`, "base text not recorded", "The Kestrel K2 stores 20 kWh", `<table id="verdicts">`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("check --report report.html: the page lacks %q", want)
		}
	}
	if !strings.Contains(r.stdout, "faithfulness") {
		t.Errorf("check printed no text report on stdout:\n%s", r.stdout)
	}
}

// A baseline that records texts gives the page the base responses, diffed
// against the head's; baseline put and get keep the texts.
func TestHTMLReportWithBaseTexts(t *testing.T) {
	dir := t.TempDir()
	base, head := filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--judge", "offline", "--no-cache", "--out", base); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := gate(t, nil, "run", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl", "--responses", repo+"/testdata/demo/responses-degraded.jsonl",
		"--judge", "offline", "--no-cache", "--out", head); r.code != 0 {
		t.Fatal(r.stderr)
	}
	store := filepath.Join(dir, "store.json")
	got := filepath.Join(dir, "got.json")
	if r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", base); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := gate(t, nil, "baseline", "get", "--store", "file", "--path", store, "--out", got); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := gate(t, nil, "compare", "--base", got, "--head", head, "--format", "html")
	if r.code != 1 {
		t.Fatalf("compare: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "base text not recorded") || !strings.Contains(r.stdout, "<del>") || !strings.Contains(r.stdout, "<ins>") {
		t.Error("the page does not diff the base responses (kept through baseline put and get) against the head's")
	}
}

// The action's report-html input writes the page in check mode, with the
// base's responses read from the store.
func TestActionWritesHTMLReport(t *testing.T) {
	ws := workspace(t)
	if r := gate(t, nil, "run", "--quiet", "--dataset", filepath.Join(ws, "eval", "golden.jsonl"), "--judge", "offline", "--no-cache", "--out", filepath.Join(ws, "eval", "base.json")); r.code != 0 {
		t.Fatal(r.stderr)
	}
	env := actionEnv(t, nil, "workflow_dispatch", dispatchPayload(), map[string]string{
		"mode": "check", "dataset": "golden.jsonl", "responses": "degraded.jsonl", "judge": "offline", "working-directory": "eval",
		"baseline-store": "file", "baseline-path": "base.json", "report-html": "raggate-report.html", "fail-on-regression": "false",
	})
	env["GITHUB_WORKSPACE"] = ws
	b, err := os.ReadFile(repo + "/testdata/demo/responses-degraded.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "eval", "degraded.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := gate(t, env, "action"); r.code != 0 {
		t.Fatalf("action: exit %d\n%s", r.code, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(ws, "eval", "raggate-report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>raggate: fail</title>", "<del>", "The Kestrel K2 stores 20 kWh"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the action's HTML report lacks %q", want)
		}
	}
}
