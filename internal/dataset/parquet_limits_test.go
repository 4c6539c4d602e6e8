package dataset_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/raggate/raggate/internal/dataset"
)

// sizedRow is a row whose strings are dictionary-encoded and compressed:
// a small file that decodes to much more.
type sizedRow struct {
	ID        string `parquet:"id"`
	UserInput string `parquet:"user_input,dict,zstd"`
	Response  string `parquet:"response,dict,zstd"`
}

func sizedRows(n, responseBytes int, big map[int]int) []sizedRow {
	rows := make([]sizedRow, n)
	for i := range rows {
		size := responseBytes
		if b, ok := big[i+1]; ok {
			size = b
		}
		rows[i] = sizedRow{ID: fmt.Sprintf("r%d", i+1), UserInput: "How long?", Response: strings.Repeat("x", size)}
	}
	return rows
}

// Decoded Parquet is bounded like JSON Lines: a row (one sample) by
// --max-line-size, the decoded values and the rows of the whole file by
// --max-dataset-size, however small the file is (the row count: see
// TestParquetRowCountRefusedFromMetadata). The error names the file,
// the row and the limit.
func TestParquetDecodedSizeIsBounded(t *testing.T) {
	tests := []struct {
		name string
		rows []sizedRow
		lim  dataset.Limits
		want []string
	}{
		{"a value over the line limit",
			sizedRows(5, 10, map[int]int{3: 2 << 10}), dataset.Limits{MaxLineBytes: 1 << 10},
			[]string{"g.parquet: row 3:", "response", "more than 1 KiB", "--max-line-size"}},
		{"decoded values over the file limit",
			sizedRows(40, 4<<10, nil), dataset.Limits{MaxBytes: 64 << 10},
			[]string{"g.parquet: row 16:", "more than 64 KiB", "--max-dataset-size"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := writeParquet(t, tt.rows)
			if tt.lim.MaxBytes > 0 && int64(len(data)) > tt.lim.MaxBytes/2 {
				t.Fatalf("the file has %d bytes: the test needs one far below the limit", len(data))
			}
			_, err := dataset.Parse("g.parquet", data, dataset.Options{Limits: tt.lim})
			if err == nil {
				t.Fatal("loaded; want the decoded size refused")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	// Within the limits the same shapes load.
	within := []struct {
		rows []sizedRow
		lim  dataset.Limits
	}{
		{sizedRows(5, 1000, nil), dataset.Limits{MaxLineBytes: 1 << 10}},
		{sizedRows(15, 4<<10, nil), dataset.Limits{MaxBytes: 64 << 10}},
		{sizedRows(64, 1, nil), dataset.Limits{MaxBytes: 64 << 10}},
	}
	for _, w := range within {
		if _, err := dataset.Parse("g.parquet", writeParquet(t, w.rows), dataset.Options{Limits: w.lim}); err != nil {
			t.Errorf("%d rows of %d bytes: %v", len(w.rows), len(w.rows[0].Response), err)
		}
	}
}

// A Parquet file's row count is in its metadata: a file with more rows
// than the cap is refused before any row is decoded (review 11: 1.1 M tiny
// rows took 1.86 GB and 23 s before the refusal), the error giving the
// file's own count and no row number.
func TestParquetRowCountRefusedFromMetadata(t *testing.T) {
	data := writeParquet(t, sizedRows(100, 1, nil))
	_, err := dataset.Parse("g.parquet", data, dataset.Options{Limits: dataset.Limits{MaxBytes: 64 << 10}})
	if err == nil {
		t.Fatal("loaded; want the row count refused")
	}
	msg := err.Error()
	for _, w := range []string{"g.parquet: the file has 100 rows", "at most 64", "--max-dataset-size"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
	if strings.Contains(msg, "row 65") {
		t.Errorf("error %q: refused while decoding, want before", msg)
	}
}
