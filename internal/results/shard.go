package results

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/raggate/raggate/metrics"
)

// ParseShard parses "i/n" (1 <= i <= n).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("shard %q: want i/n with 1 <= i <= n, e.g. 2/8", s)
	}
	return i, n, nil
}

// ShardOf selects the samples of shard i of n by a hash of their id, so a
// sample stays in its shard when others are added or removed.
func ShardOf(samples []metrics.Sample, i, n int) []metrics.Sample {
	var out []metrics.Sample
	for _, s := range samples {
		if InShard(s.ID, i, n) {
			out = append(out, s)
		}
	}
	return out
}

// InShard reports whether the sample id belongs to shard i (1-based) of n.
func InShard(id string, i, n int) bool {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32()%uint32(n)) == i-1
}
