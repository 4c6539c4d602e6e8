package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/raggate/raggate/metrics"
)

// pos is a 1-based line and byte column.
type pos struct{ line, col int }

type valueKind int

const (
	vNull valueKind = iota
	vString
	vNumber
	vBool
	vObject
	vList
	vCell // a CSV cell: text whose meaning depends on the field
)

func (k valueKind) noun() string {
	switch k {
	case vNull:
		return "null"
	case vString, vCell:
		return "a string"
	case vNumber:
		return "a number"
	case vBool:
		return "true or false"
	case vObject:
		return "an object"
	case vList:
		return "a list"
	}
	return "a value"
}

// value is a decoded value from a file.
type value struct {
	kind  valueKind
	s     string // vString, vCell; the literal for vNumber
	items []item // vList
}

// item is one element of a JSON array.
type item struct {
	kind valueKind
	s    string
	p    pos
}

// entry is one key and its value in a record.
type entry struct {
	key    string
	t      target
	kp, vp pos // positions of the key and the value
	v      value
}

// record is one object or CSV row, before conversion to a sample.
type record struct {
	p       pos
	entries []entry
}

// fieldName is the key as shown in a problem's field part.
// Keys with unprintable characters are quoted, so that a problem always
// stays on one line.
func fieldName(key string) string {
	if strings.IndexFunc(key, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return short(key)
	}
	const limit = 60
	if utf8.RuneCountInString(key) <= limit {
		return key
	}
	return string([]rune(key)[:limit]) + "..."
}

// role tells golden files from responses files.
type role int

const (
	roleGolden role = iota
	roleResponses
)

// converted is a record turned into a sample.
type converted struct {
	s       metrics.Sample
	p       pos  // position of the record
	idGiven bool // the file gave the id
	idPos   pos  // where the id (or the user_input it derives from) is
}

// converter turns records into samples, reporting problems.
type converter struct {
	file string
	role role
	ps   *problems
	// seen records the problems reported only once per file (unknown keys).
	seen map[string]bool
	// failed is set when a record had a problem reported earlier.
	failed bool
	// notes records the metadata cut or dropped, for warnings.
	notes metaNotes
	// rows is set for files of numbered rows (Parquet) rather than lines.
	rows bool
}

// once reports whether the problem (kind, key) is new in this file.
func (c *converter) once(kind, key string) bool {
	if c.seen == nil {
		c.seen = make(map[string]bool)
	}
	k := kind + "\x00" + key
	if c.seen[k] {
		return false
	}
	c.seen[k] = true
	return true
}

func (c *converter) problem(p pos, field, msg string) {
	if c.rows {
		c.ps.add(Problem{File: c.file, Row: p.line, Field: fieldName(field), Msg: msg})
		return
	}
	c.ps.add(Problem{File: c.file, Line: p.line, Col: p.col, Field: fieldName(field), Msg: msg})
}

// where names the line (or row) n of the file in a message: "line 7".
func (c *converter) where(n int) string {
	if c.rows {
		return fmt.Sprintf("row %d", n)
	}
	return fmt.Sprintf("line %d", n)
}

// fieldValue is a decoded field: a string or a list.
type fieldValue struct {
	present bool
	isList  bool
	s       string
	list    []string
}

func (v fieldValue) equal(w fieldValue) bool {
	if v.isList != w.isList {
		return false
	}
	if v.isList {
		return slices.Equal(v.list, w.list)
	}
	return v.s == w.s
}

// gotField is a field (or the id) taken from a record: the key it was
// given under, its value and where the value is.
type gotField struct {
	key string
	v   fieldValue
	p   pos
}

// taken collects a record's fields in fieldsOrder, and its id.
type taken struct {
	fields [len(fieldsOrder)]*gotField
	id     *gotField
}

// convert turns a record into a sample; ok is false if the record had
// problems (they are reported).
func (c *converter) convert(rec record) (out converted, ok bool) {
	before := c.ps.count()
	c.failed = false
	out.p = rec.p
	var t taken
	keys := make(map[string]pos, len(rec.entries))
	for _, e := range rec.entries {
		if first, dup := keys[e.key]; dup {
			c.problem(e.kp, "", fmt.Sprintf("duplicate key %s (first at %d:%d); keep one", short(e.key), first.line, first.col))
			continue
		}
		keys[e.key] = e.kp
		switch e.t.kind {
		case tUnknown:
			if c.once("unknown", e.key) {
				c.problem(e.kp, "", e.t.msg)
			} else {
				c.failed = true
			}
		case tIgnored:
		case tMeta:
			c.addMeta(&out.s, e)
		case tID:
			c.takeID(e, &t)
		default:
			c.takeField(e, &t)
		}
	}
	if c.ps.count() > before || c.failed {
		return out, false
	}
	t.fill(&out, rec.p)
	return out, true
}

// takeID records the entry e as the record's id; a second id key with
// another value is a problem.
func (c *converter) takeID(e entry, t *taken) {
	v, ok := c.decodeID(e)
	if !ok || !v.present {
		return
	}
	if t.id != nil {
		if t.id.v.s != v.s {
			c.problem(e.vp, e.key, fmt.Sprintf("also given as %s with a different value; keep one", short(t.id.key)))
		}
		return
	}
	t.id = &gotField{e.key, v, e.vp}
}

// takeField decodes the entry e into its field; a field a responses file
// may not give, or one given twice with different values, is a problem.
func (c *converter) takeField(e entry, t *taken) {
	f := e.t.field
	if c.role == roleResponses && !isResponseField(f) {
		if !c.once("golden-only", e.key) {
			c.failed = true
			return
		}
		c.problem(e.kp, e.key, fmt.Sprintf("%s is not an output of the pipeline; a responses file gives id or user_input and %s; put %s in the golden file",
			f, joinFields(responseFields), f))
		return
	}
	var v fieldValue
	var ok bool
	if f.IsList() {
		v, ok = c.decodeList(e)
	} else {
		v, ok = c.decodeString(e, f)
	}
	if !ok || !v.present {
		return
	}
	i := slices.Index(fieldsOrder[:], f)
	if prev := t.fields[i]; prev != nil {
		if !prev.v.equal(v) {
			c.problem(e.vp, e.key, fmt.Sprintf("%s is also given as %s, with a different value; keep one", f, short(prev.key)))
		}
		return
	}
	t.fields[i] = &gotField{e.key, v, e.vp}
}

// fill sets the sample's fields and id; the id's position is where the id
// was given, else the user_input it derives from, else the record (at p).
func (t *taken) fill(out *converted, p pos) {
	for i, g := range t.fields {
		if g == nil {
			continue
		}
		if g.v.isList {
			out.s.SetList(fieldsOrder[i], g.v.list)
		} else {
			out.s.Set(fieldsOrder[i], g.v.s)
		}
	}
	switch {
	case t.id != nil:
		out.s.ID = t.id.v.s
		out.idGiven = true
		out.idPos = t.id.p
	case t.fields[0] != nil: // user_input
		out.idPos = t.fields[0].p
	default:
		out.idPos = p
	}
}

// fieldsOrder is metrics.Fields; user_input must come first (convert relies on it).
var fieldsOrder = [...]metrics.Field{
	metrics.UserInput, metrics.RetrievedContexts, metrics.Response, metrics.Reference,
	metrics.ReferenceContexts, metrics.RetrievedContextIDs, metrics.ReferenceContextIDs,
}

func joinFields(fs []metrics.Field) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = string(f)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func (c *converter) decodeID(e entry) (fieldValue, bool) {
	switch e.v.kind {
	case vNull:
		return fieldValue{}, true
	case vString:
		if e.v.s == "" {
			c.problem(e.vp, e.key, "empty; give a non-empty id or remove the field")
			return fieldValue{}, false
		}
		return fieldValue{present: true, s: e.v.s}, true
	case vCell:
		if e.v.s == "" {
			return fieldValue{}, true
		}
		return fieldValue{present: true, s: e.v.s}, true
	case vNumber:
		return fieldValue{present: true, s: e.v.s}, true
	}
	c.problem(e.vp, e.key, fmt.Sprintf(`given as %s; write a string or a number, e.g. "q-001"`, e.v.kind.noun()))
	return fieldValue{}, false
}

// decodeString decodes a string field. A reference may be a list of
// strings, joined with "\n".
func (c *converter) decodeString(e entry, f metrics.Field) (fieldValue, bool) {
	switch e.v.kind {
	case vNull:
		return fieldValue{}, true
	case vString:
		return fieldValue{present: true, s: e.v.s}, true
	case vCell:
		if e.v.s == "" {
			return fieldValue{}, true
		}
		return fieldValue{present: true, s: e.v.s}, true
	case vList:
		if f == metrics.Reference {
			list, ok := c.strings(e)
			if !ok {
				return fieldValue{}, false
			}
			return fieldValue{present: true, s: strings.Join(list, "\n")}, true
		}
		c.problem(e.vp, e.key, `given as a list; write a single JSON string, e.g. "..."`)
		return fieldValue{}, false
	case vNumber:
		c.problem(e.vp, e.key, fmt.Sprintf("given as a number; write a JSON string, e.g. %q", e.v.s))
		return fieldValue{}, false
	}
	c.problem(e.vp, e.key, fmt.Sprintf(`given as %s; write a JSON string, e.g. "..."`, e.v.kind.noun()))
	return fieldValue{}, false
}

// decodeList decodes a list field. A mapped field given as a string becomes
// a one-item list.
func (c *converter) decodeList(e entry) (fieldValue, bool) {
	switch e.v.kind {
	case vNull:
		return fieldValue{}, true
	case vList:
		list, ok := c.strings(e)
		if !ok {
			return fieldValue{}, false
		}
		return fieldValue{present: true, isList: true, list: list}, true
	case vString:
		if e.t.mapped {
			return fieldValue{present: true, isList: true, list: []string{e.v.s}}, true
		}
		c.problem(e.vp, e.key, `given as a string; write a JSON array of strings, e.g. ["..."]`)
		return fieldValue{}, false
	case vCell:
		return c.decodeListCell(e)
	}
	c.problem(e.vp, e.key, fmt.Sprintf(`given as %s; write a JSON array of strings, e.g. ["..."]`, e.v.kind.noun()))
	return fieldValue{}, false
}

// decodeListCell decodes a CSV cell holding a JSON array of strings.
func (c *converter) decodeListCell(e entry) (fieldValue, bool) {
	cell := e.v.s
	trimmed := strings.TrimSpace(cell)
	switch {
	case trimmed == "":
		return fieldValue{}, true
	case trimmed[0] == '[':
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(trimmed), &raw); err != nil {
			hint := ""
			if strings.HasPrefix(trimmed, "['") {
				hint = " (it looks like a Python list: JSON needs double quotes)"
			}
			c.problem(e.vp, e.key, fmt.Sprintf(`not a JSON array of strings: %v%s; write e.g. ["first","second"], quoted for CSV as "[""first"",""second""]"`, jsonErrText(err), hint))
			return fieldValue{}, false
		}
		list := make([]string, len(raw))
		for i, r := range raw {
			if len(r) == 0 || r[0] != '"' {
				c.problem(e.vp, e.key, fmt.Sprintf("item %d is %s; write every item as a JSON string", i+1, rawKind(r).noun()))
				return fieldValue{}, false
			}
			if err := json.Unmarshal(r, &list[i]); err != nil { // cannot happen: validated above
				c.problem(e.vp, e.key, "item "+fmt.Sprint(i+1)+": "+jsonErrText(err))
				return fieldValue{}, false
			}
		}
		return fieldValue{present: true, isList: true, list: list}, true
	case e.t.mapped:
		return fieldValue{present: true, isList: true, list: []string{cell}}, true
	}
	c.problem(e.vp, e.key, `given as a string; write a JSON array of strings, e.g. ["..."], quoted for CSV as "[""..."",""...""]"`)
	return fieldValue{}, false
}

// strings returns the items of a list value, which must all be strings.
func (c *converter) strings(e entry) ([]string, bool) {
	list := make([]string, len(e.v.items))
	for i, it := range e.v.items {
		if it.kind != vString {
			c.problem(it.p, e.key, fmt.Sprintf("item %d is %s; write every item as a JSON string", i+1, it.kind.noun()))
			return nil, false
		}
		list[i] = it.s
	}
	return list, true
}

// jsonErrText is the text of a JSON decoding error without the package prefix.
func jsonErrText(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}

// rawKind is the kind of a valid JSON value.
func rawKind(raw []byte) valueKind {
	if len(raw) == 0 {
		return vNull
	}
	switch raw[0] {
	case '"':
		return vString
	case '[':
		return vList
	case '{':
		return vObject
	case 'n':
		return vNull
	case 't', 'f':
		return vBool
	}
	return vNumber
}

// DeriveID returns the id of a sample that has no "id" field: "q-" and the
// first 12 hex digits of the SHA-256 of its user_input.
func DeriveID(userInput string) string {
	sum := sha256.Sum256([]byte(userInput))
	return "q-" + hex.EncodeToString(sum[:6])
}
