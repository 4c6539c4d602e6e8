package app

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/raggate/raggate/internal/judge"
)

// TestProgressLines: without a terminal, a line at every tenth of the
// samples and after 30 s without one, with rate, time left, calls, tokens
// and cost; the end of a run answered from the cache says so.
func TestProgressLines(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	u := judge.Usage{}
	var buf bytes.Buffer
	update := newProgress(&buf, false, progressFigures{
		usage: func() judge.Usage { return u },
		cost:  func(u judge.Usage) float64 { return float64(u.PromptTokens) / 1e6 },
		now:   func() time.Time { return now },
	})
	for done := 1; done <= 100; done++ {
		now = now.Add(time.Second)
		u.ChatCalls, u.CachedCalls, u.PromptTokens = 16*done, 4*done, 1500*done
		if done == 55 {
			now = now.Add(31 * time.Second) // a slow sample
		}
		update(done, 100)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 10 tenths + 1 after 30 s:\n%s", len(lines), buf.String())
	}
	if want := "judged 10/100 samples (10%), 1.0 samples/s, done in 1m30s, 160 judge calls (40 cached), 15,000 tokens, $0.0150"; lines[0] != want {
		t.Errorf("line 1:\n got %q\nwant %q", lines[0], want)
	}
	if !strings.HasPrefix(lines[5], "judged 55/100 samples (55%)") {
		t.Errorf("no line after 30 s of silence: %q", lines[5])
	}
	if strings.Contains(lines[10], "done in") || strings.Contains(lines[10], "judge cache") {
		t.Errorf("last line: %q", lines[10])
	}

	// A run whose every chat call came from the cache says so.
	buf.Reset()
	update = newProgress(&buf, false, progressFigures{usage: func() judge.Usage { return judge.Usage{ChatCalls: 32, CachedCalls: 32} }})
	update(2, 2)
	if !strings.Contains(buf.String(), "every chat call answered from the judge cache") {
		t.Errorf("cached run: %q", buf.String())
	}
	if newProgress(&buf, true, progressFigures{}) != nil {
		t.Error("--quiet still reports progress")
	}
}

// TestProgressBar draws the terminal bar (the writer is not a terminal
// here, so the bar is forced): count, percentage and judge figures.
func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, tty: true, start: time.Now(), fig: progressFigures{
		usage: func() judge.Usage { return judge.Usage{ChatCalls: 48, PromptTokens: 9000} },
		now:   time.Now,
	}}
	for done := 1; done <= 3; done++ {
		p.update(done, 3)
	}
	out := buf.String()
	for _, want := range []string{"100%", "(3/3", "48 judge calls (0 cached), 9,000 tokens", "█"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar lacks %q:\n%q", want, out)
		}
	}
	if strings.Contains(out, "judged 3/3") {
		t.Error("the terminal got the plain lines")
	}
}
