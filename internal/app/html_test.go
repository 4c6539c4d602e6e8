package app

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/htmlreport"
	"github.com/raggate/raggate/internal/redact"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

const htmlSecret = "sk-html-secret-0123456789"

// htmlFiles writes a base and a head of n samples, every one with texts,
// some quoting a secret in a reason or a response, some with a score lost
// on head, some only in head or only in base.
func htmlFiles(t *testing.T, n int) (basePath, headPath string) {
	t.Helper()
	mk := func() *results.File {
		return &results.File{Schema: results.Schema, Judge: results.Judge{Provider: "offline"},
			Config: results.Config{Metrics: []string{"faithfulness", "context_precision"}}}
	}
	base, head := mk(), mk()
	for i := range n {
		id := fmt.Sprintf("q-%04d", i)
		b := results.Sample{ID: id, Question: fmt.Sprint("Question ", i), InputHash: fmt.Sprintf("%016x", i),
			Scores: map[string]results.Score{"faithfulness": results.Score(float64(i%5) / 4), "context_precision": results.Score(float64(i%7) / 6)}}
		h := b
		h.Scores = map[string]results.Score{"faithfulness": results.Score(float64((i*3)%5) / 4), "context_precision": b.Scores["context_precision"]}
		h.Reasons = map[string]string{"faithfulness": "reason " + fmt.Sprint(i)}
		if i%11 == 0 {
			h.Reasons["faithfulness"] = "the key " + htmlSecret + " leaked"
		}
		if i%13 == 2 {
			h.Scores["faithfulness"] = results.NaN()
			h.Undefined = map[string]string{"faithfulness": "judge error with " + htmlSecret}
		}
		h.SetTexts(results.Texts{Response: fmt.Sprintf("Head answer %d %s", i, map[bool]string{true: htmlSecret}[i%9 == 0]), Contexts: []string{"c"}})
		b.SetTexts(results.Texts{Response: fmt.Sprintf("Base answer %d", i), Contexts: []string{"c", "d"}})
		switch i % 29 {
		case 1:
			h.ID += "-new"
		case 2:
			base.Samples = append(base.Samples, b)
			continue
		}
		base.Samples = append(base.Samples, b)
		head.Samples = append(head.Samples, h)
	}
	dir := t.TempDir()
	basePath, headPath = filepath.Join(dir, "base.json"), filepath.Join(dir, "head.json")
	for path, f := range map[string]*results.File{basePath: base, headPath: head} {
		if err := results.Write(path, f); err != nil {
			t.Fatal(err)
		}
	}
	return basePath, headPath
}

// The html report of a comparison reads again only the samples it lists,
// of the head and of the base (through the store), and is the page of the
// whole files, redacted as they were.
func TestRenderReportReadsListedSamplesOnly(t *testing.T) {
	basePath, headPath := htmlFiles(t, 300)
	html, _ := report.Lookup("html")
	const limit = 40
	for _, withBase := range []bool{true, false} {
		env := Env{Dir: t.TempDir(), Red: redact.New(htmlSecret)}
		cfg := CompareConfig{Head: headPath}
		if withBase {
			cfg.Base = basePath
		}
		c, err := Compare(context.Background(), env, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if withBase {
			// The base read again through a store, as check does.
			reread := RereadFrom(&baseline.FileStore{Path: basePath}, baseline.Key{})
			c.HTML.Reread = func(ctx context.Context, keep func(string) bool) (*results.File, error) {
				f, err := reread(ctx, keep)
				if err == nil && len(f.Samples) > limit {
					t.Errorf("the base read again holds %d samples, more than the %d listed", len(f.Samples), limit)
				}
				for _, s := range f.Samples {
					if !keep(s.ID) || !s.HasTexts() {
						t.Errorf("the base read again holds %s (listed %v, texts %v)", s.ID, keep(s.ID), s.HasTexts())
					}
				}
				return f, err
			}
		}
		page, err := RenderReport(context.Background(), env, c.Report, html, c.HTML, limit, report.Options{Gate: "g"})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(page, []byte(htmlSecret)) || !bytes.Contains(page, []byte(redact.Mask)) {
			t.Error("the page quotes the secret, or shows no text that quoted it")
		}
		if got := bytes.Count(page, []byte(`<details class="sample"`)); got != limit {
			t.Errorf("%d samples listed, want %d", got, limit)
		}

		// The whole files, redacted, make the same page.
		whole := func(path string) *results.File {
			f, err := results.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			redactResults(env.Red, f)
			return f
		}
		head := whole(headPath)
		s := htmlreport.Sides{Head: results.TableOf(head), HeadSamples: head}
		if withBase {
			base := whole(basePath)
			s.Base, s.BaseSamples = results.TableOf(base), base
		}
		var want bytes.Buffer
		if err := htmlreport.Render(&want, c.Report, s, htmlreport.Options{Gate: "g", Limit: limit}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(page, want.Bytes()) {
			t.Errorf("base %v: the page differs from the page of the whole files", withBase)
		}
	}
}

// A store read for the page keeps only the samples listed; the store
// itself (baseline get, the comparison) still reads every sample.
func TestRereadFromKeepsOnlySelected(t *testing.T) {
	basePath, _ := htmlFiles(t, 60)
	store, err := OpenStore(Env{}, StoreConfig{Kind: StoreFile, Path: basePath, Texts: results.AllTexts})
	if err != nil {
		t.Fatal(err)
	}
	keep := map[string]bool{"q-0003": true, "q-0031": true, "absent": true}
	f, err := RereadFrom(store, baseline.Key{})(context.Background(), func(id string) bool { return keep[id] })
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Samples) != 2 || f.Samples[0].ID != "q-0003" || f.Samples[1].ID != "q-0031" || !f.Samples[0].HasTexts() {
		t.Errorf("read again: %d samples %v, want q-0003 and q-0031 with texts", len(f.Samples), f.Samples)
	}
	all, _, err := store.Get(context.Background(), baseline.Key{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Samples) != 60 || !all.Samples[0].HasTexts() {
		t.Errorf("the store itself reads %d samples (texts %v), want all 60 with texts", len(all.Samples), all.Samples[0].HasTexts())
	}
}
