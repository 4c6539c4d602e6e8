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
		rd := parquet.NewGenericReader[map[string]any](f, f.Schema())
		defer rd.Close()
		batch := make([]map[string]any, batchSize)
		for {
			n, err := read(rd, batch)
			for _, m := range batch[:n] {
				vals := make([]any, len(columns))
				for i, c := range columns {
					vals[i] = m[c]
				}
				if !yield(vals, nil) {
					return
				}
			}
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
		}
	}
	return columns, rows, nil
}

// batchSize is the number of rows decoded at a time.
const batchSize = 64

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

// read reads the next rows into batch, turning a panic of the library on
// damaged input into an error.
func read(rd *parquet.GenericReader[map[string]any], batch []map[string]any) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("damaged row: %v", p)
		}
	}()
	for i := range batch {
		batch[i] = map[string]any{}
	}
	return rd.Read(batch)
}
