package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// A value of the wrong type in a results file is worded in the file's own
// terms: where it is (line:col, the sample's index and id), the field's
// JSON path, what it is and what it should be. Go's own message ("cannot
// unmarshal number into Go struct field Sample.samples.id of type string")
// names Go types a user never sees.

// sampleError is a sample of the samples array that did not decode; start
// is the stream offset where the decoder stood before it.
type sampleError struct {
	index int
	start int64
	err   error
}

func (e *sampleError) Error() string { return fmt.Sprintf("samples[%d]: %v", e.index, e.err) }
func (e *sampleError) Unwrap() error { return e.err }

// typeError is a wrong-typed value worded for the user; it wraps the
// decoder's error.
type typeError struct {
	msg string
	err *json.UnmarshalTypeError
}

func (e *typeError) Error() string { return e.msg }
func (e *typeError) Unwrap() error { return e.err }

// locate words a sample's type error: data is the whole file. It returns
// nil when the error is not a type error (a syntax error is worded by
// parseWhole).
func (e *sampleError) locate(data []byte) error {
	var te *json.UnmarshalTypeError
	if !errors.As(e.err, &te) || e.start < 0 || e.start > int64(len(data)) {
		return nil
	}
	start := int(e.start)
	for start < len(data) && bytes.IndexByte([]byte(" \t\r\n,"), data[start]) >= 0 {
		start++
	}
	var raw json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(data[start:])).Decode(&raw); err != nil {
		return nil
	}
	var s Sample
	if err := json.Unmarshal(raw, &s); !errors.As(err, &te) {
		return nil
	}
	who := fmt.Sprintf("samples[%d]", e.index)
	var probe struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(raw, &probe) == nil {
		if id, ok := probe.ID.(string); ok {
			who += fmt.Sprintf(" (id %q)", id)
		}
	}
	field := scoreField(raw, te.Field)
	if field != "" {
		who += ": " + field
	}
	line, col := lineCol(data, int64(start)+te.Offset)
	return &typeError{msg: fmt.Sprintf("line %d:%d: %s is %s, want %s", line, col, who, valueWords(te.Value), typeWords(te.Type)), err: te}
}

// scoreField completes the path of a score map ("scores", "raw", "runs")
// with the metric whose value is wrong: the decoder does not name map keys.
func scoreField(raw []byte, field string) string {
	if field != "scores" && field != "raw" && field != "runs" {
		return field
	}
	var all struct {
		Scores map[string]json.RawMessage `json:"scores"`
		Raw    map[string]json.RawMessage `json:"raw"`
		Runs   map[string]json.RawMessage `json:"runs"`
	}
	if json.Unmarshal(raw, &all) != nil {
		return field
	}
	m := map[string]map[string]json.RawMessage{"scores": all.Scores, "raw": all.Raw, "runs": all.Runs}[field]
	for _, k := range slices.Sorted(maps.Keys(m)) {
		var err error
		if field == "runs" {
			var v []Score
			err = json.Unmarshal(m[k], &v)
		} else {
			var v Score
			err = json.Unmarshal(m[k], &v)
		}
		if err != nil {
			return field + "." + k
		}
	}
	return field
}

// wordTypeError words a type error outside the samples, at its position
// in data; other errors are returned as they are.
func wordTypeError(data []byte, err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	what := te.Field
	if what == "" {
		what = "the file"
	}
	line, col := lineCol(data, te.Offset)
	return &typeError{msg: fmt.Sprintf("line %d:%d: %s is %s, want %s", line, col, what, valueWords(te.Value), typeWords(te.Type)), err: te}
}

// lineCol is the 1-based line and column of byte offset off of data.
func lineCol(data []byte, off int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < off && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// valueWords names the kind of JSON value the decoder found.
func valueWords(v string) string {
	switch {
	case v == "string":
		return "text"
	case v == "number":
		return "a number"
	case strings.HasPrefix(v, "number "):
		return "the number " + strings.TrimPrefix(v, "number ")
	case v == "bool":
		return "true or false"
	case v == "array":
		return "a list"
	case v == "object":
		return "an object"
	}
	return v
}

var scoreType = reflect.TypeFor[Score]()

// typeWords names what a Go type holds in JSON terms.
func typeWords(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	if t == scoreType {
		return "a number or null"
	}
	switch t.Kind() {
	case reflect.String:
		return "text"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return typeWords(t.Elem())
	case reflect.Slice, reflect.Array:
		switch e := t.Elem(); {
		case e.Kind() == reflect.String:
			return "a list of texts"
		case e == scoreType || e.Kind() == reflect.Float64:
			return "a list of numbers"
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}
