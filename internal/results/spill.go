package results

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"slices"
	"sync"
)

// Spill keeps the texts of a run's samples in a temporary file rather
// than in memory, until the results file is written: memory holds only an
// index of 20 bytes a record (a hash of its sample's id, its offset and
// its place in the order of the hashes). Each record holds its id too,
// so that a hash shared by two ids never mixes their texts. It is safe
// for concurrent use.
type Spill struct {
	mu   sync.Mutex
	file *os.File
	// key hashes an id (maphash; tests make ids share hashes).
	key func(id string) uint64
	// keys and offs are the records in the order written (the order of
	// the file): the hash of each one's id and its offset; a record ends
	// where the next begins (the last, at end).
	keys []uint64
	offs []int64
	// byKey orders the records by key, then as written; sorted says it
	// is up to date (a Put after it was sorted makes it stale).
	byKey  []int32
	sorted bool
	// dropped are the records Drop forgot.
	dropped map[int32]bool
	end     int64
	err     error
}

// ErrTexts is wrapped by every error of a Spill: the temporary file of
// the texts cannot be created, written or read (a full or unwritable
// temporary directory). A run can still write its results without texts.
var ErrTexts = errors.New("texts of the samples")

// spilled is the on-disk form of Texts.
type spilled struct {
	Response string                `json:"r,omitempty"`
	Contexts []string              `json:"c,omitempty"`
	Evidence map[string][]Evidence `json:"e,omitempty"`
}

// record is a record of the file: a sample's id and its texts.
type record struct {
	ID string `json:"i"`
	spilled
}

// NewSpill creates the temporary file in dir (the system's temporary
// directory when empty). Close removes it.
func NewSpill(dir string) (*Spill, error) {
	f, err := os.CreateTemp(dir, "raggate-texts-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTexts, err)
	}
	seed := maphash.MakeSeed()
	return &Spill{file: f, key: func(id string) uint64 { return maphash.String(seed, id) }}, nil
}

// Put records the texts of sample id (the last Put of an id wins), the
// evidence within its per-sample budget (BoundTexts). A write error is
// kept and returned by every later Get.
func (s *Spill) Put(id string, t Texts) {
	if t.Empty() {
		return
	}
	b, err := json.Marshal(record{ID: id, spilled: spilled(BoundTexts(t))})
	key := s.key(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if err == nil {
		_, err = s.file.WriteAt(b, s.end)
	}
	if err != nil {
		s.err = fmt.Errorf("%w: %w", ErrTexts, err)
		return
	}
	s.keys = append(s.keys, key)
	s.offs = append(s.offs, s.end)
	s.byKey = append(s.byKey, int32(len(s.keys)-1))
	s.sorted = false
	s.end += int64(len(b))
}

// Drop forgets the texts of sample id: the results record none for it
// (until a later Put of id).
func (s *Spill) Drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	for _, k := range s.candidates(id) {
		if r, err := s.read(k); err == nil && r.ID == id {
			if s.dropped == nil {
				s.dropped = map[int32]bool{}
			}
			s.dropped[k] = true
		}
	}
}

// candidates returns the records whose key is id's and not dropped, the
// last written first; s.mu must be held.
func (s *Spill) candidates(id string) []int32 {
	if !s.sorted {
		slices.SortStableFunc(s.byKey, func(a, b int32) int { return cmp.Compare(s.keys[a], s.keys[b]) })
		s.sorted = true
	}
	key := s.key(id)
	lo, _ := slices.BinarySearchFunc(s.byKey, key, func(k int32, key uint64) int { return cmp.Compare(s.keys[k], key) })
	var out []int32
	for j := lo; j < len(s.byKey) && s.keys[s.byKey[j]] == key; j++ {
		if k := s.byKey[j]; !s.dropped[k] {
			out = append(out, k)
		}
	}
	slices.Reverse(out)
	return out
}

// span returns where record k is in the file; s.mu must be held.
func (s *Spill) span(k int32) (off, n int64) {
	end := s.end
	if int(k)+1 < len(s.offs) {
		end = s.offs[k+1]
	}
	return s.offs[k], end - s.offs[k]
}

// read reads record k; s.mu must be held.
func (s *Spill) read(k int32) (record, error) {
	off, n := s.span(k)
	return readRecord(s.file, off, n)
}

// readRecord reads the record of n bytes at off of f.
func readRecord(f *os.File, off, n int64) (record, error) {
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		return record{}, fmt.Errorf("%w: %w", ErrTexts, err)
	}
	var r record
	if err := json.Unmarshal(b, &r); err != nil {
		return record{}, fmt.Errorf("%w: %w", ErrTexts, err)
	}
	return r, nil
}

// Err returns the first write error, if any: from then on the texts are
// incomplete.
func (s *Spill) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Get returns the texts recorded for sample id; it is a TextSource.
func (s *Spill) Get(id string) (Texts, bool, error) {
	type at struct{ off, n int64 }
	s.mu.Lock()
	err := s.err
	var spans []at
	if err == nil {
		for _, k := range s.candidates(id) {
			off, n := s.span(k)
			spans = append(spans, at{off, n})
		}
	}
	s.mu.Unlock()
	if err != nil {
		return Texts{}, false, err
	}
	for _, sp := range spans {
		r, err := readRecord(s.file, sp.off, sp.n)
		if err != nil {
			return Texts{}, false, err
		}
		if r.ID == id {
			return Texts(r.spilled), true, nil
		}
	}
	return Texts{}, false, nil
}

// Close removes the temporary file.
func (s *Spill) Close() error {
	name := s.file.Name()
	err := s.file.Close()
	if rerr := os.Remove(name); err == nil {
		err = rerr
	}
	return err
}

// withTexts returns s, or a copy of it with the texts of source when s
// holds none.
func withTexts(s *Sample, source TextSource) (*Sample, error) {
	if source == nil || s.HasTexts() {
		return s, nil
	}
	t, ok, err := source(s.ID)
	if err != nil || !ok {
		return s, err
	}
	c := *s
	c.SetTexts(t)
	return &c, nil
}
