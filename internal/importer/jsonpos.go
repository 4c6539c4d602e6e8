package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// lineAt returns the 1-based line of byte offset off of data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// lineCounter returns the lines of offsets that grow (the elements of an
// array, the members of an object), counting each byte of data once:
// lineAt from the start for each of them made reading a large file
// quadratic.
type lineCounter struct {
	data []byte
	off  int64
	line int
}

func newLineCounter(data []byte) *lineCounter { return &lineCounter{data: data, line: 1} }

// lineCounterAt is a lineCounter that starts at offset off, on line.
func lineCounterAt(data []byte, off int64, line int) *lineCounter {
	return &lineCounter{data: data, off: min(off, int64(len(data))), line: line}
}

// at returns the 1-based line of byte offset off.
func (c *lineCounter) at(off int64) int {
	off = min(off, int64(len(c.data)))
	if off < c.off {
		c.off, c.line = 0, 1
	}
	c.line += bytes.Count(c.data[c.off:off], []byte{'\n'})
	c.off = off
	return c.line
}

// position returns the 1-based line and column (in characters) of byte
// offset off of data.
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return lineAt(data, off), utf8.RuneCount(data[start:off]) + 1
}

// valueStart returns the offset of the next value at or after off,
// skipping white space and the comma between elements.
func valueStart(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// element is one value of a JSON array with the line it starts on and its
// offset in the file.
type element struct {
	raw  json.RawMessage
	line int
	off  int64
}

// arrayAt returns the elements of the array found by following keys
// (object members, from the top) in data, each with its line. ok is false
// when the path does not lead to an array.
func arrayAt(data []byte, keys ...string) (els []element, ok bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for _, k := range keys {
		if !enterMember(dec, k) {
			return nil, false, nil
		}
	}
	t, err := dec.Token()
	if err != nil || t != json.Delim('[') {
		return nil, false, nil
	}
	lines := newLineCounter(data)
	for dec.More() {
		start := valueStart(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, true, jsonError(data, 0, err)
		}
		els = append(els, element{raw: raw, line: lines.at(start), off: start})
	}
	return els, true, nil
}

// enterMember reads an object's opening brace and its members up to key,
// leaving the decoder before key's value.
func enterMember(dec *json.Decoder, key string) bool {
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return false
		}
		if k, _ := kt.(string); k == key {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// member is one member of a JSON object, in the file's order.
type member struct {
	key  string
	raw  json.RawMessage
	line int
	off  int64 // the value's offset in the file
}

// objectMembers returns the members of the object raw in order (ok false:
// raw is not an object). base is raw's offset in data, the whole file (or
// the line of JSON Lines), and line the line of base, for lines and
// columns.
func objectMembers(data []byte, raw json.RawMessage, base int64, line int) (ms []member, ok bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return nil, false, nil
	}
	lines := lineCounterAt(data, base, line)
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, true, jsonError(data, base, err)
		}
		start := valueStart(raw, dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, true, jsonError(data, base, err)
		}
		ms = append(ms, member{key: kt.(string), raw: v, line: lines.at(base + start), off: base + start})
	}
	return ms, true, nil
}

// topKeys returns the keys of the object that data starts with, as far as
// data goes (data may be the start of a file).
func topKeys(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := kt.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// checkJSON checks that data is one JSON value and nothing more, with
// an error at its line and column when it is not. Every JSON file is
// checked whole before it is read, so that the readers meet no syntax
// error, and data after the value (two files written into one, a run
// followed by a log) is not ignored.
func checkJSON(data []byte) error {
	var v json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		return jsonError(data, 0, err)
	}
	return nil
}

// jsonError words a JSON decoding error for a user, at its line and
// column: data is the whole file (or the line of JSON Lines), base the
// offset in data of the value whose decoding failed.
func jsonError(data []byte, base int64, err error) lineErr {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := base + se.Offset
		msg, at := syntaxMessage(data, off, se.Error())
		line, col := position(data, at)
		return lineErr{line: line, col: col, msg: msg}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		start, text := valueBefore(data, base+te.Offset, te.Value)
		line, col := position(data, start)
		return lineErr{line: line, col: col, msg: typeMessage(te, text)}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		line, col := position(data, int64(len(data)))
		return lineErr{line: line, col: col, msg: endMessage}
	}
	return lineErr{msg: fmt.Sprintf("not valid JSON (%v)", err)}
}

const endMessage = "not valid JSON: the JSON ends before its last value is closed: a } or ] (or a closing quote) is missing; was the file cut short, or written while the evaluator was still running?"

// badChar matches Go's "invalid character 'X' <context>".
var badChar = regexp.MustCompile(`^invalid character '(.+)' (.*)$`)

// syntaxMessage words a syntax error found after reading off bytes of
// data, and returns the offset of the character at fault.
func syntaxMessage(data []byte, off int64, text string) (string, int64) {
	if strings.Contains(text, "unexpected end of JSON input") {
		return endMessage, int64(len(data))
	}
	at := max(0, off-1)
	m := badChar.FindStringSubmatch(text)
	if m == nil {
		return "not valid JSON: " + text, at
	}
	ch, ctx := m[1], m[2]
	// The decoder's offset may be one past or one before the character.
	for _, d := range []int64{0, 1, -1} {
		if p := at + d; p >= 0 && p < int64(len(data)) && strings.HasPrefix(string(data[p:]), unquoteChar(ch)) {
			at = p
			break
		}
	}
	found := "'" + ch + "'"
	if ch == " " || ch == "\\n" || ch == "\\t" || ch == "\\r" {
		found = "a space or line break"
	}
	var msg string
	switch {
	case ctx == "looking for beginning of object key string" && ch == "}":
		msg = "a comma before '}': JSON allows no comma after an object's last member; remove it"
	case ctx == "looking for beginning of object key string":
		msg = fmt.Sprintf("found %s where a key in double quotes (\"name\") is expected", found)
	case ctx == "after object key":
		msg = fmt.Sprintf("found %s after a key, where ':' is expected", found)
	case ctx == "after object key:value pair":
		msg = fmt.Sprintf("found %s after a value, where ',' (before the next member) or '}' is expected; is a comma missing?", found)
	case ctx == "after array element":
		msg = fmt.Sprintf("found %s after a list's element, where ',' or ']' is expected; is a comma missing?", found)
	case ctx == "looking for beginning of value" && ch == "]":
		msg = "a comma before ']': JSON allows no comma after a list's last element; remove it"
	case ctx == "looking for beginning of value":
		msg = fmt.Sprintf("found %s where a value is expected (text in double quotes, a number, true, false, null, an object or a list); NaN and Infinity are not JSON: write null", found)
	case ctx == "after top-level value":
		msg = fmt.Sprintf("more data after the JSON value ends (found %s): the file holds one JSON value; was something appended to it, or two outputs written into one file?", found)
	case strings.HasPrefix(ctx, "in literal"):
		msg = fmt.Sprintf("found %s in a word that is not true, false or null (text goes in double quotes)", found)
	case ctx == "in string literal":
		msg = "a control character (a line break or tab) inside text: write it escaped (\\n, \\t)"
	case ctx == "in string escape code":
		msg = fmt.Sprintf("found %s after a backslash in text: the escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", found)
	case strings.HasPrefix(ctx, "in numeric literal") || strings.HasPrefix(ctx, "in exponent"):
		msg = fmt.Sprintf("found %s in a number", found)
	default:
		msg = fmt.Sprintf("found %s %s", found, ctx)
	}
	return "not valid JSON: " + msg, at
}

// unquoteChar returns the character Go's message quotes ('\n' for a
// line break).
func unquoteChar(ch string) string {
	if s, err := strconv.Unquote("'" + ch + "'"); err == nil {
		return s
	}
	if s, err := strconv.Unquote(`"` + ch + `"`); err == nil {
		return s
	}
	return ch
}

// valueBefore finds the value that ends at off (a string, number or word)
// or starts just before it (an object or list, whose opening is read),
// and returns its start and, for a scalar, its text.
func valueBefore(data []byte, off int64, kind string) (int64, string) {
	off = max(0, min(off, int64(len(data))))
	if kind == "object" || kind == "array" {
		return max(0, off-1), ""
	}
	end := off
	start := end - 1
	if start >= 0 && data[start] == '"' {
		for start--; start >= 0; start-- {
			if data[start] == '"' && (start == 0 || data[start-1] != '\\') {
				break
			}
		}
	} else {
		for start >= 0 && !strings.ContainsRune(" \t\r\n,:[{", rune(data[start])) {
			start--
		}
		start++
	}
	start = max(0, start)
	return start, string(data[start:end])
}

// typeMessage words a value of the wrong type: the field, what it is
// and what it should be.
func typeMessage(te *json.UnmarshalTypeError, text string) string {
	field := te.Field
	where := ""
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		field, where = field[i+1:], " (in "+field[:i]+")"
	}
	got := map[string]string{"string": "text", "number": "a number", "bool": "true or false", "array": "a list", "object": "an object"}[strings.Fields(te.Value + " x")[0]]
	if got == "" {
		got = te.Value
	}
	if text != "" {
		got += " (" + clip(text, 40) + ")"
	}
	if field == "" {
		return fmt.Sprintf("a value is %s where %s is expected", got, wantType(te.Type))
	}
	return fmt.Sprintf("%q%s is %s where %s is expected", field, where, got, wantType(te.Type))
}

// wantType words a Go type as the JSON the reader expects.
func wantType(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.String:
		return "text in double quotes"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(wantType(t.Elem()), "a "), "an ")
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return t.String()
}

// lineErr is an error at a line (and column, when known) of the file,
// made an *Error by the reader that knows the file's name.
type lineErr struct {
	line int
	col  int
	msg  string
}

func (e lineErr) Error() string { return e.msg }

// prefix puts p before e's message.
func (e lineErr) prefix(p string) lineErr {
	e.msg = p + e.msg
	return e
}

// asError makes err an *Error of file.
func asError(file string, err error) error {
	var le lineErr
	if errors.As(err, &le) {
		return &Error{File: file, Line: le.line, Col: le.col, Msg: le.msg}
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{File: file, Msg: err.Error()}
}
