package report

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/results"
)

// HistorySchema is the schema of `gate history --format json`.
const HistorySchema = "raggate.history/v1"

// HistoryFile is one stored baseline as read from a store.
type HistoryFile struct {
	SHA  string
	Date time.Time
	File *results.File
}

// HistoryPoint is one stored baseline in a History.
type HistoryPoint struct {
	SHA  string    `json:"sha"`
	Date time.Time `json:"date"`
	// Judge is the judge fingerprint; JudgeChanged says it differs from the
	// point before, so values across it are not comparable.
	Judge        string `json:"judge"`
	JudgeChanged bool   `json:"judge_changed,omitempty"`
	// Means holds the mean of each metric over the samples scored (null when
	// none was).
	Means map[string]results.Score `json:"means"`
}

// History is the per-metric trend of a branch's stored baselines.
type History struct {
	Schema  string         `json:"schema"`
	Branch  string         `json:"branch"`
	Metrics []string       `json:"metrics"`
	Points  []HistoryPoint `json:"points"`
}

// NewHistory computes the means of every metric of files (oldest first)
// from their samples; a metric appears in the order the files first list
// it.
func NewHistory(branch string, files []HistoryFile) *History {
	h := &History{Schema: HistorySchema, Branch: branch}
	for _, hf := range files {
		for _, m := range hf.File.Config.Metrics {
			if !slices.Contains(h.Metrics, m) {
				h.Metrics = append(h.Metrics, m)
			}
		}
	}
	for i, hf := range files {
		p := HistoryPoint{SHA: hf.SHA, Date: hf.Date.UTC(), Judge: hf.File.Judge.Fingerprint, Means: map[string]results.Score{}}
		p.JudgeChanged = i > 0 && p.Judge != h.Points[i-1].Judge
		for m, s := range results.Summarize(h.Metrics, hf.File.Samples) {
			p.Means[m] = s.Mean
		}
		h.Points = append(h.Points, p)
	}
	return h
}

// Series returns the means of metric, oldest first.
func (h *History) Series(metric string) []float64 {
	xs := make([]float64, len(h.Points))
	for i, p := range h.Points {
		v, ok := p.Means[metric]
		if !ok {
			v = results.NaN()
		}
		xs[i] = v.Value()
	}
	return xs
}

var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws xs as one line of block characters scaled from their
// minimum to their maximum (a flat series is mid-height); NaN is a space.
func Sparkline(xs []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		if finite(x) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	var b strings.Builder
	for _, x := range xs {
		switch {
		case !finite(x):
			b.WriteRune(' ')
		case hi-lo < 1e-9:
			b.WriteRune(sparkRunes[3])
		default:
			i := int(math.Round((x - lo) / (hi - lo) * float64(len(sparkRunes)-1)))
			b.WriteRune(sparkRunes[i])
		}
	}
	return b.String()
}

func (h *History) sparkWithJudge(metric string) string {
	xs := h.Series(metric)
	rs := []rune(Sparkline(xs))
	var b strings.Builder
	for i, r := range rs {
		if h.Points[i].JudgeChanged {
			b.WriteRune('|')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (h *History) judgeChanges() int {
	n := 0
	for _, p := range h.Points {
		if p.JudgeChanged {
			n++
		}
	}
	return n
}

// HistoryText writes the history for a terminal: the commits, then one
// line per metric with its sparkline, first and last mean, minimum and
// maximum. A judge change is marked "*" on its commit and "|" in the
// sparklines.
func HistoryText(w io.Writer, h *History) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n", plain(h.Branch, 100), plural(len(h.Points), "stored baseline", "stored baselines"))
	fmt.Fprintf(&b, "%3s  %-12s  %-20s  %s\n", "#", "commit", "date", "judge")
	for i, p := range h.Points {
		mark := ""
		if p.JudgeChanged {
			mark = "  * judge changed: not comparable with the lines above"
		}
		fmt.Fprintf(&b, "%3d  %-12s  %-20s  %s%s\n", i+1, cmp.Or(results.ShortHash(plain(p.SHA, 64)), "n/a"), fmtDate(p.Date), results.ShortHash(plain(p.Judge, 64)), mark)
	}
	width := 6
	for _, m := range h.Metrics {
		width = max(width, len([]rune(plain(m, 60))))
	}
	tw := max(5, len(h.Points)+h.judgeChanges())
	fmt.Fprintf(&b, "\n%-*s  %-*s  %7s  %7s  %7s  %7s\n", width, "metric", tw, "trend", "first", "last", "min", "max")
	for _, m := range h.Metrics {
		xs := h.Series(m)
		lo, hi := results.NaN(), results.NaN()
		for _, x := range xs {
			if finite(x) {
				lo, hi = results.Score(minNaN(float64(lo), x)), results.Score(maxNaN(float64(hi), x))
			}
		}
		spark := h.sparkWithJudge(m)
		spark += strings.Repeat(" ", tw-len([]rune(spark)))
		fmt.Fprintf(&b, "%-*s  %s  %7s  %7s  %7s  %7s\n", width, plain(m, 60), spark,
			FormatScore(results.Score(xs[0])), FormatScore(results.Score(xs[len(xs)-1])), FormatScore(lo), FormatScore(hi))
	}
	if h.judgeChanges() > 0 {
		b.WriteString("\n| in a trend: the judge changed there (model, prompts or settings); values on either side are not comparable.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func minNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return min(a, b)
}

func maxNaN(a, b float64) float64 {
	if math.IsNaN(a) {
		return b
	}
	return max(a, b)
}

func fmtDate(t time.Time) string {
	if t.IsZero() {
		return "n/a"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}

// HistoryMarkdown writes the history as a markdown table: one row per
// commit, oldest first, one column per metric, then a sparkline row.
func HistoryMarkdown(w io.Writer, h *History) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### raggate history: %s\n\n", escapeSnippet(h.Branch, 100))
	b.WriteString("| Commit | Date | Judge |")
	sep := "|:---|:---|:---|"
	for _, m := range h.Metrics {
		b.WriteString(" " + escapeSnippet(m, 60) + " |")
		sep += "---:|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, p := range h.Points {
		judge := "`" + results.ShortHash(escapeSnippet(p.Judge, 64)) + "`"
		if p.JudgeChanged {
			judge += " ⚠️ changed"
		}
		commit := "—"
		if p.SHA != "" {
			commit = "`" + results.ShortHash(escapeSnippet(p.SHA, 64)) + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |", commit, fmtDate(p.Date), judge)
		for _, m := range h.Metrics {
			b.WriteString(" " + FormatScore(p.Means[m]) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("| trend | | |")
	for _, m := range h.Metrics {
		// The judge-change mark is a pipe: escaped, or it would split the cell.
		b.WriteString(" " + strings.ReplaceAll(h.sparkWithJudge(m), "|", `\|`) + " |")
	}
	b.WriteString("\n")
	if h.judgeChanges() > 0 {
		b.WriteString("\n<sub>⚠️ changed: the judge fingerprint differs from the commit above (| in a trend): values across it are not comparable.</sub>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// HistoryJSON returns the history as indented JSON (raggate.history/v1).
func HistoryJSON(h *History) ([]byte, error) {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// HistoryCSV writes one row per commit: commit, date, judge,
// judge_changed, then one column per metric (empty when undefined).
func HistoryCSV(w io.Writer, h *History) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"commit", "date", "judge", "judge_changed"}, h.Metrics...)); err != nil {
		return err
	}
	for _, p := range h.Points {
		row := []string{p.SHA, p.Date.Format(time.RFC3339), p.Judge, fmt.Sprint(p.JudgeChanged)}
		for _, m := range h.Metrics {
			v, ok := p.Means[m]
			if !ok || !finite(v.Value()) {
				row = append(row, "")
				continue
			}
			row = append(row, fmt.Sprintf("%.6g", v.Value()))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
