package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	mbits "math/bits"
	"os"
	"slices"
	"sync"

	"github.com/raggate/raggate/metrics"
)

// A Spool keeps samples' texts in a temporary file while a run lasts, so
// that memory holds what a run needs of every sample (its id, the fields
// it has, its metadata) and the texts of the few samples being judged,
// not the whole dataset's. Loading with Options.Spool puts each sample in
// the spool as it is read; Get reads one back. A Spool is safe for
// concurrent use.
//
// Samples are numbered by position: the first Put is sample 0 (for a
// dataset, its samples' order), and memory keeps 16 bytes a sample to
// find them.
type Spool struct {
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	size int64
	at   chunks[spooled] // by position; n == 0: none
	err  error
	buf  []byte
	// present holds one fields-present map per distinct set of fields:
	// the samples kept in memory share them (read only).
	present map[uint64]map[metrics.Field]bool
}

// spooled locates a sample in the spool file (n bytes at off; an encoded
// sample is never empty) and says how many retrieved contexts or context
// ids it has, whichever is more (a run caps them before judging).
type spooled struct {
	off  int64
	n    uint32
	most uint32
}

// NewSpool creates a spool in a new temporary file of dir ("" is the
// default temporary directory). Close removes it.
func NewSpool(dir string) (*Spool, error) {
	f, err := os.CreateTemp(dir, "raggate-samples-*.bin")
	if err != nil {
		return nil, fmt.Errorf("create the samples' temporary file: %w", err)
	}
	return &Spool{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Put writes s to the spool as the next sample (position Len() before
// the call) and returns what memory keeps of it: its id, the fields it
// has and its metadata, without texts. Its fields-present map is shared
// with the samples that have the same fields: do not change it (clone it
// first, as metrics.Sample's setters on a copy would not).
func (sp *Spool) Put(s metrics.Sample) (metrics.Sample, error) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if err := sp.write(sp.at.len(), &s); err != nil {
		return metrics.Sample{}, err
	}
	return metrics.Sample{ID: s.ID, Present: sp.shared(s.Present), Metadata: s.Metadata}, nil
}

// add writes *s to the spool as the next sample, keeping nothing of it in
// memory but its place (a dataset's load keeps the rest; see light).
func (sp *Spool) add(s *metrics.Sample) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.write(sp.at.len(), s)
}

// flush writes out what the spool holds in memory, and lets go of its
// buffer until the next write (a dataset's load is over: Get reads,
// writes are rare).
func (sp *Spool) flush() error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.err != nil || sp.w == nil {
		return sp.err
	}
	if err := sp.w.Flush(); err != nil {
		sp.err = fmt.Errorf("write the samples' temporary file: %w", err)
		return sp.err
	}
	sp.w = nil
	return nil
}

// Set writes s to the spool as sample i, replacing the sample i held.
func (sp *Spool) Set(i int, s metrics.Sample) error {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.write(i, &s)
}

// write writes s as sample i; sp.mu must be held.
func (sp *Spool) write(i int, s *metrics.Sample) error {
	if sp.err != nil {
		return sp.err
	}
	if i < 0 {
		return fmt.Errorf("sample %d is not in the samples' temporary file", i)
	}
	sp.buf = encodeSample(sp.buf[:0], s)
	if len(sp.buf) > math.MaxUint32 {
		return fmt.Errorf("a sample of %d bytes is too large for the samples' temporary file", len(sp.buf))
	}
	if sp.w == nil {
		sp.w = bufio.NewWriterSize(sp.f, 256<<10)
	}
	if _, err := sp.w.Write(sp.buf); err != nil {
		sp.err = fmt.Errorf("write the samples' temporary file: %w", err)
		return sp.err
	}
	sp.at.extend(i + 1)
	// A list's count fits: each item takes a byte of the encoding at least.
	*sp.at.at(i) = spooled{off: sp.size, n: uint32(len(sp.buf)), most: uint32(max(len(s.RetrievedContexts), len(s.RetrievedContextIDs)))}
	sp.size += int64(len(sp.buf))
	return nil
}

// Len is the number of positions the spool holds (the last sample's,
// plus one).
func (sp *Spool) Len() int {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.at.len()
}

// shared returns the map of sp equal to present; sp.mu must be held.
func (sp *Spool) shared(present map[metrics.Field]bool) map[metrics.Field]bool {
	var bits uint64
	for i, f := range metrics.Fields {
		if present[f] {
			bits |= 1 << i
		}
	}
	if len(present) != mbits.OnesCount64(bits) {
		return present // a field outside metrics.Fields: keep its own
	}
	if m, ok := sp.present[bits]; ok {
		return m
	}
	if sp.present == nil {
		sp.present = map[uint64]map[metrics.Field]bool{}
	}
	sp.present[bits] = present
	return present
}

// MostContexts returns how many retrieved contexts or retrieved context
// ids sample i has, whichever is more, without reading it back.
func (sp *Spool) MostContexts(i int) int {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if i < 0 || i >= sp.at.len() {
		return 0
	}
	return int(sp.at.at(i).most)
}

// Get reads sample i back, whole.
func (sp *Spool) Get(i int) (metrics.Sample, error) {
	sp.mu.Lock()
	var e spooled
	if i >= 0 && i < sp.at.len() {
		e = *sp.at.at(i)
	}
	ok := e.n > 0
	err := sp.err
	if ok && err == nil && sp.w != nil {
		if ferr := sp.w.Flush(); ferr != nil {
			sp.err = fmt.Errorf("write the samples' temporary file: %w", ferr)
			err = sp.err
		}
	}
	sp.mu.Unlock()
	if err != nil {
		return metrics.Sample{}, err
	}
	if !ok {
		return metrics.Sample{}, fmt.Errorf("sample %d is not in the samples' temporary file", i)
	}
	b := make([]byte, e.n)
	if _, err := sp.f.ReadAt(b, e.off); err != nil {
		return metrics.Sample{}, fmt.Errorf("read the samples' temporary file: %w", err)
	}
	s, err := decodeSample(b)
	if err != nil {
		return metrics.Sample{}, fmt.Errorf("read the samples' temporary file: %w", err)
	}
	return s, nil
}

// Close removes the spool's file.
func (sp *Spool) Close() error {
	if sp == nil {
		return nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.f == nil {
		return nil
	}
	err := errors.Join(sp.f.Close(), os.Remove(sp.f.Name()))
	sp.f = nil
	sp.at = chunks[spooled]{}
	if sp.err == nil {
		sp.err = errors.New("the samples' temporary file is closed")
	}
	return err
}

// The encoding of a sample: its fields present as a bit set over
// metrics.Fields, then each string as a uvarint length and its bytes, each
// list as a uvarint count and its strings, then the metadata as a count
// and sorted key, value pairs.
func encodeSample(b []byte, s *metrics.Sample) []byte {
	var present uint64
	for i, f := range metrics.Fields {
		if s.Has(f) {
			present |= 1 << i
		}
	}
	b = binary.AppendUvarint(b, present)
	str := func(v string) {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	list := func(v []string) {
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, x := range v {
			str(x)
		}
	}
	str(s.ID)
	str(s.UserInput)
	str(s.Response)
	str(s.Reference)
	list(s.RetrievedContexts)
	list(s.ReferenceContexts)
	list(s.RetrievedContextIDs)
	list(s.ReferenceContextIDs)
	keys := make([]string, 0, len(s.Metadata))
	for k := range s.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		str(k)
		str(s.Metadata[k])
	}
	return b
}

// decodeSample reverses encodeSample.
func decodeSample(b []byte) (metrics.Sample, error) {
	var s metrics.Sample
	var err error
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			err = io.ErrUnexpectedEOF
			return 0
		}
		b = b[n:]
		return v
	}
	str := func() string {
		n := uv()
		if err != nil || n > uint64(len(b)) {
			err = io.ErrUnexpectedEOF
			return ""
		}
		v := string(b[:n])
		b = b[n:]
		return v
	}
	list := func() []string {
		n := uv()
		if err != nil || n > uint64(len(b)) {
			err = io.ErrUnexpectedEOF
			return nil
		}
		if n == 0 {
			return nil
		}
		v := make([]string, n)
		for i := range v {
			v[i] = str()
		}
		return v
	}
	present := uv()
	s.ID = str()
	s.UserInput = str()
	s.Response = str()
	s.Reference = str()
	s.RetrievedContexts = list()
	s.ReferenceContexts = list()
	s.RetrievedContextIDs = list()
	s.ReferenceContextIDs = list()
	if n := uv(); n > 0 && err == nil {
		s.Metadata = make(map[string]string, n)
		for range n {
			k := str()
			s.Metadata[k] = str()
		}
	}
	if err != nil {
		return metrics.Sample{}, err
	}
	for i, f := range metrics.Fields {
		if present&(1<<i) != 0 {
			if s.Present == nil {
				s.Present = make(map[metrics.Field]bool, len(metrics.Fields))
			}
			s.Present[f] = true
		}
	}
	// A list present but empty reads back empty, not nil, as it loaded.
	lists := []struct {
		f metrics.Field
		v *[]string
	}{
		{metrics.RetrievedContexts, &s.RetrievedContexts},
		{metrics.ReferenceContexts, &s.ReferenceContexts},
		{metrics.RetrievedContextIDs, &s.RetrievedContextIDs},
		{metrics.ReferenceContextIDs, &s.ReferenceContextIDs},
	}
	for _, l := range lists {
		if *l.v == nil && s.Present[l.f] {
			*l.v = []string{}
		}
	}
	return s, nil
}
