package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/raggate/raggate/internal/app"
)

// importCmd converts another evaluator's per-sample scores (Ragas,
// promptfoo, DeepEval, a table) into a raggate results file and says
// what it read.
func importCmd(_ context.Context, env Env, args []string) error {
	o := defaultOptions()
	o.Out = ""
	var format, model string
	fs := newFlagSet("import", env, "FILE --out results.json [--format ragas|promptfoo|deepeval|table] [--model MODEL]")
	fs.StringVar(&o.Out, "out", "", "results `file` to write (required)")
	enumVar(fs, &format, "format", &app.ScoresFormats, "the scores file's `format`: ragas, promptfoo, deepeval or table (default: sniffed from the content)")
	fs.StringVar(&model, "model", "", "the evaluation `model` that scored the file, recorded in the judge identity when the file names none (Ragas and table files never do)")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) == 0:
		return usageErr("import: give the scores file to convert, e.g. gate import ragas-scores.csv --out results.json")
	case len(files) > 1:
		return usageErr("import: give one scores file, got %d (%s)", len(files), strings.Join(files, ", "))
	case o.Out == "":
		return usageErr("import: --out is required: name the results file to write, e.g. --out results.json")
	}
	in := []app.NamedPath{{Key: "input", Path: files[0]}}
	if err := app.JoinProblems(app.OutputProblems(env.app(), in, []app.NamedPath{{Key: "out", Path: o.Out}}), mergeName); err != nil {
		return err
	}
	imp, err := app.Import(env.app(), app.ImportConfig{In: files[0], Format: format, Model: strings.TrimSpace(model), Out: o.Out})
	if err != nil {
		return err
	}
	printImported(env, files[0], imp)
	fmt.Fprintf(env.Stderr, "wrote %s\n", o.Out)
	return nil
}

// printImported says what an import read: the format, who scored it, the
// samples and each metric's scored and undefined counts.
func printImported(env Env, path string, imp *app.Imported) {
	w := env.Stdout
	by := ""
	if s := app.ScoredBy(imp.File); s != "" && s != string(imp.Format) {
		by = ", scored by " + s
	}
	fmt.Fprintf(w, "read %s (%s%s): %s, %s\n", path, imp.Format, by, plural(len(imp.File.Samples), "sample"), plural(len(imp.Metrics), "metric"))
	width := 0
	for _, m := range imp.Metrics {
		width = max(width, len(m.Name))
	}
	for _, m := range imp.Metrics {
		note := "catalogue metric, " + m.Direction.String() + " is better"
		if !m.Catalogue {
			note = "not in raggate's catalogue: " + m.Direction.String() + " is better unless the thresholds give its direction"
		}
		fmt.Fprintf(w, "  %-*s  %d scored, %d undefined  (%s)\n", width, m.Name, m.Scored, m.Undefined, note)
	}
	if len(imp.Metadata) > 0 {
		fmt.Fprintf(w, "  metadata, not scored: %s\n", strings.Join(imp.Metadata, ", "))
	}
}

// plural counts n things: "1 sample", "2 samples".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// parseInterleaved parses flags given before, between and after the
// positional arguments (gate import FILE --out F), and returns those.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlagsArgs(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil // after --, everything is an argument
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}
