package target

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Path is a parsed JSON path: dotted keys with indexes, such as
// data.answer, choices[0].message.content or sources[*].text. [*]
// selects every element of a list, so the path yields a list. An empty
// path selects the whole reply.
type Path struct {
	text  string
	steps []step
}

type step struct {
	key   string // a key, or "" for an index step
	index int    // with key "": the index, or -1 for [*]
}

// ParsePath parses a path; errors say what is wrong with it.
func ParsePath(s string) (Path, error) {
	p := Path{text: s}
	rest := strings.TrimSpace(s)
	for rest != "" {
		switch {
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return Path{}, fmt.Errorf("path %q: unclosed [", s)
			}
			inner := rest[1:end]
			if inner == "*" {
				p.steps = append(p.steps, step{index: -1})
			} else if n, err := strconv.Atoi(inner); err == nil && n >= 0 {
				p.steps = append(p.steps, step{index: n})
			} else {
				return Path{}, fmt.Errorf("path %q: [%s] is not an index; use [0], [1], ... or [*]", s, inner)
			}
			rest = rest[end+1:]
		case rest[0] == '.':
			if len(p.steps) == 0 || len(rest) == 1 || rest[1] == '.' || rest[1] == '[' {
				return Path{}, fmt.Errorf("path %q: a dot must join two keys, as in data.answer", s)
			}
			rest = rest[1:]
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			p.steps = append(p.steps, step{key: rest[:end], index: 0})
			rest = rest[end:]
		}
	}
	return p, nil
}

// MustPath parses a path known to be valid.
func MustPath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the path as written.
func (p Path) String() string { return p.text }

// Multi reports whether the path has a [*] and so yields a list.
func (p Path) Multi() bool {
	for _, st := range p.steps {
		if st.key == "" && st.index < 0 {
			return true
		}
	}
	return false
}

// Get returns the value at the path in v (a decoded JSON value). A path
// with [*] returns a []any of the values it selects. ok is false when a
// key or index is absent; err says why the value does not have the shape
// the path expects (a key into a list, an index into an object).
func (p Path) Get(v any) (out any, found bool, err error) {
	return get(v, p.steps, "")
}

func get(v any, steps []step, at string) (any, bool, error) {
	if len(steps) == 0 {
		return v, true, nil
	}
	st := steps[0]
	if st.key != "" {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s is %s, not an object with key %q", where(at), kindOf(v), st.key)
		}
		child, ok := obj[st.key]
		if !ok {
			return nil, false, nil
		}
		return get(child, steps[1:], join(at, st.key))
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false, fmt.Errorf("%s is %s, not a list", where(at), kindOf(v))
	}
	if st.index >= 0 {
		if st.index >= len(list) {
			return nil, false, nil
		}
		return get(list[st.index], steps[1:], fmt.Sprintf("%s[%d]", at, st.index))
	}
	out := make([]any, 0, len(list))
	for i, item := range list {
		x, found, err := get(item, steps[1:], fmt.Sprintf("%s[%d]", at, i))
		if err != nil {
			return nil, false, err
		}
		if !found {
			return nil, false, nil
		}
		out = append(out, x)
	}
	return out, true, nil
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func where(at string) string {
	if at == "" {
		return "the reply"
	}
	return at
}

// kindOf names the JSON kind of v for messages.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}
