package metrics

import (
	"reflect"
	"testing"
)

func TestFieldsOf(t *testing.T) {
	var a, b, empty Sample
	a.Set(UserInput, "q")
	a.Set(Response, "") // given, though empty: present
	b.Set(UserInput, "q")
	b.SetList(RetrievedContexts, []string{"c"})
	tests := []struct {
		name    string
		samples []Sample
		want    FieldSet
	}{
		{"union over the samples", []Sample{a, b, empty}, FieldSet{UserInput: true, Response: true, RetrievedContexts: true}},
		{"none", []Sample{empty}, FieldSet{}},
		{"no samples", nil, FieldSet{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FieldsOf(tt.samples)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FieldsOf = %v, want %v", got, tt.want)
			}
			if got.Has(Reference) {
				t.Error("Has(reference) on samples without one")
			}
		})
	}
}
