// Package parquetfile reads Parquet files for the dataset package, with
// github.com/parquet-go/parquet-go. Importing it registers the decoder:
//
//	import _ "github.com/raggate/raggate/internal/dataset/parquetfile"
//
// It is kept apart from the dataset package because the Parquet library's
// Brotli codec imports net/http, which the dataset package must not reach.
package parquetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/parquet-go/parquet-go"

	"github.com/raggate/raggate/internal/dataset"
)

func init() { dataset.RegisterParquet(Decode) }

// Decode opens a Parquet file and returns its top-level columns, its row
// count from the footer's metadata, and a sequence of its rows (see dataset.ParquetDecoder): lists come as []any,
// groups as map[string]any, nulls as nil.
func Decode(r io.ReaderAt, size int64) (columns []string, numRows int64, rows iter.Seq2[[]any, error], err error) {
	f, err := open(r, size)
	if err != nil {
		return nil, 0, nil, err
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
	return columns, f.NumRows(), rows, nil
}

// batchSize is the number of rows decoded at a time.
const batchSize = 64

// open opens the file, turning a panic of the library on damaged input
// into an error.
func open(r io.ReaderAt, size int64) (f *parquet.File, err error) {
	if err := checkFooter(r, size); err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("damaged file: %v", p)
		}
	}()
	return parquet.OpenFile(r, size)
}

// checkFooter checks the magic bytes and the footer length before the
// library reads the footer: it allocates as much as the length says, so a
// damaged length could ask for gigabytes.
func checkFooter(r io.ReaderAt, size int64) error {
	const magic = "PAR1"
	if size < 12 {
		return fmt.Errorf("%d bytes is too short for a Parquet file", size)
	}
	var head [4]byte
	var tail [8]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return err
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(head[:]) != magic || string(tail[4:]) != magic {
		return errors.New("no PAR1 magic bytes at the start and the end")
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("the footer claims %d bytes but the file has %d", n, size)
	}
	return nil
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
