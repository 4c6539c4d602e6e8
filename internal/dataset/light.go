package dataset

import (
	"hash/maphash"
	"iter"
	"maps"
	"math"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// A spooled dataset (loaded with Options.Spool) keeps in memory, for each
// sample, a few bytes: its id, the line where it starts and indexes into
// two tables, one of the distinct sets of fields present and one of the
// distinct metadata maps. Dataset.Light rebuilds what a run needs of a
// sample from them; the texts stay in the spool.

// lightRec is what memory keeps of a spooled sample.
type lightRec struct {
	id   string
	line int32 // -1: in Dataset.bigLines
	meta int32 // index in Dataset.metas, -1: no metadata
}

// light is the samples of a spooled dataset.
type light struct {
	recs chunks[lightRec]
	pats chunks[uint8] // index in present, by sample
	// present are the distinct sets of fields present, shared (read only)
	// by the samples that have them.
	present []map[metrics.Field]bool
	metas   []map[string]string
	// bigLines are the lines past math.MaxInt32, by sample.
	bigLines map[int]int
	// idBlock holds the bytes of the latest ids (see intern).
	idBlock strings.Builder
	// ix finds the tables' entries of a sample's fields and metadata.
	ix lightIndex
}

// The ids of a spooled dataset are kept in blocks of idBlockSize bytes;
// an id longer than idAlone bytes is copied alone.
const (
	idBlockSize = 32 << 10
	idAlone     = 256
)

// intern returns id, its bytes kept in a block of l: each id is a
// string over its block, which is only appended to, so that an id costs
// its bytes, not an allocation of its own.
func (l *light) intern(id string) string {
	if len(id) == 0 || len(id) > idAlone {
		return strings.Clone(id)
	}
	b := &l.idBlock
	if b.Cap()-b.Len() < len(id) {
		*b = strings.Builder{}
		b.Grow(idBlockSize)
	}
	start := b.Len()
	b.WriteString(id)
	return b.String()[start:]
}

// lightIndex finds the entries of the tables while a dataset loads.
type lightIndex struct {
	pats  map[uint64]uint8
	seed  maphash.Seed
	metas map[uint64][]int32
}

// add appends the sample s, starting on line, to l (s.ID interned).
func (l *light) add(s *metrics.Sample, line int) {
	r := lightRec{id: s.ID, line: int32(min(line, math.MaxInt32)), meta: -1}
	if line > math.MaxInt32 || line < 0 {
		if l.bigLines == nil {
			l.bigLines = map[int]int{}
		}
		l.bigLines[l.recs.len()] = line
		r.line = -1
	}
	if len(s.Metadata) > 0 {
		r.meta = l.metaIndex(s.Metadata)
	}
	l.recs.add(r)
	l.pats.add(l.patIndex(s.Present))
}

// set replaces what l keeps of sample i, whose fields or metadata a
// responses file changed, by what it keeps of s.
func (l *light) set(i int, s *metrics.Sample) {
	r := l.recs.at(i)
	r.meta = -1
	if len(s.Metadata) > 0 {
		r.meta = l.metaIndex(s.Metadata)
	}
	*l.pats.at(i) = l.patIndex(s.Present)
}

// patIndex returns the index in l.present of the set of fields present.
// The fields are those of metrics.Fields (at most 8 of them, so at most
// 256 sets: TestLightPatternsFit checks).
func (l *light) patIndex(present map[metrics.Field]bool) uint8 {
	ix := &l.ix
	var bits uint64
	for i, f := range metrics.Fields {
		if present[f] {
			bits |= 1 << i
		}
	}
	if p, ok := ix.pats[bits]; ok {
		return p
	}
	if ix.pats == nil {
		ix.pats = map[uint64]uint8{}
	}
	var m map[metrics.Field]bool // nil: none, as a sample without fields has
	for i, f := range metrics.Fields {
		if bits&(1<<i) != 0 {
			if m == nil {
				m = make(map[metrics.Field]bool, len(present))
			}
			m[f] = true
		}
	}
	p := uint8(len(l.present))
	ix.pats[bits] = p
	l.present = append(l.present, m)
	return p
}

// metaIndex returns the index in l.metas of a map equal to md, adding md
// when there is none.
func (l *light) metaIndex(md map[string]string) int32 {
	ix := &l.ix
	if ix.metas == nil {
		ix.metas = map[uint64][]int32{}
		ix.seed = maphash.MakeSeed()
	}
	// The sum of the pairs' hashes does not depend on the map's order.
	var sum uint64
	var h maphash.Hash
	h.SetSeed(ix.seed)
	for k, v := range md {
		h.Reset()
		h.WriteString(k)
		h.WriteByte(0)
		h.WriteString(v)
		sum += h.Sum64()
	}
	for _, j := range ix.metas[sum] {
		if maps.Equal(l.metas[j], md) {
			return j
		}
	}
	j := int32(len(l.metas))
	ix.metas[sum] = append(ix.metas[sum], j)
	l.metas = append(l.metas, md)
	return j
}

// sample returns sample i without texts.
func (l *light) sample(i int) metrics.Sample {
	r := l.recs.at(i)
	s := metrics.Sample{ID: r.id, Present: l.present[*l.pats.at(i)]}
	if r.meta >= 0 {
		s.Metadata = l.metas[r.meta]
	}
	return s
}

func (l *light) line(i int) int {
	if r := l.recs.at(i).line; r >= 0 {
		return int(r)
	}
	return l.bigLines[i]
}

// fields returns the fields present in at least one sample: those of the
// sets of fields some sample has (a responses file may have left sets no
// sample has any more).
func (l *light) fields() metrics.FieldSet {
	used := make([]bool, len(l.present))
	for i := range l.pats.len() {
		used[*l.pats.at(i)] = true
	}
	out := make(metrics.FieldSet)
	for p, m := range l.present {
		if !used[p] {
			continue
		}
		for f := range m {
			out[f] = true
		}
	}
	return out
}

// Len returns the number of samples.
func (d *Dataset) Len() int {
	if d.light != nil {
		return d.light.recs.len()
	}
	return len(d.Samples)
}

// ID returns sample i's id.
func (d *Dataset) ID(i int) string {
	if d.light != nil {
		return d.light.recs.at(i).id
	}
	return d.Samples[i].ID
}

// Has reports whether sample i has field f.
func (d *Dataset) Has(i int, f metrics.Field) bool {
	if d.light != nil {
		return d.light.present[*d.light.pats.at(i)][f]
	}
	return d.Samples[i].Has(f)
}

// Light returns sample i as memory keeps it: its id, the fields it has
// and its metadata, and its texts unless the spool holds them (Spool()
// is not nil). A spooled dataset's samples share their Present and
// Metadata maps with others: do not change them (clone them first).
func (d *Dataset) Light(i int) metrics.Sample {
	if d.light != nil {
		return d.light.sample(i)
	}
	return d.Samples[i]
}

// All yields each sample's position and Light(i), in dataset order.
func (d *Dataset) All() iter.Seq2[int, metrics.Sample] {
	return func(yield func(int, metrics.Sample) bool) {
		for i := range d.Len() {
			if !yield(i, d.Light(i)) {
				return
			}
		}
	}
}

// Materialize returns the samples as a slice: Samples, or, for a spooled
// dataset, a new slice of every Light(i) (memory then holds a sample
// shell each: for the few users that need the slice).
func (d *Dataset) Materialize() []metrics.Sample {
	if d.light == nil {
		return d.Samples
	}
	out := make([]metrics.Sample, d.Len())
	for i := range out {
		out[i] = d.light.sample(i)
	}
	return out
}

// Line returns the golden file line (Parquet: row) where sample i starts,
// 0 when unknown.
func (d *Dataset) Line(i int) int {
	if d.light != nil {
		if i < 0 || i >= d.light.recs.len() {
			return 0
		}
		return d.light.line(i)
	}
	if i < 0 || i >= len(d.Lines) {
		return 0
	}
	return d.Lines[i]
}

// Release lets go of what memory keeps of the samples (Samples and
// Lines, or a spooled dataset's records): Len is 0 from then on, and the
// spool, if any, still holds the texts by position.
func (d *Dataset) Release() {
	d.Samples, d.Lines, d.light = nil, nil, nil
}
