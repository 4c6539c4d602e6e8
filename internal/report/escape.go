package report

import (
	"regexp"
	"strings"
	"unicode"
)

// Untrusted text (questions, judge reasons, sample ids, metric and model
// names read from results files, failure sentences that quote them) goes
// through Escape before it reaches markdown, and through plain before it
// reaches a terminal.

// zwsp is inserted after '@' and '#' to break GitHub's mention and issue
// reference autolinking (the rendered text looks the same). Renovate and
// Dependabot neutralise mentions the same way.
const zwsp = "\u200b"

// Escape makes untrusted text safe for one line of GitHub-flavoured
// markdown, table cells included:
//
//   - the text becomes one line: newlines, tabs and other control
//     characters turn into spaces, runs of spaces collapse, bidirectional
//     overrides are dropped and invalid UTF-8 becomes U+FFFD;
//   - no raw HTML: & < > become &amp; &lt; &gt; (so entities cannot be
//     smuggled either);
//   - no broken tables: | is backslash-escaped, and so is \ itself;
//   - no links, images, code, emphasis or math: [ ] ! ` * ~ $ are
//     backslash-escaped, and _ where it could start or end emphasis;
//   - no block syntax: a leading # + - = or "1." is escaped;
//   - no pings or cross-references: a zero-width space follows every @ and
//     every # that precedes a word character or digit, and the dash of
//     "GH-123", so "@user", "@org/team", "owner/repo#12" and "GH-12"
//     render as text;
//   - no autolinks: GitHub links bare URLs ("https://...", any
//     "scheme://") and "www." names without link syntax, so a zero-width
//     space goes after the ':' of every "://" and before the '.' of
//     "www." (e-mail addresses are already broken at their @). The text
//     reads the same but is not a link, and a copied URL does not work.
func Escape(s string) string {
	return escapeFlat(flatten(s))
}

// snippet flattens s and shortens it to at most n runes (ending in "…");
// n <= 0 keeps everything. It reads only as much of s as it needs.
func snippet(s string, n int) string {
	if n <= 0 {
		return flatten(s)
	}
	r := []rune(flattenN(s, n+1))
	if len(r) <= n {
		return string(r)
	}
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// escapeSnippet is Escape of the first n runes of s.
func escapeSnippet(s string, n int) string { return escapeFlat(snippet(s, n)) }

// codeSpan is a code span of raggate's own sentences (`gate baseline
// put`, `gate run --metrics`): characters that cannot end it or break out
// of it.
var codeSpan = regexp.MustCompile("`[A-Za-z0-9_ .,:/=-]{1,80}`")

// escapeSentence is escapeSnippet that keeps the code spans a sentence
// writes (a command to run) as code, not as backticks shown escaped.
func escapeSentence(s string, n int) string {
	s = snippet(s, n)
	var b strings.Builder
	last := 0
	for _, m := range codeSpan.FindAllStringIndex(s, -1) {
		b.WriteString(escapeFlat(s[last:m[0]]))
		b.WriteString(s[m[0]:m[1]])
		last = m[1]
	}
	b.WriteString(escapeFlat(s[last:]))
	return b.String()
}

// flatten turns s into one trimmed line of valid UTF-8 without control or
// bidirectional formatting characters.
func flatten(s string) string { return flattenN(s, -1) }

// Flatten is flatten for the other renderers (the HTML report): untrusted
// text as one line, without control or bidirectional formatting
// characters that could make it read otherwise than its bytes.
func Flatten(s string) string { return flatten(s) }

// flattenN is flatten that stops after limit runes (limit < 0: no limit).
func flattenN(s string, limit int) string {
	var b strings.Builder
	b.Grow(min(len(s), 4*limit+4))
	space := false
	n := 0
	for _, r := range s { // invalid UTF-8 decodes as U+FFFD
		if n == limit {
			break
		}
		switch {
		case isBidi(r):
			continue
		case unicode.IsControl(r) || unicode.IsSpace(r) || r == '\u2028' || r == '\u2029':
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			n++
			if n == limit {
				break
			}
		}
		space = false
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// isBidi reports the bidirectional formatting characters that can make
// rendered text read differently from its bytes.
func isBidi(r rune) bool {
	switch {
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	case r == '\u200e', r == '\u200f', r == '\u061c':
		return true
	}
	return false
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// escapeFlat escapes a flattened line.
func escapeFlat(s string) string {
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	next := func(i int) rune {
		if i+1 < len(rs) {
			return rs[i+1]
		}
		return 0
	}
	// A leading ordered-list marker ("1. " or "1) ") would start a list.
	lead := 0
	for lead < len(rs) && rs[lead] >= '0' && rs[lead] <= '9' {
		lead++
	}
	olist := lead > 0 && lead < len(rs) && (rs[lead] == '.' || rs[lead] == ')') &&
		(lead+1 == len(rs) || rs[lead+1] == ' ')
	for i, r := range rs {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\\', '`', '*', '[', ']', '!', '|', '~', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '_':
			prev := rune(0)
			if i > 0 {
				prev = rs[i-1]
			}
			if !isWord(prev) || !isWord(next(i)) || prev == '_' || next(i) == '_' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		case '@':
			b.WriteRune(r)
			if n := next(i); isWord(n) || n == '-' {
				b.WriteString(zwsp)
			}
		case '#':
			if i == 0 {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
			if n := next(i); isWord(n) {
				b.WriteString(zwsp)
			}
		case '+', '-', '=':
			if i == 0 {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
			if r == '-' && ghRef(rs, i) {
				b.WriteString(zwsp)
			}
		case '.', ')':
			if olist && i == lead {
				b.WriteByte('\\')
			}
			if r == '.' && wwwBefore(rs, i) {
				b.WriteString(zwsp)
			}
			b.WriteRune(r)
		case ':':
			b.WriteRune(r)
			if next(i) == '/' && i+2 < len(rs) && rs[i+2] == '/' {
				b.WriteString(zwsp)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ghRef reports whether the '-' at rs[i] is inside a "GH-123" issue
// reference that GitHub would link: "GH" (any case) not preceded by a word
// character, then the dash and a digit.
func ghRef(rs []rune, i int) bool {
	if i < 2 || i+1 >= len(rs) || !unicode.IsDigit(rs[i+1]) || !strings.EqualFold(string(rs[i-2:i]), "gh") {
		return false
	}
	return i == 2 || !isWord(rs[i-3])
}

// wwwBefore reports whether the '.' at rs[i] ends a "www" that GitHub
// would autolink: "www" (any case) not preceded by a letter or digit.
func wwwBefore(rs []rune, i int) bool {
	if i < 3 || !strings.EqualFold(string(rs[i-3:i]), "www") {
		return false
	}
	return i == 3 || !(unicode.IsLetter(rs[i-4]) || unicode.IsDigit(rs[i-4]))
}

// plain makes untrusted text safe for a terminal: one line, no control
// characters (so no ANSI escape sequences), no bidirectional overrides.
func plain(s string, n int) string { return snippet(s, n) }
