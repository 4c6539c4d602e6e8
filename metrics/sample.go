package metrics

import "strings"

// Field names a sample field. The names are the Ragas >= 0.2 vocabulary and
// are the keys used in datasets, reports and error messages.
type Field string

// The sample fields metrics read.
const (
	UserInput           Field = "user_input"
	RetrievedContexts   Field = "retrieved_contexts"
	Response            Field = "response"
	Reference           Field = "reference"
	ReferenceContexts   Field = "reference_contexts"
	RetrievedContextIDs Field = "retrieved_context_ids"
	ReferenceContextIDs Field = "reference_context_ids"
)

// Fields lists every sample field in canonical order.
var Fields = []Field{UserInput, RetrievedContexts, Response, Reference, ReferenceContexts, RetrievedContextIDs, ReferenceContextIDs}

// IsList reports whether the field holds a list of strings.
func (f Field) IsList() bool {
	switch f {
	case RetrievedContexts, ReferenceContexts, RetrievedContextIDs, ReferenceContextIDs:
		return true
	}
	return false
}

// Sample is one row of an evaluation dataset. A field is present when the
// dataset gave it (even as an empty string or empty list); metrics whose
// fields are absent are skipped with reason "missing field X".
type Sample struct {
	ID                  string   `json:"id"`
	UserInput           string   `json:"user_input,omitempty"`
	RetrievedContexts   []string `json:"retrieved_contexts,omitempty"`
	Response            string   `json:"response,omitempty"`
	Reference           string   `json:"reference,omitempty"`
	ReferenceContexts   []string `json:"reference_contexts,omitempty"`
	RetrievedContextIDs []string `json:"retrieved_context_ids,omitempty"`
	ReferenceContextIDs []string `json:"reference_context_ids,omitempty"`

	// Present records which fields the dataset gave.
	Present map[Field]bool `json:"-"`
	// Metadata holds the dataset's other columns as text (topic, source,
	// ...), for slicing results; no metric reads it, and it is not part of
	// the sample's JSON form.
	Metadata map[string]string `json:"-"`
}

// Has reports whether the sample has field f.
func (s *Sample) Has(f Field) bool { return s.Present[f] }

// FieldSet is a set of fields.
type FieldSet map[Field]bool

// Has reports whether f is in the set.
func (fs FieldSet) Has(f Field) bool { return fs[f] }

// FieldsOf returns the fields present in at least one of samples: what
// DefaultSuite is chosen by.
func FieldsOf(samples []Sample) FieldSet {
	out := make(FieldSet)
	for i := range samples {
		for _, f := range Fields {
			if samples[i].Has(f) {
				out[f] = true
			}
		}
	}
	return out
}

// Set stores a string field and marks it present.
func (s *Sample) Set(f Field, v string) {
	switch f {
	case UserInput:
		s.UserInput = v
	case Response:
		s.Response = v
	case Reference:
		s.Reference = v
	default:
		s.SetList(f, []string{v})
		return
	}
	s.mark(f)
}

// SetList stores a list field and marks it present.
func (s *Sample) SetList(f Field, v []string) {
	if v == nil {
		v = []string{}
	}
	switch f {
	case RetrievedContexts:
		s.RetrievedContexts = v
	case ReferenceContexts:
		s.ReferenceContexts = v
	case RetrievedContextIDs:
		s.RetrievedContextIDs = v
	case ReferenceContextIDs:
		s.ReferenceContextIDs = v
	default:
		// A list given for a string field is joined with newlines, as
		// Ragas does for references given as lists.
		s.Set(f, strings.Join(v, "\n"))
		return
	}
	s.mark(f)
}

// String returns a string field's value ("" for list fields).
func (s *Sample) String(f Field) string {
	switch f {
	case UserInput:
		return s.UserInput
	case Response:
		return s.Response
	case Reference:
		return s.Reference
	}
	return ""
}

// List returns a list field's value (nil for string fields).
func (s *Sample) List(f Field) []string {
	switch f {
	case RetrievedContexts:
		return s.RetrievedContexts
	case ReferenceContexts:
		return s.ReferenceContexts
	case RetrievedContextIDs:
		return s.RetrievedContextIDs
	case ReferenceContextIDs:
		return s.ReferenceContextIDs
	}
	return nil
}

func (s *Sample) mark(f Field) {
	if s.Present == nil {
		s.Present = make(map[Field]bool, len(Fields))
	}
	s.Present[f] = true
}
