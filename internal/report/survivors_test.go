package report

import (
	"strings"
	"testing"
)

// Tests that pin figures and boundaries the golden cases do not reach
// (found by mutation testing, bench/mutation.sh).

// TestTrendLeavesOutEveryBaselineBeforeAJudgeChange: the count of left-out
// baselines includes the ones judged like the head before the change.
func TestTrendLeavesOutEveryBaselineBeforeAJudgeChange(t *testing.T) {
	r := caseNamed(t, "regression")
	h := trendOf(r, 5, 0)
	h.Points[2].Judge = "0ther0judge0000" // points 0, 1 and 2 are left out
	md := Markdown(r, Options{Trend: h})
	for _, want := range []string{
		"Trend: 2 stored baselines on main, then this head",
		"3 baselines judged by another judge left out (not comparable).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
}

// TestTrendWithOneBaseline: one stored baseline and the head make a chart
// of two points, and nothing is said about other judges.
func TestTrendWithOneBaseline(t *testing.T) {
	r := caseNamed(t, "regression")
	md := Markdown(r, Options{Trend: trendOf(r, 1, 0)})
	if !strings.Contains(md, "Trend: 1 stored baseline on main, then this head") || !strings.Contains(md, "```mermaid") {
		t.Errorf("no chart of one baseline and the head:\n%s", md)
	}
	if strings.Contains(md, "judged by another judge") {
		t.Errorf("comment speaks of other judges with none left out")
	}
}

func TestAxisRange(t *testing.T) {
	for _, tt := range []struct {
		lo, hi float64
		a, z   string
	}{
		{0.5, 0.5, "0.4", "0.5"}, // a flat series is a tenth wide
		{0.5, 0.7, "0.5", "0.7"}, // bounds on tenths stay
		{0.52, 0.68, "0.5", "0.7"},
		{0.3, 0.3, "0.2", "0.3"},
		{0, 0, "-0.1", "0.0"}, // never "-0.0"
		{0.95, 1, "0.9", "1.0"},
	} {
		if a, z := axisRange(tt.lo, tt.hi); a != tt.a || z != tt.z {
			t.Errorf("axisRange(%v, %v) = %s, %s, want %s, %s", tt.lo, tt.hi, a, z, tt.a, tt.z)
		}
	}
}

func TestEscapeEdges(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"2024", "2024"},
		{"1.", `1\.`},
		{"0. zero", `0\. zero`},
		{"9) nine", `9\) nine`},
		{". dot", ". dot"},
		{"a:/", "a:/"},
		{"a://", "a:\u200b//"},
		{"awww.-----", "awww.-----"},
		{"-www.x", "\\-www\u200b.x"},
		{"a\u202ab\u202ec\u2066d\u2069e\u200ef\u200fg\u061ch", "abcdefgh"},
		{"a\u2029b\u2065c\u206ad\u202fe", "a b\u2065c\u206ad e"},
	} {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatEdges(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{fmtCost(1), "$1.00"},
		{fmtCost(0.99994), "$0.9999"},
		{sayVs(0.7999994, 0.8), "0.7999994"},
		{sayVs(0.79, 0.8), "0.79"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

// TestCodeSpans: a hash shows as a code span only when every character is
// plain; anything else is escaped text (a | in a code span would still
// split the table row).
func TestCodeSpans(t *testing.T) {
	if got := code("azAZ09.-_:", 40); got != "`azAZ09.-_:`" {
		t.Errorf("code(plain) = %q", got)
	}
	for _, s := range []string{"x|y", "x y", "x<y", "x~y", "x{y", "x@y", "x/y", "x`y", "é"} {
		if got := code(s, 40); strings.HasPrefix(got, "`") {
			t.Errorf("code(%q) = %q, want escaped text", s, got)
		}
	}
}

func TestCutBytes(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"héllo", 2, "h"},
		{"héllo", 3, "hé"},
		{"héllo", 0, ""},
	} {
		if got := cutBytes(tt.s, tt.n); got != tt.want {
			t.Errorf("cutBytes(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// TestSummaryLimits: a rendering of exactly the limit is kept whole, and a
// hard cut keeps every whole line that fits with the notice.
func TestSummaryLimits(t *testing.T) {
	r := caseNamed(t, "regression")
	full := Summary(r, opts)
	o := opts
	o.Limit = len(full)
	if got := Summary(r, o); got != full {
		t.Errorf("summary of exactly the limit (%d bytes) was cut", len(full))
	}
	o.Limit = len(full) + MarkerRoom
	if got := Markdown(r, o); len(got) > len(full) {
		t.Errorf("comment with limit %d is %d bytes", o.Limit, len(got))
	}
	steps := ladder(false)
	last := render(r, opts, steps[len(steps)-1])
	notice := "\n_" + summaryNotice + "_\n"
	lines := strings.SplitAfter(last, "\n")
	keep := strings.Join(lines[:4], "")
	o.Limit = len(keep) + len(notice)
	if got, want := Summary(r, o), keep+notice; got != want {
		t.Errorf("hard cut at %d bytes:\n%q\nwant\n%q", o.Limit, got, want)
	}
}

// TestCommentMarkerRoom: the comment leaves MarkerRoom bytes for the
// markers once the limit allows 1 KiB of body, not before.
func TestCommentMarkerRoom(t *testing.T) {
	r := caseNamed(t, "regression")
	for _, tt := range []struct{ limit, budget int }{
		{MarkerRoom + 1024, 1024},
		{MarkerRoom + 1023, MarkerRoom + 1023},
		{1000, 1000},
	} {
		o := opts
		o.Limit = tt.limit
		if got, want := Markdown(r, o), fit(r, o, ladder(true), tt.budget); got != want {
			t.Errorf("limit %d: comment of %d bytes, want the %d-byte rendering within %d", tt.limit, len(got), len(want), tt.budget)
		}
	}
}

func TestWriteListCountsTheRest(t *testing.T) {
	var b strings.Builder
	writeList(&b, strings.Fields("a b c d e f g h i j k l"), profile{sentences: 10, textRunes: 100})
	if !strings.Contains(b.String(), "- … and 2 more\n") {
		t.Errorf("list:\n%s", b.String())
	}
}
