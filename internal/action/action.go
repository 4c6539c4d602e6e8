// Package action is the GitHub Action front end of the gate: it reads the
// action inputs and the workflow context, runs the use cases of package
// app (check, baseline, comment modes) and publishes the outcome (sticky
// comment, job summary, outputs, annotations) through a Publisher.
package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/baseline"
	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/ghaction"
	"github.com/raggate/raggate/internal/ghapi"
	"github.com/raggate/raggate/internal/ghcomment"
	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/internal/usermetric"
)

// actionSettings are the action inputs that have no counterpart in the
// command-line app.Settings.
type actionSettings struct {
	mode             string // check | baseline | comment
	comment          bool
	trend            bool
	failOnRegression bool
	skipWithoutKey   bool
	gate             string
	token            string
	commentAuthor    string // login the sticky comment is written as; "" = ask GitHub
	store            string // branch | git | file
	storeBranch      string
	storePath        string
	reportHTML       string // where check mode writes the HTML report; "" = none
}

// Run is the container entrypoint: it reads the inputs GitHub passes
// (INPUT_*) into the same settings the flags fill and runs check,
// baseline or comment mode, publishing on stdout (workflow commands) and
// in the files GitHub names. rawStdout is stdout without redaction, for
// the commands that tell the runner which secrets to mask.
func Run(ctx context.Context, env app.Env, stdout, rawStdout io.Writer) error {
	act := ghaction.New(env.Getenv, stdout)
	masks := ghaction.New(env.Getenv, rawStdout)
	return RunWith(ctx, env, &workflowPublisher{act: act, masks: masks})
}

// RunWith runs the action publishing through pub.
func RunWith(ctx context.Context, env app.Env, pub Publisher) error {
	out := &actionOutputs{}
	err := runAction(ctx, env, pub, out)
	if err != nil && !errors.Is(err, app.ErrFailed) {
		// Say so everywhere a reader looks: the annotation, the job summary
		// and the outputs (a later step may branch on verdict).
		msg := env.ErrorText(err)
		pub.Error(msg, "raggate")
		_ = pub.AddSummary("### ⚠️ raggate: error\n\nThe gate could not decide: " + report.Escape(msg) + "\n")
		out.setError()
	}
	// One verdict per run: the outputs are written once, after it is final.
	if werr := out.write(pub); werr != nil && (err == nil || errors.Is(err, app.ErrFailed)) {
		return werr
	}
	return err
}

func runAction(ctx context.Context, env app.Env, pub Publisher, out *actionOutputs) error {
	gh, err := ghaction.ReadContext(env.Getenv)
	if err != nil {
		return app.WithKind(app.KindUsage, fmt.Errorf("read the workflow context: %w", err))
	}
	in := ghaction.NewInputs(env.Getenv)
	o, st, err := actionOptions(in, gh, env)
	// Hide the secrets before anything can quote them: masked in the log
	// (written past the redactor, which would hide them from the runner
	// too) and redacted from everything else.
	for _, s := range env.Protect(append(app.SecretValues(env, &o.RunConfig), st.token)...) {
		pub.Mask(s)
	}
	if err != nil {
		return app.WithKind(app.KindUsage, err)
	}
	for _, w := range gh.Warnings {
		pub.Warning(w, "raggate")
	}
	if st.mode != "comment" && o.Scores != "" {
		if ignored := ignoredWithScores(in); len(ignored) > 0 {
			pub.Warning("input scores gates another evaluator's scores; these inputs are for a run of raggate's own judge and are ignored: "+strings.Join(ignored, ", "), "raggate")
		}
	}
	if env.Dir, err = actionDir(env, gh, in.Get("working-directory")); err != nil {
		return app.WithKind(app.KindUsage, err)
	}
	if st.mode != "comment" {
		if err := app.JoinProblems(o.PathProblems(env, "action", nil), inputNames); err != nil {
			return err
		}
		// The target's header values come from its config file and the
		// step's environment: mask them too, before any call.
		secrets, err := app.TargetSecrets(env, o.RunConfig)
		if err != nil {
			return err
		}
		for _, s := range env.Protect(secrets...) {
			pub.Mask(s)
		}
	}

	a := &actionRun{env: env, pub: pub, gh: gh, o: o, st: st, out: out}
	switch st.mode {
	case "check":
		err := a.check(ctx)
		if err != nil && !errors.Is(err, app.ErrFailed) {
			// The run may have been cancelled: the note gets a context of
			// its own, bounded, so a stale verdict does not stay up.
			nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), errorNoteTimeout)
			a.commentError(nctx, err)
			cancel()
		}
		return err
	case "baseline":
		return a.storeBaseline(ctx)
	case "comment":
		return a.commentOnly(ctx)
	}
	return app.Usagef("input mode: %q is not one of check, baseline, comment", st.mode)
}

// actionDir resolves working-directory against the workspace and refuses
// a directory outside it (after cleaning the path and resolving symbolic
// links): the paths of the inputs are relative to it.
func actionDir(env app.Env, gh *ghaction.Context, wd string) (string, error) {
	base := gh.Workspace
	if base == "" {
		base = env.Dir
	}
	if base == "" {
		var err error
		if base, err = os.Getwd(); err != nil {
			return "", fmt.Errorf("working directory: %w", err)
		}
	}
	dir := base
	if wd != "" && wd != "." {
		dir = wd
		if !filepath.IsAbs(wd) {
			dir = filepath.Join(base, wd)
		}
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", base, err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("input working-directory %q: %w", wd, err)
	}
	if rel, err := filepath.Rel(realBase, realDir); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("input working-directory %q resolves to %s, outside the workspace %s: give a directory inside the repository checkout", wd, realDir, realBase)
	}
	return filepath.Clean(dir), nil
}

// actionOptions maps action inputs onto app.Settings.
func actionOptions(in ghaction.Inputs, gh *ghaction.Context, env app.Env) (app.Settings, actionSettings, error) {
	o := app.DefaultSettings()
	var st actionSettings
	var errs []string
	bad := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	st.mode = in.Get("mode")
	if st.mode == "" {
		st.mode = "check"
		if gh.IsDefaultBranchPush() {
			st.mode = "baseline"
		}
	}
	o.Scores = in.Get("scores")
	o.ScoresFormat = strings.ToLower(strings.TrimSpace(in.Get("scores-format"))) // Ragas as ragas
	if st.mode != "comment" && o.Scores == "" {
		bad(in.Required("dataset"))
	}
	o.Dataset = in.Get("dataset")
	o.Responses = in.Get("responses")
	o.Fields = in.List("fields")
	o.Metrics = strings.Join(in.List("metrics"), ",")
	o.Thresholds = in.Get("thresholds")
	o.MetricsFile = in.Get("metrics-file")
	o.SegmentBy = in.List("segment-by")
	if seq, err := in.Bool("sequential", false); err != nil {
		bad(err)
	} else if seq {
		o.Sequential = &app.SequentialConfig{On: true}
	}
	judgeInputs(in, &o)
	bad(targetInputs(in, &o))
	var err error
	o.Concurrency, err = in.Int("concurrency", o.Concurrency)
	bad(err)
	o.MaxUndefined, err = in.Float("max-undefined", o.MaxUndefined)
	bad(err)
	if v := in.Get("cache-dir"); v != "" {
		o.CacheDir = v
	}
	o.Out = orDefault(in.Get("results"), "raggate-results.json")
	o.Report = orDefault(in.Get("report"), "raggate-report.md")
	st.reportHTML = in.Get("report-html")
	o.RecordTexts, err = in.Bool("record-texts", true)
	bad(err)
	o.Quiet = false
	st.comment, err = in.Bool("comment", true)
	bad(err)
	st.trend, err = in.Bool("trend", true)
	bad(err)
	st.failOnRegression, err = in.Bool("fail-on-regression", true)
	bad(err)
	st.skipWithoutKey, err = in.Bool("skip-without-key", true)
	bad(err)
	o.StrictFields, err = in.Bool("strict-fields", false)
	bad(err)
	st.gate = orDefault(in.Get("gate-name"), "raggate")
	st.commentAuthor = in.Get("comment-author")
	st.token = in.Get("github-token")
	if st.token == "" {
		st.token = getenv(env, "GITHUB_TOKEN")
	}
	errs = append(errs, st.storeInputs(in)...)
	if st.store == "file" && st.mode == "check" {
		o.Baseline = st.storePath // an input the outputs must not overwrite
	}
	for _, p := range o.Problems("action") {
		errs = append(errs, p.Render(inputNames))
	}
	if len(errs) > 0 {
		return o, st, errors.New(strings.Join(errs, "; "))
	}
	return o, st, nil
}

// ignoredWithScores names the inputs given that a run of the judge uses
// and a check of imported scores does not (model names the scores'
// evaluation model; a default value is not given).
func ignoredWithScores(in ghaction.Inputs) []string {
	var names []string
	for _, n := range []string{"responses", "fields", "metrics", "target", "target-config", "target-env",
		"judge", "embedding-model", "base-url", "azure-endpoint", "azure-deployment", "azure-embedding-deployment",
		"azure-api-version", "api-key", "strict-fields"} {
		v := strings.TrimSpace(in.Get(n))
		if v == "" || (n == "judge" && v == "auto") || (n == "strict-fields" && v == "false") {
			continue
		}
		names = append(names, n)
	}
	return names
}

// judgeInputs reads the judge's inputs into o; empty inputs keep the
// defaults.
func judgeInputs(in ghaction.Inputs, o *app.Settings) {
	if v := in.Get("judge"); v != "" {
		o.Judge = v
	}
	o.Model = in.Get("model")
	o.EmbeddingModel = in.Get("embedding-model")
	o.BaseURL = in.Get("base-url")
	o.Azure.Endpoint = in.Get("azure-endpoint")
	o.Azure.Deployment = in.Get("azure-deployment")
	o.Azure.EmbeddingDeployment = in.Get("azure-embedding-deployment")
	o.Azure.APIVersion = in.Get("azure-api-version")
	o.APIKey = in.Get("api-key")
}

// targetInputs reads the target's inputs into o: target is an http(s)
// URL (--target) or else a command (--target-cmd); target-config a file
// with a target: section.
func targetInputs(in ghaction.Inputs, o *app.Settings) error {
	if v := strings.TrimSpace(in.Get("target")); v != "" {
		if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
			o.Target.URL = v
		} else {
			o.Target.Cmd = v
		}
	}
	o.Target.Config = in.Get("target-config")
	allow, err := in.Bool("allow-command-target", false)
	if err != nil {
		return err
	}
	o.Target.NoConfigCommand = !allow
	o.Target.Env = in.List("target-env")
	o.Target.MaxFailures, err = in.Float("max-target-failures", o.Target.MaxFailures)
	return err
}

// storeInputs reads the baseline store inputs into st and returns their
// problems.
func (st *actionSettings) storeInputs(in ghaction.Inputs) (errs []string) {
	st.store = orDefault(in.Get("baseline-store"), "branch")
	st.storeBranch = orDefault(in.Get("baseline-branch"), baseline.DefaultBranch)
	st.storePath = in.Get("baseline-path")
	switch st.store {
	case "branch":
	case "git", "file":
		if st.storePath == "" {
			errs = append(errs, fmt.Sprintf("input baseline-path is required with baseline-store: %s", st.store))
		}
	default:
		errs = append(errs, fmt.Sprintf("input baseline-store: %q is not one of branch, git, file", st.store))
	}
	return errs
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

type actionRun struct {
	env app.Env
	pub Publisher
	gh  *ghaction.Context
	o   app.Settings
	st  actionSettings
	out *actionOutputs

	client *github.Client
}

func (a *actionRun) github() (*github.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	if a.st.token == "" {
		return nil, errors.New("no GitHub token: set the github-token input (default ${{ github.token }})")
	}
	c, err := ghapi.NewClient(a.st.token, a.gh.APIURL, nil, a.env.GitHubOptions()...)
	if err != nil {
		return nil, err
	}
	a.client = c
	return c, nil
}

// decideJudge applies the one judge decision (app.DecideJudge) with the
// action's no-key policy, for both modes: it returns true when the run is
// skipped. On fork PRs GitHub does not pass secrets. A check skips (input
// skip-without-key) or else falls back to the offline judge where judge
// auto allows it; a baseline is never skipped: it needs the same judge as
// the pull requests, so it falls back only where they do.
func (a *actionRun) decideJudge() (bool, error) {
	d := app.DecideJudge(a.env, &a.o.JudgeConfig, a.st.skipWithoutKey)
	if a.st.mode == "baseline" {
		if d.NoKey == app.KeySkip || d.NoKey == app.KeyRefuse {
			return false, app.Usagef("no API key for the judge: a baseline needs the same judge as the pull requests (set api-key, or judge: offline)")
		}
		if d.NoKey == app.KeyFallBack {
			app.UseOfflineJudge(&a.o.JudgeConfig)
		}
		return false, nil
	}
	why := "no API key for the judge (api-key input empty)."
	if a.gh.IsFork() {
		why = "no API key: GitHub does not pass secrets to workflows triggered from forks."
	}
	switch d.NoKey {
	case app.KeyRefuse:
		return false, app.Usagef("%s Set the api-key input, or judge: offline", why)
	case app.KeyFallBack:
		app.UseOfflineJudge(&a.o.JudgeConfig)
		a.pub.Notice(why+" Using the offline judge (a lexical heuristic, not an LLM).", "raggate")
		return false, nil
	case app.KeySkip:
		msg := why + " The gate was skipped (verdict=skipped). For fork PRs use the two-workflow pattern of the README (pull_request uploads results, workflow_run comments), or set skip-without-key: false to fall back to the offline judge."
		a.pub.Warning(msg, "raggate skipped")
		_ = a.pub.AddSummary("### ⏭️ " + a.st.gate + ": skipped\n\n" + msg + "\n")
		a.out.set(map[string]string{"verdict": "skipped", "summary-json": `{"passed":null,"verdict":"skipped"}`})
		return true, nil
	}
	return false, nil
}

// baselineKey is where a check looks for its baseline: for a change under
// review (pull request, merge group) the base commit or its nearest
// ancestor with a baseline; otherwise the default branch's baseline
// nearest to the commit being checked.
func (a *actionRun) baselineKey() baseline.Key {
	k := baseline.Key{Name: gateKeyName(a.st.gate)}
	if branch, sha := a.gh.Base(); sha != "" {
		k.Branch, k.SHA = branch, sha
		return k
	}
	k.Branch, k.SHA = orDefault(a.gh.DefaultBranch, "main"), a.gh.HeadSHA()
	return k
}

// gateKeyName is the baseline series of a gate: the default gate uses the
// plain file names.
func gateKeyName(gate string) string {
	if gate == "raggate" {
		return ""
	}
	var b strings.Builder
	for _, r := range gate {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func (a *actionRun) store() (baseline.Store, error) {
	c := app.StoreConfig{Kind: a.st.store, Path: a.st.storePath, Owner: a.gh.Owner, Repo: a.gh.Repo, Branch: a.st.storeBranch}
	switch a.st.store {
	case app.StoreFile:
		if _, sha := a.gh.Base(); sha != "" && a.st.mode != "comment" {
			return nil, app.Usagef("baseline-store: file reads the baseline from the checkout, which this %s can change; use baseline-store: branch, or git (read at the base commit)", a.gh.EventName)
		}
		return app.OpenStore(a.env, c)
	case app.StoreGit:
		if a.st.mode != "comment" {
			return app.OpenStore(a.env, c)
		}
		// Comment mode: the job's checkout, if any, is a shallow clone of
		// the default branch; read the file at the base commit through the
		// API, like the thresholds.
		c.Kind, c.Path = app.StoreRef, a.repoPath(a.st.storePath)
	}
	client, err := a.github()
	if err != nil {
		return nil, app.WithKind(app.KindUsage, err)
	}
	c.Client = client
	return app.OpenStore(a.env, c)
}

// thresholds reads the thresholds file. For a change under review (a pull
// request, a merge group) it is read from the base commit through the API,
// never from the change itself: a PR must not be able to loosen the gate
// that judges it.
func (a *actionRun) thresholds(ctx context.Context) (compare.Thresholds, error) {
	if a.o.Thresholds == "" {
		return compare.DefaultThresholds(), nil
	}
	_, sha := a.gh.Base()
	if sha == "" {
		// Not a change under review (push, dispatch): the checkout is
		// the trusted branch itself.
		return app.LoadThresholds(a.env, a.o.Thresholds, a.o.UserMetrics()...)
	}
	return a.thresholdsAt(ctx, sha)
}

// thresholdsAt reads the thresholds file as it is at commit sha, through
// the API.
func (a *actionRun) thresholdsAt(ctx context.Context, sha string) (compare.Thresholds, error) {
	c, err := a.github()
	if err != nil {
		return compare.Thresholds{}, app.WithKind(app.KindUsage, err)
	}
	path := a.repoPath(a.o.Thresholds)
	text, err := ghapi.ReadFileAt(ctx, c, a.gh.Owner, a.gh.Repo, sha, path)
	if errors.Is(err, ghapi.ErrNotFound) {
		a.pub.Warning(fmt.Sprintf("thresholds file %s does not exist on the base commit %s; using the built-in defaults until it lands there (the PR's own copy is not trusted)", path, app.Short(sha)), "raggate")
		return compare.DefaultThresholds(), nil
	}
	if err != nil {
		return compare.Thresholds{}, fmt.Errorf("thresholds at the base commit: %w", err)
	}
	th, err := compare.ParseThresholdsFor(path+"@"+app.Short(sha), text, a.o.UserMetrics())
	if err != nil {
		return th, app.WithKind(app.KindUsage, err)
	}
	return th, nil
}

// repoPath turns a path relative to the working directory into a path
// relative to the repository root.
func (a *actionRun) repoPath(p string) string {
	if a.gh.Workspace != "" {
		if rel, err := filepath.Rel(a.gh.Workspace, a.env.Abs(p)); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// readBaseline reads the baseline of key and says where it came from. Only
// a store that was read and holds none yet means "no baseline yet"; a ref
// or file that cannot be read as configured is exit 2.
func (a *actionRun) readBaseline(ctx context.Context, store baseline.Store, key baseline.Key) (*results.Table, string, error) {
	f, src, err := baseline.GetTable(ctx, store, key)
	noBaseline := fmt.Sprintf("no baseline yet for %s: floors only", orDefault(key.Branch, "the base branch"))
	switch {
	case err == nil:
		return f, "baseline: " + src.String(), nil
	case errors.Is(err, baseline.ErrNotFound):
		return nil, noBaseline, nil
	case errors.Is(err, baseline.ErrMissingPath) && a.addsBaselineFile():
		a.pub.Warning(fmt.Sprintf("%v; this change adds it: no baseline until it is merged, floors only", err), a.st.gate)
		return nil, noBaseline, nil
	}
	return nil, "", app.BaselineErr("read the baseline", err)
}

// addsBaselineFile reports whether a change under review adds the git
// store's baseline file: missing at the base commit, present in the
// checkout. That is a baseline still to come, not a wrong path.
func (a *actionRun) addsBaselineFile() bool {
	if a.st.store != "git" || a.st.mode != "check" {
		return false
	}
	if _, sha := a.gh.Base(); sha == "" {
		return false
	}
	p := a.st.storePath
	if !filepath.IsAbs(p) {
		p = filepath.Join(orDefault(a.gh.Workspace, a.env.Dir), p)
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// check is the pull-request job: run, compare with the stored baseline,
// comment, summarise, set outputs.
func (a *actionRun) check(ctx context.Context) error {
	if a.o.Scores == "" {
		if skipped, err := a.decideJudge(); skipped || err != nil {
			return err
		}
	}
	if err := a.userMetrics(ctx); err != nil {
		return err
	}
	scores, err := a.readScores()
	if err != nil {
		return err
	}
	var store baseline.Store
	key := a.baselineKey()
	cmp, err := app.Check(ctx, a.env, app.CheckConfig{Run: a.o.RunConfig, SegmentBy: a.o.SegmentBy, Key: key, Scores: scores, Sequential: a.o.Sequential,
		Sources: app.CheckSources{
			Thresholds: a.thresholds,
			Store: func() (baseline.Store, error) {
				var err error
				store, err = a.store()
				return store, err
			},
			Baseline: a.readBaseline,
		}})
	if err != nil {
		return err
	}
	if err := a.writeMeta(); err != nil {
		return err
	}
	if err := a.writeHTML(ctx, cmp); err != nil {
		return err
	}
	return a.publish(ctx, cmp.Report, cmp.Source, a.gh.HeadSHA(), a.readTrend(ctx, store, key, cmp.Base != nil))
}

// readScores reads the scores file of input scores (nil without one):
// a results file, or another evaluator's scores, imported. The
// thresholds may name the metrics it defines.
func (a *actionRun) readScores() (*app.Scores, error) {
	if a.o.Scores == "" {
		return nil, nil
	}
	// The model input names the scores' evaluation model, as --model
	// does for gate check --scores.
	f, format, err := app.ReadScoresWith(a.env, a.o.Scores, `input "scores"`, app.ScoresOptions{Format: a.o.ScoresFormat, Model: a.o.Model, Read: results.ReadOptions{Texts: results.AllTexts}})
	if err != nil {
		return nil, err
	}
	a.o.UserDefs = append(a.o.UserDefs, f.UserMetrics...)
	return &app.Scores{File: f, Path: a.o.Scores, Format: format, Model: a.o.Model}, nil
}

// writeHTML writes the HTML report (input report-html), reading the texts
// of the samples it lists from the results file and the store.
func (a *actionRun) writeHTML(ctx context.Context, cmp *app.Comparison) error {
	if a.st.reportHTML == "" {
		return nil
	}
	html, _ := report.Lookup("html")
	page, err := app.RenderReport(ctx, a.env, cmp.Report, html, cmp.HTML, a.o.HTMLSamples, report.Options{Gate: a.st.gate, BaselineSource: cmp.Source})
	if err != nil {
		return err
	}
	return results.WriteFileAtomic(a.env.Abs(a.st.reportHTML), page, 0o644)
}

// readTrend reads the base branch's stored baselines for the report's
// trend (input trend), from a store that keeps history (branch, git).
// It is best effort: a failure is a warning and the report goes without.
func (a *actionRun) readTrend(ctx context.Context, store baseline.Store, key baseline.Key, hasBase bool) *report.History {
	h, ok := store.(baseline.Historian)
	if !a.st.trend || !hasBase || !ok {
		return nil
	}
	entries, err := h.History(ctx, key, baseline.DefaultHistory)
	if err != nil {
		a.pub.Warning(fmt.Sprintf("no trend in the report: %v", err), a.st.gate)
		return nil
	}
	return app.HistoryOf(key.Branch, entries)
}

// publish writes the report file, the job summary, the sticky comment and
// the outputs, and returns the gate's verdict as an error (nil = pass).
func (a *actionRun) publish(ctx context.Context, rep *compare.Report, source, headSHA string, trend *report.History) error {
	opts := report.Options{Gate: a.st.gate, HeadSHA: headSHA, BaselineSource: source, RunURL: a.gh.RunURL(), Trend: trend}
	md := report.Markdown(rep, opts)
	if a.o.Report != "" {
		if err := results.WriteFileAtomic(a.env.Abs(a.o.Report), []byte(md), 0o644); err != nil {
			return err
		}
	}
	if err := a.pub.AddSummary(report.Summary(rep, opts)); err != nil {
		a.pub.Warning("could not write the job summary: "+err.Error(), "")
	}
	for _, f := range rep.Failures {
		a.pub.Error(f, a.st.gate+" regression")
	}
	for _, w := range rep.Warnings {
		a.pub.Warning(w, a.st.gate)
	}
	var opErr error
	if a.st.comment && a.gh.IsPullRequest() {
		opErr = a.comment(ctx, a.gh.PullRequest.Number, md, headSHA)
	}
	a.setOutputs(rep)
	if !rep.Passed {
		if opErr != nil {
			// The verdict wins the exit code, but the comment failure is said.
			a.pub.Error(opErr.Error(), a.st.gate)
			fmt.Fprintf(a.env.Log, "gate: %v\n", opErr)
		}
		if a.st.failOnRegression {
			return app.ErrFailed
		}
		a.pub.Warning("the gate failed but fail-on-regression is false: not failing the step", a.st.gate)
	}
	return opErr
}

// commentError replaces the sticky comment of a pull request whose check
// could not decide, so that an earlier "passed" does not stay up as if it
// were about this head. Failing to comment here is only a warning.
func (a *actionRun) commentError(ctx context.Context, cause error) {
	if !a.st.comment || !a.gh.IsPullRequest() || a.st.token == "" {
		return
	}
	head := a.gh.HeadSHA()
	body := fmt.Sprintf("### ⚠️ %s: error\n\nThe gate could not decide for head `%s`: %s\n",
		report.Escape(a.st.gate), app.Short(head), report.Escape(a.env.ErrorText(cause)))
	if u := a.gh.RunURL(); u != "" {
		body += "\nSee the [workflow run](" + u + ") for details.\n"
	}
	if err := a.comment(ctx, a.gh.PullRequest.Number, body, head); err != nil {
		a.pub.Warning("could not update the PR comment with the error: "+err.Error(), a.st.gate)
	}
}

// comment upserts the sticky comment. A token that may not comment (fork
// PRs) is a warning: the job summary carries the report instead.
func (a *actionRun) comment(ctx context.Context, pr int, md, headSHA string) error {
	c, err := a.github()
	if err != nil {
		a.pub.Warning("not commenting: "+err.Error(), a.st.gate)
		return nil
	}
	res, err := a.pub.Comment(ctx, Comment{Client: c, Author: a.st.commentAuthor, Owner: a.gh.Owner, Repo: a.gh.Repo,
		PR: pr, Gate: a.st.gate, Body: a.env.Red.String(md), HeadSHA: headSHA})
	if err == nil && res.AuthorAssumed {
		a.pub.Warning("could not tell which account the token comments as (GET /user and the GraphQL viewer both failed); assuming "+res.Author+". With a GitHub App token set the comment-author input to the app's \"<slug>[bot]\" login, or each run adds a new comment.", a.st.gate)
	}
	switch {
	case errors.Is(err, ghcomment.ErrNoPermission):
		a.pub.Warning("the token may not comment on this pull request (pull requests from forks get a read-only token); the report is in the job summary. See the README's fork-safe two-workflow pattern.", a.st.gate)
		return nil
	case err != nil:
		return fmt.Errorf("post the PR comment: %w", err)
	}
	if res.Action == ghcomment.Skipped {
		fmt.Fprintf(a.env.Log, "comment not updated: %s\n", res.Reason)
	} else {
		fmt.Fprintf(a.env.Log, "comment %s: %s\n", res.Action, res.URL)
	}
	return nil
}

// setOutputs records the outputs of a comparison (written at the end of
// the run).
func (a *actionRun) setOutputs(rep *compare.Report) {
	var regressed []string
	for _, m := range rep.Metrics {
		if m.Status == compare.StatusFail {
			regressed = append(regressed, m.Metric)
		}
	}
	a.out.summary = report.SummaryJSON(rep)
	a.out.set(map[string]string{
		"passed":       fmt.Sprint(rep.Passed),
		"verdict":      string(rep.Verdict),
		"regressions":  strings.Join(regressed, ","),
		"results-path": a.outPath(a.o.Out),
		"report-path":  a.outPath(a.o.Report),
	})
}

// storeBaseline is the push job: run on the pushed commit and store the
// results as the branch's baseline.
func (a *actionRun) storeBaseline(ctx context.Context) error {
	if _, sha := a.gh.Base(); sha != "" {
		return app.Usagef("mode: baseline stores the results of a branch; a %s is a change under review: use mode: check", a.gh.EventName)
	}
	if a.o.Scores == "" {
		if _, err := a.decideJudge(); err != nil {
			return err
		}
	}
	store, err := a.store()
	if err != nil {
		return err
	}
	// The pushed (or dispatched) branch and commit.
	key := baseline.Key{Branch: a.gh.Branch(), SHA: a.gh.HeadSHA(), Name: gateKeyName(a.st.gate)}
	if key.Branch == "" || key.SHA == "" {
		return app.Usagef("mode: baseline needs a branch and a commit (GITHUB_REF refs/heads/..., GITHUB_SHA); got ref %q", a.gh.Ref)
	}
	if err := a.userMetrics(ctx); err != nil {
		return err
	}
	// The scores, if given, before the thresholds, which may name the
	// metrics they define.
	scores, err := a.readScores()
	if err != nil {
		return err
	}
	// The thresholds the checks will hold the baseline to, read before
	// the run: a file scoring nothing they gate is not stored.
	g := app.BaselineGate{Flag: "the thresholds input"}
	if g.Thresholds, err = a.thresholds(ctx); err != nil {
		return err
	}
	if a.o.Thresholds != "" {
		g.From = "thresholds " + a.o.Thresholds
	}
	f, done, err := a.baselineResults(ctx, key, scores)
	if err != nil {
		return err
	}
	defer done()
	if f.Git == nil {
		f.Git = &results.Git{}
	}
	f.Git.SHA, f.Git.Ref = key.SHA, "refs/heads/"+key.Branch
	if _, err := app.PutResults(ctx, store, key, f, g, a.o.Out, "mode: baseline"); err != nil {
		// The run's results are written: a later step (an upload) finds
		// them even when the store refused them.
		a.out.set(map[string]string{"results-path": a.outPath(a.o.Out)})
		return err
	}
	msg := fmt.Sprintf("stored the baseline of %s (%d samples)", app.At(key.Branch, key.SHA), f.Len())
	fmt.Fprintln(a.env.Log, msg)
	_ = a.pub.AddSummary("### 📦 " + a.st.gate + ": baseline stored\n\n" + msg + "\n")
	a.out.set(map[string]string{"passed": "true", "verdict": "stored", "results-path": a.outPath(a.o.Out),
		"summary-json": `{"passed":true,"verdict":"stored"}`})
	return nil
}

// baselineResults are the results baseline mode stores: a run's, or the
// scores of input scores (read by readScores), written to input results
// as a run writes them.
// done lets go of what the run keeps (its texts on disk) once stored.
func (a *actionRun) baselineResults(ctx context.Context, key baseline.Key, scores *app.Scores) (*results.File, func(), error) {
	if scores != nil {
		if scores.Format != "" {
			// As check mode does: the store holds an imported file to the
			// max-target-failures and max-undefined inputs.
			app.UnscoredLimits{MaxTargetFailures: a.o.Target.MaxFailures, MaxUndefined: a.o.MaxUndefined}.Record(scores.File)
		}
		scores.File.Git = &results.Git{SHA: key.SHA, Ref: "refs/heads/" + key.Branch}
		if err := results.Write(a.env.Abs(a.o.Out), scores.File); err != nil {
			return nil, nil, fmt.Errorf("write %s: %w", a.o.Out, err)
		}
		return scores.File, func() {}, nil
	}
	if a.o.Sequential != nil {
		fmt.Fprintln(a.env.Log, "note: sequential applies to check mode; a baseline judges every sample")
	}
	// The run's samples stay on disk: the store reads them back one at a
	// time as it writes the baseline.
	res, err := app.RunOnDisk(ctx, a.env, a.o.RunConfig)
	if err != nil {
		return nil, nil, err
	}
	return res.File, func() { res.Close() }, nil
}

// outPath is a file's path for later steps: relative to the workspace,
// because the container's /github/workspace is another path on the host.
func (a *actionRun) outPath(p string) string {
	abs := a.env.Abs(p)
	if a.gh.Workspace != "" {
		if rel, err := filepath.Rel(a.gh.Workspace, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// prMeta is written next to the report so that the comment-only mode of the
// fork-safe pattern knows which pull request and head the results are for.
type prMeta struct {
	Gate    string `json:"gate"`
	PR      int    `json:"pr"`
	HeadSHA string `json:"head_sha"`
	BaseRef string `json:"base_ref"`
	BaseSHA string `json:"base_sha"`
}

// writeMeta records the pull request the results belong to.
func (a *actionRun) writeMeta() error {
	if !a.gh.IsPullRequest() || a.o.Report == "" {
		return nil
	}
	branch, sha := a.gh.Base()
	b, _ := json.MarshalIndent(prMeta{Gate: a.st.gate, PR: a.gh.PullRequest.Number, HeadSHA: a.gh.HeadSHA(), BaseRef: branch, BaseSHA: sha}, "", "  ")
	return results.WriteFileAtomic(a.env.Abs(app.MetaPath(a.o.Report)), append(b, '\n'), 0o644)
}

// commentOnly is the privileged half of the fork-safe pattern (a
// workflow_run job): it reads the head results the unprivileged run
// uploaded, fetches the baseline and thresholds itself from trusted
// places, re-renders the report (escaping everything that came from the
// PR) and comments. It never runs PR code and never trusts PR markdown.
func (a *actionRun) commentOnly(ctx context.Context) error {
	wr := a.gh.WorkflowRun
	if wr == nil {
		return app.Usagef("mode: comment runs in a workflow_run workflow (the privileged half of the fork-safe pattern); this is a %q event", a.gh.EventName)
	}
	// The scores by columns: memory does not grow with the samples.
	head, err := results.ReadTable(a.env.Abs(a.o.Out), results.ScoresOnly)
	if err != nil {
		return app.WithKind(app.KindUsage, fmt.Errorf("input results: %w", err))
	}
	meta, err := a.readMeta()
	if err != nil {
		return err
	}
	// The record comes from an artifact the PR's own run wrote: trust
	// nothing in it that GitHub cannot confirm. The head must be the one of
	// the run that triggered this workflow (GitHub writes that), and the PR
	// must be at that head, from that repository.
	if !strings.EqualFold(meta.HeadSHA, wr.HeadSHA) {
		return app.WithKind(app.KindUsage, fmt.Errorf("the artifact is for head %s but the triggering run was for %s: not commenting forged or stale results", app.Short(meta.HeadSHA), app.Short(wr.HeadSHA)))
	}
	if len(wr.PullRequests) > 0 && !slices.Contains(wr.PullRequests, meta.PR) {
		return app.WithKind(app.KindUsage, fmt.Errorf("the artifact names pull request #%d, the triggering run belongs to %v: not commenting", meta.PR, wr.PullRequests))
	}
	c, err := a.github()
	if err != nil {
		return app.WithKind(app.KindUsage, err)
	}
	pr, _, err := c.PullRequests.Get(ctx, a.gh.Owner, a.gh.Repo, meta.PR)
	if err != nil {
		return ghapi.Classify(fmt.Sprintf("look up pull request #%d", meta.PR), err, ghapi.Fixes{})
	}
	if got := pr.GetHead().GetSHA(); !strings.EqualFold(got, wr.HeadSHA) {
		return app.WithKind(app.KindUsage, fmt.Errorf("pull request #%d is at %s, the results are for %s: not commenting stale or forged results", meta.PR, app.Short(got), app.Short(wr.HeadSHA)))
	}
	if repo := pr.GetHead().GetRepo().GetFullName(); wr.HeadRepo != "" && !strings.EqualFold(repo, wr.HeadRepo) {
		return app.WithKind(app.KindUsage, fmt.Errorf("pull request #%d comes from %s, the triggering run from %s: not commenting", meta.PR, repo, wr.HeadRepo))
	}
	// Thresholds: as they are at the PR's base, through the API; never from
	// files next to the artifact.
	th := compare.DefaultThresholds()
	// The user-defined metrics the results were judged with (the check
	// run read them at the base commit): the thresholds may name them.
	a.o.UserDefs = head.File.UserMetrics
	if a.o.Thresholds != "" {
		if th, err = a.thresholdsAt(ctx, pr.GetBase().GetSHA()); err != nil {
			return err
		}
	}
	store, err := a.store()
	if err != nil {
		return err
	}
	key := baseline.Key{Branch: pr.GetBase().GetRef(), SHA: pr.GetBase().GetSHA(), Name: gateKeyName(a.st.gate)}
	base, source, err := a.readBaseline(ctx, store, key)
	if err != nil {
		return err
	}
	if th, err = app.WithSegments(th, a.o.SegmentBy); err != nil {
		return err
	}
	rep, err := app.CompareTablesRedacted(a.env, base, head, th)
	if err != nil {
		return err
	}
	opts := report.Options{Gate: a.st.gate, HeadSHA: wr.HeadSHA, BaselineSource: source, RunURL: a.gh.RunURL(),
		Trend: a.readTrend(ctx, store, key, base != nil)}
	md := report.Markdown(rep, opts)
	if err := a.pub.AddSummary(report.Summary(rep, opts)); err != nil {
		a.pub.Warning("could not write the job summary: "+err.Error(), "")
	}
	if err := a.comment(ctx, meta.PR, md, wr.HeadSHA); err != nil {
		return err
	}
	a.setOutputs(rep)
	// The gate itself failed (or passed) in the pull_request run; this job
	// only reports.
	return nil
}

func (a *actionRun) readMeta() (prMeta, error) {
	p := a.env.Abs(app.MetaPath(a.o.Report))
	b, err := inputfile.ReadFile(p, inputfile.ConfigLimit())
	if err != nil {
		return prMeta{}, app.WithKind(app.KindUsage, fmt.Errorf("comment mode needs %s, written by the check run next to its report (upload it in the artifact): %w", p, err))
	}
	var m prMeta
	if err := json.Unmarshal(b, &m); err != nil || m.PR <= 0 || m.HeadSHA == "" {
		return prMeta{}, app.WithKind(app.KindUsage, fmt.Errorf("%s: not a raggate PR record (want {\"pr\": N, \"head_sha\": \"...\"})", p))
	}
	return m, nil
}

// errorNoteTimeout bounds the error note posted after a failed or
// cancelled check.
const errorNoteTimeout = 20 * time.Second

// OutputNames are the outputs of action.yml; every run writes each of them
// exactly once.
var OutputNames = []string{"passed", "verdict", "regressions", "results-path", "report-path", "summary-json"}

// actionOutputs collects the step outputs during a run; they are written
// once at the end, after the final verdict is known (a comment that cannot
// be posted after a pass turns the verdict into error).
type actionOutputs struct {
	values map[string]string
	// summary is the summary-json object of a comparison, if there was one.
	summary map[string]any
	written bool
}

func (o *actionOutputs) set(values map[string]string) {
	if o.values == nil {
		o.values = map[string]string{}
	}
	for k, v := range values {
		o.values[k] = v
	}
}

// setError makes the run's verdict error: the gate did not decide, or
// decided but could not publish. The summary-json agrees with the other
// outputs.
func (o *actionOutputs) setError() {
	o.set(map[string]string{"passed": "false", "verdict": "error", "regressions": ""})
	if o.summary == nil {
		o.summary = map[string]any{}
	}
	o.summary["passed"], o.summary["verdict"] = false, "error"
}

// write writes every output once; later calls do nothing.
func (o *actionOutputs) write(pub Publisher) error {
	if o.written {
		return nil
	}
	o.written = true
	vals := map[string]string{}
	for _, n := range OutputNames {
		vals[n] = o.values[n]
	}
	if o.summary != nil {
		js, err := json.Marshal(o.summary)
		if err != nil {
			return err
		}
		vals["summary-json"] = string(js)
	}
	return pub.SetOutputs(vals)
}

// userMetricsAt reads the metrics file as it is at commit sha, through the
// API, like the thresholds: a change under review must not redefine the
// yardstick it is measured with. A file that does not exist there yet
// means no user-defined metrics, with a warning.
func (a *actionRun) userMetricsAt(ctx context.Context, sha string) error {
	c, err := a.github()
	if err != nil {
		return app.WithKind(app.KindUsage, err)
	}
	path := a.repoPath(a.o.MetricsFile)
	text, err := ghapi.ReadFileAt(ctx, c, a.gh.Owner, a.gh.Repo, sha, path)
	if errors.Is(err, ghapi.ErrNotFound) {
		a.pub.Warning(fmt.Sprintf("metrics file %s does not exist on the base commit %s; no user-defined metrics until it lands there (the PR's own copy is not trusted)", path, app.Short(sha)), "raggate")
		return nil
	}
	if err != nil {
		return fmt.Errorf("metrics file at the base commit: %w", err)
	}
	defs, err := usermetric.Parse(path+"@"+app.Short(sha), text)
	if err != nil {
		return app.WithKind(app.KindUsage, err)
	}
	a.o.UserDefs = defs
	return nil
}

// userMetrics loads the action's metrics file: from the base commit for a
// change under review, else from the checkout.
func (a *actionRun) userMetrics(ctx context.Context) error {
	if a.o.MetricsFile == "" {
		return nil
	}
	if _, sha := a.gh.Base(); sha != "" {
		return a.userMetricsAt(ctx, sha)
	}
	var err error
	a.o.UserDefs, err = app.LoadUserMetrics(a.env, a.o.MetricsFile)
	return err
}

// getenv reads the environment variable k of env ("" without Getenv).
func getenv(env app.Env, k string) string {
	if env.Getenv == nil {
		return ""
	}
	return env.Getenv(k)
}

// inputNames names settings as action inputs: input "concurrency": -3.
var inputNames = app.Namer{Name: actionInput, ValueSep: ": "}

// actionInput is the action input of a setting's key.
func actionInput(key string) string {
	switch key {
	case "out":
		key = "results"
	case "field":
		key = "fields"
	case "baseline":
		key = "baseline-path"
	}
	return fmt.Sprintf("input %q", key)
}
