package ghaction

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// InputEnv returns the environment variable GitHub sets for an action
// input in a container action: "INPUT_" + the name upper-cased with spaces
// replaced by "_". Hyphens are kept: input "embedding-model" is
// INPUT_EMBEDDING-MODEL.
func InputEnv(name string) string {
	return "INPUT_" + strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(name), " ", "_"))
}

// Inputs reads action inputs from the environment. Values are trimmed of
// surrounding whitespace, like @actions/core does. An input that is unset
// and an input set to "" are the same: action.yml defaults are applied by
// the runner before the container starts.
type Inputs struct {
	getenv func(string) string
}

// NewInputs returns Inputs reading from getenv (os.Getenv when nil).
func NewInputs(getenv func(string) string) Inputs {
	return Inputs{getenv: orGetenv(getenv)}
}

// Get returns the trimmed value of input name, or "".
func (in Inputs) Get(name string) string {
	return strings.TrimSpace(orGetenv(in.getenv)(InputEnv(name)))
}

// Lookup returns the trimmed value and whether it is non-empty.
func (in Inputs) Lookup(name string) (string, bool) {
	v := in.Get(name)
	return v, v != ""
}

// Bool parses a boolean input the way @actions/core's getBooleanInput
// does (YAML 1.2 core schema: true, True, TRUE, false, False, FALSE); def
// is returned when the input is empty.
func (in Inputs) Bool(name string, def bool) (bool, error) {
	v, ok := in.Lookup(name)
	if !ok {
		return def, nil
	}
	switch v {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return def, fmt.Errorf("input %q: %q is not a boolean: use true or false", name, v)
}

// Int parses an integer input; def when empty.
func (in Inputs) Int(name string, def int) (int, error) {
	v, ok := in.Lookup(name)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def, fmt.Errorf("input %q: %q is not a whole number", name, v)
	}
	return n, nil
}

// Float parses a number input; def when empty.
func (in Inputs) Float(name string, def float64) (float64, error) {
	v, ok := in.Lookup(name)
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return def, fmt.Errorf("input %q: %q is not a number", name, v)
	}
	return f, nil
}

// Duration parses a Go duration input ("90s", "10m"); def when empty.
func (in Inputs) Duration(name string, def time.Duration) (time.Duration, error) {
	v, ok := in.Lookup(name)
	if !ok {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return def, fmt.Errorf("input %q: %q is not a duration such as 90s or 10m", name, v)
	}
	return d, nil
}

// List splits an input on newlines and commas, trims the items and drops
// empty ones (YAML block scalars and "a, b" both work).
func (in Inputs) List(name string) []string {
	var out []string
	for line := range strings.SplitSeq(in.Get(name), "\n") {
		for item := range strings.SplitSeq(line, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// Required returns a *MissingInputsError naming every input of names that
// is empty (the runner does not enforce `required: true`), or nil.
func (in Inputs) Required(names ...string) error {
	var missing []string
	for _, n := range names {
		if _, ok := in.Lookup(n); !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &MissingInputsError{Names: missing}
}

// MissingInputsError reports required inputs that are not set.
type MissingInputsError struct {
	Names []string
}

// Error lists the missing inputs and says where to set them.
func (e *MissingInputsError) Error() string {
	q := make([]string, len(e.Names))
	for i, n := range e.Names {
		q[i] = strconv.Quote(n)
	}
	s := "s"
	if len(q) == 1 {
		s = ""
	}
	return fmt.Sprintf("missing required input%s %s: set them under `with:` in the workflow step", s, strings.Join(q, ", "))
}
