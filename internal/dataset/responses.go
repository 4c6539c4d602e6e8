package dataset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"

	"github.com/raggate/raggate/internal/inputfile"
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
// error, the problems are returned as an *Error and d is left unchanged,
// unless it is spooled (its spool then holds some joined samples: load
// it again).
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
	sum := sha256.Sum256(data)
	return keys, jn.finish(name, n, k, keys, res, sum[:])
}

// loadResponses reads the responses file at path, a line at a time when
// it holds JSON Lines, and joins it to d (see ParseResponses). Unlike the
// golden dataset, which may come from a pipe, it must be a regular file: a
// device or a named pipe is refused unopened.
func loadResponses(ctx context.Context, d *Dataset, path string, opts Options) (map[string]bool, error) {
	var ps problems
	res := newResolver(opts, &ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	f, err := inputfile.Open(path, opts.Limits.total())
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	src := newSource(ctx, path, f, opts.Limits)
	src.responses = true
	jn := newResponseJoiner(d, &converter{file: path, role: roleResponses, ps: &ps})
	n, k, keys, err := scanFile(src, opts, res, &ps, jn.join, func() { jn.conv.rows = true })
	if err != nil {
		return nil, err
	}
	return keys, jn.finish(path, n, k, keys, res, src.hash.Sum(nil))
}

// finish checks the join of the n rows of the responses file name and,
// when it went well, makes it d's: sum is the raw SHA-256 of the file.
func (jn *responseJoiner) finish(name string, n int, k kind, keys map[string]bool, res *resolver, sum []byte) error {
	ps := jn.conv.ps
	if ps.count() == 0 && n == 0 {
		ps.add(Problem{File: name, Msg: emptyMsg(k, roleResponses)})
	}
	if err := ps.err(); err != nil {
		return err
	}
	if jn.err != nil {
		return jn.err
	}
	d := jn.d
	warnings := jn.warnings(name)
	if d.light != nil {
		d.Fields = d.light.fields()
	} else {
		d.Samples = jn.samples
		d.Fields = metrics.FieldsOf(jn.samples)
	}
	warnings = append(warnings, jn.conv.notes.warnings(name)...)
	warnings = append(warnings, synonymWarnings(name, keys, res, d.Fields)...)
	d.Warnings = append(d.Warnings, warnings...)
	d.SHA256 = joinedSum(d.SHA256, sum)
	d.ResponsesPath = name
	return nil
}

// responseJoiner joins the rows of a responses file to the golden samples
// of d, by id or else by user_input. The joined samples of a dataset in
// memory are copies, d's own once the join has gone well; those of a
// spooled dataset are written to its spool as they are joined (a failed
// join leaves such a dataset unusable).
type responseJoiner struct {
	d    *Dataset
	conv *converter
	byID map[string]int32
	// byInput finds the golden samples by a hash of their user_input,
	// built at the first row without an id.
	byInput   map[uint64][]int32
	seed      maphash.Seed
	samples   []metrics.Sample // copies of d.Samples with the joined outputs
	matchedBy []int            // line of the row joined to each sample
	unmatched []string         // rows that match no golden sample
	err       error            // the spool's first failure
}

func newResponseJoiner(d *Dataset, conv *converter) *responseJoiner {
	jn := &responseJoiner{
		d:         d,
		conv:      conv,
		byID:      d.ids,
		matchedBy: make([]int, d.Len()),
	}
	if d.light == nil {
		jn.samples = slices.Clone(d.Samples)
	}
	if jn.byID == nil {
		jn.byID = make(map[string]int32, d.Len())
		for i := range d.Len() {
			jn.byID[d.ID(i)] = int32(i)
		}
	}
	return jn
}

// sample returns sample i, with the outputs joined so far.
func (jn *responseJoiner) sample(i int) (metrics.Sample, bool) {
	if jn.d.light == nil {
		return jn.samples[i], true
	}
	if jn.err != nil {
		return metrics.Sample{}, false
	}
	s, err := jn.d.spool.Get(i)
	if err != nil {
		jn.err = err
		return metrics.Sample{}, false
	}
	return s, true
}

// set makes s sample i.
func (jn *responseJoiner) set(i int, s metrics.Sample) {
	if jn.d.light == nil {
		jn.samples[i] = s
		return
	}
	if jn.err == nil {
		jn.err = jn.d.spool.Set(i, s)
	}
	jn.d.light.set(i, &s)
}

// inputKey is the key of a user_input in byInput.
func (jn *responseJoiner) inputKey(in string) uint64 {
	return maphash.String(jn.seed, in)
}

// byUserInput returns the golden samples whose user_input is in.
func (jn *responseJoiner) byUserInput(in string) []int {
	if jn.byInput == nil {
		jn.seed = maphash.MakeSeed()
		jn.byInput = make(map[uint64][]int32)
		for i := range jn.d.Len() {
			if !jn.d.Has(i, metrics.UserInput) {
				continue
			}
			s, ok := jn.sample(i)
			if !ok {
				return nil
			}
			k := jn.inputKey(s.UserInput)
			jn.byInput[k] = append(jn.byInput[k], int32(i))
		}
	}
	var out []int
	for _, i := range jn.byInput[jn.inputKey(in)] {
		if s, ok := jn.sample(int(i)); ok && s.UserInput == in {
			out = append(out, int(i))
		}
	}
	return out
}

// join joins one row of the responses file to its golden sample.
func (jn *responseJoiner) join(rec record) {
	conv := jn.conv
	c, ok := conv.convert(rec)
	if !ok {
		return
	}
	row := &c.s
	idx, s, ok := jn.match(c)
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
		conv.problem(c.p, "", fmt.Sprintf("a second row for the sample %s (the first is on %s); keep one", short(jn.d.ID(idx)), conv.where(prev)))
		return
	}
	jn.matchedBy[idx] = c.p.line
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
	jn.set(idx, s)
}

// match finds the golden sample of a converted row, and returns it as
// joined so far; false when there is none (recorded as unmatched or as a
// problem).
func (jn *responseJoiner) match(c converted) (int, metrics.Sample, bool) {
	d, conv, row := jn.d, jn.conv, &c.s
	switch {
	case c.idGiven:
		i32, found := jn.byID[row.ID]
		if !found {
			jn.unmatched = append(jn.unmatched, fmt.Sprintf("%s (id %s)", conv.where(c.p.line), short(row.ID)))
			return 0, metrics.Sample{}, false
		}
		i := int(i32)
		golden, ok := jn.sample(i)
		if !ok {
			return 0, metrics.Sample{}, false
		}
		if row.Has(metrics.UserInput) && golden.Has(metrics.UserInput) &&
			strings.TrimSpace(row.UserInput) != strings.TrimSpace(golden.UserInput) {
			conv.problem(c.p, "user_input", fmt.Sprintf("differs from the user_input of the golden sample with id %s (%s); regenerate the responses from the current golden file",
				short(row.ID), d.at(jn.d.Line(i))))
			return 0, metrics.Sample{}, false
		}
		return i, golden, true
	case row.Has(metrics.UserInput):
		m := jn.byUserInput(row.UserInput)
		switch len(m) {
		case 0:
			if jn.err == nil {
				jn.unmatched = append(jn.unmatched, fmt.Sprintf("%s (user_input %s)", conv.where(c.p.line), short(row.UserInput)))
			}
			return 0, metrics.Sample{}, false
		case 1:
			s, ok := jn.sample(m[0])
			return m[0], s, ok
		default:
			conv.problem(c.p, "user_input", fmt.Sprintf(`matches %d golden samples (%s %ss %d and %d); add the "id" of the right sample to this row`,
				len(m), d.Path, d.unit(), jn.d.Line(m[0]), jn.d.Line(m[1])))
			return 0, metrics.Sample{}, false
		}
	default:
		conv.problem(c.p, "", `no "id" and no "user_input"; give each row the "id" of its golden sample (or its user_input)`)
		return 0, metrics.Sample{}, false
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
			missing = append(missing, fmt.Sprintf("%s (%s %d)", short(jn.d.ID(i)), jn.d.unit(), jn.d.Line(i)))
		}
	}
	if n := len(missing); n > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: %d of %d samples have no row in %s, so they keep only the golden file's fields: %s",
			jn.d.Path, n, len(jn.matchedBy), name, list(missing)))
	}
	return warnings
}

// joinedSum is the SHA-256 of the golden file's sum followed by rsum, the
// raw sum of the responses file, hex-encoded.
func joinedSum(golden string, rsum []byte) string {
	h := sha256.New()
	if prev, err := hex.DecodeString(golden); err == nil {
		h.Write(prev)
	} else {
		h.Write([]byte(golden))
	}
	h.Write(rsum)
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
