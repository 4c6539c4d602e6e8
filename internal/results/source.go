package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// SampleSource gives a file's samples one at a time, from wherever they
// wait (a temporary file): a run of 40,000 samples writes its results
// without holding their records in memory.
type SampleSource interface {
	// Len is the number of samples.
	Len() int
	// Sample returns sample i (0 <= i < Len), whole: the caller may
	// change it.
	Sample(i int) (Sample, error)
}

// SetSampleSource makes src the file's samples: f.Samples must be nil,
// and stays nil until Load. Encode, Len, Each and the methods that count
// over samples read src.
func (f *File) SetSampleSource(src SampleSource) { f.source = src }

// OnDisk reports whether f's samples are read from a SampleSource rather
// than held in f.Samples.
func (f *File) OnDisk() bool { return f.Samples == nil && f.source != nil }

// Len is the number of samples of f, held or on disk.
func (f *File) Len() int {
	if f.OnDisk() {
		return f.source.Len()
	}
	return len(f.Samples)
}

// Each calls fn with every sample of f in order, held or on disk, and
// stops at the first error (of fn or of reading a sample). A sample read
// from disk is a copy: changing it changes nothing in f.
func (f *File) Each(fn func(i int, s *Sample) error) error {
	if !f.OnDisk() {
		for i := range f.Samples {
			if err := fn(i, &f.Samples[i]); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range f.source.Len() {
		s, err := f.source.Sample(i)
		if err != nil {
			return err
		}
		if err := fn(i, &s); err != nil {
			return err
		}
	}
	return nil
}

// Sample returns sample i of f, held or on disk (a copy for a file on
// disk), 0 <= i < Len.
func (f *File) Sample(i int) (Sample, error) {
	if !f.OnDisk() {
		return f.Samples[i], nil
	}
	return f.source.Sample(i)
}

// each is Each for the counting methods: a sample that cannot be read
// back is skipped (the write of the file reports the error).
func (f *File) each(fn func(s *Sample)) {
	_ = f.Each(func(_ int, s *Sample) error { fn(s); return nil })
}

// Load reads the samples of a file on disk into f.Samples (nothing to do
// for a file held in memory).
func (f *File) Load() error {
	if !f.OnDisk() {
		return nil
	}
	out := make([]Sample, 0, f.source.Len())
	err := f.Each(func(_ int, s *Sample) error {
		out = append(out, *s)
		return nil
	})
	if err != nil {
		return err
	}
	f.Samples = out
	return nil
}

// Records keeps results samples in a temporary file, in the order they
// are added, for a SampleSource: memory holds 12 bytes a sample. When the
// temporary file cannot be created, the records wait in memory, encoded.
// Add is not safe for concurrent use; Sample is, with itself.
type Records struct {
	mu   sync.Mutex
	file *os.File
	// mem holds the records that are not in the file (all of them when
	// there is none, and those after a write failed: a full disk must
	// not cost the run).
	mem map[int][]byte
	off []int64
	n   []uint32
	end int64
	buf bytes.Buffer
}

// NewRecords creates the records' temporary file in dir (the system's
// temporary directory when empty); without one, the records are kept in
// memory. Close removes the file.
func NewRecords(dir string) *Records {
	f, err := os.CreateTemp(dir, "raggate-records-*.jsonl")
	if err != nil {
		return &Records{}
	}
	return &Records{file: f}
}

// Add appends s.
func (r *Records) Add(s *Sample) error {
	r.buf.Reset()
	enc := json.NewEncoder(&r.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("record sample %s: %w", s.ID, err)
	}
	b := r.buf.Bytes()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file != nil {
		if _, err := r.file.WriteAt(b, r.end); err == nil {
			r.off = append(r.off, r.end)
			r.n = append(r.n, uint32(len(b)))
			r.end += int64(len(b))
			return nil
		}
	}
	if r.mem == nil {
		r.mem = map[int][]byte{}
	}
	r.mem[len(r.n)] = bytes.Clone(b)
	r.off = append(r.off, -1)
	r.n = append(r.n, uint32(len(b)))
	return nil
}

// Len is the number of records added.
func (r *Records) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.n)
}

// Sample reads record i back.
func (r *Records) Sample(i int) (Sample, error) {
	r.mu.Lock()
	if i < 0 || i >= len(r.n) {
		r.mu.Unlock()
		return Sample{}, fmt.Errorf("record %d of %d", i, len(r.n))
	}
	var b []byte
	if r.off[i] < 0 {
		b = r.mem[i]
		r.mu.Unlock()
	} else {
		off, n := r.off[i], r.n[i]
		r.mu.Unlock()
		b = make([]byte, n)
		if _, err := r.file.ReadAt(b, off); err != nil {
			return Sample{}, fmt.Errorf("read back record %d from the temporary directory: %w", i, err)
		}
	}
	var s Sample
	if err := json.Unmarshal(b, &s); err != nil {
		return Sample{}, fmt.Errorf("read back record %d: %w", i, err)
	}
	return s, nil
}

// Close removes the temporary file.
func (r *Records) Close() error {
	if r == nil || r.file == nil {
		return nil
	}
	name := r.file.Name()
	err := r.file.Close()
	if rerr := os.Remove(name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}

// tally is what the checks of a finished run count over its samples
// (TooManyUndefined, Scored, TargetFailures, DataOnly), counted in one
// pass: a file on disk is read once for all of them, not once each.
type tally struct {
	judge  map[string]*undefinedCount // metric -> judge-kind undefined scores
	scored int
	// undefined counts the reasons of every undefined score.
	undefined map[string]int
	targetN   int
	targetID  string
	targetWhy string
	// dataOnly: every score undefined, all of kind data; data counts
	// their reasons per metric.
	dataOnly bool
	data     map[string]map[string]int
}

func (t *tally) add(s *Sample) {
	for m, v := range s.Scores {
		if !v.IsNaN() {
			t.scored++
			t.dataOnly = false
			continue
		}
		r, ok := s.Undefined[m]
		if ok {
			t.undefined[r]++
		}
		switch s.KindOf(m) {
		case KindJudge:
			c := t.judge[m]
			if c == nil {
				c = &undefinedCount{reasons: map[string]int{}}
				t.judge[m] = c
			}
			c.n++
			c.reasons[r]++
			t.dataOnly = false
		case KindData:
			if t.dataOnly {
				if t.data[m] == nil {
					t.data[m] = map[string]int{}
				}
				t.data[m][r]++
			}
		default:
			t.dataOnly = false
		}
	}
	if r, failed := s.targetFailure(); failed {
		if t.targetN == 0 {
			t.targetID, t.targetWhy = s.ID, r
		}
		t.targetN++
	}
}

// counts returns the tally of f's samples: counted once and kept for a
// file on disk (its samples do not change), counted afresh for one in
// memory (its samples may have).
func (f *File) counts() *tally {
	if f.OnDisk() && f.tallied != nil {
		return f.tallied
	}
	t := &tally{judge: map[string]*undefinedCount{}, undefined: map[string]int{}, dataOnly: true, data: map[string]map[string]int{}}
	f.each(t.add)
	if f.OnDisk() {
		f.tallied = t
	}
	return t
}

// DataOnly reports whether every score of f is undefined for want of data
// (kind data), with the reasons of each metric's (metric -> reason ->
// samples); false when f has no samples or no scores.
func (f *File) DataOnly() (bool, map[string]map[string]int) {
	t := f.counts()
	if !t.dataOnly || len(t.data) == 0 {
		return false, nil
	}
	return true, t.data
}
