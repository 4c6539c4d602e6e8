package agree

import "io"

// Format writes an agreement report in one format.
type Format func(r *Report, w io.Writer, h Header) error

// formats are the formats of a report, in the order FormatNames lists
// them.
var formats = []struct {
	name   string
	render Format
}{
	{"text", (*Report).Text},
	{"markdown", (*Report).Markdown},
	{"json", (*Report).JSON},
}

// LookupFormat returns the format called name: text, markdown or json.
func LookupFormat(name string) (Format, bool) {
	for _, f := range formats {
		if f.name == name {
			return f.render, true
		}
	}
	return nil, false
}

// FormatNames lists the formats: text, markdown, json.
func FormatNames() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.name
	}
	return out
}
