package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/importer"
	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

// ScoresFormats are the values of the scores-format settings: the
// formats of other evaluators' files a user may force.
var ScoresFormats = Enum{Values: scoresFormatNames(), Want: "ragas, promptfoo, deepeval or table"}

func scoresFormatNames() []string {
	var out []string
	for _, f := range importer.Formats {
		out = append(out, string(f))
	}
	return out
}

// sniffSize is how much of a file readScores looks at to tell a raggate
// results file (its schema comes first) from another evaluator's.
const sniffSize = 4096

// ReadScores reads the scores at path, named what in errors ("--head"):
// a raggate results file, or another evaluator's per-sample scores
// (Ragas, promptfoo, DeepEval, a table), sniffed from the content unless
// format forces one. A results file keeps the texts o selects; an
// imported file is whole. It returns the format imported ("" for a
// results file). Every error of the file is a usage error (exit 2).
func ReadScores(env Env, path, format, what string, o results.ReadOptions) (*results.File, importer.Format, error) {
	return ReadScoresWith(env, path, what, ScoresOptions{Format: format, Read: o})
}

// ScoresOptions are the options of ReadScoresWith.
type ScoresOptions struct {
	Format string // forced format ("" sniffs)
	// Model is the evaluation model recorded in the judge identity of an
	// imported file that names none (--model).
	Model string
	Read  results.ReadOptions // what a results file keeps of its texts
}

// ReadScoresWith is ReadScores with the evaluation model of files that
// name none. The import's warnings (a column of numbers taken as
// metadata, ids derived from inputs) go to the log, naming the file.
func ReadScoresWith(env Env, path, what string, o ScoresOptions) (*results.File, importer.Format, error) {
	f, _, format, err := readScores(env, path, what, o, false)
	return f, format, err
}

// ReadScoresTable is ReadScores by columns: a raggate results file is read
// as a results.Table (results.ReadTable: its samples never held whole);
// another evaluator's file is imported whole and wrapped, and returned
// too (imported, nil for a results file).
func ReadScoresTable(env Env, path, format, what string) (t *results.Table, imported *results.File, _ importer.Format, _ error) {
	f, t, got, err := readScores(env, path, what, ScoresOptions{Format: format}, true)
	if err != nil {
		return nil, nil, "", err
	}
	if t == nil {
		t = results.TableOf(f)
	}
	return t, f, got, nil
}

// readScores is ReadScoresWith; with table, a results file is read by
// columns into t (f nil).
func readScores(env Env, path, what string, o ScoresOptions, table bool) (f *results.File, t *results.Table, _ importer.Format, _ error) {
	abs := env.abs(path)
	// The scores file of check --scores and the action's input: the
	// output of the evaluator's step, most often a wrong relative path.
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) && (what == "--scores" || what == `input "scores"`) {
		return nil, nil, "", scoresErr(what, fmt.Errorf("%s does not exist (give the path of the file your evaluator wrote, relative to the working directory)", path))
	}
	if o.Format == "" {
		head, err := readHead(abs)
		if err != nil {
			return nil, nil, "", scoresErr(what, err)
		}
		_, sniffed := importer.Sniff(head)
		// A JSON object no other evaluator's shape claims is taken for a
		// results file whose schema comes later (keys written in another
		// order): its errors are the results reader's, with its line.
		// A schema that is not a string (pandas orient=table) never is.
		if isResultsFile(head) || (!sniffed && isJSONObject(head) && !importer.SchemaNotString(head)) {
			var err error
			if table {
				t, err = results.ReadTable(abs, o.Read)
			} else {
				f, err = results.ReadWith(abs, o.Read)
			}
			if errors.Is(err, results.ErrSchema) && !isResultsFile(head) {
				err = fmt.Errorf("%w; nor is it a scores file of a shape raggate knows (Ragas, promptfoo, DeepEval, table): if it is one, force its format", err)
			}
			if err != nil {
				return nil, nil, "", scoresErr(what, err)
			}
			return f, t, "", nil
		}
	}
	f, got, err := importer.Read(abs, importer.Options{Format: importer.Format(o.Format), Model: o.Model})
	if err != nil {
		return nil, nil, "", scoresErr(what, err)
	}
	for _, w := range f.Warnings {
		env.logf("warning: %s: %s", path, w)
	}
	return f, nil, got, nil
}

// isScoresFile reports whether the file at path exists and is another
// evaluator's scores file rather than a raggate results file (by the
// same test as ReadScores).
func isScoresFile(path string) bool {
	head, err := readHead(path)
	if err != nil {
		return false
	}
	_, sniffed := importer.Sniff(head)
	return !isResultsFile(head) && (sniffed || !isJSONObject(head))
}

// scoresErr is a usage error of the scores file named what ("" names
// none: the error names the file).
func scoresErr(what string, err error) error {
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	return asUsage(err)
}

// readHead reads the start of the file at path.
func readHead(path string) ([]byte, error) {
	file, err := inputfile.Open(path, inputfile.ResultsLimit())
	if err != nil {
		return nil, err
	}
	defer file.Close()
	buf := make([]byte, sniffSize)
	n, err := io.ReadFull(file, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return buf[:n], nil
}

// isResultsFile tells a raggate results file by its start: a JSON object
// whose schema, written first, is raggate's (any version: the results
// reader words a version it does not read).
func isResultsFile(head []byte) bool {
	return isJSONObject(head) && bytes.Contains(head, []byte(`"raggate.results/`))
}

// isJSONObject tells whether head starts a JSON object.
func isJSONObject(head []byte) bool {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	return bytes.HasPrefix(head, []byte("{"))
}

// ImportConfig is the configuration of the import use case.
type ImportConfig struct {
	In     string // the scores file
	Format string // forced format ("" sniffs)
	Model  string // the evaluation model, when the file names none
	Out    string // the results file to write
}

// Imported is what the import use case read and wrote.
type Imported struct {
	File   *results.File
	Format importer.Format
	// Metrics describe each metric of the file, in the file's order.
	Metrics []ImportedMetric
	// Metadata are the sample metadata keys the import kept (columns or
	// fields that are not scores), sorted.
	Metadata []string
}

// ImportedMetric is one metric of an imported file: how many samples it
// scored, how many it left undefined, and whether raggate knows it.
type ImportedMetric struct {
	Name              string
	Scored, Undefined int
	Catalogue         bool
	Direction         metrics.Direction
}

// Import is the import use case: it reads another evaluator's scores and
// writes them as a raggate results file, atomically.
func Import(env Env, c ImportConfig) (*Imported, error) {
	f, format, err := ReadScoresWith(env, c.In, "", ScoresOptions{Format: c.Format, Model: c.Model, Read: results.ReadOptions{Texts: results.AllTexts}})
	if err != nil {
		return nil, err
	}
	if format == "" {
		return nil, usageErr("import: %s is already a raggate results file: compare or store it as it is", c.In)
	}
	if err := results.Write(env.abs(c.Out), f); err != nil {
		return nil, fmt.Errorf("write %s: %w", c.Out, err)
	}
	return &Imported{File: f, Format: format, Metrics: describeImported(f), Metadata: metadataKeys(f)}, nil
}

// metadataKeys are the metadata keys of f's samples, sorted.
func metadataKeys(f *results.File) []string {
	seen := map[string]bool{}
	for i := range f.Samples {
		for k := range f.Samples[i].Metadata {
			seen[k] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// describeImported counts each metric's scored and undefined samples.
func describeImported(f *results.File) []ImportedMetric {
	counts := map[string]*ImportedMetric{}
	for i := range f.Samples {
		for m, v := range f.Samples[i].Scores {
			im := counts[m]
			if im == nil {
				im = &ImportedMetric{Name: m}
				counts[m] = im
			}
			if v.IsNaN() {
				im.Undefined++
			} else {
				im.Scored++
			}
		}
	}
	// The file's order (the importer declares the metrics in it), so that
	// the summary reads as the file does.
	names := slices.Clone(f.Config.Metrics)
	var extra []string
	for m := range counts {
		if !slices.Contains(names, m) {
			extra = append(extra, m)
		}
	}
	slices.Sort(extra)
	names = append(names, extra...)
	out := make([]ImportedMetric, 0, len(names))
	for _, m := range names {
		if counts[m] == nil {
			continue
		}
		im := *counts[m]
		if cm, ok := f.Metric(m); ok {
			im.Catalogue, im.Direction = cm.User == nil, cm.Direction
		}
		out = append(out, im)
	}
	return out
}

// ScoredBy words who scored an imported file: the tool and, when the
// file says, the evaluation model.
func ScoredBy(f *results.File) string {
	parts := []string{f.Judge.Provider}
	if f.Judge.Model != "" {
		parts = append(parts, "model "+f.Judge.Model)
	}
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), ", ")
}
