package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/raggate/raggate/metrics"
)

// Limits on the metadata kept per sample, so that a huge column does not
// bloat results files.
const (
	// MaxMetadataKeys is the number of metadata keys kept per sample; the
	// keys after it (in file order) are dropped with a warning.
	MaxMetadataKeys = 32
	// MaxMetadataValue is the size in bytes a metadata value is cut to; a
	// cut value ends with TruncatedMark.
	MaxMetadataValue = 1024
)

// TruncatedMark ends a metadata value cut to MaxMetadataValue bytes.
const TruncatedMark = "…[truncated]"

// metaNotes records what metadata was cut or dropped in a file, for its
// warnings.
type metaNotes struct {
	truncated map[string]bool
	dropped   map[string]bool
}

// addMeta stores the metadata entry e in s, within the limits. A null (or
// an empty CSV cell) gives no value.
func (c *converter) addMeta(s *metrics.Sample, e entry) {
	if e.v.kind == vNull || e.v.kind == vCell && e.v.s == "" {
		return
	}
	if _, ok := s.Metadata[e.key]; !ok && len(s.Metadata) >= MaxMetadataKeys {
		c.notes.drop(e.key)
		return
	}
	text := e.v.s
	if len(text) > MaxMetadataValue {
		text = truncate(text)
		c.notes.truncate(e.key)
	}
	if s.Metadata == nil {
		s.Metadata = make(map[string]string)
	}
	s.Metadata[e.key] = text
}

// truncate cuts s to MaxMetadataValue bytes at a character boundary and
// appends TruncatedMark.
func truncate(s string) string {
	n := MaxMetadataValue
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + TruncatedMark
}

func (n *metaNotes) truncate(key string) {
	if n.truncated == nil {
		n.truncated = make(map[string]bool)
	}
	n.truncated[key] = true
}

func (n *metaNotes) drop(key string) {
	if n.dropped == nil {
		n.dropped = make(map[string]bool)
	}
	n.dropped[key] = true
}

// warnings explains what was cut or dropped in file.
func (n *metaNotes) warnings(file string) []string {
	var out []string
	if len(n.truncated) > 0 {
		out = append(out, fmt.Sprintf("%s: metadata values longer than %d bytes are cut (columns %s)",
			file, MaxMetadataValue, quoted(n.truncated)))
	}
	if len(n.dropped) > 0 {
		out = append(out, fmt.Sprintf("%s: a sample keeps at most %d metadata columns; not kept: %s",
			file, MaxMetadataKeys, quoted(n.dropped)))
	}
	return out
}

func quoted(keys map[string]bool) string {
	var q []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		q = append(q, short(k))
	}
	return list(q)
}

// mergeMeta adds the metadata of a responses row to a sample's: the row's
// values replace the golden file's.
func (c *converter) mergeMeta(s *metrics.Sample, row map[string]string) {
	if len(row) == 0 {
		return
	}
	merged := maps.Clone(s.Metadata)
	if merged == nil {
		merged = make(map[string]string, len(row))
	}
	for _, k := range slices.Sorted(maps.Keys(row)) {
		if _, ok := merged[k]; !ok && len(merged) >= MaxMetadataKeys {
			c.notes.drop(k)
			continue
		}
		merged[k] = row[k]
	}
	s.Metadata = merged
}

// metaValue decodes the valid JSON value r.data[i:j] as metadata text:
// strings as they are, numbers and booleans as written, lists and objects
// as compact JSON.
func (r *reader) metaValue(i, j int) value {
	raw := r.data[i:j]
	switch rawKind(raw) {
	case vNull:
		return value{kind: vNull}
	case vString:
		return value{kind: vString, s: decodeString(r.data, i, j)}
	case vObject, vList:
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err == nil {
			return value{kind: vString, s: b.String()}
		}
	}
	return value{kind: vString, s: strings.TrimSpace(string(raw))}
}
