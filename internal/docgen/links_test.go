package docgen

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docs are the pages users read: README.md and every page of docs/.
func docs(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no page in docs/")
	}
	return append([]string{filepath.Join(root, "README.md")}, pages...)
}

var (
	fenceLine  = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	inlineLink = regexp.MustCompile(`\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)
	heading    = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// prose calls f with each line of a markdown text outside fenced code
// blocks, code spans removed.
func prose(text string, f func(line string)) {
	fence := ""
	for _, l := range strings.Split(text, "\n") {
		if m := fenceLine.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case strings.HasPrefix(m[1], fence) && strings.TrimSpace(l) == m[1]:
				fence = ""
				continue
			}
		}
		if fence == "" {
			f(codeSpan.ReplaceAllString(l, "code"))
		}
	}
}

// anchors are the fragment names GitHub gives the headings of a markdown
// text (lower case, punctuation dropped, spaces to hyphens, "-1", "-2"
// on repeats), plus explicit <a id> and <a name> anchors.
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	prose(text, func(l string) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		m := heading.FindStringSubmatch(l)
		if m == nil {
			return
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[2]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		s := b.String()
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	})
	return out
}

// brokenLinks lists the relative links of the markdown file path (text)
// that name no existing file, or a heading its target does not have.
func brokenLinks(path, text string) []string {
	var bad []string
	prose(text, func(l string) {
		for _, m := range inlineLink.FindAllStringSubmatch(l, -1) {
			target := m[1]
			if strings.Contains(target, ":") || strings.HasPrefix(target, "/") {
				continue // a URL (https:, mailto:) or a site-absolute path
			}
			file, frag, _ := strings.Cut(target, "#")
			if file == "" {
				if !anchors(text)[frag] {
					bad = append(bad, fmt.Sprintf("%s: (%s): no heading #%s there", path, target, frag))
				}
				continue
			}
			dest := filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			b, err := os.ReadFile(dest)
			if err != nil {
				if fi, serr := os.Stat(dest); serr == nil && fi.IsDir() && frag == "" {
					continue
				}
				bad = append(bad, fmt.Sprintf("%s: (%s): no such file", path, target))
				continue
			}
			if frag != "" && (!strings.HasSuffix(dest, ".md") || !anchors(string(b))[frag]) {
				bad = append(bad, fmt.Sprintf("%s: (%s): no heading #%s there", path, target, frag))
			}
		}
	})
	return bad
}

// Every relative link of README.md and docs/ leads to a file of the
// repository and, with a #fragment, to a heading of that file.
func TestRelativeLinksResolve(t *testing.T) {
	n := 0
	for _, p := range docs(t) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		prose(string(b), func(l string) { n += len(inlineLink.FindAllString(l, -1)) })
		for _, bad := range brokenLinks(p, string(b)) {
			t.Error(bad)
		}
	}
	if n < 100 {
		t.Errorf("only %d links found in README.md and docs/: is the link pattern still right?", n)
	}
}

// The check can fail: a missing file, a missing heading and a heading
// that only exists inside a code block are reported; links in code are
// not links.
func TestBrokenLinksAreFound(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.md")
	if err := os.WriteFile(other, []byte("# Other page\n\n## Can I trust it?\n\n## Twice\n\n## Twice\n\n```\n# not a heading\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page.md")
	text := "# Page\n\n" +
		"[ok](other.md) [ok](other.md#can-i-trust-it) [ok](other.md#twice-1) [ok](#page) [ok](.)\n" +
		"[gone](missing.md) [no heading](other.md#nope) [in code](other.md#not-a-heading) [here](#nowhere)\n" +
		"`[in a code span](missing.md)` [web](https://example.com/x.md)\n\n" +
		"```\n[in a fence](missing.md)\n```\n"
	got := brokenLinks(page, text)
	want := []string{"(missing.md)", "(other.md#nope)", "(other.md#not-a-heading)", "(#nowhere)"}
	if len(got) != len(want) {
		t.Fatalf("broken links %q, want the %d of %q", got, len(want), want)
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("broken link %d: %q, want %q", i, got[i], want[i])
		}
	}
}
