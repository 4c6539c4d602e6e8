package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/raggate/raggate/internal/inputfile"
	"github.com/raggate/raggate/metrics"
)

// Format names a file format.
type Format string

// The formats. FormatAuto chooses by extension, then by content.
const (
	FormatAuto  Format = ""
	FormatJSONL Format = "jsonl"
	FormatJSON  Format = "json"
	FormatCSV   Format = "csv"
	// FormatParquet needs a registered decoder (see RegisterParquet).
	FormatParquet Format = "parquet"
)

// Options control loading. The zero value loads a file in the standard
// vocabularies, with the format chosen by extension.
type Options struct {
	// Mapping maps a canonical field name (user_input, ..., or "id") to the
	// name a file uses for it, e.g. {"response": "answer_text"}. It applies
	// to the golden file and to the responses file.
	Mapping map[string]string
	// ResponsesPath names a file of pipeline outputs to join to the golden
	// samples. Only Load reads it; Parse ignores it (use ParseResponses).
	ResponsesPath string
	// Ignore lists keys (or columns) to drop instead of keeping them as
	// metadata.
	Ignore []string
	// Format forces a format instead of choosing by extension and content.
	Format Format
	// StrictFields makes every key that is not a field, an id, a mapped
	// name or ignored an error, instead of metadata.
	StrictFields bool
	// Limits bound line length and file size (zero: the defaults).
	Limits Limits
	// Spool, when set, receives each golden sample as it is read, and
	// the dataset keeps a few bytes of each instead of Samples (see
	// Dataset.Light; Dataset.Spool). A responses file joined by Load
	// rewrites the joined samples in the spool.
	Spool *Spool
}

// Dataset is a loaded golden dataset.
type Dataset struct {
	Path string // golden file name as given
	// SHA256 is the hex SHA-256 of the golden file's bytes; when a responses
	// file is joined, the hex SHA-256 of the previous raw digest followed by
	// the raw digest of the responses file's bytes.
	SHA256        string
	ResponsesPath string // responses file joined, if any
	// Samples are the samples, and Lines the golden file line (Parquet:
	// row) where each starts. Both are nil when the samples were loaded
	// with Options.Spool: memory then keeps a few bytes a sample, read
	// through Len, ID, Has, Light, All and Line (which work on any
	// dataset), or Materialize.
	Samples  []metrics.Sample
	Lines    []int
	Warnings []string               // non-fatal problems, one sentence each
	Fields   map[metrics.Field]bool // fields present in at least one sample
	rows     bool                   // Lines are Parquet rows
	// spool holds the samples' texts when they were loaded with
	// Options.Spool, and light what memory keeps of each sample then.
	spool *Spool
	light *light
	// ids are the golden samples' positions by id, kept from the load
	// until Load has joined the responses file.
	ids map[string]int32
}

// Spool returns the spool that holds the samples' texts, nil when Samples
// hold them.
func (d *Dataset) Spool() *Spool { return d.spool }

// Load reads and parses the golden dataset at path and, if
// opts.ResponsesPath is set, joins the responses file to it. Problems with
// the files or the options are returned as an *Error.
func Load(path string, opts Options) (*Dataset, error) {
	return LoadContext(context.Background(), path, opts)
}

// LoadContext is Load, stopping promptly when ctx ends: the error then
// wraps ctx's error. A JSON Lines golden file is read a line at a time,
// so memory holds the samples, not the file.
func LoadContext(ctx context.Context, path string, opts Options) (*Dataset, error) {
	src, closeSrc, err := openSource(ctx, path, opts.Limits)
	if err != nil {
		return nil, err
	}
	d, keys, err := readGolden(path, src, opts)
	closeSrc()
	if err != nil {
		return nil, err
	}
	names := []string{path}
	if opts.ResponsesPath != "" {
		rkeys, err := loadResponses(ctx, d, opts.ResponsesPath, opts)
		d.ids = nil
		if err != nil {
			return nil, err
		}
		for k := range rkeys {
			keys[k] = true
		}
		names = append(names, opts.ResponsesPath)
	}
	d.Warnings = append(d.Warnings, mappingWarnings(opts, keys, names)...)
	return d, nil
}

// Parse parses a golden dataset from data; name is used for the format
// (by extension) and in messages. opts.ResponsesPath is ignored.
func Parse(name string, data []byte, opts Options) (*Dataset, error) {
	return Read(context.Background(), name, bytes.NewReader(data), opts)
}

// Read reads a golden dataset from r as Parse does, within opts.Limits,
// stopping promptly when ctx ends (the error then wraps ctx's error).
func Read(ctx context.Context, name string, r io.Reader, opts Options) (*Dataset, error) {
	d, keys, err := readGolden(name, newSource(ctx, name, r, opts.Limits), opts)
	if err != nil {
		return nil, err
	}
	d.Warnings = append(d.Warnings, mappingWarnings(opts, keys, []string{name})...)
	return d, nil
}

func readFile(path string) ([]byte, error) {
	return readFileContext(context.Background(), path, Limits{})
}

// readFileContext reads a whole file (the responses file), within
// lim.MaxBytes. Unlike the golden dataset, which may come from a pipe, it
// must be a regular file: a device or a named pipe is refused unopened.
func readFileContext(ctx context.Context, path string, lim Limits) ([]byte, error) {
	f, err := inputfile.Open(path, lim.total())
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	src := newSource(ctx, path, f, lim)
	src.responses = true
	return src.rest(nil)
}

// mappingWarnings warns about mapped names that no file used.
func mappingWarnings(opts Options, keys map[string]bool, files []string) []string {
	var ps problems
	r := newResolver(opts, &ps)
	var out []string
	for _, m := range r.mapping {
		if !keys[m[1]] {
			out = append(out, fmt.Sprintf("field mapping %s=%s: no row of %s has a field %s, so the mapping does nothing",
				m[0], m[1], strings.Join(files, " or "), short(m[1])))
		}
	}
	return out
}

type kind int

const (
	kindLines kind = iota
	kindArray
	kindStream
	kindCSV
	kindNotJSON
	kindParquet
)

// detect chooses how to read data (without a BOM); see the package doc.
func detect(name string, data []byte, f Format) kind {
	ext := strings.ToLower(filepath.Ext(name))
	if f == FormatCSV || (f == FormatAuto && ext == ".csv") {
		return kindCSV
	}
	i := skipWS(data, 0)
	var c byte
	if i < len(data) {
		c = data[i]
	}
	lines := f == FormatJSONL || (f == FormatAuto && (ext == ".jsonl" || ext == ".ndjson"))
	isJSON := f == FormatJSON || (f == FormatAuto && ext == ".json")
	switch {
	case c == '[':
		return kindArray
	case c == '{' && lines:
		return kindLines
	case c == '{':
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i
		}
		if json.Valid(data[i:end]) {
			return kindLines
		}
		return kindStream
	case c == 0 || lines:
		return kindLines // empty, or per-line errors
	case isJSON:
		return kindNotJSON
	}
	return kindCSV
}

const utf8BOM = "\xef\xbb\xbf"

// parseFile reads the records of a file, checking its encoding first, and
// passes them to emit in file order. It returns the number of records, the
// kind of file and the keys seen.
func parseFile(name string, data []byte, opts Options, res *resolver, ps *problems, emit func(record)) (n int, k kind, keys map[string]bool) {
	keys = make(map[string]bool)
	if isParquet(name, data, opts.Format) {
		return readParquet(name, data, opts.Limits, res, ps, keys, emit), kindParquet, keys
	}
	if len(data) >= 2 && (data[0] == 0xff && data[1] == 0xfe || data[0] == 0xfe && data[1] == 0xff) {
		ps.add(Problem{File: name, Msg: "the file is UTF-16 encoded; save it as UTF-8"})
		return 0, kindLines, keys
	}
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	r := &reader{file: name, data: data, li: newLineIndex(data), res: res, ps: ps, keys: keys, emit: emit}
	if !utf8.Valid(data) {
		r.badUTF8()
		return 0, kindLines, keys
	}
	k = detect(name, data, opts.Format)
	switch k {
	case kindLines:
		if ln, ok := longLine(r.li, len(data), opts.Limits.line()); ok {
			ps.add(Problem{File: name, Line: ln, Msg: fmt.Sprintf(
				"the line is longer than %s; each line of a JSON Lines file holds one sample: is this the right file? For longer samples raise --max-line-size",
				Size(int64(opts.Limits.line())))})
			return 0, k, keys
		}
		n = r.readLines()
	case kindArray:
		n = r.readArray()
	case kindStream:
		n = r.readStream()
	case kindCSV:
		n = r.readCSV()
	case kindNotJSON:
		i := skipWS(data, 0)
		r.problem(i, "", "not JSON: a .json file must hold a JSON array of objects, or JSON objects one per line; name a CSV file .csv")
	}
	return n, k, keys
}

// badUTF8 reports the first invalid UTF-8 sequence of every line.
func (r *reader) badUTF8() {
	for n, start := range r.li {
		end := len(r.data)
		if n+1 < len(r.li) {
			end = r.li[n+1]
		}
		if p, ok := r.invalidUTF8(start, end); ok {
			r.ps.add(p)
		}
	}
}

// invalidUTF8 returns the problem with the first invalid UTF-8 sequence of
// the line r.data[start:end], if any.
func (r *reader) invalidUTF8(start, end int) (Problem, bool) {
	line := r.data[start:end]
	if utf8.Valid(line) {
		return Problem{}, false
	}
	for i := 0; i < len(line); {
		c, size := utf8.DecodeRune(line[i:])
		if c == utf8.RuneError && size == 1 {
			return r.at(start+i, "", fmt.Sprintf("invalid UTF-8 (byte 0x%02x); save the file as UTF-8", line[i])), true
		}
		i += size
	}
	return Problem{}, false
}

// emptyMsg explains an empty file.
func emptyMsg(k kind, role role) string {
	what := `{"user_input": "...", "retrieved_contexts": ["..."], "response": "...", "reference": "..."}`
	if role == roleResponses {
		what = `{"id": "...", "response": "...", "retrieved_contexts": ["..."]}`
	}
	switch k {
	case kindParquet:
		if role == roleResponses {
			return "no rows; the file must have columns such as id and response, and one row per sample"
		}
		return "no samples; the file must have columns such as user_input, retrieved_contexts, response and reference, and one row per sample"
	case kindCSV:
		if role == roleResponses {
			return "no rows; the first row must be a header naming the fields (e.g. id,response) and each further row gives one sample's outputs"
		}
		return "no samples; the first row must be a header naming the fields (e.g. user_input,retrieved_contexts,response,reference) and each further row one sample"
	case kindArray:
		if role == roleResponses {
			return "no rows; the array must hold objects like " + what
		}
		return "no samples; the array must hold objects like " + what
	}
	if role == roleResponses {
		return "no rows; each line must be a JSON object like " + what
	}
	return "no samples; each line must be a JSON object like " + what
}

// readGolden reads a golden file from src; keys are the keys seen in it.
func readGolden(name string, src *source, opts Options) (*Dataset, map[string]bool, error) {
	var ps problems
	res := newResolver(opts, &ps)
	if err := ps.err(); err != nil {
		return nil, nil, err
	}
	g := newGolden(name, &ps)
	g.spool = opts.Spool
	n, k, keys, err := scanFile(src, opts, res, &ps, g.add, g.asRows)
	if err != nil {
		return nil, nil, err
	}
	if ps.count() == 0 && n == 0 {
		ps.add(Problem{File: name, Msg: emptyMsg(k, roleGolden)})
	}
	if err := ps.err(); err != nil {
		return nil, nil, err
	}
	if g.spoolErr == nil && g.spool != nil {
		g.spoolErr = g.spool.flush()
	}
	if g.spoolErr != nil {
		return nil, nil, g.spoolErr
	}
	g.d.spool = g.spool
	if opts.ResponsesPath != "" {
		g.d.ids = g.ids
	}
	g.d.SHA256 = src.sum()
	if g.d.light != nil {
		g.d.Fields = g.d.light.fields()
	} else {
		g.d.Fields = metrics.FieldsOf(g.d.Samples)
	}
	g.d.Warnings = append(g.d.Warnings, g.conv.notes.warnings(name)...)
	g.d.Warnings = append(g.d.Warnings, synonymWarnings(name, keys, res, g.d.Fields)...)
	return g.d, keys, nil
}

// scanFile reads the records of the file src reads, checking its encoding
// first, and passes them to emit in file order. JSON Lines are read a line
// at a time; other formats whole. It returns the number of records, the
// kind of file and the keys seen; the error is src's (cancelled, over a
// limit, cannot read). onRows, if not nil, is called before the first
// record of a file whose records are numbered rows (Parquet), not lines.
func scanFile(src *source, opts Options, res *resolver, ps *problems, emit func(record), onRows func()) (n int, k kind, keys map[string]bool, err error) {
	name := src.name
	if b, err := src.br.Peek(2); len(b) == 2 && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) {
		ps.add(Problem{File: name, Msg: "the file is UTF-16 encoded; save it as UTF-8"})
		return 0, kindLines, map[string]bool{}, nil
	} else if err != nil && err != io.EOF {
		return 0, kindLines, nil, src.fail(err)
	}
	if b, _ := src.br.Peek(len(utf8BOM)); string(b) == utf8BOM {
		_, _ = src.br.Discard(len(utf8BOM))
	}
	prefix, err := src.head(opts.Format)
	if err != nil {
		return 0, kindLines, nil, err
	}
	k = detect(name, prefix, opts.Format)
	if k != kindLines {
		data, err := src.rest(prefix)
		if err != nil {
			return 0, k, nil, err
		}
		if onRows != nil && isParquet(name, data, opts.Format) {
			onRows()
		}
		n, k, keys = parseFile(name, data, opts, res, ps, emit)
		return n, k, keys, nil
	}
	keys = make(map[string]bool)
	src.br = bufio.NewReaderSize(io.MultiReader(bytes.NewReader(prefix), src.br), 64<<10)
	r := &reader{file: name, res: res, ps: ps, keys: keys, emit: emit}
	n, err = r.streamLines(src)
	return n, kindLines, keys, err
}

// golden builds a dataset from the records of a golden file, checking ids.
type golden struct {
	d    *Dataset
	conv *converter
	// ids are the samples' ids, each with the sample's position: its
	// line is d.Line(pos), and derived[pos] says whether the id was
	// derived from its user_input.
	ids     map[string]int32
	derived []uint64 // a bit set
	// spool, when set, takes each sample's texts (Options.Spool);
	// spoolErr is its first failure.
	spool    *Spool
	spoolErr error
	n        int // samples added
}

// origin tells where a sample's id comes from.
type origin struct {
	line    int
	derived bool
}

// origin returns where the id of the sample at pos comes from.
func (g *golden) origin(pos int32) origin {
	return origin{line: g.d.Line(int(pos)), derived: g.derived[pos/64]&(1<<(pos%64)) != 0}
}

func newGolden(name string, ps *problems) *golden {
	return &golden{
		d:    &Dataset{Path: name},
		conv: &converter{file: name, role: roleGolden, ps: ps},
		ids:  make(map[string]int32),
	}
}

// asRows numbers the dataset's samples as rows (Parquet) in messages.
func (g *golden) asRows() {
	g.d.rows = true
	g.conv.rows = true
}

// add converts a record into a sample and appends it, unless it has a
// problem (reported).
func (g *golden) add(rec record) {
	conv := g.conv
	c, ok := conv.convert(rec)
	if !ok {
		return
	}
	if !c.idGiven {
		if !c.s.Has(metrics.UserInput) {
			conv.problem(c.p, "", `no "user_input" and no "id"; every sample needs a user_input (the question), or at least an id`)
			return
		}
		c.s.ID = DeriveID(c.s.UserInput)
	}
	if pos, dup := g.ids[c.s.ID]; dup {
		o := g.origin(pos)
		switch {
		case o.derived && !c.idGiven:
			conv.problem(c.idPos, "user_input", fmt.Sprintf(`same user_input as the sample on %s, so both get the id %s; add an "id" field to each sample to tell them apart`, conv.where(o.line), short(c.s.ID)))
		case o.derived:
			conv.problem(c.idPos, "id", fmt.Sprintf(`%s is also the id derived from the user_input of the sample on %s; give each sample a unique "id"`, short(c.s.ID), conv.where(o.line)))
		case !c.idGiven:
			conv.problem(c.idPos, "user_input", fmt.Sprintf(`the id derived from this user_input, %s, is also the "id" of the sample on %s; give each sample a unique "id"`, short(c.s.ID), conv.where(o.line)))
		default:
			conv.problem(c.idPos, "id", fmt.Sprintf(`duplicate id %s, also on %s; give each sample a unique "id"`, short(c.s.ID), conv.where(o.line)))
		}
		return
	}
	if g.n > math.MaxInt32 {
		conv.problem(c.p, "", fmt.Sprintf("more than %d samples; split the dataset", math.MaxInt32))
		return
	}
	pos := int32(g.n)
	g.n++
	if g.spool != nil {
		if g.d.light == nil {
			g.d.light = &light{}
		}
		c.s.ID = g.d.light.intern(c.s.ID) // the key below shares its bytes
	}
	g.ids[c.s.ID] = pos
	if pos%64 == 0 {
		g.derived = append(g.derived, 0)
	}
	if !c.idGiven {
		g.derived[pos/64] |= 1 << (pos % 64)
	}
	if g.spool != nil {
		if g.spoolErr == nil {
			g.spoolErr = g.spool.add(&c.s)
		}
		g.d.light.add(&c.s, c.p.line)
		return
	}
	g.d.Samples = append(g.d.Samples, c.s)
	g.d.Lines = append(g.d.Lines, c.p.line)
}

// longLine returns the 1-based number of the first line longer than max
// bytes (its newline aside) of a file of size bytes whose lines start at
// li; max < 0 is no limit. A file read whole (a responses file) is held
// to the line limit of a streamed dataset.
func longLine(li lineIndex, size, max int) (int, bool) {
	if max < 0 {
		return 0, false
	}
	for ln, start := range li {
		end := size
		if ln+1 < len(li) {
			end = li[ln+1] - 1
		}
		if end-start > max {
			return ln + 1, true
		}
	}
	return 0, false
}
