package htmlreport

import (
	"io"

	"github.com/raggate/raggate/internal/compare"
	"github.com/raggate/raggate/internal/report"
	"github.com/raggate/raggate/internal/results"
)

// format is the html format of package report's registry, registered
// when this package is linked in: Samples is Select's ids, and Render is
// Render of the input's sides with the gate name and baseline source of
// the report options and at most Input.SampleLimit samples.
var format = report.Format{
	Name: "html",
	Exts: []string{".html", ".htm"},
	Render: func(w io.Writer, in report.Input) error {
		s := Sides{Base: in.Base, Head: in.Head, BaseSamples: in.BaseSamples, HeadSamples: in.HeadSamples}
		return Render(w, in.Report, s, Options{Gate: in.Options.Gate, BaselineSource: in.Options.BaselineSource, Limit: in.SampleLimit})
	},
	Samples: func(rep *compare.Report, base, head *results.Table, limit int) []string {
		ids, _ := Select(rep, base, head, limit)
		return ids
	},
}

func init() { report.Register(format) }
