package dataset

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readCSV reads a CSV file whose first row is a header naming the fields.
func (r *reader) readCSV() int {
	cr := csv.NewReader(bytes.NewReader(r.data))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return 0
	}
	if err != nil {
		r.csvError(err)
		return 0
	}

	// Resolve the header once; unknown columns are reported here, not per row.
	cols := make([]target, len(header))
	names := make([]string, len(header))
	hpos := make([]pos, len(header))
	var headerProblems []Problem
	known, suggested := 0, 0
	first := make(map[string]int)
	for i, h := range header {
		line, col := cr.FieldPos(i)
		name := strings.TrimSpace(h)
		names[i] = name
		hpos[i] = pos{line, col}
		p := Problem{File: r.file, Line: line, Col: col}
		r.keys[name] = true
		switch t := r.res.resolve(name); {
		case name == "":
			p.Msg = fmt.Sprintf("column %d has no name; name every column in the header row", i+1)
		case first[name] > 0:
			p.Msg = fmt.Sprintf("column %d repeats the name %s of column %d; keep one", i+1, short(name), first[name])
		case t.kind == tUnknown:
			p.Msg = t.msg
			if !strings.Contains(p.Msg, "; rename it to one of") {
				suggested++
			}
		case t.kind == tMeta:
			cols[i] = t
		default:
			cols[i] = t
			known++
		}
		if name != "" && first[name] == 0 {
			first[name] = i + 1
		}
		if p.Msg != "" {
			cols[i] = target{kind: tIgnored}
			headerProblems = append(headerProblems, p)
		}
	}
	switch {
	case len(header) == 1 && known == 0 && strings.ContainsAny(header[0], ";\t|"):
		r.ps.add(Problem{File: r.file, Line: 1, Msg: "the header has a single column; raggate reads comma-separated values: save the file with commas as separators"})
		return 0
	case known == 0 && suggested == 0:
		r.ps.add(Problem{File: r.file, Line: 1, Msg: "no known field in the header; the first row must name the fields, e.g. user_input,retrieved_contexts,response,reference"})
		return 0
	}
	for _, p := range headerProblems {
		r.ps.add(p)
	}
	if known == 0 {
		return 0 // every row would lack its fields: the header problems say why
	}

	n := 0
	for {
		row, err := cr.Read()
		if err == io.EOF {
			return n
		}
		if err != nil {
			r.csvError(err)
			return n
		}
		line, col := cr.FieldPos(0)
		if blankRow(row, len(header)) {
			continue
		}
		if len(row) != len(header) {
			r.ps.add(Problem{File: r.file, Line: line, Msg: fmt.Sprintf(
				"the row has %d %s but the header has %d; quote cells that contain commas, quotes or line breaks",
				len(row), plural(len(row), "cell", "cells"), len(header))})
			continue
		}
		rec := record{p: pos{line, col}}
		for i, cell := range row {
			if k := cols[i].kind; k != tField && k != tID && k != tMeta {
				continue
			}
			l, c := cr.FieldPos(i)
			rec.entries = append(rec.entries, entry{
				key: names[i], t: cols[i],
				kp: hpos[i], vp: pos{l, c},
				v: value{kind: vCell, s: cell},
			})
		}
		r.emit(rec)
		n++
	}
}

// csvError reports an error from encoding/csv.
func (r *reader) csvError(err error) {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		r.ps.add(Problem{File: r.file, Msg: "invalid CSV: " + err.Error()})
		return
	}
	msg := "invalid CSV: " + pe.Err.Error()
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		msg = `a " inside a cell that is not quoted; quote the whole cell and double the quotes inside it ("")`
	case errors.Is(pe.Err, csv.ErrQuote):
		msg = fmt.Sprintf(`a quoted cell is not closed properly (the row starts on line %d); end it with " and double the quotes inside it ("")`, pe.StartLine)
	}
	r.ps.add(Problem{File: r.file, Line: pe.Line, Col: pe.Column, Msg: msg})
}

// blankRow reports whether a row is to be skipped: a line of spaces (when
// the header has several columns), or a row of empty cells such as the
// ",,," lines spreadsheets leave at the end.
func blankRow(row []string, columns int) bool {
	if len(row) == 1 && columns > 1 {
		return strings.TrimSpace(row[0]) == ""
	}
	for _, cell := range row {
		if cell != "" {
			return false
		}
	}
	return len(row) > 1
}
