package ghaction

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A value that contains the delimiter drawn for it is rejected and nothing
// is written. The random source is fixed here so the delimiter is known.
func TestSetOutputRejectsValueContainingDelimiter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "output")
	a := New(func(k string) string {
		if k == "GITHUB_OUTPUT" {
			return path
		}
		return ""
	}, &bytes.Buffer{})
	fixed := bytes.Repeat([]byte{0xab}, 16)
	delim := "ghadelimiter_" + strings.Repeat("ab", 16)

	a.rand = bytes.NewReader(fixed)
	err := a.SetOutput("report", "before\n"+delim+"\ninjected=1")
	if !errors.Is(err, ErrDelimiterInValue) {
		t.Fatalf("err = %v, want ErrDelimiterInValue", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output file written despite the rejection")
	}

	a.rand = bytes.NewReader(fixed)
	if err := a.SetOutput("ok", "no delimiter here"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "ok<<" + delim + "\nno delimiter here\n" + delim + "\n"; string(data) != want {
		t.Errorf("file %q, want %q", data, want)
	}

	// A failing random source is an error, never a fixed delimiter.
	a.rand = io.MultiReader()
	if err := a.SetOutput("x", "y"); err == nil {
		t.Error("no error without randomness")
	}
}
