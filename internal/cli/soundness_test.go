package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/judge/openaitest"
	"github.com/raggate/raggate/internal/results"
)

// TestMissingDataIsNotAJudgeFailure: samples without a question and with
// an empty response and reference leave metrics undefined for reasons of
// the data, which is not a judge failure (exit 3): the results say which
// kind each undefined score is. With every golden field empty nothing is
// scored at all, which is a usage error (exit 2, issue 22 item 18; review
// 9: an empty reference scores nothing), the results still written.
func TestMissingDataIsNotAJudgeFailure(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "golden.jsonl")
	row := `{"id":"%s","user_input":null,"retrieved_contexts":["The K2 stores 13.5 kWh."],"response":"","reference":""}`
	var lines []string
	for _, id := range []string{"a", "b", "c"} {
		lines = append(lines, strings.Replace(row, "%s", id, 1))
	}
	if err := os.WriteFile(ds, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.json")
	r := gate(t, nil, "run", "--dataset", ds, "--judge", "offline", "--out", out, "--quiet")
	if r.code != 2 || !strings.Contains(r.stderr, "no metric could be scored") {
		t.Fatalf("exit %d, want 2 (nothing scored for want of data; not a judge failure)\n%s", r.code, r.stderr)
	}
	f, err := results.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Samples[0]
	for m, want := range map[string]results.UndefinedKind{"faithfulness": results.KindData, "string_similarity": results.KindData} {
		if got := s.UndefinedKind[m]; got != want {
			t.Errorf("%s: undefined kind %q (%s), want %q", m, got, s.Undefined[m], want)
		}
	}
}

// TestGarbageAnswersFailCheck: replacing 8 of the 20 demo responses by ":"
// leaves faithfulness and answer_relevancy undefined on those samples;
// that loss is evidence and fails the gate (it used to pass).
func TestGarbageAnswersFailCheck(t *testing.T) {
	dir := t.TempDir()
	golden, err := os.ReadFile(repo + "/testdata/demo/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, line := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
		var row struct {
			ID       string `json:"id"`
			Response string `json:"response"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		if i < 8 {
			row.Response = ":"
		}
		b, _ := json.Marshal(row)
		lines = append(lines, string(b))
	}
	responses := filepath.Join(dir, "responses.jsonl")
	if err := os.WriteFile(responses, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := gate(t, nil, "check", "--dataset", repo+"/testdata/demo/golden.jsonl", "--baseline", repo+"/testdata/demo/baseline.json",
		"--judge", "offline", "--responses", responses, "--out", filepath.Join(dir, "head.json"), "--quiet")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (garbage answers must fail)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"faithfulness lost its score on 8 paired samples", "most often: no statements in response", "report-only"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
}

// demoBaseline reads the demo baseline for a test to alter.
func demoBaseline(t *testing.T) *results.File {
	t.Helper()
	f, err := results.Read(repo + "/testdata/demo/baseline.json")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func writeResults(t *testing.T, f *results.File) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "head.json")
	if err := results.Write(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareIncompleteHeadFails: an empty head, an incomplete one, or one
// with far fewer samples than the base cannot pass `gate compare`.
func TestCompareIncompleteHeadFails(t *testing.T) {
	tests := []struct {
		name  string
		alter func(*results.File)
		want  string
	}{
		{"no samples", func(f *results.File) { f.Samples = nil }, "head has no scored samples"},
		{"cancelled at 16 of 20", func(f *results.File) {
			f.Samples, f.Incomplete = f.Samples[:16], "cancelled: 16 of 20 samples judged"
		}, "head run is incomplete (cancelled: 16 of 20 samples judged)"},
		{"cut by the time budget", func(f *results.File) {
			f.Samples, f.Incomplete = f.Samples[:19], "time budget --max-duration=1m0s reached: 19 of 20 samples judged"
		}, "an incomplete run cannot pass"},
		{"far fewer samples", func(f *results.File) { f.Samples = f.Samples[:7] }, "head pairs with only 7 of the base's 20 samples"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := demoBaseline(t)
			tt.alter(head)
			r := gate(t, nil, "compare", "--base", repo+"/testdata/demo/baseline.json", "--head", writeResults(t, head))
			if r.code != 1 || !strings.Contains(r.stdout, tt.want) {
				t.Fatalf("exit %d, want 1 with %q\n%s\n%s", r.code, tt.want, r.stdout, r.stderr)
			}
		})
	}
}

// TestOutOfRangeScoresAreRefused: a score outside its metric's range in a
// baseline or a head is a bad input (exit 2) naming the file, the sample and
// the metric.
func TestOutOfRangeScoresAreRefused(t *testing.T) {
	for _, v := range []float64{-1, 5} {
		bad := demoBaseline(t)
		bad.Samples[3].Scores["faithfulness"] = results.Score(v)
		path := writeResults(t, bad)
		id := bad.Samples[3].ID
		for _, args := range [][]string{
			{"compare", "--base", path, "--head", repo + "/testdata/demo/baseline.json"},
			{"compare", "--base", repo + "/testdata/demo/baseline.json", "--head", path},
		} {
			r := gate(t, nil, args...)
			want := path + `: invalid results file: sample "` + id + `": faithfulness score `
			if r.code != 2 || !strings.Contains(r.stderr, want) {
				t.Errorf("%v with faithfulness %v: exit %d, want 2 with %q\n%s", args[1:3], v, r.code, want, r.stderr)
			}
		}
	}
}

// TestBaselinePutRefusesIncompleteResults: an incomplete, empty or
// single-shard results file is not stored (exit 2, with the fix).
func TestBaselinePutRefusesIncompleteResults(t *testing.T) {
	tests := []struct {
		name  string
		alter func(*results.File)
		want  string
	}{
		{"incomplete", func(f *results.File) { f.Samples, f.Incomplete = f.Samples[:16], "cancelled: 16 of 20 samples judged" },
			"is an incomplete run (cancelled: 16 of 20 samples judged); a baseline must be complete: re-run `gate run` to completion"},
		{"empty", func(f *results.File) { f.Samples = nil }, "has no scored samples; re-run `gate run` to completion"},
		{"one shard", func(f *results.File) { f.Shard = "1/4" }, "holds only shard 1/4; merge the shards with `gate merge`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := demoBaseline(t)
			tt.alter(f)
			store := filepath.Join(t.TempDir(), "store.json")
			r := gate(t, nil, "baseline", "put", "--store", "file", "--path", store, "--results", writeResults(t, f))
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Fatalf("exit %d, want 2 with %q\n%s", r.code, tt.want, r.stderr)
			}
			if _, err := os.Stat(store); !os.IsNotExist(err) {
				t.Errorf("the store was written (%v)", err)
			}
		})
	}
}

// TestCheckCutByTheTimeBudgetExits3: `gate check` whose own run was cut
// keeps exit 3 (an operational failure), not the 1 of an incomplete head
// given to `gate compare`.
func TestCheckCutByTheTimeBudgetExits3(t *testing.T) {
	srv := openaitest.NewServer(t)
	srv.Inject(openaitest.Stall().Times(-1))
	r := gate(t, map[string]string{"OPENAI_API_KEY": "k"}, "check", "--quiet", "--dataset", repo+"/testdata/demo/golden.jsonl",
		"--baseline", repo+"/testdata/demo/baseline.json", "--base-url", srv.URL, "--model", "m", "--embedding-model", "e",
		"--no-cache", "--max-duration", "300ms", "--out", filepath.Join(t.TempDir(), "r.json"))
	if r.code != 3 || !strings.Contains(r.stderr, "time budget --max-duration=300ms reached") {
		t.Fatalf("exit %d, want 3\n%s", r.code, r.stderr)
	}
}
