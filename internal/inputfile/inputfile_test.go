package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenBoundsTheSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 2048)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{2048, 4096, -1} {
		if b, err := ReadFile(p, limit); err != nil || len(b) != 2048 {
			t.Errorf("limit %d: %d bytes, %v; want the 2048 bytes", limit, len(b), err)
		}
	}
	_, err := ReadFile(p, 1024)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "larger than 1 KiB") {
		t.Errorf("limit 1 KiB: %v, want ErrTooLarge naming the limit", err)
	}
	// A file that grows past the limit after it was opened fails the read.
	f, err := Open(p, 3000)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(p, []byte(strings.Repeat("y", 4096)), 0o644); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8192)
	var read int
	for err == nil {
		var n int
		n, err = f.Read(buf)
		read += n
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("read %d bytes of a file grown past the limit: %v, want ErrTooLarge", read, err)
	}
}

func TestSetLimitsRestores(t *testing.T) {
	restore := SetLimits(1, 2)
	if ResultsLimit() != 1 || ConfigLimit() != 2 {
		t.Errorf("limits %d, %d after SetLimits(1, 2)", ResultsLimit(), ConfigLimit())
	}
	restore()
	if ResultsLimit() != DefaultResultsLimit || ConfigLimit() != DefaultConfigLimit {
		t.Errorf("limits %d, %d after restore, want the defaults", ResultsLimit(), ConfigLimit())
	}
}
