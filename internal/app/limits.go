package app

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/raggate/raggate/internal/dataset"
	"github.com/raggate/raggate/metrics"
)

// Limits are the dataset size limits (--max-line-size, --max-dataset-size)
// and the contexts judged per sample (--max-contexts).
type Limits struct {
	MaxLineSize    Size
	MaxDatasetSize Size
	MaxContexts    int
}

// DefaultMaxContexts is the default of --max-contexts: an LLM judge makes
// up to 2N + 10 calls for a sample of N retrieved contexts.
const DefaultMaxContexts = 50

// DefaultLimits are the limits before any flag or input.
func DefaultLimits() Limits {
	return Limits{MaxLineSize: dataset.DefaultMaxLineBytes, MaxDatasetSize: dataset.DefaultMaxBytes, MaxContexts: DefaultMaxContexts}
}

// capContexts keeps the first --max-contexts retrieved contexts (and
// context ids) of each sample; it returns a warning when it cut any ("":
// none).
func capContexts(limit int, samples []metrics.Sample) string {
	var c capCount
	for i := range samples {
		c.apply(limit, &samples[i])
	}
	return c.note(limit, len(samples))
}

// capCount counts the samples whose contexts --max-contexts cut.
type capCount struct {
	mu        sync.Mutex
	cut, most int
}

// apply cuts s's retrieved contexts and their ids to limit (0: none).
func (c *capCount) apply(limit int, s *metrics.Sample) {
	if limit <= 0 {
		return
	}
	n := max(len(s.RetrievedContexts), len(s.RetrievedContextIDs))
	c.mu.Lock()
	if n > limit {
		c.cut++
		c.most = max(c.most, n)
	}
	c.mu.Unlock()
	if len(s.RetrievedContexts) > limit {
		s.RetrievedContexts = s.RetrievedContexts[:limit:limit]
	}
	if len(s.RetrievedContextIDs) > limit {
		s.RetrievedContextIDs = s.RetrievedContextIDs[:limit:limit]
	}
}

// note is the warning of the cut (see capContexts), "" when none.
func (c *capCount) note(limit, total int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return capNote(c.cut, total, limit, c.most)
}

// capNote is the warning of --max-contexts limit cutting the contexts of
// cut of total samples, most being the most any had; "" when none.
func capNote(cut, total, limit, most int) string {
	if cut == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d samples have more than %d retrieved contexts (up to %d): only their first %d are judged; raise --max-contexts to judge more (0: no limit)",
		cut, total, limit, most, limit)
}

// spooledCapNote is the warning of --max-contexts for the n samples of a
// run kept on disk (sample i at position at[i], at nil: at i), counted
// without reading them back (the cut happens as they are).
func spooledCapNote(limit int, sp *dataset.Spool, n int, at []int32) string {
	if limit <= 0 {
		return ""
	}
	cut, most := 0, 0
	for i := range n {
		k := i
		if at != nil {
			k = int(at[i])
		}
		if c := sp.MostContexts(k); c > limit {
			cut++
			most = max(most, c)
		}
	}
	return capNote(cut, n, limit, most)
}

// dataset returns the limits for the dataset package.
func (l Limits) dataset() dataset.Limits {
	lim := dataset.Limits{MaxLineBytes: int(l.MaxLineSize), MaxBytes: int64(l.MaxDatasetSize)}
	if lim.MaxLineBytes == 0 {
		lim.MaxLineBytes = -1
	}
	if lim.MaxBytes == 0 {
		lim.MaxBytes = -1
	}
	return lim
}

// Size is a byte count written as a number with an optional K, M or
// G suffix (powers of 1024; KB, KiB, MB, MiB, GB and GiB are read alike).
type Size int64

func (s *Size) String() string { return dataset.Size(int64(*s)) }

func (s *Size) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}

func parseSize(v string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(v))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	shift := 0
	if t != "" {
		switch t[len(t)-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		}
	}
	if shift > 0 {
		t = strings.TrimSpace(t[:len(t)-1])
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("want a size in bytes such as 512K, 64M or 2G (0: no limit), not %q", v)
	}
	return n << shift, nil
}
