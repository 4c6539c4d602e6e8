package action

import (
	"testing"

	"github.com/raggate/raggate/internal/app"
	"github.com/raggate/raggate/internal/ghaction"
)

// The sequential input turns a check sequential; a value that is not a
// boolean is refused naming the input.
func TestActionSequentialInput(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  bool
		bad   bool
	}{{"", false, false}, {"false", false, false}, {"true", true, false}, {"yes please", false, true}} {
		env := map[string]string{ghaction.InputEnv("dataset"): "golden.jsonl", ghaction.InputEnv("sequential"): tt.value}
		o, _, err := actionOptions(ghaction.NewInputs(func(k string) string { return env[k] }), &ghaction.Context{}, app.Env{})
		if tt.bad {
			if err == nil {
				t.Errorf("sequential %q: accepted, want an error", tt.value)
			}
			continue
		}
		if err != nil || (o.Sequential != nil) != tt.want {
			t.Errorf("sequential %q: %+v (error %v), want sequential %v", tt.value, o.Sequential, err, tt.want)
		}
	}
}
