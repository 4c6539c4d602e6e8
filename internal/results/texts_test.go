package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// A comparison reads no texts; a selection keeps only the texts of the
// samples it names; Read keeps them all.
func TestReadWithSelectsTexts(t *testing.T) {
	f := fullFile()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	id := f.Samples[1].ID
	all, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := all.Samples[1].TextsOf(); !reflect.DeepEqual(got, f.Samples[1].TextsOf()) {
		t.Errorf("Read texts = %+v, want %+v", got, f.Samples[1].TextsOf())
	}
	none, err := ReadWith(path, ScoresOnly)
	if err != nil {
		t.Fatal(err)
	}
	if none.Samples[1].HasTexts() {
		t.Error("ScoresOnly kept texts")
	}
	if len(none.Samples[1].Scores) != len(f.Samples[1].Scores) {
		t.Error("ScoresOnly lost the scores")
	}
	other := f.Samples[0].ID
	some, err := ReadWith(path, ReadOptions{Texts: func(s string) bool { return s == other }})
	if err != nil {
		t.Fatal(err)
	}
	if some.Samples[1].HasTexts() {
		t.Errorf("texts of %s kept though not selected", id)
	}
}

// Only keeps the samples selected, whole with their texts, and nothing
// of the others (the HTML report's second pass); without a selection it
// keeps no sample. The header is read as always.
func TestReadWithOnlySelected(t *testing.T) {
	f := fullFile()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	data, err := Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	id := f.Samples[1].ID
	sel := ReadOptions{Texts: func(s string) bool { return s == id }, Only: true}
	for name, read := range map[string]func(ReadOptions) (*File, error){
		"ReadWith":  func(o ReadOptions) (*File, error) { return ReadWith(path, o) },
		"ParseWith": func(o ReadOptions) (*File, error) { return ParseWith(data, o) },
	} {
		got, err := read(sel)
		if err != nil {
			t.Fatal(err)
		}
		// (By their JSON: NaN scores are never DeepEqual.)
		if len(got.Samples) != 1 || jsonOf(t, got.Samples[0]) != jsonOf(t, f.Samples[1]) {
			t.Errorf("%s Only: samples %+v, want %s whole", name, got.Samples, id)
		}
		if got.Judge != f.Judge || !reflect.DeepEqual(got.Git, f.Git) {
			t.Errorf("%s Only: header %+v %+v", name, got.Judge, got.Git)
		}
		none, err := read(ReadOptions{Only: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(none.Samples) != 0 {
			t.Errorf("%s Only without a selection kept %d samples", name, len(none.Samples))
		}
	}
}

// A file whose samples hold no texts takes them from its text source as
// it is written, and the written file reads back with them.
func TestTextSourceFillsTexts(t *testing.T) {
	want := fullFile()
	f := fullFile()
	sp, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for i := range f.Samples {
		sp.Put(f.Samples[i].ID, f.Samples[i].TextsOf())
		f.Samples[i].SetTexts(Texts{})
	}
	f.SetTextSource(sp.Get)
	var got, exp bytes.Buffer
	if err := Encode(&got, f); err != nil {
		t.Fatal(err)
	}
	if err := Encode(&exp, want); err != nil {
		t.Fatal(err)
	}
	if got.String() != exp.String() {
		t.Errorf("encoded with a text source:\n%s\nwant:\n%s", got.String(), exp.String())
	}
	if f.Samples[1].HasTexts() {
		t.Error("Encode stored the texts in the samples")
	}
	b, err := Marshal(f)
	if err != nil || string(b) != exp.String() {
		t.Errorf("Marshal with a text source differs from Encode (err %v)", err)
	}
}

func TestSpillKeepsTheLastPut(t *testing.T) {
	sp, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sp.Put("a", Texts{Response: "first"})
	sp.Put("b", Texts{Response: "other"})
	sp.Put("a", Texts{Response: "second", Contexts: []string{"c"}})
	sp.Put("c", Texts{})
	got, ok, err := sp.Get("a")
	if err != nil || !ok || got.Response != "second" || len(got.Contexts) != 1 {
		t.Errorf("Get(a) = %+v %v %v, want the second texts", got, ok, err)
	}
	if _, ok, _ := sp.Get("c"); ok {
		t.Error("empty texts recorded")
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
}

// Drop forgets an id's texts until it is put again; ids whose hashes
// are the same keep their own texts; a Put after a Get is found.
func TestSpillDropAndSharedHashes(t *testing.T) {
	sp, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	// a, b and d share a hash.
	key := sp.key
	sp.key = func(id string) uint64 {
		if id == "b" || id == "d" {
			id = "a"
		}
		return key(id)
	}
	sp.Put("a", Texts{Response: "a1"})
	sp.Put("b", Texts{Response: "b1"})
	sp.Put("a", Texts{Response: "a2"})
	sp.Put("d", Texts{Response: "d1"})
	get := func(id string) string {
		t.Helper()
		got, ok, err := sp.Get(id)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "none"
		}
		return got.Response
	}
	if a, b, d, x := get("a"), get("b"), get("d"), get("x"); a != "a2" || b != "b1" || d != "d1" || x != "none" {
		t.Fatalf("Get = %s %s %s %s, want a2 b1 d1 none", a, b, d, x)
	}
	sp.Drop("a")
	if a, b := get("a"), get("b"); a != "none" || b != "b1" {
		t.Fatalf("after Drop(a): Get = %s %s, want none b1", a, b)
	}
	sp.Put("a", Texts{Response: "a3"})
	sp.Put("e", Texts{Response: "e1"})
	if a, e, d := get("a"), get("e"), get("d"); a != "a3" || e != "e1" || d != "d1" {
		t.Fatalf("after a Put again: Get = %s %s %s, want a3 e1 d1", a, e, d)
	}
	// Many ids, put in any order, each finds its own.
	for i := range 500 {
		sp.Put(fmt.Sprintf("s%d", (i*7)%500), Texts{Response: fmt.Sprint((i * 7) % 500)})
	}
	for i := range 500 {
		if got := get(fmt.Sprintf("s%d", i)); got != fmt.Sprint(i) {
			t.Fatalf("Get(s%d) = %s", i, got)
		}
	}
}

// A write that fails (a full temporary directory) is kept: Err and every
// later Get return it, as ErrTexts, so the caller can write its results
// without texts instead of failing.
func TestSpillWriteErrorIsErrTexts(t *testing.T) {
	sp, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sp.Put("a", Texts{Response: "kept"})
	if err := sp.Err(); err != nil {
		t.Fatalf("Err = %v before any failure", err)
	}
	sp.Close()
	sp.Put("b", Texts{Response: "lost"})
	if err := sp.Err(); !errors.Is(err, ErrTexts) {
		t.Errorf("Err = %v, want ErrTexts", err)
	}
	if _, _, err := sp.Get("a"); !errors.Is(err, ErrTexts) {
		t.Errorf("Get after a failed write: %v, want ErrTexts", err)
	}
	if _, err := NewSpill(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, ErrTexts) {
		t.Errorf("NewSpill in a missing directory: %v, want ErrTexts", err)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
