package importer

// TEMPORARY (issue 26, branch imp-wiring): a minimal reader of the generic
// table format (CSV: an id column and one numeric column per metric), so
// that the commands and the action can be wired and tested before the
// real readers land. The real readers replace it: delete this file and the
// stubRead/stubSniff hooks of importer.go when they do.

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/results"
	"github.com/raggate/raggate/metrics"
)

func init() {
	stubRead = stubReadTable
	stubSniff = stubSniffTable
}

// stubSniffTable says a CSV whose header has an id column is a table.
func stubSniffTable(data []byte) (Format, bool) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	line, _, _ := bytes.Cut(data, []byte("\n"))
	for _, c := range strings.Split(strings.TrimSpace(string(line)), ",") {
		if strings.TrimSpace(c) == "id" {
			return Table, true
		}
	}
	return Auto, false
}

func stubReadTable(path string, opt Options) (*results.File, Format, error) {
	bad := func(line int, format string, args ...any) (*results.File, Format, error) {
		return nil, "", &Error{File: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	switch opt.Format {
	case Auto:
		if _, ok := stubSniffTable(data); !ok {
			return bad(0, "not a scores file of a known shape: expected a Ragas export, a promptfoo eval output, a DeepEval test run or a table (CSV with an id column and one numeric column per metric); give --format to force one")
		}
	case Table:
	default:
		return bad(0, "the %s reader is not available yet", opt.Format)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return bad(1, "no header row: %v", err)
	}
	idCol := -1
	var cols []string
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		if h == "id" {
			idCol = i
		}
	}
	if idCol < 0 {
		return bad(1, "no id column: the table needs one, naming each sample")
	}
	f := &results.File{Schema: results.Schema, Tool: results.Tool{Name: "table"}, CreatedAt: time.Unix(0, 0).UTC(),
		Dataset: results.Dataset{Path: path}, Summary: map[string]results.Sum{}}
	user := map[string]bool{}
	for i, h := range header {
		if i == idCol {
			continue
		}
		name := h
		if m, ok := metrics.Lookup(h); ok {
			name = m.Name
		} else {
			user[name] = true
		}
		cols = append(cols, name)
	}
	seen := map[string]int{}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return bad(line, "%v", err)
		}
		if len(rec) != len(header) {
			return bad(line, "%d cells, the header has %d", len(rec), len(header))
		}
		id := strings.TrimSpace(rec[idCol])
		if id == "" {
			return bad(line, "empty id")
		}
		if prev, dup := seen[id]; dup {
			return bad(line, "duplicate id %q, first at line %d", id, prev)
		}
		seen[id] = line
		s := results.Sample{ID: id, Scores: map[string]results.Score{}}
		j := 0
		for i, cell := range rec {
			if i == idCol {
				continue
			}
			m := cols[j]
			j++
			cell = strings.TrimSpace(cell)
			if cell == "" || strings.EqualFold(cell, "nan") {
				s.Scores[m] = results.NaN()
				if s.Undefined == nil {
					s.Undefined, s.UndefinedKind = map[string]string{}, map[string]results.UndefinedKind{}
				}
				s.Undefined[m], s.UndefinedKind[m] = "no score in the table", results.KindJudge
				continue
			}
			x, err := strconv.ParseFloat(cell, 64)
			if err != nil || math.IsInf(x, 0) {
				return bad(line, "column %s: %q is not a number", m, cell)
			}
			if cm, ok := metrics.Lookup(m); ok {
				if lo, hi := cm.ScoreRange(); x < lo || x > hi {
					return bad(line, "column %s: %v is outside [%v, %v]", m, x, lo, hi)
				}
			}
			s.Scores[m] = results.Score(x)
		}
		f.Samples = append(f.Samples, s)
	}
	names := append([]string(nil), cols...)
	sort.Strings(names)
	for _, m := range names {
		if user[m] {
			f.UserMetrics = append(f.UserMetrics, metrics.Definition{Name: m, Kind: metrics.KindNumeric, Reads: []string{m},
				Description: "a column of the imported table"})
		}
	}
	f.Config.Metrics = cols
	f.Config.Repeats = 1
	f.Dataset.Samples = len(f.Samples)
	f.Summary = results.Summarize(cols, f.Samples)
	sum := sha256.Sum256([]byte("import table"))
	f.Judge = results.Judge{Provider: "table", Prompts: "", Fingerprint: hex.EncodeToString(sum[:8])}
	return f, Table, nil
}
