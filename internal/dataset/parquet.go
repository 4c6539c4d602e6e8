package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ParquetDecoder reads the rows of a Parquet file. It returns the
// top-level column names in schema order, the number of rows the file's
// metadata declares (read before any row is decoded), and the rows: each one's values
// in column order, as nil (null), string, []byte, bool, an integer or float
// type, time.Time, []any (a list) or map[string]any (a group). The row
// sequence ends at the first error.
type ParquetDecoder func(r io.ReaderAt, size int64) (columns []string, numRows int64, rows iter.Seq2[[]any, error], err error)

// parquetDecoder is the registered decoder, if any.
var parquetDecoder ParquetDecoder

// RegisterParquet makes Load and Parse read Parquet files with d. This
// package does not link a Parquet library itself (it must not reach the
// network stack, and the Parquet libraries' codecs do); importing
// internal/dataset/parquetfile registers one. Call it from an init
// function, before loading anything.
func RegisterParquet(d ParquetDecoder) { parquetDecoder = d }

// parquetMagic starts and ends every Parquet file.
const parquetMagic = "PAR1"

// isParquet reports whether a file is to be read as Parquet: by format,
// else by extension, else (for names without a text format's extension) by
// its magic bytes.
func isParquet(name string, data []byte, f Format) bool {
	if f != FormatAuto {
		return f == FormatParquet
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".parquet":
		return true
	case ".csv", ".json", ".jsonl", ".ndjson":
		return false
	}
	return bytes.HasPrefix(data, []byte(parquetMagic))
}

// readParquet reads a Parquet file's rows as records, numbered from 1.
// Columns are resolved once, like a CSV header. What the rows decode to is
// bounded as a JSON Lines file is (see decodedLimits).
func readParquet(name string, data []byte, lim Limits, res *resolver, ps *problems, keys map[string]bool, emit func(record)) int {
	if parquetDecoder == nil {
		ps.add(Problem{File: name, Msg: "this build of raggate cannot read Parquet; convert the file to JSON Lines or CSV"})
		return 0
	}
	cols, numRows, rows, err := parquetDecoder(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		ps.add(Problem{File: name, Msg: fmt.Sprintf("not a readable Parquet file (%v); check that the file is complete, or export it again", err)})
		return 0
	}
	if max := lim.total(); max >= 0 && numRows > max/rowCost {
		ps.add(Problem{File: name, Msg: fmt.Sprintf("the file has %d rows (its metadata says), at most %d (one per KiB of --max-dataset-size, %s); is it the right file? To load a larger dataset raise --max-dataset-size (0: no limit)",
			numRows, max/rowCost, Size(max))})
		return 0
	}
	targets, ok := parquetColumns(name, cols, res, ps, keys)
	if !ok {
		return 0
	}
	n, row := 0, 0
	dl := decodedLimits{lim: lim}
	for vals, err := range rows {
		row++
		if err != nil {
			ps.add(Problem{File: name, Row: row, Msg: fmt.Sprintf("cannot read the row (%v); the file may be damaged: export it again", err)})
			return n
		}
		if msg := dl.add(cols, vals); msg != "" {
			ps.add(Problem{File: name, Row: row, Msg: msg})
			return n
		}
		p := pos{line: row}
		rec := record{p: p}
		for i, v := range vals {
			if i >= len(targets) {
				break
			}
			t := targets[i]
			if t.kind != tField && t.kind != tID && t.kind != tMeta {
				continue
			}
			rec.entries = append(rec.entries, entry{key: cols[i], t: t, kp: p, vp: p, v: parquetValue(v, t.kind == tMeta, p)})
		}
		emit(rec)
		n++
	}
	return n
}

// decodedLimits bound what a Parquet file decodes to, which can be far more
// than the file (dictionary encoding, compression): a row, which is one
// sample as a JSON Lines line is, within the line limit; the decoded
// values of all rows within the file limit; and the rows within one per
// KiB of the file limit (a row costs memory beyond its values).
type decodedLimits struct {
	lim   Limits
	rows  int64
	bytes int64
}

// rowCost is what a row counts for in the row limit: one row per KiB of
// the file limit.
const rowCost = 1 << 10

// add counts a row; it returns what is wrong once a limit is passed.
func (d *decodedLimits) add(cols []string, vals []any) string {
	d.rows++
	var row, biggest int64
	col := ""
	for i, v := range vals {
		n := decodedSize(v)
		row += n
		if n > biggest && i < len(cols) {
			biggest, col = n, cols[i]
		}
	}
	d.bytes += row
	if max := d.lim.line(); max >= 0 && row > int64(max) {
		return fmt.Sprintf("the row decodes to more than %s (column %s alone to %s); a row holds one sample, bounded like a JSON Lines line: is this the right file? For longer samples raise --max-line-size",
			Size(int64(max)), short(col), approxSize(biggest))
	}
	max := d.lim.total()
	switch {
	case max < 0:
	case d.rows > max/rowCost:
		return fmt.Sprintf("the file has more than %d rows (one per KiB of --max-dataset-size, %s); is it the right file? To load a larger dataset raise --max-dataset-size (0: no limit)",
			max/rowCost, Size(max))
	case d.bytes > max:
		return fmt.Sprintf("the rows decode to more than %s; is it the right file? To load a larger dataset raise --max-dataset-size (0: no limit)", Size(max))
	}
	return ""
}

// approxSize is a byte count rounded for a message: "40.0 MiB", "2.0 KiB".
func approxSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// decodedSize is about what a decoded value takes as text: the bytes of
// strings, 8 for a number, the sum of a list's items or a group's keys and
// values.
func decodedSize(v any) int64 {
	switch v := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(v))
	case []byte:
		return int64(len(v))
	case []any:
		n := int64(len(v))
		for _, x := range v {
			n += decodedSize(x)
		}
		return n
	case map[string]any:
		n := int64(len(v))
		for k, x := range v {
			n += int64(len(k)) + decodedSize(x)
		}
		return n
	}
	return 8
}

// parquetColumns resolves the columns, reporting unknown ones; ok is false
// when no column is a field or an id.
func parquetColumns(name string, cols []string, res *resolver, ps *problems, keys map[string]bool) (targets []target, ok bool) {
	targets = make([]target, len(cols))
	known, bad := 0, 0
	for i, c := range cols {
		keys[c] = true
		t := res.resolve(c)
		switch t.kind {
		case tUnknown:
			ps.add(Problem{File: name, Msg: t.msg})
			t = target{kind: tIgnored}
			bad++
		case tField, tID:
			known++
		}
		targets[i] = t
	}
	if known == 0 && bad == 0 {
		ps.add(Problem{File: name, Msg: fmt.Sprintf("no column is a known field (the columns are %s); name them user_input, retrieved_contexts, response, reference, or map them with --field <field>=<column>",
			strings.Join(cols, ", "))})
	}
	return targets, known > 0
}

// parquetValue converts a decoded Parquet value. Metadata values become
// text: lists and groups as compact JSON.
func parquetValue(v any, meta bool, p pos) value {
	if v == nil {
		return value{kind: vNull}
	}
	if meta {
		return value{kind: vString, s: parquetText(v)}
	}
	switch x := v.(type) {
	case string:
		return value{kind: vString, s: x}
	case []byte:
		return value{kind: vString, s: string(x)}
	case bool:
		return value{kind: vBool}
	case time.Time:
		return value{kind: vString, s: x.Format(time.RFC3339Nano)}
	case []any:
		items := make([]item, len(x))
		for i, e := range x {
			iv := parquetValue(e, false, p)
			items[i] = item{kind: iv.kind, s: iv.s, p: p}
		}
		return value{kind: vList, items: items}
	case map[string]any:
		return value{kind: vObject}
	}
	if s, ok := number(v); ok {
		return value{kind: vNumber, s: s}
	}
	return value{kind: vString, s: fmt.Sprint(v)}
}

// parquetText is the metadata text of a non-null value.
func parquetText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case []any, map[string]any:
		// Compact JSON as a JSON Lines column gives: no HTML escapes.
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(x); err == nil {
			return strings.TrimSuffix(b.String(), "\n")
		}
	}
	if s, ok := number(v); ok {
		return s
	}
	return fmt.Sprint(v)
}

// number formats an integer or a finite float as JSON would.
func number(v any) (string, bool) {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x), true
	case int8, int16, int32, int64:
		return fmt.Sprint(x), true
	case uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(x), true
	case float32:
		return number(float64(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Sprint(x), true
		}
		return strconv.FormatFloat(x, 'g', -1, 64), true
	}
	return "", false
}
