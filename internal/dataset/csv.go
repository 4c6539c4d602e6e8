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
	h, ok := r.csvHeader(cr, header)
	if !ok {
		return 0
	}
	return r.readCSVRows(cr, h)
}

// csvColumns is the resolved header of a CSV file.
type csvColumns struct {
	cols  []target
	names []string
	hpos  []pos
}

// csvHeader resolves the header once and reports its problems (unknown
// columns are reported here, not per row); false when no row can be read.
func (r *reader) csvHeader(cr *csv.Reader, header []string) (csvColumns, bool) {
	h := csvColumns{
		cols:  make([]target, len(header)),
		names: make([]string, len(header)),
		hpos:  make([]pos, len(header)),
	}
	var headerProblems []Problem
	known, suggested := 0, 0
	first := make(map[string]int)
	for i, hd := range header {
		line, col := cr.FieldPos(i)
		name := strings.TrimSpace(hd)
		h.names[i] = name
		h.hpos[i] = pos{line, col}
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
			h.cols[i] = t
		default:
			h.cols[i] = t
			known++
		}
		if name != "" && first[name] == 0 {
			first[name] = i + 1
		}
		if p.Msg != "" {
			h.cols[i] = target{kind: tIgnored}
			headerProblems = append(headerProblems, p)
		}
	}
	switch {
	case len(header) == 1 && known == 0 && strings.ContainsAny(header[0], ";\t|"):
		r.ps.add(Problem{File: r.file, Line: 1, Msg: "the header has a single column; raggate reads comma-separated values: save the file with commas as separators"})
		return h, false
	case known == 0 && suggested == 0:
		r.ps.add(Problem{File: r.file, Line: 1, Msg: "no known field in the header; the first row must name the fields, e.g. user_input,retrieved_contexts,response,reference"})
		return h, false
	}
	for _, p := range headerProblems {
		r.ps.add(p)
	}
	// With no known field every row would lack its fields: the header
	// problems say why.
	return h, known > 0
}

// readCSVRows emits the rows after the header and returns their number.
func (r *reader) readCSVRows(cr *csv.Reader, h csvColumns) int {
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
		if blankRow(row, len(h.names)) {
			continue
		}
		if len(row) != len(h.names) {
			r.ps.add(Problem{File: r.file, Line: line, Msg: fmt.Sprintf(
				"the row has %d %s but the header has %d; quote cells that contain commas, quotes or line breaks",
				len(row), plural(len(row), "cell", "cells"), len(h.names))})
			continue
		}
		rec := record{p: pos{line, col}}
		for i, cell := range row {
			if k := h.cols[i].kind; k != tField && k != tID && k != tMeta {
				continue
			}
			l, c := cr.FieldPos(i)
			rec.entries = append(rec.entries, entry{
				key: h.names[i], t: h.cols[i],
				kp: h.hpos[i], vp: pos{l, c},
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
