package app

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/raggate/raggate/internal/report"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/raggate/raggate/internal/judge"
	"github.com/raggate/raggate/internal/redact"
)

// progressLineEvery is the longest quiet spell of the plain progress lines.
const progressLineEvery = 30 * time.Second

// progressFigures are what a progress report says besides the samples:
// the judge's usage so far (nil: none to tell, as for the offline judge)
// and its estimated cost (nil: no price).
type progressFigures struct {
	// verb starts each line ("judged" when empty), label names the work
	// on the live bar ("judging" when empty).
	verb, label string
	usage       func() judge.Usage
	cost        func(judge.Usage) float64
	now         func() time.Time
}

// newProgress returns the progress callback of a run of total samples on
// w: a live bar (schollz/progressbar) when w is a terminal, else a plain
// line at every tenth of the samples and at least every 30 s, both with
// samples done / total, rate, time left, judge calls, tokens and cost so
// far; nil when quiet.
func newProgress(w io.Writer, quiet bool, fig progressFigures) func(done, total int) {
	if quiet {
		return nil
	}
	if fig.now == nil {
		fig.now = time.Now
	}
	p := &progress{w: w, fig: fig, start: fig.now()}
	p.last = p.start
	p.tty = isTerminal(w)
	return p.update
}

// isTerminal reports whether w, under its redaction, is a terminal.
func isTerminal(w io.Writer) bool {
	for {
		switch v := w.(type) {
		case *redact.Writer:
			w = v.W
		case *os.File:
			return isatty.IsTerminal(v.Fd())
		default:
			return false
		}
	}
}

type progress struct {
	mu    sync.Mutex
	w     io.Writer
	fig   progressFigures
	tty   bool
	bar   *progressbar.ProgressBar
	start time.Time
	last  time.Time
}

func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		p.updateBar(done, total)
		return
	}
	now := p.fig.now()
	step := max(1, total/10)
	if done == total || done%step == 0 || now.Sub(p.last) >= progressLineEvery {
		p.last = now
		verb := p.fig.verb
		if verb == "" {
			verb = "judged"
		}
		fmt.Fprintf(p.w, "%s %d/%d samples (%d%%)%s\n", verb, done, total, 100*done/max(1, total), p.figures(done, total, now))
	}
}

// updateBar draws the live bar; its description carries the judge's
// figures.
func (p *progress) updateBar(done, total int) {
	if p.bar == nil {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(),
			progressbar.OptionShowIts(), progressbar.OptionSetItsString("samples"), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionSetWidth(30), progressbar.OptionSetDescription(p.barLabel()))
	}
	p.bar.Describe(strings.TrimPrefix(p.judgeFigures(done == total), ", "))
	_ = p.bar.Set(done)
	if done == total {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

// barLabel names the work of the live bar.
func (p *progress) barLabel() string {
	if p.fig.label != "" {
		return p.fig.label
	}
	return "judging"
}

// figures are the rate, the time left and the judge's figures.
func (p *progress) figures(done, total int, now time.Time) string {
	var b strings.Builder
	if el := now.Sub(p.start); el > 0 && done > 0 {
		rate := float64(done) / el.Seconds()
		fmt.Fprintf(&b, ", %.1f samples/s", rate)
		if done < total {
			fmt.Fprintf(&b, ", done in %s", (time.Duration(float64(total-done) / rate * float64(time.Second))).Round(time.Second))
		}
	}
	b.WriteString(p.judgeFigures(done == total))
	return b.String()
}

// judgeFigures says the judge calls (cached among them), tokens and cost
// so far, and, at the end of a run answered wholly from the judge cache,
// so.
func (p *progress) judgeFigures(finished bool) string {
	if p.fig.usage == nil {
		return ""
	}
	u := p.fig.usage()
	if u.ChatCalls+u.EmbeddingCalls == 0 {
		return ""
	}
	s := fmt.Sprintf(", %s judge calls (%s cached), %s tokens", report.FormatInt(u.ChatCalls+u.EmbeddingCalls), report.FormatInt(u.CachedCalls),
		report.FormatInt(u.PromptTokens+u.CompletionTokens+u.EmbeddingTokens))
	if p.fig.cost != nil {
		s += ", " + report.FormatCost(p.fig.cost(u))
	}
	if finished && u.CachedCalls > 0 && u.CachedCalls >= u.ChatCalls {
		s += ", every chat call answered from the judge cache"
	}
	return s
}
