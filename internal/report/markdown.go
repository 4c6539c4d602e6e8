package report

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// Size limits.
const (
	// MaxCommentBytes is GitHub's limit on a comment body (65,536
	// characters); Markdown counts bytes, which is never fewer.
	MaxCommentBytes = 65536
	// MaxSummaryBytes is GitHub's limit on a step's job summary (1 MiB).
	MaxSummaryBytes = 1 << 20
	// DefaultGate is the gate name when Options.Gate is empty.
	DefaultGate = "raggate"
	// MarkerRoom is what Markdown leaves under its limit for the hidden
	// marker lines package ghcomment adds to the comment (a gate of at most
	// 100 characters, a head of at most 64 hex digits: 210 bytes).
	MarkerRoom = 256
)

// Options configure Markdown and Summary. The zero value is valid.
type Options struct {
	// Gate names the gate: the title says it, and the comment marker
	// carries it so that each gate keeps its own sticky comment. Default
	// DefaultGate.
	Gate string
	// HeadSHA is the pull request head the report is for (default: the git
	// sha of the head results).
	HeadSHA string
	// BaselineSource says where the baseline came from, e.g. "baseline from
	// abc1234 (nearest ancestor of main with a stored baseline)".
	BaselineSource string
	// RunURL links the workflow run (http or https URLs only).
	RunURL string
	// Limit is the largest output, in bytes: default MaxCommentBytes for
	// Markdown, MaxSummaryBytes for Summary.
	Limit int
	// Trend, when set, is the base branch's history: the table gets a trend
	// column (a sparkline of the stored means and the head's) and a section
	// charts the gated metrics in Mermaid. The charts are the first detail
	// dropped to fit the limit.
	Trend *History
}

// The size notices, said whenever a detail had to go.
const (
	commentNotice = "Some details were left out to fit GitHub's comment size limit; see the job summary."
	summaryNotice = "Some details were left out to fit the job summary size limit; `gate compare --format json` has everything."
)

var shaRE = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

func headSHA(sha string) string {
	sha = strings.ToLower(strings.TrimSpace(sha))
	if !shaRE.MatchString(sha) {
		return ""
	}
	return sha
}

// Markdown renders the body of the sticky pull request comment: a title with the overall verdict, one diff table, the failure
// and warning sentences, the sample counts, then <details> sections (a
// diagnosis, the most regressed samples, new and removed samples,
// distributions and sensitivity, judge noise, notes, usage and cost, judge
// and dataset). Untrusted text is escaped (see Escape).
//
// The result fits opts.Limit bytes with MarkerRoom to spare for the
// marker lines ghcomment.Compose prepends (the only place they are added):
// details are dropped in steps (fewer regressed samples; then
// distributions; then the new and removed lists; then every other detail;
// then table rows beyond the failing ones; the significant segment changes
// from 20 rows to 10, then 5, worst first), and the comment says so.
func Markdown(r *compare.Report, opts Options) string {
	limit := opts.Limit
	if limit <= 0 {
		limit = MaxCommentBytes
	}
	budget := limit
	if limit-MarkerRoom >= 1024 {
		budget = limit - MarkerRoom
	}
	return fit(r, opts, ladder(true), budget)
}

// Summary renders the job-summary variant of Markdown: no markers, every
// regressed sample compare reports, long lists of new and removed samples,
// longer judge reasons, details open. It fits opts.Limit (default
// MaxSummaryBytes) in the same steps as Markdown.
func Summary(r *compare.Report, opts Options) string {
	limit := opts.Limit
	if limit <= 0 {
		limit = MaxSummaryBytes
	}
	return fit(r, opts, ladder(false), limit)
}

// profile says how much detail a rendering carries.
type profile struct {
	comment     bool // the PR comment (markers, comment notice)
	samples     int  // most regressed samples shown
	reasonRunes int  // judge reasons are cut to this
	listCap     int  // new / removed samples listed, each
	lists       bool // the new / removed lists
	dists       bool // distributions, sensitivity, judge noise
	optional    bool // regressed samples, notes, usage, judge and dataset
	diagnosis   bool
	chart       bool // the Mermaid trend charts
	rowCap      int  // table rows (0: all)
	segRows     int  // significant segment changes shown (0: all)
	sentences   int  // failure / warning sentences (0: all)
	textRunes   int  // failure / warning / note sentences are cut to this
	cut         bool
}

// ladder returns the renderings to try, most detailed first.
func ladder(comment bool) []profile {
	p := profile{comment: comment, samples: 10, reasonRunes: 200, listCap: 20,
		lists: true, dists: true, optional: true, diagnosis: true, chart: true, textRunes: 400, segRows: 20}
	if !comment {
		p.samples, p.reasonRunes, p.listCap, p.textRunes, p.segRows = 1000, 1000, 1000, 2000, 1000
	}
	steps := []profile{p}
	p.cut, p.chart = true, false
	steps = append(steps, p)
	p.samples, p.reasonRunes, p.segRows = 3, 100, 10
	steps = append(steps, p)
	p.dists = false
	steps = append(steps, p)
	p.lists = false
	steps = append(steps, p)
	p.optional = false
	steps = append(steps, p)
	p.diagnosis, p.rowCap, p.sentences, p.textRunes, p.segRows = false, 40, 10, 200, 5
	steps = append(steps, p)
	return steps
}

// fit returns the most detailed rendering within limit bytes, or the least
// detailed one cut at a line boundary.
func fit(r *compare.Report, opts Options, steps []profile, limit int) string {
	if r == nil {
		r = &compare.Report{Passed: true, Verdict: compare.VerdictPass}
	}
	var out string
	for _, p := range steps {
		out = render(r, opts, p)
		if len(out) <= limit {
			return out
		}
	}
	notice := "\n_" + commentNotice + "_\n"
	if !steps[0].comment {
		notice = "\n_" + summaryNotice + "_\n"
	}
	return hardCut(out, notice, limit)
}

// hardCut keeps the whole lines of s that fit before notice within limit
// bytes.
func hardCut(s, notice string, limit int) string {
	budget := limit - len(notice)
	if budget < 0 {
		return cutBytes(s, limit)
	}
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		if b.Len()+len(line)+1 > budget {
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return cutBytes(s, limit)
	}
	return b.String() + notice
}

// cutBytes returns the longest prefix of s of at most n bytes that ends on
// a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:max(n, 0)]
}

func headOf(r *compare.Report, opts Options) string {
	if opts.HeadSHA != "" {
		return opts.HeadSHA
	}
	if r != nil && r.Head.Git != nil {
		return r.Head.Git.SHA
	}
	return ""
}

// render writes the report with the detail p allows.
func render(r *compare.Report, opts Options, p profile) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	gate := strings.TrimSpace(opts.Gate)
	if gate == "" {
		gate = DefaultGate
	}
	h := headline(r)
	w("### %s %s: %s\n\n", h.kind.emoji(), escapeSnippet(gate, 100), h.text)
	if line := contextLine(r, opts, p.comment); line != "" {
		w("%s\n\n", line)
	}
	if !r.HasBaseline {
		what := "There is no stored baseline for the base branch yet, so only floors were checked."
		if opts.BaselineSource != "" {
			// The caller knows the branch: "no baseline yet for main: floors only".
			src := escapeSnippet(opts.BaselineSource, 200)
			what = "**" + strings.ToUpper(src[:1]) + src[1:] + ".**"
		}
		b.WriteString(what + " Store one with `gate baseline put` on the base branch (the action does it on pushes to the default branch).\n\n")
	}
	writeTable(&b, r, opts, p)
	writeSentences(&b, "Failures", sentences(r, compare.LevelFail, nil), p)
	writeSentences(&b, "Warnings", sentences(r, compare.LevelWarn, nil), p)
	writeCounts(&b, r)
	if p.cut {
		notice := commentNotice
		if !p.comment {
			notice = summaryNotice
		} else if u := runURL(opts.RunURL); u != "" {
			notice = strings.TrimSuffix(notice, "; see the job summary.") + "; see the job summary of the [workflow run](" + u + ")."
		}
		w("_%s_\n\n", notice)
	}
	if p.chart {
		writeTrend(&b, r, opts, !p.comment)
	}
	writeSegments(&b, r, p)
	if p.diagnosis {
		writeDiagnosis(&b, r)
	}
	if p.optional && p.samples > 0 {
		writeRegressed(&b, r, p)
	}
	if p.lists {
		writeNewRemoved(&b, r, p)
	}
	if p.dists {
		writeDistributions(&b, r, p)
		writeNoise(&b, r)
	}
	if p.optional {
		writeNotes(&b, r, p)
		writeUsage(&b, r)
		writeJudgeDataset(&b, r)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// contextLine says what was compared with what, and links the run.
// The job summary does not link the run it belongs to.
func contextLine(r *compare.Report, opts Options, comment bool) string {
	var parts []string
	if sha := headSHA(headOf(r, opts)); sha != "" {
		parts = append(parts, "head `"+sha[:7]+"`")
	}
	switch {
	case !r.HasBaseline:
	case opts.BaselineSource != "":
		parts = append(parts, escapeSnippet(opts.BaselineSource, 200))
	case r.Base != nil && r.Base.Git != nil && headSHA(r.Base.Git.SHA) != "":
		parts = append(parts, "baseline `"+headSHA(r.Base.Git.SHA)[:7]+"`")
	}
	if u := runURL(opts.RunURL); u != "" && comment {
		parts = append(parts, "[workflow run]("+u+")")
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, " · ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// runURL returns u percent-encoded for a markdown link destination, or ""
// when it is not an absolute http(s) URL.
func runURL(u string) string {
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" || pu.User != nil {
		return ""
	}
	s := pu.String()
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E", "`", "%60").Replace(s)
}

// metricLabel is a metric name for markdown, marked ↓ when lower is better.
func metricLabel(m compare.MetricResult) string {
	s := escapeSnippet(m.Metric, 60)
	if lowerIsBetter(m) {
		s += " ↓"
	}
	return s
}

// rows returns the metrics the table shows: all of them, or with a cap the
// failing and warning ones first, in catalogue order.
func rows(r *compare.Report, limit int) (shown []compare.MetricResult, hidden int) {
	if limit <= 0 || len(r.Metrics) <= limit {
		return r.Metrics, 0
	}
	keep := make([]bool, len(r.Metrics))
	n := 0
	for pass := range 2 {
		for i, m := range r.Metrics {
			if n == limit {
				break
			}
			if !keep[i] && (pass == 1 || m.Status != compare.StatusOK) {
				keep[i] = true
				n++
			}
		}
	}
	for i, m := range r.Metrics {
		if keep[i] {
			shown = append(shown, m)
		}
	}
	return shown, len(r.Metrics) - n
}

func writeTable(b *strings.Builder, r *compare.Report, opts Options, p profile) {
	shown, hidden := rows(r, p.rowCap)
	if len(r.Metrics) == 0 {
		b.WriteString("No metrics were scored.\n\n")
		return
	}
	if !r.HasBaseline {
		b.WriteString("| Metric | Head | n | Verdict |\n|:---|---:|---:|:---|\n")
		for _, m := range shown {
			fmt.Fprintf(b, "| %s | %s | %d | %s |\n", metricLabel(m), FormatScore(m.HeadMean), m.HeadN, verdictCell(m).markdown())
		}
		if hidden > 0 {
			fmt.Fprintf(b, "| … %s not shown | | | |\n", plural(hidden, "more metric", "more metrics"))
		}
		b.WriteString("\n<sub>✅ meets its floor · ❌ breaches its floor · ↓ lower is better. Head: mean over the head samples; n: samples with a defined score.</sub>\n\n")
		return
	}
	trend := len(trendCell(r, opts, r.Metrics[0])) > 0
	head, sep, empty := "| Metric | Base | Head | Δ | 95% CI | p | Verdict |", "|:---|---:|---:|---:|:---:|---:|:---|", " | | | | | |"
	if trend {
		head, sep, empty = head+" Trend |", sep+":---|", empty+" |"
	}
	b.WriteString(head + "\n" + sep + "\n")
	for _, m := range shown {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |", metricLabel(m), tableBase(m), tableHead(m),
			FormatDelta(m.RawDelta), FormatCI(m.RawDeltaCI.Low, m.RawDeltaCI.High), FormatP(PValue(m.Paired)), verdictCell(m).markdown())
		if trend {
			b.WriteString(" " + trendCell(r, opts, m) + " |")
		}
		b.WriteString("\n")
	}
	if hidden > 0 {
		fmt.Fprintf(b, "| … %s not shown |%s\n", plural(hidden, "more metric", "more metrics"), empty)
	}
	def := r.Settings.Defaults
	adj := ", Holm-adjusted"
	if def.Correction == compare.CorrectionNone {
		adj = ""
	}
	extra := ""
	for _, e := range legendExtras(r) {
		extra += "<br>" + e
	}
	if trend {
		extra += "<br>Trend: the means of the stored baselines of " + escapeSnippet(opts.Trend.Branch, 100) + " judged like the head, oldest first, then the head's"
	}
	fmt.Fprintf(b, "\n<sub>✅ improvement · ~ no significant change · ❌ fails the gate · ⚠️ warning or not tested · ↓ lower is better<br>"+
		"Base, Head: means over the samples scored on both sides · Δ = Head - Base, with its 95%% paired bootstrap interval · "+
		"p: one-sided, in the direction of Δ%s · regression: worse by at least the tolerance (default %s) with p below %s%s</sub>\n\n",
		adj, FormatBound(def.Tolerance), FormatBound(def.Alpha), extra)
}

func writeSentences(b *strings.Builder, title string, ss []string, p profile) {
	if len(ss) == 0 {
		return
	}
	fmt.Fprintf(b, "**%s**\n\n", title)
	writeList(b, ss, p)
}

// writeList writes sentences as an escaped bullet list, at most
// p.sentences of them (0: all), saying how many were left out.
func writeList(b *strings.Builder, ss []string, p profile) {
	shown := ss
	if p.sentences > 0 && len(shown) > p.sentences {
		shown = shown[:p.sentences]
	}
	for _, s := range shown {
		fmt.Fprintf(b, "- %s\n", escapeSentence(s, p.textRunes))
	}
	if len(shown) < len(ss) {
		fmt.Fprintf(b, "- … and %d more\n", len(ss)-len(shown))
	}
	b.WriteString("\n")
}

func writeCounts(b *strings.Builder, r *compare.Report) {
	c := r.Counts
	if !r.HasBaseline {
		fmt.Fprintf(b, "**Samples:** %s on head.\n\n", FormatInt(c.Head))
		return
	}
	fmt.Fprintf(b, "**Samples:** %s paired · %s new · %s removed", FormatInt(c.Paired), FormatInt(c.New), FormatInt(c.Removed))
	if c.New > 0 || c.Removed > 0 {
		b.WriteString(" (new and removed samples are listed, not compared)")
	}
	b.WriteString(".\n\n")
	if line := SequentialLine(r); line != "" {
		fmt.Fprintf(b, "**%s**\n\n", line)
	}
}

func details(b *strings.Builder, open bool, summary string) {
	if open {
		fmt.Fprintf(b, "<details open><summary>%s</summary>\n\n", summary)
	} else {
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", summary)
	}
}

func endDetails(b *strings.Builder) { b.WriteString("</details>\n\n") }

func writeDiagnosis(b *strings.Builder, r *compare.Report) {
	fs := diagnose(r)
	if len(fs) == 0 {
		return
	}
	details(b, true, "Diagnosis")
	b.WriteString("What the significant changes suggest (raggate README, \"Metrics\", \"Reading the metrics\"); hints, not proof:\n\n")
	for _, f := range fs {
		fmt.Fprintf(b, "- **%s**: likely %s. Try: %s.\n", f.when, f.cause, f.try)
	}
	b.WriteString("\n")
	endDetails(b)
}

func sampleLine(id, question string) string {
	s := "**" + escapeSnippet(id, 60) + "**"
	if q := strings.TrimSpace(question); q != "" {
		s += ": " + escapeSnippet(q, 80)
	}
	return s
}

func writeRegressed(b *strings.Builder, r *compare.Report, p profile) {
	all := r.TopRegressed
	if len(all) == 0 {
		return
	}
	shown := all
	if len(shown) > p.samples {
		shown = shown[:p.samples]
	}
	title := fmt.Sprintf("Most regressed samples (%d)", len(all))
	if len(shown) < len(all) {
		title = fmt.Sprintf("Most regressed samples (%d of %d shown)", len(shown), len(all))
	}
	details(b, !p.comment, title)
	b.WriteString("Per-sample changes, worst first (base → head). Single samples move with judge noise; read them with the table above.\n\n")
	dir := map[string]bool{}
	for _, m := range r.Metrics {
		dir[m.Metric] = lowerIsBetter(m)
	}
	for _, s := range shown {
		line := sampleLine(s.ID, s.Question)
		if segs := sampleSegments(r, s.Segments); segs != "" {
			line += " · " + escapeSnippet(segs, 120)
		}
		fmt.Fprintf(b, "- %s\n", line)
		for _, sm := range s.Metrics {
			name := escapeSnippet(sm.Metric, 60)
			if dir[sm.Metric] {
				name += " ↓"
			}
			bv, hv, dv := FormatSampleChange(sm.Base, sm.Head, sm.Delta)
			fmt.Fprintf(b, "  - %s: %s → %s (%s)", name, bv, hv, dv)
			if reason := strings.TrimSpace(sm.Reason); reason != "" {
				fmt.Fprintf(b, " — judge: “%s”", escapeSnippet(reason, p.reasonRunes))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	endDetails(b)
}

func writeNewRemoved(b *strings.Builder, r *compare.Report, p profile) {
	if len(r.New) == 0 && len(r.Removed) == 0 {
		return
	}
	var title []string
	if n := len(r.New); n > 0 {
		title = append(title, fmt.Sprintf("%s new", FormatInt(n)))
	}
	if n := len(r.Removed); n > 0 {
		title = append(title, fmt.Sprintf("%s removed", FormatInt(n)))
	}
	details(b, false, "New and removed samples ("+strings.Join(title, ", ")+")")
	list := func(head string, refs []compare.SampleRef) {
		if len(refs) == 0 {
			return
		}
		fmt.Fprintf(b, "%s\n\n", head)
		shown := refs
		if len(shown) > p.listCap {
			shown = shown[:p.listCap]
		}
		for _, s := range shown {
			fmt.Fprintf(b, "- %s\n", sampleLine(s.ID, s.Question))
		}
		if len(shown) < len(refs) {
			fmt.Fprintf(b, "- … and %s more\n", FormatInt(len(refs)-len(shown)))
		}
		b.WriteString("\n")
	}
	list("New, only on head (not compared):", r.New)
	list("Removed, only on base:", r.Removed)
	endDetails(b)
}

func fmtDist(d compare.Distribution) string {
	if d.P10.IsNaN() && d.Median.IsNaN() && d.P90.IsNaN() {
		return Undefined
	}
	return FormatScore(d.P10) + " / " + FormatScore(d.Median) + " / " + FormatScore(d.P90)
}

func writeDistributions(b *strings.Builder, r *compare.Report, p profile) {
	if len(r.Metrics) == 0 {
		return
	}
	shown, _ := rows(r, p.rowCap)
	details(b, !p.comment, "Distributions and sensitivity")
	if !r.HasBaseline {
		b.WriteString("| Metric | Head p10 / median / p90 | Undefined |\n|:---|:---:|---:|\n")
		for _, m := range shown {
			fmt.Fprintf(b, "| %s | %s | %d |\n", metricLabel(m), fmtDist(m.HeadDist), m.HeadUndefined)
		}
		b.WriteString("\n")
		endDetails(b)
		return
	}
	b.WriteString("Over every sample scored on each side:\n\n")
	b.WriteString("| Metric | Base p10 / median / p90 | Head p10 / median / p90 | Undefined (base / head) |\n|:---|:---:|:---:|---:|\n")
	for _, m := range shown {
		fmt.Fprintf(b, "| %s | %s | %s | %s / %s |\n", metricLabel(m), fmtDist(m.BaseDist), fmtDist(m.HeadDist),
			undefinedCount(m.BaseN, m.BaseUndefined), undefinedCount(m.HeadN, m.HeadUndefined))
	}
	b.WriteString("\nOver the pairs (samples scored on both sides):\n\n")
	b.WriteString("| Metric | Pairs | Worse / same / better | SD of Δ | MDE | Tolerance |\n|:---|---:|:---:|---:|---:|---:|\n")
	for _, m := range shown {
		if m.N == 0 {
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %d / %d / %d | %s | %s | %s |\n", metricLabel(m), m.N, m.Worse, m.Same, m.Better,
			FormatScore(m.SD), FormatScore(m.MDE), FormatBound(m.Rule.Tolerance))
	}
	b.WriteString("\n<sub>MDE: the smallest change these pairs detect 80% of the time (before the Holm adjustment). " +
		"A tolerance below it lets real changes of that size show as ~; add samples to lower it.</sub>\n\n")
	endDetails(b)
}

// undefinedCount is the number of undefined scores, "n/a" when the side
// did not score the metric at all.
func undefinedCount(n, undef int) string {
	if n == 0 && undef == 0 {
		return Undefined
	}
	return fmt.Sprint(undef)
}

func writeNoise(b *strings.Builder, r *compare.Report) {
	var ms []compare.MetricResult
	for _, m := range r.Metrics {
		if finite(m.BaseJudgeNoise.Value()) || finite(m.HeadJudgeNoise.Value()) {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return
	}
	details(b, false, "Judge noise")
	repeats := func(s *compare.Side) string {
		if s == nil {
			return Undefined
		}
		return fmt.Sprint(s.Repeats)
	}
	fmt.Fprintf(b, "Mean within-sample standard deviation of repeated judgements (repeats: base %s, head %s). Score changes of this size are noise.\n\n",
		repeats(r.Base), repeats(&r.Head))
	b.WriteString("| Metric | Base | Head |\n|:---|---:|---:|\n")
	for _, m := range ms {
		fmt.Fprintf(b, "| %s | %s | %s |\n", metricLabel(m), FormatScore(m.BaseJudgeNoise), FormatScore(m.HeadJudgeNoise))
	}
	b.WriteString("\n")
	endDetails(b)
}

func writeNotes(b *strings.Builder, r *compare.Report, p profile) {
	// The comment already says there is no baseline, near the top.
	notes := sentences(r, compare.LevelNote, func(f compare.Finding) bool { return f.Kind != compare.KindNoBaseline })
	if len(notes) == 0 {
		return
	}
	details(b, false, fmt.Sprintf("Notes (%d)", len(notes)))
	writeList(b, notes, p)
	endDetails(b)
}

func writeUsage(b *strings.Builder, r *compare.Report) {
	sides := []results.Usage{r.Head.Usage}
	header := "| | Head |\n|:---|---:|\n"
	if r.Base != nil {
		sides = []results.Usage{r.Base.Usage, r.Head.Usage}
		header = "| | Base | Head |\n|:---|---:|---:|\n"
	}
	type row struct {
		name   string
		get    func(results.Usage) float64
		format func(float64) string
		always bool
	}
	count := func(x float64) string { return FormatInt(int(x)) }
	rs := []row{
		{"chat calls", func(u results.Usage) float64 { return float64(u.ChatCalls) }, count, true},
		{"cached calls", func(u results.Usage) float64 { return float64(u.CachedCalls) }, count, true},
		{"embedding calls", func(u results.Usage) float64 { return float64(u.EmbeddingCalls) }, count, false},
		{"prompt tokens", func(u results.Usage) float64 { return float64(u.PromptTokens) }, count, false},
		{"completion tokens", func(u results.Usage) float64 { return float64(u.CompletionTokens) }, count, false},
		{"embedding tokens", func(u results.Usage) float64 { return float64(u.EmbeddingTokens) }, count, false},
		{"estimated cost", func(u results.Usage) float64 { return u.EstimatedCostUSD }, FormatCost, false},
	}
	called := false
	for _, rw := range rs {
		for _, u := range sides {
			called = called || rw.get(u) != 0
		}
	}
	if !called {
		return // nothing was called (scores imported from another evaluator): no section of zeros
	}
	var lines []string
	for _, rw := range rs {
		show := rw.always
		var cells []string
		for _, u := range sides {
			x := rw.get(u)
			show = show || x != 0
			cells = append(cells, rw.format(x))
		}
		if show {
			lines = append(lines, "| "+rw.name+" | "+strings.Join(cells, " | ")+" |\n")
		}
	}
	details(b, false, "Usage and cost")
	b.WriteString(header)
	for _, l := range lines {
		b.WriteString(l)
	}
	if q := r.Sequential; q != nil && q.Judged < q.Total && q.CallsFull > 0 {
		fmt.Fprintf(b, "\n<sub>Sequential check: %s chat calls made for %s of %s samples; a full check would have made about %s.</sub>\n",
			FormatInt(q.CallsMade), FormatInt(q.Judged), FormatInt(q.Total), FormatInt(q.CallsFull))
	}
	b.WriteString("\n<sub>Cached calls were answered from the judge cache.</sub>\n\n")
	endDetails(b)
}

// code shows a hash or commit in a code span when it is plain, else as
// escaped text.
func code(s string, n int) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return Undefined
	}
	if len(s) > n {
		s = s[:n]
	}
	for _, r := range s {
		if !(r < utf8.RuneSelf && (r == '.' || r == '-' || r == '_' || r == ':' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')) {
			return escapeSnippet(s, n)
		}
	}
	return "`" + s + "`"
}

func writeJudgeDataset(b *strings.Builder, r *compare.Report) {
	sides := []*compare.Side{&r.Head}
	header := "| | Head |\n|:---|:---|\n"
	if r.Base != nil {
		sides = []*compare.Side{r.Base, &r.Head}
		header = "| | Base | Head |\n|:---|:---|:---|\n"
	}
	text := func(s string) string {
		if strings.TrimSpace(s) == "" {
			return Undefined
		}
		return escapeSnippet(s, 80)
	}
	type row struct {
		name string
		get  func(*compare.Side) string
	}
	rs := []row{
		{"judge", func(s *compare.Side) string {
			return text(strings.TrimSpace(s.Judge.Provider + " " + s.Judge.Model))
		}},
		{"embedding model", func(s *compare.Side) string { return text(s.Judge.EmbeddingModel) }},
		{"temperature", func(s *compare.Side) string {
			t := strconv.FormatFloat(s.Judge.Temperature, 'f', -1, 64)
			if s.Judge.SampleTemperature != 0 {
				t += " (sampled steps " + strconv.FormatFloat(s.Judge.SampleTemperature, 'f', -1, 64) + ")"
			}
			return t
		}},
		{"prompts", func(s *compare.Side) string {
			if isHash(s.Judge.Prompts) {
				return code(s.Judge.Prompts, 12)
			}
			return code(s.Judge.Prompts, 60) // an imported file's tool and version
		}},
		{"judge fingerprint", func(s *compare.Side) string { return code(s.Judge.Fingerprint, 12) }},
		{"dataset", func(s *compare.Side) string { return text(s.Dataset.Path) }},
		{"dataset sha256", func(s *compare.Side) string { return code(s.Dataset.SHA256, 12) }},
		{"samples", func(s *compare.Side) string { return FormatInt(s.Samples) }},
		{"repeats", func(s *compare.Side) string { return fmt.Sprint(s.Repeats) }},
		{"commit", func(s *compare.Side) string {
			if s.Git == nil {
				return Undefined
			}
			return code(s.Git.SHA, 12)
		}},
		{"results created", func(s *compare.Side) string {
			if s.CreatedAt.IsZero() {
				return Undefined
			}
			return s.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")
		}},
	}
	details(b, false, "Judge and dataset")
	b.WriteString(header)
	for _, rw := range rs {
		var cells []string
		for _, s := range sides {
			cells = append(cells, rw.get(s))
		}
		if len(cells) == 2 && cells[0] != cells[1] && (rw.name == "judge fingerprint" || rw.name == "dataset sha256") {
			cells[1] += " (changed)"
		}
		fmt.Fprintf(b, "| %s | %s |\n", rw.name, strings.Join(cells, " | "))
	}
	d := r.Settings.Defaults
	src := "built-in defaults"
	if r.Settings.Thresholds != "" {
		src = escapeSnippet(r.Settings.Thresholds, 120)
	}
	fmt.Fprintf(b, "\nThresholds: %s (tolerance %s, alpha %s, correction %s, min_samples %d).\n\n",
		src, FormatBound(d.Tolerance), FormatBound(d.Alpha), escapeSnippet(string(d.Correction), 20), d.MinSamples)
	endDetails(b)
}
