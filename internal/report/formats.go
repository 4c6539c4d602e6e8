package report

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/results"
)

// Formats of a comparison. A front end asks for a format by the name the
// user gave (--format) or by the name of the file the report goes to
// (--report), and renders through it; it never switches on format names
// itself. This package registers text, markdown and json; package
// htmlreport registers html when it is linked in (it imports this package,
// so this package cannot call it). A new format is a package that calls
// Register from an init function, and a blank import where the front end
// is built.
//
// Rendering a format that shows sample texts (Format.Samples is set) takes
// two steps, so that memory holds only the samples shown, whatever the
// number of samples: compare the sides held by columns (results.Table),
// call Samples with them for the ids to show, read the results files again
// keeping those samples only, texts included (results.ReadOptions{Texts:
// ids, Only: true}), and Render with the tables in Input.Base and
// Input.Head and those samples in Input.BaseSamples and Input.HeadSamples.
// A format without Samples reads only Input.Report and Input.Options.

// Input is what a format renders.
type Input struct {
	// Report is the comparison (never nil).
	Report *compare.Report
	// Options configure the report: gate name, head, baseline source, run
	// link, trend, size limit. A format uses the fields it has a place for.
	Options Options
	// Base and Head are the compared results files by columns, every
	// sample's scores (Base nil: no baseline). Formats without Samples
	// ignore them.
	Base, Head *results.Table
	// BaseSamples and HeadSamples hold the samples Format.Samples picked
	// whole, texts included (BaseSamples nil: no baseline); they may hold
	// others, which the format does not use. Formats without Samples
	// ignore them.
	BaseSamples, HeadSamples *results.File
	// SampleLimit is how many samples a format that lists them shows at
	// most (0: the format's default).
	SampleLimit int
}

// Format is one output format of a comparison.
type Format struct {
	// Name is the value of --format that selects it: "text", "markdown",
	// "json", "html".
	Name string
	// Exts are the file name extensions, lower case with the dot, that
	// select the format for a report file (ByPath).
	Exts []string
	// Render writes in.Report in the format.
	Render func(w io.Writer, in Input) error
	// Samples is set by a format that shows sample texts: it returns the
	// ids of the head samples to show, at most limit (0: the format's
	// default), from the sides by columns (base nil: no baseline). The
	// caller reads those samples whole into Input.BaseSamples and
	// Input.HeadSamples before Render.
	Samples func(rep *compare.Report, base, head *results.Table, limit int) []string
}

// DefaultFormat is the format of a report file whose name has no known
// extension, and of the terminal.
const DefaultFormat = "text"

var registry struct {
	sync.RWMutex
	formats []Format
}

// Register adds a format. It panics when the name is empty or taken, an
// extension is claimed by another format, or Render is nil: registration
// happens in init functions, where a mistake should stop the program.
func Register(f Format) {
	if f.Name == "" || f.Render == nil {
		panic("report.Register: a format needs a name and a Render function")
	}
	registry.Lock()
	defer registry.Unlock()
	for _, g := range registry.formats {
		if g.Name == f.Name {
			panic(fmt.Sprintf("report.Register: format %q registered twice", f.Name))
		}
		for _, ext := range f.Exts {
			if slices.Contains(g.Exts, ext) {
				panic(fmt.Sprintf("report.Register: extension %s of format %q already selects %q", ext, f.Name, g.Name))
			}
		}
	}
	registry.formats = append(registry.formats, f)
}

// registered returns the registered formats, in registration order.
func registered() []Format {
	registry.RLock()
	defer registry.RUnlock()
	return slices.Clone(registry.formats)
}

// Lookup returns the format called name.
func Lookup(name string) (Format, bool) {
	for _, f := range registered() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// Names lists the registered formats in the order they were registered:
// text, markdown, json, then those of other packages (html).
func Names() []string {
	var out []string
	for _, f := range registered() {
		out = append(out, f.Name)
	}
	return out
}

// ByPath returns the format a report file's name selects by its extension
// (case-insensitive): ".md" markdown, ".json" json, ".html" html; any
// other name selects DefaultFormat.
func ByPath(path string) Format {
	if ext := strings.ToLower(filepath.Ext(path)); ext != "" {
		for _, f := range registered() {
			if slices.Contains(f.Exts, ext) {
				return f
			}
		}
	}
	f, _ := Lookup(DefaultFormat)
	return f
}

func init() {
	Register(Format{Name: "text", Render: func(w io.Writer, in Input) error {
		return ConsoleWith(w, in.Report, in.Options)
	}})
	Register(Format{Name: "markdown", Exts: []string{".md", ".markdown"}, Render: func(w io.Writer, in Input) error {
		_, err := io.WriteString(w, Markdown(in.Report, in.Options))
		return err
	}})
	Register(Format{Name: "json", Exts: []string{".json"}, Render: func(w io.Writer, in Input) error {
		b, err := JSON(in.Report)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}})
}

// HistoryFormat writes a branch's trend (`gate history`) in one format.
type HistoryFormat func(w io.Writer, h *History) error

// historyFormats are the formats of a history, in the order Names lists
// them.
var historyFormats = []struct {
	name   string
	render HistoryFormat
}{
	{"text", HistoryText},
	{"markdown", HistoryMarkdown},
	{"json", func(w io.Writer, h *History) error {
		b, err := HistoryJSON(h)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}},
	{"csv", HistoryCSV},
}

// LookupHistory returns the history format called name: text, markdown,
// json or csv.
func LookupHistory(name string) (HistoryFormat, bool) {
	for _, f := range historyFormats {
		if f.name == name {
			return f.render, true
		}
	}
	return nil, false
}

// HistoryNames lists the history formats: text, markdown, json, csv.
func HistoryNames() []string {
	out := make([]string, len(historyFormats))
	for i, f := range historyFormats {
		out[i] = f.name
	}
	return out
}
