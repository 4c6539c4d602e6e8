package results

import (
	"fmt"
	"testing"

	"github.com/raggate/raggate/metrics"
)

// Every sample is in exactly one shard, and stays in it when others are
// added (the shard depends on the id only).
func TestShardOf(t *testing.T) {
	var samples []metrics.Sample
	for k := range 50 {
		samples = append(samples, metrics.Sample{ID: fmt.Sprintf("q-%03d", k)})
	}
	const n = 4
	seen := map[string]int{}
	for i := 1; i <= n; i++ {
		part := ShardOf(samples, i, n)
		if len(part) == 0 || len(part) == len(samples) {
			t.Errorf("shard %d/%d holds %d of %d samples", i, n, len(part), len(samples))
		}
		for _, s := range part {
			seen[s.ID]++
			if !InShard(s.ID, i, n) {
				t.Errorf("%s in ShardOf %d but not InShard", s.ID, i)
			}
			grown := ShardOf(append([]metrics.Sample{{ID: "new"}}, s), i, n)
			if len(grown) == 0 || grown[len(grown)-1].ID != s.ID {
				t.Errorf("%s left shard %d when a sample was added", s.ID, i)
			}
		}
	}
	for _, s := range samples {
		if seen[s.ID] != 1 {
			t.Errorf("%s is in %d shards, want 1", s.ID, seen[s.ID])
		}
	}
	// The hash (FNV-1a of the id) is part of the format: shards of one run
	// made by two versions of raggate must still merge.
	for id, want := range map[string]int{"q-001": 7, "q-002": 4, "q-003": 1} {
		if !InShard(id, want, 8) {
			t.Errorf("%s is not in shard %d/8 any more", id, want)
		}
	}
}

func TestTooManyUndefined(t *testing.T) {
	sample := func(id, reason string, kind UndefinedKind) Sample {
		s := Sample{ID: id, Scores: map[string]Score{"faithfulness": 0.5}}
		if reason != "" {
			s.Scores["faithfulness"] = NaN()
			s.Undefined = map[string]string{"faithfulness": reason}
			if kind != "" {
				s.UndefinedKind = map[string]UndefinedKind{"faithfulness": kind}
			}
		}
		return s
	}
	tests := []struct {
		name    string
		samples []Sample
		limit   float64
		want    string
	}{
		{"judge failures over the limit", []Sample{sample("a", "timeout", KindJudge), sample("b", "refused", KindJudge), sample("c", "refused", KindJudge), sample("d", "", "")}, 0.5,
			"too many samples unscored: faithfulness undefined for 3 of 4 samples (most often: refused)"},
		{"a tie names the first reason", []Sample{sample("a", "timeout", KindJudge), sample("b", "refused", KindJudge)}, 0.5,
			"too many samples unscored: faithfulness undefined for 2 of 2 samples (most often: refused)"},
		{"a rarer reason that sorts first is not named", []Sample{sample("a", "abort", KindJudge), sample("b", "refused", KindJudge), sample("c", "refused", KindJudge)}, 0.5,
			"too many samples unscored: faithfulness undefined for 3 of 3 samples (most often: refused)"},
		{"at the limit", []Sample{sample("a", "timeout", KindJudge), sample("b", "", "")}, 0.5, ""},
		{"data and metric kinds do not count", []Sample{sample("a", "missing field reference", KindData), sample("b", "no statements in response", KindMetric)}, 0, ""},
		{"old files: classified from the reason", []Sample{sample("a", "missing field reference", ""), sample("b", "invalid output", "")}, 0.4,
			"too many samples unscored: faithfulness undefined for 1 of 2 samples (most often: invalid output)"},
		{"limit 1 accepts everything", []Sample{sample("a", "timeout", KindJudge)}, 1, ""},
		{"no samples", nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &File{Config: Config{Metrics: []string{"faithfulness"}}, Samples: tt.samples}
			// The reasons are counted in a map: repeat so that every
			// iteration order is likely seen (the answer must not depend on it).
			for range 50 {
				if got := f.TooManyUndefined(tt.limit); got != tt.want {
					t.Fatalf("TooManyUndefined(%v) = %q, want %q", tt.limit, got, tt.want)
				}
			}
		})
	}
}

func TestShortHash(t *testing.T) {
	for h, want := range map[string]string{
		"0123456789abcdef0123456789abcdef01234567": "0123456789ab",
		"0123456789ab": "0123456789ab",
		"abc":          "abc",
		"":             "",
	} {
		if got := ShortHash(h); got != want {
			t.Errorf("ShortHash(%q) = %q, want %q", h, got, want)
		}
	}
}
