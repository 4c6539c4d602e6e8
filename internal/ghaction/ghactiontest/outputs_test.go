package ghactiontest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseOutputs(t *testing.T) {
	data := "a=1\n\nb<<EOF\nline one\nx=y\nc<<z\n\nEOF\nurl=https://x?a=b<<c\na=2\nempty<<END\nEND\n"
	o, err := ParseOutputs(data)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "2", "b": "line one\nx=y\nc<<z\n", "url": "https://x?a=b<<c", "empty": ""}
	if !reflect.DeepEqual(o.Values, want) {
		t.Errorf("values %q, want %q", o.Values, want)
	}
	if !reflect.DeepEqual(o.Delimiters, []string{"EOF", "END"}) || !reflect.DeepEqual(o.Plain, []string{"a", "url", "a"}) {
		t.Errorf("delimiters %q, plain %q", o.Delimiters, o.Plain)
	}
	if o.Counts["a"] != 2 || !reflect.DeepEqual(o.Repeated(), []string{"a"}) {
		t.Errorf("counts %v, repeated %v", o.Counts, o.Repeated())
	}
}

func TestParseOutputsRejectsWhatTheRunnerRejects(t *testing.T) {
	for _, data := range []string{
		"no separator\n",
		"=value\n",
		"<<EOF\nx\nEOF\n",
		"name<<\nx\n",
		"name<<EOF\nnever closed\n",
	} {
		if _, err := ParseOutputs(data); err == nil {
			t.Errorf("ParseOutputs(%q) accepted", data)
		}
	}
}

func TestReadOutputs(t *testing.T) {
	dir := t.TempDir()
	if o := ReadOutputs(t, filepath.Join(dir, "missing")); len(o.Values) != 0 {
		t.Errorf("a missing file reads as %v", o.Values)
	}
	path := filepath.Join(dir, "output")
	if err := os.WriteFile(path, []byte("verdict<<D\npassed\nD\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := ReadOutputs(t, path); o.Values["verdict"] != "passed" || strings.Join(o.Delimiters, ",") != "D" {
		t.Errorf("read %+v", o)
	}
}
