// Package parquetfile reads Parquet files for the dataset package, with
// github.com/parquet-go/parquet-go. Importing it registers the decoder:
//
//	import _ "github.com/raggate/raggate/internal/dataset/parquetfile"
//
// It is kept apart from the dataset package because the Parquet library's
// Brotli codec imports net/http, which the dataset package must not reach.
package parquetfile

import (
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/parquet-go/parquet-go"

	"github.com/raggate/raggate/internal/dataset"
)

func init() { dataset.RegisterParquet(Decode) }

// Decode opens a Parquet file and returns its top-level columns and a
// sequence of its rows (see dataset.ParquetDecoder): lists come as []any,
// groups as map[string]any, nulls as nil.
func Decode(r io.ReaderAt, size int64) (columns []string, rows iter.Seq2[[]any, error], err error) {
	f, err := open(r, size)
	if err != nil {
		return nil, nil, err
	}
	for _, field := range f.Schema().Fields() {
		columns = append(columns, field.Name())
	}
	rows = func(yield func([]any, error) bool) {
		rd := parquet.NewReader(f)
		defer rd.Close()
		for {
			m, err := read(rd)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			vals := make([]any, len(columns))
			for i, c := range columns {
				vals[i] = m[c]
			}
			if !yield(vals, nil) {
				return
			}
		}
	}
	return columns, rows, nil
}

// open opens the file, turning a panic of the library on damaged input
// into an error.
func open(r io.ReaderAt, size int64) (f *parquet.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged file: %v", p)
		}
	}()
	return parquet.OpenFile(r, size)
}

// read reads the next row, turning a panic of the library on damaged
// input into an error.
func read(rd *parquet.Reader) (m map[string]any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged row: %v", p)
		}
	}()
	m = map[string]any{}
	err = rd.Read(&m)
	return m, err
}
