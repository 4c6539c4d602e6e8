package report

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "How long is the refund window?", "How long is the refund window?"},
		{"mention", "ask @octocat", "ask @\u200boctocat"},
		{"team mention", "@acme/rag-team", "@\u200bacme/rag-team"},
		{"mention with dash", "@-x", "@\u200b-x"},
		{"email", "mail user@example.com", "mail user@\u200bexample.com"},
		{"lone at", "a @ b", "a @ b"},
		{"script", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"},
		{"html comment", "<!-- raggate:gate=raggate -->", "&lt;\\!-- raggate:gate=raggate --&gt;"},
		{"entity", "&lt;b&gt; & co", "&amp;lt;b&amp;gt; &amp; co"},
		{"pipe", "a|b", `a\|b`},
		{"escaped pipe", `a\|b`, `a\\\|b`},
		{"newlines", "line1\nline2\r\n\tline3", "line1 line2 line3"},
		{"spaces", "  spaced   out \u00a0 ", "spaced out"},
		{"fence", "```go\nx := 1\n```", "\\`\\`\\`go x := 1 \\`\\`\\`"},
		{"inline code", "use `rm -rf`", "use \\`rm -rf\\`"},
		{"link", "[link](https://evil.example)", "\\[link\\](https:\u200b//evil.example)"},
		{"image", "![img](x.png)", `\!\[img\](x.png)`},
		{"emphasis", "**bold** _it_ ~~gone~~", `\*\*bold\*\* \_it\_ \~\~gone\~\~`},
		{"snake case", "context_recall_v2", "context_recall_v2"},
		{"dunder", "__init__", `\_\_init\_\_`},
		{"math", "$x^2$", `\$x^2\$`},
		{"heading", "# title", `\# title`},
		{"issue reference", "see owner/repo#12 and #3", "see owner/repo#\u200b12 and #\u200b3"},
		{"hash alone", "C# and F#", "C# and F#"},
		{"GH reference", "fixed in GH-123, gh-7 and (GH-8)", "fixed in GH-\u200b123, gh-\u200b7 and (GH-\u200b8)"},
		{"GH reference first", "GH-1", "GH-\u200b1"},
		{"not a GH reference", "SIGH-12, GH-x, GH- 3, GH12", "SIGH-12, GH-x, GH- 3, GH12"},
		{"bullet", "- item", `\- item`},
		{"plus", "+ item", `\+ item`},
		{"ordered", "1. item", `1\. item`},
		{"ordered paren", "12) item", `12\) item`},
		{"version", "1.5 times", "1.5 times"},
		{"quote", "> quoted", "&gt; quoted"},
		{"bidi", "abc\u202edcba\u202c", "abcdcba"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"control", "a\x1b[31mred\x1b[0m", `a \[31mred \[0m`},
		{"empty", "", ""},
		{"bare url", "see https://evil.example/x?a=1", "see https:\u200b//evil.example/x?a=1"},
		{"http url", "http://evil.example", "http:\u200b//evil.example"},
		{"other scheme", "ftp://files.example/x and HTTPS://X.EXAMPLE", "ftp:\u200b//files.example/x and HTTPS:\u200b//X.EXAMPLE"},
		{"url in link syntax", "![x](https://evil.example/x.png)", "\\!\\[x\\](https:\u200b//evil.example/x.png)"},
		{"www", "visit www.evil.example today", "visit www\u200b.evil.example today"},
		{"www upper case", "WWW.EVIL.EXAMPLE", "WWW\u200b.EVIL.EXAMPLE"},
		{"www after punctuation", "(www.evil.example)", "(www\u200b.evil.example)"},
		{"not www", "awww.example and www-x", "awww.example and www-x"},
		{"colon", "ratio 3:1, a: b", "ratio 3:1, a: b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
			checkEscaped(t, tt.in, Escape(tt.in))
		})
	}
}

func TestSnippet(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 80, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"one two three", 8, "one two…"},
		{"héllo wörld", 6, "héllo…"},
		{"a\nb", 80, "a b"},
	}
	for _, tt := range tests {
		got := snippet(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("snippet(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if utf8.RuneCountInString(got) > tt.n {
			t.Errorf("snippet(%q, %d) has %d runes", tt.in, tt.n, utf8.RuneCountInString(got))
		}
	}
	long := strings.Repeat("<@x|", 100)
	if got := escapeSnippet(long, 80); strings.Contains(got, "<") || !strings.HasSuffix(got, "…") {
		t.Errorf("escapeSnippet = %q", got)
	}
}

// oddBackslashes reports whether the byte at i is preceded by an odd number
// of backslashes (so it is escaped).
func oddBackslashes(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// checkEscaped checks the promises of Escape on one output.
func checkEscaped(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Escape(%q) = %q: invalid UTF-8", in, out)
	}
	rs := []rune(out)
	for i, r := range rs {
		var next rune
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		switch {
		case r == '<' || r == '>':
			t.Fatalf("Escape(%q) = %q: raw %q", in, out, r)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			t.Fatalf("Escape(%q) = %q: control character %U", in, out, r)
		case isBidi(r):
			t.Fatalf("Escape(%q) = %q: bidi control %U", in, out, r)
		case r == '@' && (isWord(next) || next == '-'):
			t.Fatalf("Escape(%q) = %q: a mention survives", in, out)
		case r == '#' && isWord(next):
			t.Fatalf("Escape(%q) = %q: an issue reference survives", in, out)
		}
	}
	for i, r := range rs {
		if r == '-' && i >= 2 && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) && strings.EqualFold(string(rs[i-2:i]), "gh") &&
			(i == 2 || !isWord(rs[i-3])) {
			t.Fatalf("Escape(%q) = %q: a GH- issue reference survives", in, out)
		}
	}
	// GitHub autolinks "scheme://..." and "www." even without link syntax.
	if strings.Contains(out, "://") {
		t.Fatalf("Escape(%q) = %q: a URL survives", in, out)
	}
	for i, r := range rs {
		if r == '.' && i >= 3 && strings.EqualFold(string(rs[i-3:i]), "www") &&
			(i == 3 || !(unicode.IsLetter(rs[i-4]) || unicode.IsDigit(rs[i-4]))) {
			t.Fatalf("Escape(%q) = %q: a www. link survives", in, out)
		}
	}
	for i := 0; i < len(out); i++ {
		switch c := out[i]; c {
		case '|', '[', ']', '`', '!', '*', '~', '$':
			if !oddBackslashes(out, i) {
				t.Fatalf("Escape(%q) = %q: unescaped %q at byte %d", in, out, c, i)
			}
		case '&':
			rest := out[i:]
			if !strings.HasPrefix(rest, "&amp;") && !strings.HasPrefix(rest, "&lt;") && !strings.HasPrefix(rest, "&gt;") {
				t.Fatalf("Escape(%q) = %q: bare & at byte %d", in, out, i)
			}
		}
	}
	if strings.HasPrefix(out, " ") || strings.HasSuffix(out, " ") {
		t.Fatalf("Escape(%q) = %q: not trimmed", in, out)
	}
	if len(out) > 0 && strings.ContainsRune("#+-=>", rune(out[0])) {
		t.Fatalf("Escape(%q) = %q: starts with a block marker", in, out)
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{
		"@octocat", "<script>alert(1)</script>", "a|b", `\|`, "line\nbreak", "```\ncode\n```",
		"[link](x)", "![img](x)", "owner/repo#12", "GH-12", "&amp;", "1. x", "# h", "\u202e", "\xff", "@\u200bx",
		"_a_", "**", "$$", "~", "-", "\\\\|", "https://x.example", "www.x.example", "a:/" + "/b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		checkEscaped(t, s, out)
		// Escaping is one line of text: it can sit in a table cell.
		if row := "| " + out + " |"; countCells(row) != 1 {
			t.Fatalf("Escape(%q) = %q splits a table cell", s, out)
		}
		sn := escapeSnippet(s, 80)
		checkEscaped(t, s, sn)
		if n := utf8.RuneCountInString(snippet(s, 80)); n > 80 {
			t.Fatalf("snippet of %q has %d runes", s, n)
		}
	})
}

// countCells counts the cells of a markdown table row the way GFM splits
// it: on pipes that are not backslash-escaped.
func countCells(row string) int {
	row = strings.TrimSpace(row)
	pipes := 0
	for i := 0; i < len(row); i++ {
		if row[i] == '\\' {
			i++ // an escaped character
			continue
		}
		if row[i] == '|' {
			pipes++
		}
	}
	return pipes - 1
}
