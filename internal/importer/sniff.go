package importer

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
)

// Sniff reports the format of data, the start of a file (ok false: no
// known shape). A raggate results file is not a format of this package:
// callers check for it first.
//
// JSON is told by its keys: a DeepEval test run has testRunData or
// testCases, a promptfoo output evalId or results with results in it (or
// results of promptIdx and testIdx); rows (a JSON array, JSON Lines, a
// pandas to_json frame) and CSV are Ragas exports when a column is a
// sample field (user_input, question, response, answer, ...) and tables
// when a column is an id (id, sample_id).
func Sniff(data []byte) (f Format, ok bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) == 0 {
		return Auto, false
	}
	switch t[0] {
	case '{':
		return sniffObject(t)
	case '[':
		keys := firstElementKeys(t)
		if f, ok := sniffCaseKeys(keys); ok {
			return f, true
		}
		return sniffColumns(keys)
	}
	return sniffCSV(t)
}

func sniffObject(t []byte) (Format, bool) {
	keys := topKeys(t)
	set := map[string]bool{}
	for _, k := range keys {
		set[k] = true
	}
	switch {
	case set["schema"] && isResultsFile(t):
		return Auto, false
	case set["schema"] && SchemaNotString(t):
		// pandas orient=table: {"schema": {"fields": [...]}, "data": [...]}
		return sniffColumns(tableSchema(t).columns())
	case set["testRunData"] || set["testCases"] || set["test_cases"] || set["conversationalTestCases"]:
		return DeepEval, true
	case set["evalId"] || (set["results"] && (set["version"] || set["table"] || set["stats"] || set["config"] || set["shareableUrl"])):
		return Promptfoo, true
	case set["results"] && len(keys) <= 2:
		// {"results": {...}} cut before its other members
		return Promptfoo, true
	}
	if f, ok := sniffCaseKeys(keys); ok {
		return f, true
	}
	if set["columns"] && set["data"] {
		// pandas orient=split: the column names are the first member
		var split struct{ Columns []string }
		dec := json.NewDecoder(bytes.NewReader(t))
		if dec.Decode(&split) == nil || len(split.Columns) > 0 {
			return sniffColumns(split.Columns)
		}
		if cols := splitColumns(t); len(cols) > 0 {
			return sniffColumns(cols)
		}
	}
	allIndex := len(keys) > 0
	for _, k := range keys {
		if strings.Trim(k, "0123456789") != "" || k == "" {
			allIndex = false
		}
	}
	if allIndex {
		// pandas orient=index: {"0": {"user_input": ...}}
		dec := json.NewDecoder(bytes.NewReader(t))
		if enterMember(dec, keys[0]) {
			off := dec.InputOffset()
			return sniffColumns(topKeys(bytes.TrimLeft(t[off:], " \t\r\n:")))
		}
	}
	return sniffColumns(keys)
}

// splitColumns reads the columns member of an orient=split frame cut
// short.
func splitColumns(t []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(t))
	if !enterMember(dec, "columns") {
		return nil
	}
	var cols []string
	if dec.Decode(&cols) != nil {
		return nil
	}
	return cols
}

// sniffCaseKeys tells a row of DeepEval test cases or promptfoo results.
func sniffCaseKeys(keys []string) (Format, bool) {
	set := map[string]bool{}
	for _, k := range keys {
		set[k] = true
	}
	switch {
	case set["metricsData"] || set["actualOutput"] || set["metrics_data"]:
		return DeepEval, true
	case set["promptIdx"] || set["testIdx"] || set["namedScores"] || set["gradingResult"]:
		return Promptfoo, true
	}
	return Auto, false
}

// sniffColumns tells a Ragas export from a table by its column names.
func sniffColumns(cols []string) (Format, bool) {
	for _, c := range cols {
		for _, fc := range fieldColumns {
			for _, n := range fc.names {
				if strings.TrimSpace(c) == n {
					return Ragas, true
				}
			}
		}
	}
	for _, c := range cols {
		for _, n := range idColumns {
			if strings.EqualFold(strings.TrimSpace(c), n) {
				return Table, true
			}
		}
	}
	return Auto, false
}

func firstElementKeys(t []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(t))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil
	}
	if !dec.More() {
		return nil
	}
	off := valueStart(t, dec.InputOffset())
	return topKeys(t[off:])
}

func sniffCSV(t []byte) (Format, bool) {
	r := csv.NewReader(bytes.NewReader(t))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil || len(header) < 2 {
		return Auto, false
	}
	return sniffColumns(header)
}

// isResultsFile reports whether data is a raggate results file.
func isResultsFile(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimLeft(data, " \t\r\n")))
	if !enterMember(dec, "schema") {
		return false
	}
	var s string
	return dec.Decode(&s) == nil && strings.HasPrefix(s, "raggate.results/")
}

// SchemaNotString reports whether data, a JSON object, has a top-level
// schema member that is not a string, as pandas' to_json(orient="table")
// writes: such a file is never a raggate results file.
func SchemaNotString(data []byte) bool {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	dec := json.NewDecoder(bytes.NewReader(data))
	if !enterMember(dec, "schema") {
		return false
	}
	t, err := dec.Token()
	if err != nil {
		return false
	}
	_, isString := t.(string)
	return !isString
}

// pandasSchema is the schema member of pandas' orient=table.
type pandasSchema struct {
	Fields []struct {
		Name string `json:"name"`
	} `json:"fields"`
	PrimaryKey []string `json:"primaryKey"`
}

// columns are the fields' names but the index (primaryKey) ones.
func (s pandasSchema) columns() []string {
	index := map[string]bool{}
	for _, k := range s.PrimaryKey {
		index[k] = true
	}
	var cols []string
	for _, f := range s.Fields {
		if !index[f.Name] {
			cols = append(cols, f.Name)
		}
	}
	return cols
}

// tableSchema reads the schema member of an orient=table file (as far as
// data goes: a zero schema when it is cut).
func tableSchema(data []byte) pandasSchema {
	var s pandasSchema
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimLeft(data, " \t\r\n")))
	if enterMember(dec, "schema") {
		_ = dec.Decode(&s)
	}
	return s
}
