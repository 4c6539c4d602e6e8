package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// lineAt returns the 1-based line of byte offset off of data.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
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

// element is one value of a JSON array with the line it starts on.
type element struct {
	raw  json.RawMessage
	line int
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
	for dec.More() {
		start := valueStart(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, true, jsonError(data, err)
		}
		els = append(els, element{raw: raw, line: lineAt(data, start)})
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
}

// objectMembers returns the members of the object raw in order (ok false:
// raw is not an object). base is raw's offset in the whole file, for
// lines; data is the whole file.
func objectMembers(data []byte, raw json.RawMessage, base int64) (ms []member, ok bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return nil, false, nil
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, true, jsonError(raw, err)
		}
		start := valueStart(raw, dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, true, jsonError(raw, err)
		}
		line := 0
		if data != nil {
			line = lineAt(data, base+start)
		}
		ms = append(ms, member{key: kt.(string), raw: v, line: line})
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

// jsonError words a JSON decoding error with its line.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return lineErr{lineAt(data, se.Offset), fmt.Sprintf("not valid JSON: %v", se)}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "a value"
		}
		return lineErr{lineAt(data, te.Offset), fmt.Sprintf("%s is a JSON %s; expected %s", field, te.Value, te.Type)}
	}
	return lineErr{0, fmt.Sprintf("not valid JSON: %v", err)}
}

// lineErr is an error at a line of the file, made an *Error by the reader
// that knows the file's name.
type lineErr struct {
	line int
	msg  string
}

func (e lineErr) Error() string { return e.msg }

// asError makes err an *Error of file.
func asError(file string, err error) error {
	var le lineErr
	if errors.As(err, &le) {
		return &Error{File: file, Line: le.line, Msg: le.msg}
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{File: file, Msg: err.Error()}
}
