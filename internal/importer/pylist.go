package importer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// parseList reads a cell holding a list of strings as the tools write
// them: a JSON array, a Python list repr as pandas' to_csv writes a list
// (str(list): single quotes, or double quotes around an item holding a
// single quote, backslash escapes \n, \', \xa0, \u200e), or a NumPy array
// repr (items separated by white space, no commas, as a list column read
// from Arrow prints). ok is false when the cell does not start with [;
// a cell that does but is no such list is an error.
func parseList(cell string) (items []string, ok bool, err error) {
	s := strings.TrimSpace(cell)
	if s == "" || s[0] != '[' {
		return nil, false, nil
	}
	var js []string
	if json.Unmarshal([]byte(s), &js) == nil {
		return js, true, nil
	}
	p := pyParser{s: s, i: 1}
	items = []string{}
	for {
		p.skipSeparators()
		if p.i >= len(p.s) {
			return nil, true, fmt.Errorf("a list that does not end with ]")
		}
		if p.s[p.i] == ']' {
			if strings.TrimSpace(p.s[p.i+1:]) != "" {
				return nil, true, fmt.Errorf("text after the end of the list")
			}
			return items, true, nil
		}
		item, err := p.str()
		if err != nil {
			return nil, true, err
		}
		items = append(items, item)
	}
}

type pyParser struct {
	s string
	i int
}

// skipSeparators skips white space and one comma between items.
func (p *pyParser) skipSeparators() {
	for p.i < len(p.s) && (p.s[p.i] == ',' || p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

// str reads one quoted string at p.i, with an optional u or r prefix.
func (p *pyParser) str() (string, error) {
	raw := false
	for p.i < len(p.s) && strings.IndexByte("uUbBrR", p.s[p.i]) >= 0 {
		raw = raw || p.s[p.i] == 'r' || p.s[p.i] == 'R'
		p.i++
	}
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", fmt.Errorf("item %q is not a quoted string", clip(p.s[p.i:], 20))
	}
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && !raw && p.i+1 < len(p.s):
			n, err := p.escape(&b)
			if err != nil {
				return "", err
			}
			p.i += n
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", fmt.Errorf("a string that does not end with its quote (%c)", q)
}

// escape decodes the backslash escape at p.i into b and returns its length.
func (p *pyParser) escape(b *strings.Builder) (int, error) {
	c := p.s[p.i+1]
	simple := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '0': "\x00", '/': "/"}
	if r, ok := simple[c]; ok {
		b.WriteString(r)
		return 2, nil
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if digits == 0 {
		b.WriteByte('\\') // Python keeps unknown escapes as they are
		b.WriteByte(c)
		return 2, nil
	}
	end := p.i + 2 + digits
	if end > len(p.s) {
		return 0, fmt.Errorf("a \\%c escape cut short", c)
	}
	v, err := strconv.ParseUint(p.s[p.i+2:end], 16, 32)
	if err != nil {
		return 0, fmt.Errorf("a \\%c escape with %q, not hex digits", c, p.s[p.i+2:end])
	}
	r := rune(v)
	if utf16.IsSurrogate(r) && c == 'u' && end+6 <= len(p.s) && p.s[end] == '\\' && p.s[end+1] == 'u' {
		// A JSON-style surrogate pair: \ud83d\ude00.
		if lo, err := strconv.ParseUint(p.s[end+2:end+6], 16, 32); err == nil {
			if pair := utf16.DecodeRune(r, rune(lo)); pair != utf8.RuneError {
				b.WriteRune(pair)
				return end + 6 - p.i, nil
			}
		}
	}
	b.WriteRune(r)
	return end - p.i, nil
}

// clip cuts s to n characters for a message.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
