package importer

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// cellKind says what a cell holds.
type cellKind int

const (
	cellNull   cellKind = iota // JSON null, or no such key
	cellText                   // a CSV cell or a JSON string
	cellNumber                 // a JSON number
	cellBool                   // a JSON true or false
	cellList                   // a JSON array
	cellObject                 // a JSON object (kept as its JSON text)
)

type cell struct {
	kind cellKind
	s    string // text, number literal, object JSON
	list []json.RawMessage
}

// row is one row of a table: cells by column.
type row struct {
	line  int
	n     int    // 1-based row number
	index string // the pandas index label, when the file has one
	cells map[string]cell
}

// name is how messages name the row: "row 4", and its pandas index when
// the file has one ("row 4 (pandas index 3)"), which is what a user sees
// in the frame and in the file's first column.
func (r *row) name() string {
	if r.index != "" && r.index != strconv.Itoa(r.n) {
		return fmt.Sprintf("row %d (pandas index %s)", r.n, r.index)
	}
	return fmt.Sprintf("row %d", r.n)
}

// table is a file of rows and columns: a Ragas export or a generic table.
type table struct {
	columns []string // in the file's order
	rows    []row
	csv     bool
}

// readTable reads a CSV, JSON (pandas to_json orients records, columns,
// index, split) or JSON Lines file.
func readTable(data []byte) (*table, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return nil, lineErr{line: 0, msg: "the file is empty"}
	case trimmed[0] == '[':
		if err := checkJSON(data); err != nil {
			return nil, err
		}
		return tableRecords(data)
	case trimmed[0] == '{':
		if isJSONLines(trimmed) {
			return tableLines(data)
		}
		if err := checkJSON(data); err != nil {
			return nil, err
		}
		return tableObject(data)
	}
	return tableCSV(data)
}

// isJSONLines reports whether data holds more than one JSON value.
func isJSONLines(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	if dec.Decode(&v) != nil {
		return false
	}
	return len(bytes.TrimSpace(data[dec.InputOffset():])) > 0
}

func tableCSV(data []byte) (*table, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, csvError(err)
	}
	t := &table{csv: true}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" && i == 0 || h == "Unnamed: 0" {
			h = "" // pandas' index column
		} else if seen[h] {
			return nil, lineErr{line: 1, msg: fmt.Sprintf("column %q appears twice in the header; rename one", h)}
		}
		seen[h] = true
		header[i] = h
		if h != "" {
			t.columns = append(t.columns, h)
		}
	}
	for n := 1; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			n--
			continue // a blank line
		}
		if len(rec) != len(header) {
			return nil, lineErr{line: line, msg: fmt.Sprintf("row %d has %d cells but the header has %d columns; quote cells that hold commas", n, len(rec), len(header))}
		}
		rw := row{line: line, n: n, cells: map[string]cell{}}
		for i, v := range rec {
			if header[i] != "" {
				rw.cells[header[i]] = cell{kind: cellText, s: v}
			} else {
				rw.index = strings.TrimSpace(v)
			}
		}
		t.rows = append(t.rows, rw)
	}
	return t, nil
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return lineErr{line: pe.Line, msg: fmt.Sprintf("not valid CSV: %v", pe.Err)}
	}
	if err == io.EOF {
		return lineErr{line: 0, msg: "the file is empty"}
	}
	return lineErr{line: 0, msg: fmt.Sprintf("not valid CSV: %v", err)}
}

// tableRecords reads a JSON array of row objects (orient records).
func tableRecords(data []byte) (*table, error) {
	els, _, err := arrayAt(data)
	if err != nil {
		return nil, err
	}
	t := &table{}
	for i, el := range els {
		if err := t.addObject(data, el.off, el.raw, el.line, i+1); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// tableLines reads JSON Lines: one row object a line.
func tableLines(data []byte) (*table, error) {
	t := &table{}
	n := 0
	for i, l := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		n++
		if err := checkJSON(l); err != nil {
			le := err.(lineErr)
			le.line = i + 1
			le.msg += "; JSON Lines hold one object a line"
			return nil, le
		}
		if err := t.addObject(l, 0, l, i+1, n); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// addObject adds the row object raw, at offset base of data (the file,
// or the line of JSON Lines), starting on line.
func (t *table) addObject(data []byte, base int64, raw json.RawMessage, line, n int) error {
	ms, ok, err := objectMembers(data, raw, base, line)
	if err != nil {
		le := err.(lineErr)
		if len(data) == len(raw) { // a line of JSON Lines
			le.line += line - 1
		}
		return le
	}
	if !ok {
		return lineErr{line: line, msg: fmt.Sprintf("row %d is not an object; each row is an object of column: value", n)}
	}
	rw := row{line: line, n: n, cells: map[string]cell{}}
	for _, m := range ms {
		if _, dup := rw.cells[m.key]; dup {
			return lineErr{line: line, msg: fmt.Sprintf("row %d has key %q twice", n, m.key)}
		}
		rw.cells[m.key] = jsonCell(m.raw)
		t.addColumn(m.key)
	}
	t.rows = append(t.rows, rw)
	return nil
}

func (t *table) addColumn(c string) {
	for _, have := range t.columns {
		if have == c {
			return
		}
	}
	t.columns = append(t.columns, c)
}

func jsonCell(raw json.RawMessage) cell {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return cell{}
	}
	switch raw[0] {
	case 'n':
		return cell{}
	case 't', 'f':
		return cell{kind: cellBool, s: string(raw)}
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return cell{kind: cellText, s: s}
	case '[':
		var l []json.RawMessage
		_ = json.Unmarshal(raw, &l)
		return cell{kind: cellList, list: l, s: string(raw)}
	case '{':
		return cell{kind: cellObject, s: string(raw)}
	}
	return cell{kind: cellNumber, s: string(raw)}
}

// tableObject reads a JSON object as pandas' to_json writes a frame:
// orient columns ({"col": {"0": v}}, the default), index ({"0": {"col":
// v}}) or split ({"columns": [...], "index": [...], "data": [[...]]}).
func tableObject(data []byte) (*table, error) {
	ms, ok, err := objectMembers(data, data, 0, 1)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, lineErr{line: 1, msg: "not a JSON object"}
	}
	keys := map[string]json.RawMessage{}
	for _, m := range ms {
		keys[m.key] = m.raw
	}
	if sc := bytes.TrimSpace(keys["schema"]); len(sc) > 0 && sc[0] == '{' && keys["data"] != nil {
		return tableOrientTable(data, sc)
	}
	if cols, okc := keys["columns"]; okc && keys["data"] != nil && len(ms) <= 3 {
		return tableSplit(data, cols, keys["data"])
	}
	allIndex := len(ms) > 0
	for _, m := range ms {
		if _, err := strconv.Atoi(m.key); err != nil {
			allIndex = false
		}
	}
	t := &table{}
	if allIndex {
		for i, m := range ms {
			if err := t.addObject(data, m.off, m.raw, m.line, i+1); err != nil {
				return nil, err
			}
			t.rows[len(t.rows)-1].index = m.key
		}
		return t, nil
	}
	// orient columns: rows in the order of the first column's index.
	byIndex := map[string]*row{}
	var order []string
	for _, m := range ms {
		cm, ok, err := objectMembers(data, m.raw, m.off, m.line)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, lineErr{line: m.line, msg: fmt.Sprintf("the file is a JSON object whose member %q is %s, where a pandas to_json frame has an object of index: value per column (orient columns), an object per row (orient index), or columns and data (orient split)", m.key, describeCell(jsonCell(m.raw)))}
		}
		t.addColumn(m.key)
		for _, c := range cm {
			r := byIndex[c.key]
			if r == nil {
				r = &row{line: m.line, cells: map[string]cell{}}
				byIndex[c.key] = r
				order = append(order, c.key)
			}
			r.cells[m.key] = jsonCell(c.raw)
		}
	}
	sortIndex(order)
	for i, k := range order {
		r := byIndex[k]
		r.n, r.index = i+1, k
		t.rows = append(t.rows, *r)
	}
	return t, nil
}

// tableOrientTable reads pandas' to_json(orient="table"): the rows of
// data as records, the schema's primaryKey columns (the index) as the
// rows' index labels.
func tableOrientTable(data []byte, schemaRaw json.RawMessage) (*table, error) {
	var sc pandasSchema
	if err := json.Unmarshal(schemaRaw, &sc); err != nil {
		return nil, lineErr{line: 1, msg: fmt.Sprintf("the schema of a pandas orient=table file is not readable: %v", err)}
	}
	els, ok, err := arrayAt(data, "data")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, lineErr{line: 1, msg: "a pandas orient=table file has a data member that is a list of rows"}
	}
	t := &table{}
	for i, el := range els {
		if err := t.addObject(data, el.off, el.raw, el.line, i+1); err != nil {
			return nil, err
		}
	}
	if len(sc.PrimaryKey) == 1 {
		pk := sc.PrimaryKey[0]
		for i := range t.rows {
			r := &t.rows[i]
			if c, ok := r.cells[pk]; ok {
				r.index = strings.TrimSpace(textCell(c))
				delete(r.cells, pk)
			}
		}
		cols := t.columns[:0]
		for _, c := range t.columns {
			if c != pk {
				cols = append(cols, c)
			}
		}
		t.columns = cols
	}
	return t, nil
}

// sortIndex orders pandas index labels: numerically when they all are
// numbers (as a default RangeIndex), else as they came.
func sortIndex(keys []string) {
	for _, k := range keys {
		if _, err := strconv.Atoi(k); err != nil {
			return
		}
	}
	sort.SliceStable(keys, func(a, b int) bool {
		x, _ := strconv.Atoi(keys[a])
		y, _ := strconv.Atoi(keys[b])
		return x < y
	})
}

func tableSplit(data []byte, colsRaw, rowsRaw json.RawMessage) (*table, error) {
	var cols []string
	if err := json.Unmarshal(colsRaw, &cols); err != nil {
		return nil, lineErr{line: 0, msg: "columns of an orient=split frame is not a list of names"}
	}
	var rows [][]json.RawMessage
	if err := json.Unmarshal(rowsRaw, &rows); err != nil {
		return nil, lineErr{line: 0, msg: "data of an orient=split frame is not a list of rows"}
	}
	t := &table{columns: cols}
	base := bytes.Index(data, []byte(`"data"`))
	line := 0
	if base >= 0 {
		line = lineAt(data, int64(base))
	}
	for i, r := range rows {
		if len(r) != len(cols) {
			return nil, lineErr{line: line, msg: fmt.Sprintf("row %d has %d values but there are %d columns", i+1, len(r), len(cols))}
		}
		rw := row{line: line, n: i + 1, cells: map[string]cell{}}
		for j, v := range r {
			rw.cells[cols[j]] = jsonCell(v)
		}
		t.rows = append(t.rows, rw)
	}
	return t, nil
}

// fieldColumns are the sample fields' columns under either vocabulary,
// the canonical name first.
var fieldColumns = []struct {
	field metrics.Field
	names []string
}{
	{metrics.UserInput, []string{"user_input", "question"}},
	{metrics.RetrievedContexts, []string{"retrieved_contexts", "contexts"}},
	{metrics.Response, []string{"response", "answer"}},
	{metrics.Reference, []string{"reference", "ground_truth", "ground_truths"}},
	{metrics.ReferenceContexts, []string{"reference_contexts"}},
	{metrics.RetrievedContextIDs, []string{"retrieved_context_ids"}},
	{metrics.ReferenceContextIDs, []string{"reference_context_ids"}},
}

var idColumns = []string{"id", "sample_id"}

// undefinedCell reports whether a text cell means "no score": empty, or
// a NaN or null as pandas and Python write them.
func undefinedCell(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "nan", "-nan", "none", "null", "na", "<na>", "n/a":
		return true
	}
	return false
}

// numberOf reads a cell as a score: ok false when it is not a number;
// NaN when it holds none. A number too large for a float64 (1e400) reads
// as infinite, for the builder to refuse with its row.
func numberOf(c cell) (v float64, ok bool) {
	switch c.kind {
	case cellNull:
		return math.NaN(), true
	case cellNumber:
		return parseNumber(c.s)
	case cellText:
		if undefinedCell(c.s) {
			return math.NaN(), true
		}
		return parseNumber(strings.TrimSpace(c.s))
	}
	return 0, false
}

func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, true // ±Inf (or 0 below the smallest float64)
		}
		return 0, false
	}
	return f, true
}

// errorText matches the cells an evaluator writes where a metric failed:
// a Python exception's repr or name (TimeoutError(), openai.RateLimitError(...),
// asyncio.TimeoutError) or a message that says error, exception,
// timeout or failed.
var errorText = regexp.MustCompile(`(?i)error|exception|traceback|timed? ?out|failed|failure|exceeded`)

// errorCell reports whether a cell is an evaluator's error text: an
// undefined score in any metric column.
func errorCell(c cell) bool {
	return c.kind == cellText && errorText.MatchString(strings.TrimSpace(c.s))
}

// readTabular reads a Ragas export or a generic table.
func readTabular(name string, data []byte, f Format) (source, []record, error) {
	src := source{format: f}
	t, err := readTable(data)
	if err != nil {
		return src, nil, asError(name, err)
	}
	fields := map[metrics.Field]string{}
	taken := map[string]bool{}
	for _, fc := range fieldColumns {
		for _, n := range fc.names {
			if t.has(n) {
				fields[fc.field] = n
				taken[n] = true
				break
			}
		}
	}
	idCol := t.idColumn()
	if idCol != "" {
		taken[idCol] = true
	}
	if idCol == "" && (f == Table || fields[metrics.UserInput] == "") {
		what := "a user_input (or question) column to derive ids from, or an id (or sample_id) column"
		if f == Table {
			what = "an id (or sample_id) column"
		}
		return src, nil, &Error{File: name, Line: 1, Msg: fmt.Sprintf("no id: a %s file needs %s; the columns are %s", f, what, strings.Join(t.columns, ", "))}
	}
	var metricCols, metaCols []string
	for _, c := range t.columns {
		if taken[c] {
			continue
		}
		isMetric, mixed, err := t.metricColumn(c)
		if err != nil {
			return src, nil, asError(name, err)
		}
		if mixed != "" {
			src.warnings = append(src.warnings, mixed)
		}
		if isMetric {
			metricCols = append(metricCols, c)
		} else {
			metaCols = append(metaCols, c)
		}
	}
	if len(metricCols) == 0 {
		return src, nil, &Error{File: name, Line: 1, Msg: fmt.Sprintf("no metric column: a %s file has one column of numbers per metric; the columns are %s", f, strings.Join(t.columns, ", "))}
	}
	recs := make([]record, 0, len(t.rows))
	for _, r := range t.rows {
		rec, err := tabularRecord(r, f, fields, idCol, metricCols, metaCols)
		if err != nil {
			return src, nil, asError(name, err)
		}
		recs = append(recs, rec)
	}
	return src, recs, nil
}

// idColumn returns the id column: the first of idColumns, in any case
// (ID, Sample_ID); "" when there is none.
func (t *table) idColumn() string {
	for _, n := range idColumns {
		for _, c := range t.columns {
			if strings.EqualFold(strings.TrimSpace(c), n) {
				return c
			}
		}
	}
	return ""
}

func (t *table) has(col string) bool {
	for _, c := range t.columns {
		if c == col {
			return true
		}
	}
	return false
}

// metricColumn decides whether a column holds scores. A column named as
// a catalogue metric does; its cells must be numbers, no score (empty,
// NaN) or an evaluator's error text. Another column does when it holds a
// number and numbers are at least half of its cells that hold a value
// (error texts, empty and NaN cells not counted): its other text cells
// are undefined scores. mixed, for a column that is not a metric,
// describes its numbers when it has any (for the warning that it is
// taken as metadata).
func (t *table) metricColumn(col string) (isMetric bool, mixed string, err error) {
	_, known := metricName(col)
	numbers, texts := 0, 0
	firstText := ""
	for _, r := range t.rows {
		c := r.cells[col]
		v, ok := numberOf(c)
		switch {
		case ok && !math.IsNaN(v):
			numbers++
		case ok || errorCell(c):
		case known:
			return false, "", lineErr{line: r.line, msg: fmt.Sprintf("%s: %s is %s, not a number; a metric's cell holds its score, or is empty (or NaN) when there is none", r.name(), col, describeCell(c))}
		default:
			texts++
			if firstText == "" {
				firstText = describeCell(c)
			}
		}
	}
	// A column with no number and no plain text (every cell empty, NaN or
	// an error text) is a metric the evaluator failed on in every row: its
	// scores are all undefined, and count as such.
	if known || (numbers > 0 && numbers >= texts) || (numbers == 0 && texts == 0) {
		return true, "", nil
	}
	if numbers > 0 {
		nums := "1 number"
		if numbers > 1 {
			nums = fmt.Sprintf("%d numbers", numbers)
		}
		mixed = fmt.Sprintf("column %s holds %s but more cells of text (%d, such as %s), so it is taken as sample metadata, not as a metric; if it is a metric, leave the cells without a score empty",
			col, nums, texts, firstText)
	}
	return false, mixed, nil
}

func describeCell(c cell) string {
	switch c.kind {
	case cellBool:
		return c.s
	case cellList:
		return "a list"
	case cellObject:
		return "an object"
	}
	return strconv.Quote(clip(c.s, 40))
}

func tabularRecord(r row, f Format, fields map[metrics.Field]string, idCol string, metricCols, metaCols []string) (record, error) {
	rec := record{line: r.line, where: r.name()}
	s := &rec.sample
	s.Present = map[metrics.Field]bool{}
	for _, fc := range fieldColumns {
		col := fields[fc.field]
		if col == "" {
			continue
		}
		c := r.cells[col]
		if c.kind == cellNull {
			continue
		}
		if fc.field.IsList() {
			items, err := listCell(c)
			if err != nil {
				return rec, lineErr{line: r.line, msg: fmt.Sprintf("%s: %s: %v", r.name(), col, err)}
			}
			s.SetList(fc.field, items)
			continue
		}
		text := textCell(c)
		if c.kind == cellList { // ground_truths: a list of references
			items, err := listCell(c)
			if err != nil {
				return rec, lineErr{line: r.line, msg: fmt.Sprintf("%s: %s: %v", r.name(), col, err)}
			}
			text = strings.Join(items, "\n")
		} else if items, ok, _ := parseList(text); ok && fc.field == metrics.Reference && col == "ground_truths" {
			text = strings.Join(items, "\n")
		}
		s.Set(fc.field, text)
	}
	if idCol != "" {
		rec.id = strings.TrimSpace(textCell(r.cells[idCol]))
		rec.idWhy = fmt.Sprintf("ids come from the %s column", idCol)
		rec.idFix = fmt.Sprintf("Give each row its own %s, or remove the duplicate", idCol)
		if rec.id == "" {
			return rec, lineErr{line: r.line, msg: fmt.Sprintf("%s has an empty %s; every row needs its id", r.name(), idCol)}
		}
	} else {
		if strings.TrimSpace(s.UserInput) == "" {
			return rec, lineErr{line: r.line, msg: fmt.Sprintf("%s has an empty %s, so it has no id; add an id column (id or sample_id)", r.name(), fields[metrics.UserInput])}
		}
		rec.id = deriveID(s.UserInput)
		rec.idWhy = fmt.Sprintf("without an id column, ids are derived from %s, so the same question twice is one id", fields[metrics.UserInput])
		rec.idFix = "Add an id column (id or sample_id) that tells them apart, or remove the duplicate"
	}
	for _, col := range metaCols {
		c := r.cells[col]
		if c.kind == cellNull || (c.kind == cellText && c.s == "") {
			continue
		}
		if s.Metadata == nil {
			s.Metadata = map[string]string{}
		}
		s.Metadata[col] = textCell(c)
	}
	for _, col := range metricCols {
		c := r.cells[col]
		v, ok := numberOf(c)
		if !ok {
			v = math.NaN() // text in a column of numbers: no score
		}
		sc := score{metric: col, v: v}
		if c.kind == cellText || c.kind == cellNumber {
			sc.raw = strings.TrimSpace(c.s)
		}
		if math.IsNaN(v) {
			sc.reason, sc.kind = noScoreReason(f, c), "judge"
		}
		rec.scores = append(rec.scores, sc)
	}
	return rec, nil
}

// noScoreReason says why a cell holds no score.
func noScoreReason(f Format, c cell) string {
	what := "an empty cell"
	switch {
	case c.kind == cellNull:
		what = "null"
	case strings.TrimSpace(c.s) != "":
		what = clip(strings.TrimSpace(c.s), 80)
	}
	return fmt.Sprintf("the %s file has no score (%s)", f, what)
}

// textCell returns a cell as text (a number as written, a list or object
// as its JSON).
func textCell(c cell) string {
	if c.kind == cellNull {
		return ""
	}
	return c.s
}

// listCell returns the strings of a list cell: a JSON array, or text as
// parseList reads it; text that is not a list is a one-item list.
func listCell(c cell) ([]string, error) {
	switch c.kind {
	case cellList:
		out := make([]string, 0, len(c.list))
		for i, raw := range c.list {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("item %d is not a string", i+1)
			}
			out = append(out, s)
		}
		return out, nil
	case cellText:
		items, ok, err := parseList(c.s)
		if err != nil {
			return nil, fmt.Errorf("%v; write the list as JSON ([\"a\", \"b\"]) or as Python prints it (['a', 'b'])", err)
		}
		if !ok {
			if strings.TrimSpace(c.s) == "" {
				return []string{}, nil
			}
			return []string{c.s}, nil
		}
		return items, nil
	}
	return nil, fmt.Errorf("a list is expected, got %s", describeCell(c))
}
