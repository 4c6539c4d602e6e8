package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// Spill keeps the texts of a run's samples in a temporary file rather
// than in memory, until the results file is written: memory holds only an
// index (an offset and a length per sample). It is safe for concurrent
// use.
type Spill struct {
	mu    sync.Mutex
	file  *os.File
	index map[string]span
	end   int64
	err   error
}

type span struct {
	off int64
	n   int
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

// NewSpill creates the temporary file in dir (the system's temporary
// directory when empty). Close removes it.
func NewSpill(dir string) (*Spill, error) {
	f, err := os.CreateTemp(dir, "raggate-texts-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTexts, err)
	}
	return &Spill{file: f, index: map[string]span{}}, nil
}

// Put records the texts of sample id (the last Put of an id wins), the
// evidence within its per-sample budget (BoundTexts). A write error is
// kept and returned by every later Get.
func (s *Spill) Put(id string, t Texts) {
	if t.Empty() {
		return
	}
	b, err := json.Marshal(spilled(BoundTexts(t)))
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
	s.index[id] = span{off: s.end, n: len(b)}
	s.end += int64(len(b))
}

// Drop forgets the texts of sample id: the results record none for it.
func (s *Spill) Drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.index, id)
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
	s.mu.Lock()
	sp, ok := s.index[id]
	err := s.err
	s.mu.Unlock()
	if err != nil || !ok {
		return Texts{}, false, err
	}
	b := make([]byte, sp.n)
	if _, err := s.file.ReadAt(b, sp.off); err != nil {
		return Texts{}, false, fmt.Errorf("%w: %w", ErrTexts, err)
	}
	var t spilled
	if err := json.Unmarshal(b, &t); err != nil {
		return Texts{}, false, fmt.Errorf("%w: %w", ErrTexts, err)
	}
	return Texts(t), true, nil
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
