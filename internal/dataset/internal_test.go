package dataset

import (
	"slices"
	"testing"

	"github.com/raggate/raggate/internal/suggest"
	"github.com/raggate/raggate/metrics"
)

func TestFieldsOrderIsMetricsFields(t *testing.T) {
	if !slices.Equal(fieldsOrder[:], metrics.Fields) || fieldsOrder[0] != metrics.UserInput {
		t.Errorf("fieldsOrder %v; metrics.Fields %v", fieldsOrder, metrics.Fields)
	}
}

func TestSuggest(t *testing.T) {
	candidates := append(canonicalNames(), oldOrder...)
	tests := []struct{ name, want string }{
		{"retreived_contexts", "retrieved_contexts"},
		{"User_Input", "user_input"},
		{"userinput", "user_input"},
		{"questoin", "question"},
		{"referance", "reference"},
		{"ID", "id"},
		{"reference_context", "reference_contexts"},
		{"ground_truht", "ground_truth"},
		{"xyz", ""},
		{"i", "id"},
		{"source", ""},
	}
	for _, tt := range tests {
		if got := suggest.Closest(tt.name, candidates); got != tt.want {
			t.Errorf("Closest(%q) = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestLineIndex(t *testing.T) {
	li := newLineIndex([]byte("ab\ncd\r\n\nx"))
	tests := []struct {
		off  int
		want pos
	}{
		{0, pos{1, 1}}, {2, pos{1, 3}}, {3, pos{2, 1}}, {6, pos{2, 4}}, {7, pos{3, 1}}, {8, pos{4, 1}}, {9, pos{4, 2}},
	}
	for _, tt := range tests {
		if got := li.pos(tt.off); got != tt.want {
			t.Errorf("pos(%d) = %v; want %v", tt.off, got, tt.want)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, data string
		f          Format
		want       kind
	}{
		{"a.jsonl", `{"a":1}`, FormatAuto, kindLines},
		{"a.JSONL", "{\n\"a\":1}", FormatAuto, kindLines},
		{"a.ndjson", " [", FormatAuto, kindArray},
		{"a.json", "\n\n {\"a\":1}\n{}", FormatAuto, kindLines},
		{"a.json", "{\n\"a\":1}", FormatAuto, kindStream},
		{"a.json", "[{}]", FormatAuto, kindArray},
		{"a.json", "a,b", FormatAuto, kindNotJSON},
		{"a.json", "", FormatAuto, kindLines},
		{"a.csv", "[{}]", FormatAuto, kindCSV},
		{"a", "{}", FormatAuto, kindLines},
		{"a", "a,b", FormatAuto, kindCSV},
		{"a.txt", "[", FormatAuto, kindArray},
		{"a.csv", "{}", FormatJSONL, kindLines},
		{"a.jsonl", "{}", FormatCSV, kindCSV},
		{"a.csv", "{\n}", FormatJSON, kindStream},
	}
	for _, tt := range tests {
		if got := detect(tt.name, []byte(tt.data), tt.f); got != tt.want {
			t.Errorf("detect(%q, %q, %q) = %v; want %v", tt.name, tt.data, tt.f, got, tt.want)
		}
	}
}
