package openaicompat

import (
	"encoding/json"
	"testing"
)

func TestPatchJSON(t *testing.T) {
	tests := []struct {
		body  string
		patch map[string]any
		want  string
	}{
		{`{"model":"m","messages":[]}`, map[string]any{"temperature": 0, "n": 3}, `{"n":3,"temperature":0,"model":"m","messages":[]}`},
		{` {}`, map[string]any{"seed": 42}, `{"seed":42}`},
		{`{"a":1}`, map[string]any{}, `{"a":1}`},
	}
	for _, tt := range tests {
		got, err := patchJSON([]byte(tt.body), tt.patch)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want || !json.Valid(got) {
			t.Errorf("patchJSON(%s) = %s, want %s", tt.body, got, tt.want)
		}
	}
	if _, err := patchJSON([]byte(`[1]`), map[string]any{"n": 1}); err == nil {
		t.Error("a JSON array was patched")
	}
}
