package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/raggate/raggate/internal/dataset"
)

// Limits are the dataset size limits (--max-line-size, --max-dataset-size).
type Limits struct {
	MaxLineSize    sizeFlag
	MaxDatasetSize sizeFlag
}

func defaultLimits() Limits {
	return Limits{MaxLineSize: dataset.DefaultMaxLineBytes, MaxDatasetSize: dataset.DefaultMaxBytes}
}

func (o *Options) bindLimits(fs *flag.FlagSet) {
	fs.Var(&o.Limits.MaxLineSize, "max-line-size", "longest line of a JSON Lines dataset, one sample (`size`, e.g. 64M; 0: no limit)")
	fs.Var(&o.Limits.MaxDatasetSize, "max-dataset-size", "largest dataset or responses file (`size`, e.g. 4G; 0: no limit)")
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

// sizeFlag is a byte count written as a number with an optional K, M or
// G suffix (powers of 1024; KB, KiB, MB, MiB, GB and GiB are read alike).
type sizeFlag int64

func (s *sizeFlag) String() string { return dataset.Size(int64(*s)) }

func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
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
