package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/htmlreport"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

func (o *Options) bindCompare(fs *flag.FlagSet) {
	fs.StringVar(&o.Thresholds, "thresholds", o.Thresholds, "thresholds `file` (YAML; see thresholds.example.yaml); default: built-in defaults, no floors")
	fs.StringVar(&o.Format, "format", o.Format, "report `format` on stdout: text, markdown, json or html (one self-contained page)")
	fs.IntVar(&o.HTMLSamples, "html-samples", o.HTMLSamples, "the HTML report lists this many `samples`, the worst (it says how many it leaves out)")
	fs.StringVar(&o.History, "history", "", "a `directory` of earlier results files (say, the base branch's stored baselines): the report adds their trend, the newest 30 judged like the head, with the head's means last")
	fs.Var((*keysFlag)(&o.SegmentBy), "segment-by", "also compare per value of this metadata `key` (a dataset column, case kept; repeatable or comma-separated), added to the thresholds' segments")
}

// keysFlag is a repeatable flag whose values may also be comma-separated.
type keysFlag []string

func (l *keysFlag) String() string { return strings.Join(*l, ",") }
func (l *keysFlag) Set(v string) error {
	for k := range strings.SplitSeq(v, ",") {
		*l = append(*l, strings.TrimSpace(k))
	}
	return nil
}

func compareCmd(ctx context.Context, env Env, args []string) error {
	o := defaultOptions()
	o.Out = ""
	fs := newFlagSet("compare", env, "--base BASE.json --head HEAD.json [--thresholds T] [--segment-by KEY] [--format markdown|text|json] [--out F]")
	fs.StringVar(&o.Base, "base", "", "baseline results `file` (omit when there is none: floors only)")
	fs.StringVar(&o.Head, "head", "", "head results `file`")
	fs.StringVar(&o.Out, "out", "", "write the report to this `file` instead of stdout")
	o.bindCompare(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := o.validate(env, "compare"); err != nil {
		return err
	}
	head, err := results.ReadWith(env.abs(o.Head), results.ScoresOnly)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("--head: %w", err))
	}
	var base *results.File
	if o.Base != "" {
		if base, err = results.ReadWith(env.abs(o.Base), results.ScoresOnly); err != nil {
			return withCode(ExitUsage, fmt.Errorf("--base: %w", err))
		}
	}
	// The thresholds may name the user-defined metrics the results files
	// were judged with.
	th, err := loadThresholds(env, o.Thresholds, filesMetrics(head, base)...)
	if err != nil {
		return err
	}
	trend, err := readTrend(ctx, env, o.History)
	if err != nil {
		return err
	}
	if th, err = withSegments(th, o.SegmentBy); err != nil {
		return err
	}
	rep := compareRedacted(env, base, head, th)
	if o.Format == "html" {
		sides := htmlSides{base: base, head: head, headPath: env.abs(o.Head)}
		if o.Base != "" {
			sides.reread = func(_ context.Context, keep func(string) bool) (*results.File, error) {
				return results.ReadWith(env.abs(o.Base), results.ReadOptions{Texts: keep})
			}
		}
		if err := writeHTML(ctx, env, rep, sides, &o, o.Out, htmlreport.Options{}); err != nil {
			return err
		}
		return verdictErr(rep)
	}
	if err := emitReport(env, rep, o.Format, o.Out, report.Options{Trend: trend}); err != nil {
		return err
	}
	return verdictErr(rep)
}

func checkCmd(ctx context.Context, env Env, args []string) error {
	o := defaultOptions()
	fs := newFlagSet("check", env, "--dataset FILE [run flags] [--baseline FILE | --baseline-ref REF:PATH] [--thresholds T] [--report F]")
	o.bindDataset(fs)
	o.bindJudge(fs)
	o.bindOut(fs)
	o.bindTarget(fs)
	o.bindCompare(fs)
	fs.StringVar(&o.Baseline, "baseline", "", "baseline results `file` (missing file: no baseline yet, floors only)")
	fs.StringVar(&o.BaselineRef, "baseline-ref", "", "read the baseline from git, `REF:PATH`, e.g. origin/main:eval/results.json")
	fs.StringVar(&o.Report, "report", "", "also write the report to this `file` (.md markdown, .json JSON, .html HTML page, else text)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := o.validate(env, "check"); err != nil {
		return err
	}
	if err := o.loadUserMetrics(env); err != nil {
		return err
	}
	th, err := loadThresholds(env, o.Thresholds, o.userMetrics()...)
	if err != nil {
		return err
	}
	store, err := baselineStore(env, &o)
	if err != nil {
		return err
	}
	if th, err = withSegments(th, o.SegmentBy); err != nil {
		return err
	}
	o.segmentKeys = th.Segments
	// Read the baseline before spending judge calls: a broken baseline is
	// cheaper to learn about first. Then let go of it while judging and
	// read it again for the comparison.
	reread, err := probeBaseline(ctx, env, store)
	if err != nil {
		return err
	}
	trend, err := readTrend(ctx, env, o.History)
	if err != nil {
		return err
	}
	var base *results.File
	var src string
	defer o.closeTexts()
	head, err := execRun(ctx, env, &o)
	if err != nil || head == nil { // head is nil after --dry-run
		return err
	}
	if reread {
		if base, src, err = getBaseline(ctx, env, store); err != nil {
			return err
		}
	}
	rep := compareRedacted(env, base, head, th)
	opts := report.Options{BaselineSource: src, Trend: trend}
	sides := htmlSides{base: base, head: head, headPath: env.abs(o.Out)}
	if base != nil {
		sides.reread = func(ctx context.Context, keep func(string) bool) (*results.File, error) {
			f, _, err := getBaseline(ctx, env, withTexts(store, keep))
			return f, err
		}
	}
	hopts := htmlreport.Options{BaselineSource: src}
	if err := emit(ctx, env, rep, sides, &o, o.Format, "", opts, hopts); err != nil {
		return err
	}
	if o.Report != "" {
		if err := emit(ctx, env, rep, sides, &o, formatFor(o.Report), o.Report, opts, hopts); err != nil {
			return err
		}
	}
	return verdictErr(rep)
}

// baselineStore picks the store the flags name (nil: no baseline).
func baselineStore(env Env, o *Options) (baseline.Store, error) {
	switch {
	case o.Baseline != "":
		return &baseline.FileStore{Path: env.abs(o.Baseline)}, nil
	case o.BaselineRef != "":
		ref, path, ok := strings.Cut(o.BaselineRef, ":")
		if !ok || ref == "" || path == "" {
			return nil, usageErr("--baseline-ref %q: want REF:PATH, e.g. origin/main:eval/results.json", o.BaselineRef)
		}
		return &baseline.GitStore{Dir: env.Dir, Ref: ref, Path: path}, nil
	}
	return nil, nil
}

// probeBaseline reads the baseline to check it and reports whether there
// is one. It is a function of its own so that nothing of the file outlives
// the call: holding the first read in a local of checkCmd, even one set to
// nil, kept a 40,000-sample baseline reachable from that frame for the
// whole run (measured: about 60 MB live at 40,000 samples). noinline keeps
// it so: inlined, the read would live in checkCmd's frame again.
//
//go:noinline
func probeBaseline(ctx context.Context, env Env, store baseline.Store) (bool, error) {
	base, _, err := getBaseline(ctx, env, store)
	return base != nil, err
}

// getBaseline reads the baseline; none is not an error (floors only).
func getBaseline(ctx context.Context, env Env, store baseline.Store) (*results.File, string, error) {
	if store == nil {
		fmt.Fprintln(env.Stderr, "note: no baseline given (--baseline or --baseline-ref): checking floors only")
		return nil, "", nil
	}
	f, src, err := store.Get(ctx, baseline.Key{})
	switch {
	case errors.Is(err, baseline.ErrNotFound):
		fmt.Fprintf(env.Stderr, "note: %v: no baseline yet, checking floors only\n", err)
		return nil, "", nil
	case err != nil:
		if _, ok := store.(*baseline.FileStore); ok && refusedInput(err) != nil {
			return nil, "", inputErr("--baseline", err)
		}
		return nil, "", baselineErr("baseline", err)
	}
	return f, src.String(), nil
}

// loadThresholds reads a thresholds file that may name the user-defined
// metrics user.
func loadThresholds(env Env, path string, user ...metrics.Metric) (compare.Thresholds, error) {
	if path == "" {
		return compare.DefaultThresholds(), nil
	}
	th, err := compare.LoadThresholdsFor(env.abs(path), user)
	if err != nil {
		return th, withCode(ExitUsage, inputErr("--thresholds", err))
	}
	return th, nil
}

func formatFor(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return "markdown"
	case ".json":
		return "json"
	case ".html", ".htm":
		return "html"
	}
	return "text"
}

// emitReport renders rep in format to path ("" = stdout).
func emitReport(env Env, rep *compare.Report, format, path string, opts report.Options) error {
	var w io.Writer = env.Stdout
	var buf strings.Builder
	if path != "" {
		w = &buf
	}
	switch format {
	case "markdown":
		io.WriteString(w, report.Markdown(rep, opts))
	case "json":
		b, err := report.JSON(rep)
		if err != nil {
			return err
		}
		w.Write(b)
	default:
		if err := report.ConsoleWith(w, rep, opts); err != nil {
			return err
		}
	}
	if path != "" {
		if err := results.WriteFileAtomic(env.abs(path), []byte(buf.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// verdictErr turns a failed comparison into exit code 1.
func verdictErr(rep *compare.Report) error {
	if rep.Passed {
		return nil
	}
	return errFailed
}

// filesMetrics returns the user-defined metrics of results files (nil
// files skipped), each name once, the first file's definition first.
func filesMetrics(files ...*results.File) []metrics.Metric {
	var out []metrics.Metric
	seen := map[string]bool{}
	for _, f := range files {
		if f == nil {
			continue
		}
		for i := range f.UserMetrics {
			if d := &f.UserMetrics[i]; !seen[d.Name] {
				seen[d.Name] = true
				out = append(out, d.Metric())
			}
		}
	}
	return out
}

// readTrend reads the trend of --history (a directory of results files);
// nil without one.
func readTrend(ctx context.Context, env Env, dir string) (*report.History, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := (&baseline.DirStore{Dir: env.abs(dir)}).History(ctx, baseline.Key{}, baseline.DefaultHistory)
	if err != nil {
		return nil, baselineErr("--history", err)
	}
	return historyOf(dir, entries), nil
}

// historyOf computes the history of stored baselines.
func historyOf(branch string, entries []baseline.Entry) *report.History {
	files := make([]report.HistoryFile, len(entries))
	for i, e := range entries {
		files[i] = report.HistoryFile{SHA: e.SHA, Date: e.Date, File: e.File}
	}
	return report.NewHistory(branch, files)
}
