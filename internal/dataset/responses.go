package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// LoadResponses reads the responses file at path and joins it to d (see
// ParseResponses).
func LoadResponses(d *Dataset, path string, opts Options) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	_, err = joinResponses(d, path, data, opts)
	return err
}

// ParseResponses parses a responses file (rows of id and/or user_input plus
// pipeline outputs) and joins it to d: each row's fields replace those of
// the golden sample it matches. Unmatched rows and samples become warnings
// in d.Warnings. d.SHA256, d.Fields and d.ResponsesPath are updated. On
// error, d is left unchanged and the problems are returned as an *Error.
func ParseResponses(d *Dataset, name string, data []byte, opts Options) error {
	_, err := joinResponses(d, name, data, opts)
	return err
}

// maxListed is how many unmatched rows or samples a warning names.
const maxListed = 10

func joinResponses(d *Dataset, name string, data []byte, opts Options) (map[string]bool, error) {
	var ps problems
	res := newResolver(opts, &ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	jn := newResponseJoiner(d, &converter{file: name, role: roleResponses, ps: &ps, rows: isParquet(name, data, opts.Format)})
	n, k, keys := parseFile(name, data, opts, res, &ps, jn.join)
	if ps.count() == 0 && n == 0 {
		ps.add(Problem{File: name, Msg: emptyMsg(k, roleResponses)})
	}
	if err := ps.err(); err != nil {
		return nil, err
	}

	warnings := jn.warnings(name)
	d.Samples = jn.samples
	d.Fields = metrics.FieldsOf(jn.samples)
	warnings = append(warnings, jn.conv.notes.warnings(name)...)
	warnings = append(warnings, synonymWarnings(name, keys, res, d.Fields)...)
	d.Warnings = append(d.Warnings, warnings...)
	d.SHA256 = joinedSum(d.SHA256, data)
	d.ResponsesPath = name
	return keys, nil
}

// responseJoiner joins the rows of a responses file to the golden samples
// of d, by id or else by user_input.
type responseJoiner struct {
	d         *Dataset
	conv      *converter
	byID      map[string]int
	byInput   map[string][]int
	samples   []metrics.Sample // copies of d.Samples with the joined outputs
	matchedBy []int            // line of the row joined to each sample
	unmatched []string         // rows that match no golden sample
}

func newResponseJoiner(d *Dataset, conv *converter) *responseJoiner {
	jn := &responseJoiner{
		d:         d,
		conv:      conv,
		byID:      make(map[string]int, len(d.Samples)),
		byInput:   make(map[string][]int, len(d.Samples)),
		samples:   slices.Clone(d.Samples),
		matchedBy: make([]int, len(d.Samples)),
	}
	for i := range d.Samples {
		s := &d.Samples[i]
		jn.byID[s.ID] = i
		if s.Has(metrics.UserInput) {
			jn.byInput[s.UserInput] = append(jn.byInput[s.UserInput], i)
		}
	}
	return jn
}

// goldenLine is the line (or row) of golden sample i, or 0.
func (jn *responseJoiner) goldenLine(i int) int {
	if i < len(jn.d.Lines) {
		return jn.d.Lines[i]
	}
	return 0
}

// join joins one row of the responses file to its golden sample.
func (jn *responseJoiner) join(rec record) {
	conv := jn.conv
	c, ok := conv.convert(rec)
	if !ok {
		return
	}
	row := &c.s
	idx, ok := jn.match(c)
	if !ok {
		return
	}
	var outputs []metrics.Field
	for _, f := range responseFields {
		if row.Has(f) {
			outputs = append(outputs, f)
		}
	}
	if len(outputs) == 0 {
		conv.problem(c.p, "", "no output fields; give "+joinFields(responseFields))
		return
	}
	if prev := jn.matchedBy[idx]; prev != 0 {
		conv.problem(c.p, "", fmt.Sprintf("a second row for the sample %s (the first is on %s); keep one", short(jn.samples[idx].ID), conv.where(prev)))
		return
	}
	jn.matchedBy[idx] = c.p.line
	s := jn.samples[idx]
	s.Present = maps.Clone(s.Present)
	for _, f := range outputs {
		if f.IsList() {
			s.SetList(f, row.List(f))
		} else {
			s.Set(f, row.String(f))
		}
	}
	if row.Has(metrics.RetrievedContexts) && !row.Has(metrics.RetrievedContextIDs) {
		// The golden file's ids named the contexts it held, not the ones
		// the pipeline retrieved: id metrics must not score them.
		s.RetrievedContextIDs = nil
		delete(s.Present, metrics.RetrievedContextIDs)
	}
	conv.mergeMeta(&s, row.Metadata)
	jn.samples[idx] = s
}

// match finds the golden sample of a converted row; false when there is
// none (recorded as unmatched or as a problem).
func (jn *responseJoiner) match(c converted) (int, bool) {
	d, conv, row := jn.d, jn.conv, &c.s
	switch {
	case c.idGiven:
		i, found := jn.byID[row.ID]
		if !found {
			jn.unmatched = append(jn.unmatched, fmt.Sprintf("%s (id %s)", conv.where(c.p.line), short(row.ID)))
			return 0, false
		}
		golden := &d.Samples[i]
		if row.Has(metrics.UserInput) && golden.Has(metrics.UserInput) &&
			strings.TrimSpace(row.UserInput) != strings.TrimSpace(golden.UserInput) {
			conv.problem(c.p, "user_input", fmt.Sprintf("differs from the user_input of the golden sample with id %s (%s); regenerate the responses from the current golden file",
				short(row.ID), d.at(jn.goldenLine(i))))
			return 0, false
		}
		return i, true
	case row.Has(metrics.UserInput):
		m := jn.byInput[row.UserInput]
		switch len(m) {
		case 0:
			jn.unmatched = append(jn.unmatched, fmt.Sprintf("%s (user_input %s)", conv.where(c.p.line), short(row.UserInput)))
			return 0, false
		case 1:
			return m[0], true
		default:
			conv.problem(c.p, "user_input", fmt.Sprintf(`matches %d golden samples (%s %ss %d and %d); add the "id" of the right sample to this row`,
				len(m), d.Path, d.unit(), jn.goldenLine(m[0]), jn.goldenLine(m[1])))
			return 0, false
		}
	default:
		conv.problem(c.p, "", `no "id" and no "user_input"; give each row the "id" of its golden sample (or its user_input)`)
		return 0, false
	}
}

// warnings names the rows that matched no golden sample and the samples
// that got no row.
func (jn *responseJoiner) warnings(name string) []string {
	var warnings []string
	if n := len(jn.unmatched); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %d %s no golden sample and %s ignored: %s",
			name, n, plural(n, "row matches", "rows match"), plural(n, "is", "are"), list(jn.unmatched)))
	}
	var missing []string
	for i, line := range jn.matchedBy {
		if line == 0 {
			missing = append(missing, fmt.Sprintf("%s (%s %d)", short(jn.samples[i].ID), jn.d.unit(), jn.goldenLine(i)))
		}
	}
	if n := len(missing); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %d of %d samples have no row in %s, so they keep only the golden file's fields: %s",
			jn.d.Path, n, len(jn.samples), name, list(missing)))
	}
	return warnings
}

// joinedSum is the SHA-256 of the golden file's sum followed by the sum of
// the responses file, hex-encoded.
func joinedSum(golden string, data []byte) string {
	h := sha256.New()
	if prev, err := hex.DecodeString(golden); err == nil {
		h.Write(prev)
	} else {
		h.Write([]byte(golden))
	}
	rsum := sha256.Sum256(data)
	h.Write(rsum[:])
	return hex.EncodeToString(h.Sum(nil))
}

// list joins up to maxListed items, then says how many more there are.
func list(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:maxListed], ", ") + fmt.Sprintf(", and %d more", len(items)-maxListed)
}

// unit is what Lines counts: "line", or "row" for a Parquet golden file.
func (d *Dataset) unit() string {
	if d.rows {
		return "row"
	}
	return "line"
}

// Where names where sample i of the golden file starts, as messages do:
// "golden.jsonl:7", or "golden.parquet row 7"; "" when unknown.
func (d *Dataset) Where(i int) string {
	if line := d.Line(i); line > 0 {
		return d.at(line)
	}
	return ""
}

// at names where a golden sample starts: "golden.jsonl:7", or
// "golden.parquet row 7".
func (d *Dataset) at(line int) string {
	if d.rows {
		return fmt.Sprintf("%s row %d", d.Path, line)
	}
	return fmt.Sprintf("%s:%d", d.Path, line)
}
