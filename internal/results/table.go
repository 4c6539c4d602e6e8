package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/inputfile"
)

// Table is a results file held by columns: its header (a File whose
// Samples is nil) and, per sample, only what a comparison reads, in a
// compact form (about 40 bytes a sample, and 1 or 8 a metric): the id,
// the input hash, one column of scores per metric key, the undefined
// scores' kinds and reasons (dictionary-coded), repeats' runs, Seq,
// metadata and retrieved context ids (dictionary-coded). The rest of a
// sample (its question, reasons, target call, ...) is read back when
// asked for (Sample): from the file for a table read from disk
// (ReadTable), from memory for one that wraps a File (TableOf); a
// detached table (Detach, ReadTableFrom) keeps the questions only.
//
// A Table is read-only once built, and not safe for concurrent use
// (Sample reads the file).
type Table struct {
	// File is the header: every field but Samples (nil).
	File *File

	n int
	// ids holds every id, one after the other; id i is
	// ids[idOff[i]:idOff[i+1]].
	ids   string
	idOff []uint32
	// byID lists the samples ordered by id (then position): Index
	// searches it.
	byID []uint32

	// hashes are the input hashes of 16 hex digits; a sample whose bit is
	// set in otherHash has another (hashOther, absent: "").
	hashes    []uint64
	otherHash []uint64 // bitset
	hashOther map[uint32]string

	keys  []*TableKey
	byKey map[string]*TableKey

	// undef are the distinct undefined entries a key's undef codes name
	// (code c is undef[c-1]).
	undef []UndefinedEntry

	seq []int32 // nil when every sample's Seq is 0

	// strs is the dictionary of metadata keys and values and of context
	// ids; meta and ctx hold codes into it, sample i's from
	// metaOff[i] to metaOff[i+1] (key, value pairs) and ctxOff[i] to
	// ctxOff[i+1]. Both nil when no sample has any.
	strs    []string
	meta    []uint32
	metaOff []uint32
	ctx     []uint32
	ctxOff  []uint32

	// mem is the file a TableOf wraps; path and off locate the samples
	// of a table read from disk: sample i is at off[i] to off[i+1] (the
	// samples follow each other, with their separators).
	mem *File
	// src gives back the samples of a table made of a File whose samples
	// wait on disk (TableOf of a run's results, File.OnDisk).
	src  SampleSource
	path string
	data []byte // the file ParseTable parsed
	// off holds the offsets while they fit in 32 bits (a results file is
	// at most inputfile.DefaultResultsLimit bytes), off64 once they do not.
	off   []uint32
	off64 []int64

	// questions are the samples' questions of a detached table (see
	// Detach); nil otherwise.
	questions []string

	redact func(*Sample)
	err    error
}

// TableKey is one metric key of the samples' scores, undefined scores and
// runs, as the file spells it.
type TableKey struct {
	Name string
	// InScores, InUndefined and InRuns say whether any sample records the
	// key in its scores, undefined reasons, runs.
	InScores, InUndefined, InRuns bool
	// Scores holds the score of every sample: NaN when undefined, absent
	// or infinite.
	Scores *Column
	// undef codes each sample's undefined entry (0: none); nil when no
	// sample has one.
	undef []uint32
	// runs of sample i are runVals[runOff[i]:runOff[i+1]]; nil when no
	// sample records runs of the key.
	runOff  []uint32
	runVals []float64
}

// UndefinedEntry is what a sample records of an undefined score of a key.
type UndefinedEntry struct {
	// Kind is Sample.KindOf of the key.
	Kind UndefinedKind
	// Reason is the sample's reason in Undefined ("" when none).
	Reason string
	// InUndefined: the key is in the sample's Undefined; InScores: in its
	// Scores (as null, or as a defined score).
	InUndefined, InScores bool
}

// Len is the number of samples.
func (t *Table) Len() int { return t.n }

// ID is sample i's id.
func (t *Table) ID(i int) string { return t.ids[t.idOff[i]:t.idOff[i+1]] }

// Index returns the position of the first sample with id id.
func (t *Table) Index(id string) (int, bool) {
	k := sort.Search(len(t.byID), func(k int) bool { return t.ID(int(t.byID[k])) >= id })
	if k < len(t.byID) && t.ID(int(t.byID[k])) == id {
		return int(t.byID[k]), true
	}
	return 0, false
}

// InputHash is sample i's input hash ("" when it has none).
func (t *Table) InputHash(i int) string {
	if t.otherHash[i/64]&(1<<(i%64)) != 0 {
		return t.hashOther[uint32(i)]
	}
	return fmt.Sprintf("%016x", t.hashes[i])
}

// Seq is sample i's position in a sequential check's order (0: none).
func (t *Table) Seq(i int) int {
	if t.seq == nil {
		return 0
	}
	return int(t.seq[i])
}

// Keys are the metric keys of the samples, in the order first met.
func (t *Table) Keys() []*TableKey { return t.keys }

// Key returns the key named name (nil when no sample records it).
func (t *Table) Key(name string) *TableKey { return t.byKey[name] }

// Undefined returns what sample i records of an undefined score of k:
// ok false when it records nothing (its score defined, or the key
// absent).
func (t *Table) Undefined(k *TableKey, i int) (e UndefinedEntry, ok bool) {
	if k.undef == nil || k.undef[i] == 0 {
		return UndefinedEntry{}, false
	}
	return t.undef[k.undef[i]-1], true
}

// KindOf is Sample.KindOf of key k on sample i.
func (t *Table) KindOf(k *TableKey, i int) UndefinedKind {
	e, _ := t.Undefined(k, i)
	return e.Kind
}

// Runs returns sample i's runs of key k (nil when none).
func (t *Table) Runs(k *TableKey, i int) []float64 {
	if k.runOff == nil {
		return nil
	}
	return k.runVals[k.runOff[i]:k.runOff[i+1]]
}

// Meta returns sample i's metadata value of key.
func (t *Table) Meta(i int, key string) (string, bool) {
	if t.metaOff == nil {
		return "", false
	}
	for j := t.metaOff[i]; j < t.metaOff[i+1]; j += 2 {
		if t.strs[t.meta[j]] == key {
			return t.strs[t.meta[j+1]], true
		}
	}
	return "", false
}

// MetaKeys returns the keys of sample i's metadata.
func (t *Table) MetaKeys(i int) []string {
	if t.metaOff == nil {
		return nil
	}
	var out []string
	for j := t.metaOff[i]; j < t.metaOff[i+1]; j += 2 {
		out = append(out, t.strs[t.meta[j]])
	}
	return out
}

// Metadata returns sample i's metadata as a new map (nil when none).
func (t *Table) Metadata(i int) map[string]string {
	if t.metaOff == nil || t.metaOff[i] == t.metaOff[i+1] {
		return nil
	}
	out := make(map[string]string, (t.metaOff[i+1]-t.metaOff[i])/2)
	for j := t.metaOff[i]; j < t.metaOff[i+1]; j += 2 {
		out[t.strs[t.meta[j]]] = t.strs[t.meta[j+1]]
	}
	return out
}

// ContextIDs returns sample i's retrieved context ids (a new slice; nil
// when none).
func (t *Table) ContextIDs(i int) []string {
	if t.ctxOff == nil || t.ctxOff[i] == t.ctxOff[i+1] {
		return nil
	}
	out := make([]string, 0, t.ctxOff[i+1]-t.ctxOff[i])
	for _, c := range t.ctx[t.ctxOff[i]:t.ctxOff[i+1]] {
		out = append(out, t.strs[c])
	}
	return out
}

// Sample returns sample i whole, as Read with ScoresOnly gives it (no
// texts), read back from the file for a table read from disk; of a
// detached table, Lite(i) with its question. A failed read (the file
// changed or went away since) returns a sample with its id only and is
// recorded: see Err.
func (t *Table) Sample(i int) Sample {
	if t.mem != nil {
		return t.mem.Samples[i]
	}
	if t.src != nil {
		s, err := t.src.Sample(i)
		if err != nil {
			if t.err == nil {
				t.err = err
			}
			return Sample{ID: t.ID(i)}
		}
		s.dropTexts()
		if t.redact != nil {
			t.redact(&s)
		}
		return s
	}
	if t.questions != nil {
		s := t.Lite(i)
		s.Question = t.questions[i]
		if t.redact != nil {
			t.redact(&s)
		}
		return s
	}
	s, err := t.readSample(i)
	if err != nil {
		if t.err == nil {
			t.err = err
		}
		return Sample{ID: t.ID(i)}
	}
	if t.redact != nil {
		t.redact(&s)
	}
	return s
}

// Whole returns sample i whole, its texts and evidence included: read
// back from the file for a table read from disk, a copy of the File's
// sample for a table of a File (TableOf). A detached table cannot give it.
func (t *Table) Whole(i int) (Sample, error) {
	var s Sample
	var err error
	switch {
	case t.mem != nil:
		return t.mem.Samples[i], nil
	case t.src != nil:
		s, err = t.src.Sample(i)
	case t.questions != nil || (t.data == nil && t.path == ""):
		return Sample{}, fmt.Errorf("sample %q: the table no longer reads its file", t.ID(i))
	default:
		s, err = t.decodeAt(i)
	}
	if err != nil {
		return Sample{}, err
	}
	if t.redact != nil {
		t.redact(&s)
	}
	return s, nil
}

// WholeFile returns the table's file with its samples given back whole,
// one at a time, by Whole: of a table read from disk, a File that holds a
// few bytes a sample and reads the rest from the table's file when it is
// written or read (see SetSampleSource).
func (t *Table) WholeFile() *File {
	f := header(t.File)
	f.SetSampleSource(newTablesSource(t))
	return f
}

// Err is the first error of reading a sample back (Sample), nil when
// none.
func (t *Table) Err() error { return t.err }

// Redact applies str to the strings the table holds (the header's
// incomplete and warnings, the undefined reasons) and sample to every
// sample Sample reads back from now on. A table wrapping a File (TableOf)
// changes that File.
func (t *Table) Redact(str func(string) string, sample func(*Sample)) {
	t.File.Incomplete = str(t.File.Incomplete)
	for i := range t.File.Warnings {
		t.File.Warnings[i] = str(t.File.Warnings[i])
	}
	for i := range t.undef {
		t.undef[i].Reason = str(t.undef[i].Reason)
	}
	if t.mem != nil {
		t.mem.Incomplete, t.mem.Warnings = t.File.Incomplete, t.File.Warnings
		for i := range t.mem.Samples {
			sample(&t.mem.Samples[i])
		}
		return
	}
	t.redact = sample
}

func (t *Table) readSample(i int) (Sample, error) {
	s, err := t.decodeAt(i)
	s.dropTexts()
	return s, err
}

// decodeAt reads sample i back from the table's file, whole.
func (t *Table) decodeAt(i int) (Sample, error) {
	var s Sample
	err := t.readBack([]int{i}, func(_ int, raw []byte) error { return json.Unmarshal(raw, &s) },
		func(int) string { return s.ID })
	return s, err
}

// Questions returns the questions of the samples idx, read back from the
// file in one pass for a table read from disk. A failed read is recorded
// (see Err) and leaves the questions it could not read empty.
func (t *Table) Questions(idx []int) []string {
	out := make([]string, len(idx))
	if t.mem != nil {
		for k, i := range idx {
			out[k] = t.mem.Samples[i].Question
		}
		return out
	}
	if t.src != nil {
		for k, i := range idx {
			out[k] = t.Sample(i).Question
		}
		return out
	}
	if t.questions != nil {
		for k, i := range idx {
			out[k] = t.questions[i]
		}
		return out
	}
	ids := make([]string, len(idx))
	err := t.readBack(idx, func(k int, raw []byte) error {
		var q struct {
			ID       string `json:"id"`
			Question string `json:"question"`
		}
		err := json.Unmarshal(raw, &q)
		out[k], ids[k] = q.Question, q.ID
		return err
	}, func(k int) string { return ids[k] })
	if err != nil && t.err == nil {
		t.err = err
	}
	return out
}

// readBack reads the samples idx back from the file, one at a time,
// handing each one's JSON to decode, and checks that the id decoded
// (id(k)) is the one the table holds.
func (t *Table) readBack(idx []int, decode func(k int, raw []byte) error, id func(k int) string) error {
	var src io.ReaderAt = bytes.NewReader(t.data)
	if t.data == nil {
		file, err := os.Open(t.path)
		if err != nil {
			return err
		}
		defer file.Close()
		src = file
	}
	var buf []byte
	for k, i := range idx {
		start, end := t.offset(i), t.offset(i+1)
		buf = slices.Grow(buf[:0], int(end-start))[:end-start]
		if _, err := src.ReadAt(buf, start); err != nil {
			return fmt.Errorf("%s: read sample %q again: %w", t.path, t.ID(i), err)
		}
		if err := decode(k, bytes.TrimLeft(buf, " \t\r\n,")); err != nil || id(k) != t.ID(i) {
			return fmt.Errorf("%s: read sample %q again: the file changed since it was read", t.path, t.ID(i))
		}
	}
	return nil
}

// offset is the i-th offset of the samples (see off).
func (t *Table) offset(i int) int64 {
	if t.off64 != nil {
		return t.off64[i]
	}
	return int64(t.off[i])
}

// addOffset appends an offset of the samples.
func (t *Table) addOffset(o int64) {
	if t.off64 == nil && o > math.MaxUint32 {
		t.off64 = make([]int64, len(t.off), len(t.off)+1)
		for i, x := range t.off {
			t.off64[i] = int64(x)
		}
		t.off = nil
	}
	if t.off64 != nil {
		t.off64 = append(t.off64, o)
	} else {
		t.off = append(t.off, uint32(o))
	}
}

// TableOf holds f by columns; Sample(i) returns f.Samples[i]. f is not
// copied: it must not change while the table is in use.
func TableOf(f *File) *Table {
	if f.OnDisk() {
		return tableOfSource(f)
	}
	b := newTableBuilder()
	b.mem = true
	b.reserve(len(f.Samples))
	for i := range f.Samples {
		b.add(&f.Samples[i], 0, 0)
	}
	t := b.finish(header(f))
	t.mem = f
	return t
}

// tableOfSource is TableOf for a file whose samples wait on disk: the
// table reads each once to fill its columns, and back from the source
// for the samples a report lists.
func tableOfSource(f *File) *Table {
	b := newTableBuilder()
	b.mem = true
	b.reserve(f.Len())
	err := f.Each(func(_ int, s *Sample) error {
		b.add(s, 0, 0)
		return nil
	})
	t := b.finish(header(f))
	t.src = f.source
	t.err = err
	return t
}

// Detach lets go of the File a table wraps (TableOf) or of the bytes it
// was parsed from (ParseTable), keeping of each sample what the table
// holds and its question: Sample then returns Lite(i) with its question
// (no reasons, raw values or target call). A comparison's baseline read
// whole from a store that cannot read from a file is detached, so that
// memory holds its columns only. A table read from a file (ReadTable)
// stays as it is.
func (t *Table) Detach() {
	switch {
	case t.mem != nil:
		t.questions = make([]string, t.n)
		for i := range t.questions {
			t.questions[i] = t.mem.Samples[i].Question
		}
		t.mem = nil
	case t.data != nil:
		all := make([]int, t.n)
		for i := range all {
			all[i] = i
		}
		// Each question its own string, not a view of data.
		t.questions = t.Questions(all)
		t.data, t.off, t.off64 = nil, nil, nil
	}
}

// header is f without its samples.
func header(f *File) *File {
	h := *f
	h.Samples = nil
	return &h
}

// ReadTable reads the results file at path into a Table, one sample at a
// time, never holding the samples whole: the same checks as Read (the
// evidence included), with the same errors (naming the path). A table
// keeps no texts, whatever o selects.
func ReadTable(path string, o ReadOptions) (*Table, error) {
	file, err := inputfile.Open(path, inputfile.ResultsLimit())
	if err != nil {
		return nil, err
	}
	defer file.Close()
	t, err := decodeTable(file, func() ([]byte, error) { return inputfile.ReadFile(path, inputfile.ResultsLimit()) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.path = path
	return t, nil
}

// ParseTable parses a results file into a Table, as ReadTable reads one;
// Sample reads data back. data must not change while the table is in use.
func ParseTable(data []byte) (*Table, error) {
	t, err := decodeTable(bytes.NewReader(data), func() ([]byte, error) { return data, nil })
	if err != nil {
		return nil, err
	}
	t.data = data
	return t, nil
}

// ReadTableFrom reads a results file from r into a Table as ReadTable
// does, keeping each sample's question instead of its place: the table
// is detached (see Detach) and never reads r again. reread supplies the
// whole file when it is not a valid results file, to word the error as
// Parse does.
func ReadTableFrom(r io.Reader, reread func() ([]byte, error)) (*Table, error) {
	return decodeTableWith(r, reread, true)
}

// decodeTable is decode into a Table.
func decodeTable(r io.Reader, reread func() ([]byte, error)) (*Table, error) {
	return decodeTableWith(r, reread, false)
}

// decodeTableWith is decodeTable; with questions the table keeps the
// samples' questions (detached) instead of their offsets.
func decodeTableWith(r io.Reader, reread func() ([]byte, error), questions bool) (*Table, error) {
	br := bufio.NewReader(r)
	var skip int64
	if b, err := br.Peek(len(bom)); err == nil && bytes.Equal(b, bom) {
		_, _ = br.Discard(len(bom))
		skip = int64(len(bom))
	}
	var b *tableBuilder
	f, schema, err := streamTo(br, func(dec *json.Decoder, before []byte) error {
		b = newTableBuilder() // the last samples key counts, as in a File
		b.mem, b.questions = questions, questions
		b.reserve(samplesHint(before))
		return b.stream(dec, skip)
	})
	if err != nil {
		return nil, streamError(err, reread)
	}
	if err := checkSchema(schema); err != nil {
		return nil, err
	}
	if b == nil {
		b = newTableBuilder()
		b.questions = questions
	}
	if err := checkHeader(f); err != nil {
		return nil, err
	}
	t := b.finish(f)
	// As checkFile: the first sample in order with a fault names it; on
	// one sample, a duplicate id first, then a missing id, a score out of
	// range, bad evidence.
	type fault struct {
		rank int
		err  error
	}
	var faults []fault
	if dup, at := t.firstDuplicate(); at >= 0 {
		faults = append(faults, fault{4 * at, fmt.Errorf("%w: duplicate sample id %q", ErrInvalid, dup)})
	}
	if b.bad >= 0 {
		faults = append(faults, fault{4*b.bad + b.badRank, b.badErr})
	}
	if at, err := t.checkScores(); err != nil {
		faults = append(faults, fault{4*at + 2, fmt.Errorf("%w: %w", ErrInvalid, err)})
	}
	if len(faults) > 0 {
		return nil, slices.MinFunc(faults, func(a, b fault) int { return a.rank - b.rank }).err
	}
	return t, nil
}

// checkScores checks every score and run as checkScores does a File's
// samples, and returns the first sample (in order) out of range.
func (t *Table) checkScores() (int, error) {
	keys := slices.Clone(t.keys)
	slices.SortFunc(keys, func(a, b *TableKey) int { return strings.Compare(a.Name, b.Name) })
	// Most files have every score in [0, 1]: look closer only then.
	out := false
	for _, k := range keys {
		for i := range k.Scores.Len() {
			x := k.Scores.At(i)
			out = out || x < -rangeSlack || x > 1+rangeSlack
		}
		for _, x := range k.runVals {
			out = out || x < -rangeSlack || x > 1+rangeSlack
		}
	}
	if !out {
		return 0, nil
	}
	for i := 0; i < t.n; i++ {
		id := t.ID(i)
		for _, k := range keys {
			if x := k.Scores.At(i); !math.IsNaN(x) {
				if err := checkScore(t.File, id, k.Name, Score(x), ""); err != nil {
					return i, err
				}
			}
		}
		for _, k := range keys {
			for j, x := range t.Runs(k, i) {
				if err := checkScore(t.File, id, k.Name, Score(x), fmt.Sprintf(" (run %d)", j+1)); err != nil {
					return i, err
				}
			}
		}
	}
	return 0, nil
}

// samplesHint is the number of samples the header read so far says the
// dataset has (0: unknown): a run writes the dataset before the samples.
func samplesHint(before []byte) int {
	var h struct {
		Dataset struct {
			Samples int `json:"samples"`
		} `json:"dataset"`
	}
	if json.Unmarshal(append(slices.Clip(before), '}'), &h) != nil || h.Dataset.Samples < 0 {
		return 0
	}
	return min(h.Dataset.Samples, 1<<22) // a hint: the file may say anything
}

// reserve makes room for n samples, so that the columns of a file
// whose header says how many samples it has are not grown (and copied)
// while it is read.
func (b *tableBuilder) reserve(n int) {
	if n <= 0 {
		return
	}
	t := b.t
	t.idOff = make([]uint32, 1, n+1)
	if !b.mem {
		t.off = make([]uint32, 0, n+1)
	}
	t.hashes = make([]uint64, 0, n)
	t.otherHash = make([]uint64, 0, (n+63)/64)
	if b.questions {
		t.questions = make([]string, 0, n)
	}
	b.hint = n
}

// firstDuplicate returns the id of the first sample (in file order) whose
// id an earlier sample has, and its position; -1 when none.
func (t *Table) firstDuplicate() (string, int) {
	at := -1
	for k := 1; k < len(t.byID); k++ {
		a, b := int(t.byID[k-1]), int(t.byID[k])
		if t.ID(a) == t.ID(b) && (at < 0 || b < at) {
			at = b
		}
	}
	if at < 0 {
		return "", -1
	}
	return t.ID(at), at
}

// tableBuilder gathers a Table's columns sample by sample.
type tableBuilder struct {
	t     *Table
	ids   strings.Builder
	undef map[UndefinedEntry]uint32
	strs  map[string]uint32
	hint  int  // the samples expected (0: unknown)
	mem   bool // a TableOf: no offsets
	// questions: keep the samples' questions (a detached table).
	questions bool
	// bad is the first sample with no id or bad evidence (-1: none),
	// badRank 1 for no id, 3 for evidence, and badErr the error.
	bad, badRank int
	badErr       error
}

func newTableBuilder() *tableBuilder {
	return &tableBuilder{t: &Table{byKey: map[string]*TableKey{}, hashOther: map[uint32]string{}},
		undef: map[UndefinedEntry]uint32{}, strs: map[string]uint32{}, bad: -1}
}

// stream decodes the samples value from dec (null, or an array) into the
// table, recording each sample's place in the file.
func (b *tableBuilder) stream(dec *json.Decoder, skip int64) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("samples is not an array")
	}
	for dec.More() {
		var s Sample
		start := dec.InputOffset()
		if err := dec.Decode(&s); err != nil {
			return &sampleError{index: b.t.n, start: start, err: err}
		}
		end := dec.InputOffset()
		if b.bad < 0 {
			if s.ID == "" {
				b.bad, b.badRank, b.badErr = b.t.n, 1, fmt.Errorf("%w: samples[%d] has no id", ErrInvalid, b.t.n)
			} else if err := checkEvidence(&s); err != nil {
				b.bad, b.badRank, b.badErr = b.t.n, 3, fmt.Errorf("%w: %w", ErrInvalid, err)
			}
		}
		b.add(&s, start+skip, end-start)
	}
	return expectDelim(dec, ']')
}

func (b *tableBuilder) str(s string) uint32 {
	c, ok := b.strs[s]
	if !ok {
		c = uint32(len(b.t.strs))
		b.t.strs = append(b.t.strs, s)
		b.strs[s] = c
	}
	return c
}

// key returns the column of key name, growing it to the samples so far.
func (b *tableBuilder) key(name string) *TableKey {
	k, ok := b.t.byKey[name]
	if !ok {
		k = &TableKey{Name: name, Scores: newColumn(max(b.hint, b.t.n+1))}
		b.t.byKey[name] = k
		b.t.keys = append(b.t.keys, k)
	}
	return k
}

// add appends sample s, found at off (size bytes) in the file.
func (b *tableBuilder) add(s *Sample, off int64, size int64) {
	t := b.t
	i := t.n
	t.n++
	if i == 0 && b.hint > 0 {
		b.ids.Grow(b.hint * (len(s.ID) + 1))
	}
	b.ids.WriteString(s.ID)
	if t.idOff == nil {
		t.idOff = []uint32{0}
	}
	t.idOff = append(t.idOff, uint32(b.ids.Len()))
	if !b.mem {
		if i == 0 {
			t.addOffset(off)
		}
		t.addOffset(off + size) // sample i ends where i+1 starts
	}

	if i%64 == 0 {
		t.otherHash = append(t.otherHash, 0)
	}
	var h uint64
	if isHex16(s.InputHash) {
		h, _ = strconv.ParseUint(s.InputHash, 16, 64)
	} else {
		t.otherHash[i/64] |= 1 << (i % 64)
		if s.InputHash != "" {
			t.hashOther[uint32(i)] = s.InputHash
		}
	}
	t.hashes = append(t.hashes, h)
	if b.questions {
		t.questions = append(t.questions, s.Question)
	}

	if s.Seq != 0 && t.seq == nil {
		t.seq = make([]int32, i, i+1)
	}
	if t.seq != nil {
		t.seq = append(t.seq, int32(s.Seq))
	}

	for _, name := range sortedKeys(s.Scores) {
		b.key(name).InScores = true
	}
	for _, name := range sortedKeys(s.Undefined) {
		b.key(name).InUndefined = true
	}
	for _, name := range sortedKeys(s.Runs) {
		b.key(name).InRuns = true
	}
	for _, name := range sortedKeys(s.UndefinedKind) {
		b.key(name)
	}
	for _, k := range t.keys {
		v, inScores := s.Scores[k.Name]
		x := math.NaN()
		if inScores && !v.IsNaN() && !math.IsInf(v.Value(), 0) {
			x = v.Value()
		}
		k.Scores.add(x)
		reason, inUndef := s.Undefined[k.Name]
		_, hasKind := s.UndefinedKind[k.Name]
		var code uint32
		if inUndef || hasKind || (inScores && math.IsNaN(x)) {
			e := UndefinedEntry{Kind: s.KindOf(k.Name), Reason: reason, InUndefined: inUndef, InScores: inScores}
			c, ok := b.undef[e]
			if !ok {
				t.undef = append(t.undef, e)
				c = uint32(len(t.undef))
				b.undef[e] = c
			}
			code = c
		}
		if code != 0 && k.undef == nil {
			k.undef = make([]uint32, i, i+1)
		}
		if k.undef != nil {
			k.undef = append(k.undef, code)
		}
		runs := s.Runs[k.Name]
		if len(runs) > 0 && k.runOff == nil {
			k.runOff = make([]uint32, i+1, i+2)
		}
		if k.runOff != nil {
			for _, r := range runs {
				k.runVals = append(k.runVals, r.Value())
			}
			k.runOff = append(k.runOff, uint32(len(k.runVals)))
		}
	}
	// A key first met on this sample has no entries for the samples
	// before: fill them (absent).
	for _, k := range t.keys {
		if n := k.Scores.Len(); n < t.n {
			k.Scores.prepend(t.n - n)
		}
	}

	if len(s.Metadata) > 0 && t.metaOff == nil {
		t.metaOff = make([]uint32, i+1, i+2)
	}
	if t.metaOff != nil {
		for _, key := range sortedKeys(s.Metadata) {
			t.meta = append(t.meta, b.str(key), b.str(s.Metadata[key]))
		}
		t.metaOff = append(t.metaOff, uint32(len(t.meta)))
	}
	if len(s.ContextIDs) > 0 && t.ctxOff == nil {
		t.ctxOff = make([]uint32, i+1, i+2)
	}
	if t.ctxOff != nil {
		for _, id := range s.ContextIDs {
			t.ctx = append(t.ctx, b.str(id))
		}
		t.ctxOff = append(t.ctxOff, uint32(len(t.ctx)))
	}
}

// isHex16 reports whether h is 16 lower-case hex digits, as a run writes
// an input hash.
func isHex16(h string) bool {
	if len(h) != 16 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// finish completes the table with its header f (whose samples are
// dropped) and indexes the ids.
func (b *tableBuilder) finish(f *File) *Table {
	t := b.t
	for _, k := range t.keys {
		k.Scores.done()
	}
	if b.questions && t.questions == nil {
		t.questions = []string{}
	}
	f.Samples = nil
	t.File = f
	t.ids = b.ids.String()
	if t.idOff == nil {
		t.idOff = []uint32{0}
	}
	t.byID = make([]uint32, t.n)
	for i := range t.byID {
		t.byID[i] = uint32(i)
	}
	sort.SliceStable(t.byID, func(a, c int) bool { return t.ID(int(t.byID[a])) < t.ID(int(t.byID[c])) })
	return t
}

// Lite returns sample i as the table holds it: id, input hash, scores,
// undefined reasons and kinds, runs, metadata, retrieved context ids and
// Seq (no question, reasons or target: see Sample). KindOf of every key
// is that of the sample in the file.
func (t *Table) Lite(i int) Sample {
	s := Sample{ID: t.ID(i), InputHash: t.InputHash(i), Seq: t.Seq(i), Metadata: t.Metadata(i), ContextIDs: t.ContextIDs(i)}
	for _, k := range t.keys {
		x := k.Scores.At(i)
		e, undef := t.Undefined(k, i)
		if !math.IsNaN(x) || e.InScores {
			if s.Scores == nil {
				s.Scores = map[string]Score{}
			}
			s.Scores[k.Name] = Score(x)
		}
		if e.InUndefined {
			if s.Undefined == nil {
				s.Undefined = map[string]string{}
			}
			s.Undefined[k.Name] = e.Reason
		}
		if undef && e.Kind != "" {
			if s.UndefinedKind == nil {
				s.UndefinedKind = map[string]UndefinedKind{}
			}
			s.UndefinedKind[k.Name] = e.Kind
		}
		if k.runOff != nil && k.runOff[i] != k.runOff[i+1] {
			if s.Runs == nil {
				s.Runs = map[string][]Score{}
			}
			for _, r := range t.Runs(k, i) {
				s.Runs[k.Name] = append(s.Runs[k.Name], Score(r))
			}
		}
	}
	return s
}
