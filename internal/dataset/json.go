package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// lineIndex holds the offset at which each line starts.
type lineIndex []int

func newLineIndex(data []byte) lineIndex {
	li := lineIndex{0}
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return li
		}
		off += i + 1
		li = append(li, off)
	}
}

// pos returns the line and column of offset off.
func (li lineIndex) pos(off int) pos {
	n := sort.Search(len(li), func(i int) bool { return li[i] > off })
	if n == 0 {
		n = 1
	}
	return pos{line: n, col: off - li[n-1] + 1}
}

// reader turns the bytes of a file into records.
type reader struct {
	file string
	data []byte
	li   lineIndex
	base int // lines before data, when data is one line of a file read line by line
	res  *resolver
	ps   *problems
	keys map[string]bool // every key seen, for the mapping warning
	emit func(record)    // called with each record, in file order
}

func (r *reader) problem(off int, field, msg string) {
	r.ps.add(r.at(off, field, msg))
}

// at is the problem msg at offset off of r.data.
func (r *reader) at(off int, field, msg string) Problem {
	p := r.pos(off)
	return Problem{File: r.file, Line: p.line, Col: p.col, Field: fieldName(field), Msg: msg}
}

// pos returns the position in the file of offset off of r.data.
func (r *reader) pos(off int) pos {
	p := r.li.pos(off)
	p.line += r.base
	return p
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func skipWS(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// skipString returns the offset after the JSON string starting at d[i].
func skipString(d []byte, i int) int {
	for j := i + 1; j < len(d); j++ {
		switch d[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(d)
}

// skipValue returns the offset after the valid JSON value starting at d[i].
func skipValue(d []byte, i int) int {
	if i >= len(d) {
		return i
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(d); j++ {
			switch d[j] {
			case '"':
				j = skipString(d, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(d)
	}
	j := i
	for j < len(d) && !isSpace(d[j]) && d[j] != ',' && d[j] != '}' && d[j] != ']' {
		j++
	}
	return j
}

// decodeString decodes the valid JSON string d[i:j].
func decodeString(d []byte, i, j int) string {
	raw := d[i:j]
	if len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // valid: checked before
	return s
}

// readLines reads JSON Lines.
func (r *reader) readLines() int {
	n := 0
	for ln, start := range r.li {
		end := len(r.data)
		if ln+1 < len(r.li) {
			end = r.li[ln+1] - 1
		}
		if r.oneLine(start, end) {
			n++
		}
	}
	return n
}

// streamLines reads JSON Lines from src a line at a time, so that memory
// holds one line of the file, not the file. Invalid UTF-8 is reported for
// every line that has it, and then replaces the other problems (as for a
// file read whole). The error is that of src (cancelled, too long, cannot
// read).
func (r *reader) streamLines(src *source) (int, error) {
	n := 0
	var bad problems
	r.li = lineIndex{0}
	for {
		line, err := src.line()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		r.data, r.base = line, src.lines-1
		if p, ok := r.invalidUTF8(0, len(line)); ok {
			bad.add(p)
			continue
		}
		if bad.count() == 0 && r.oneLine(0, len(bytes.TrimSuffix(line, []byte("\n")))) {
			n++
		}
	}
	r.data = nil
	if bad.count() > 0 {
		*r.ps = bad
		return 0, nil
	}
	return n, nil
}

// oneLine reads the JSON Lines line r.data[start:end] (without its "\n");
// it reports whether it emitted a record.
func (r *reader) oneLine(start, end int) bool {
	if end > start && r.data[end-1] == '\r' {
		end--
	}
	i := skipWS(r.data[:end], start)
	if i == end {
		return false
	}
	if !json.Valid(r.data[i:end]) {
		r.syntax(i, end, "line")
		return false
	}
	rec, ok := r.object(i, "line")
	if ok {
		r.emit(rec)
	}
	return ok
}

// readArray reads a file holding one JSON array of objects.
func (r *reader) readArray() int {
	start := skipWS(r.data, 0)
	if !json.Valid(r.data) {
		r.syntax(start, len(r.data), "array")
		return 0
	}
	n := 0
	i := skipWS(r.data, start+1)
	for i < len(r.data) && r.data[i] != ']' {
		if rec, ok := r.object(i, "element"); ok {
			r.emit(rec)
			n++
		}
		next := skipWS(r.data, skipValue(r.data, i))
		if next < len(r.data) && r.data[next] == ',' {
			next = skipWS(r.data, next+1)
		}
		if next <= i {
			break // cannot happen with valid JSON
		}
		i = next
	}
	return n
}

// readStream reads a sequence of (pretty-printed) JSON objects.
func (r *reader) readStream() int {
	n := 0
	dec := json.NewDecoder(bytes.NewReader(r.data))
	for {
		start := skipWS(r.data, int(dec.InputOffset()))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return n
		}
		if err != nil {
			r.syntax(start, len(r.data), "stream")
			return n
		}
		if rec, ok := r.object(start, "value"); ok {
			r.emit(rec)
			n++
		}
	}
}

// syntax reports the JSON syntax error in d[start:end], which must not be
// valid JSON.
func (r *reader) syntax(start, end int, mode string) {
	var raw json.RawMessage
	err := json.Unmarshal(r.data[start:end], &raw)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		msg := "invalid JSON"
		if err != nil {
			msg += ": " + jsonErrText(err)
		}
		r.problem(start, "", msg)
		return
	}
	eof := strings.HasPrefix(se.Error(), "unexpected end")
	off := start + int(se.Offset)
	if !eof {
		off--
	}
	off = max(start, min(off, end))
	msg := "not valid JSON: " + syntaxWords(se.Error())
	var c, prev byte
	if off < end {
		c = r.data[off]
	}
	for j := off - 1; j >= start; j-- {
		if !isSpace(r.data[j]) {
			prev = r.data[j]
			break
		}
	}
	switch {
	case eof && mode == "line":
		msg += "; each line must hold one complete JSON object (is an object split over several lines?)"
	case eof:
		msg += "; the JSON ends too early: close every { and ["
	case strings.Contains(se.Error(), "after top-level value") && mode == "line":
		msg += "; put one JSON object per line"
	case strings.Contains(se.Error(), "after top-level value") && mode == "array":
		msg += "; the file must hold a single JSON array"
	case (c == '}' || c == ']') && prev == ',':
		msg += "; remove the trailing comma"
	case c == ',' && mode == "stream" && off == start:
		msg += "; to list objects separated by commas, wrap them in [ and ] to make a JSON array"
	case c == '\'':
		msg += `; JSON strings and keys need double quotes`
	case c == 'N' || c == 'I':
		msg += "; NaN and Infinity are not JSON: use null"
	case c < 0x20 && strings.Contains(se.Error(), "in string literal"):
		msg += `; write tabs and line breaks inside strings as \t and \n`
	}
	r.problem(off, "", msg)
}

// syntaxWords rewords a message of encoding/json's syntax errors for a
// user: what was expected where, and the character found ("invalid
// character 'b' looking for beginning of object key string" is "expected
// a field name in quotes, found 'b'"). A message it does not know is kept.
func syntaxWords(msg string) string {
	if msg == "unexpected end of JSON input" {
		return "the text ends before the JSON does"
	}
	rest, ok := strings.CutPrefix(msg, "invalid character ")
	if !ok {
		return msg
	}
	// rest is "'c' context", the character quoted by strconv.QuoteRune
	// style ('\'', '\t', '\x01').
	end := strings.Index(rest[1:], "' ")
	if !strings.HasPrefix(rest, "'") || end < 0 {
		return msg
	}
	char, context := rest[:end+2], rest[end+3:]
	found := ", found " + char
	switch {
	case context == "looking for beginning of object key string":
		return "expected a field name in quotes" + found
	case context == "looking for beginning of value":
		return "expected a value (a string in quotes, a number, true, false, null, [ or {)" + found
	case context == "after object key":
		return "expected a colon (:) after the field name" + found
	case context == "after object key:value pair":
		return "expected a comma or } after the field's value" + found
	case context == "after array element":
		return "expected a comma or ] after the list element" + found
	case context == "after top-level value":
		return "found " + char + " after the end of the object"
	case context == "in string literal":
		return "found " + char + " inside a string"
	case context == "in string escape code":
		return "found " + char + ` after a backslash: not an escape JSON knows (\\, \", \n, \t, \uXXXX)`
	case context == "in numeric literal" || strings.HasPrefix(context, "after decimal point") || strings.HasPrefix(context, "in exponent"):
		return "found " + char + " inside a number"
	case strings.HasPrefix(context, "in literal "):
		return "found " + char + " inside true, false or null (JSON writes them in lower case, unquoted)"
	}
	return msg
}

// object reads the valid JSON value at r.data[i] as a record.
func (r *reader) object(i int, what string) (record, bool) {
	d := r.data
	if d[i] != '{' {
		k := rawKind(d[i : i+1])
		msg := fmt.Sprintf(`expected a JSON object, found %s; each sample is an object like {"user_input": "...", "response": "..."}`, k.noun())
		if what == "line" {
			msg = fmt.Sprintf(`expected a JSON object, found %s; each line must be an object like {"user_input": "...", "response": "..."}`, k.noun())
		}
		r.problem(i, "", msg)
		return record{}, false
	}
	rec := record{p: r.pos(i)}
	j := skipWS(d, i+1)
	for j < len(d) && d[j] == '"' {
		ks, ke := j, skipString(d, j)
		key := decodeString(d, ks, ke)
		r.keys[key] = true
		j = skipWS(d, ke)
		j = skipWS(d, j+1) // ':'
		vs, ve := j, skipValue(d, j)
		e := entry{key: key, t: r.res.resolve(key), kp: r.pos(ks), vp: r.pos(vs)}
		switch e.t.kind {
		case tField, tID:
			e.v = r.value(vs, ve)
		case tMeta:
			e.v = r.metaValue(vs, ve)
		}
		rec.entries = append(rec.entries, e)
		j = skipWS(d, ve)
		if j < len(d) && d[j] == ',' {
			j = skipWS(d, j+1)
			continue
		}
		break
	}
	return rec, true
}

// value decodes the valid JSON value r.data[i:j].
func (r *reader) value(i, j int) value {
	d := r.data
	if i >= j {
		return value{kind: vNull}
	}
	k := rawKind(d[i:j])
	switch k {
	case vString:
		return value{kind: k, s: decodeString(d, i, j)}
	case vNumber:
		return value{kind: k, s: string(d[i:j])}
	case vList:
		items := []item{}
		n := skipWS(d, i+1)
		for n < j && d[n] != ']' {
			e := skipValue(d, n)
			if e <= n {
				break // cannot happen with valid JSON
			}
			it := item{kind: rawKind(d[n:e]), p: r.pos(n)}
			if it.kind == vString {
				it.s = decodeString(d, n, e)
			}
			items = append(items, it)
			n = skipWS(d, e)
			if n < j && d[n] == ',' {
				n = skipWS(d, n+1)
			}
		}
		return value{kind: k, items: items}
	}
	return value{kind: k}
}
