package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/raggate/raggate/internal/app"
)

// Flag types that check a value as it is parsed, with the ranges and
// words of package app (the same checks the action's inputs get): a bad
// value is exit 2 naming the flag and what it wants, before anything is
// read. Each keeps the problem of its last bad value for parseFlags,
// which reports every bad value of the command line together.

// checkedValue is a flag value that checks what it is given.
type checkedValue interface {
	flag.Value
	// takeProblem returns the problem of the last bad value, once.
	takeProblem() *app.Problem
}

// errBadValue is what Set returns; the problem says why.
var errBadValue = errors.New("bad value")

// problemOf records p (nil: the value is good) and returns Set's error.
func problemOf(slot **app.Problem, p *app.Problem) error {
	if p == nil {
		return nil
	}
	*slot = p
	return errBadValue
}

type lastProblem struct{ bad *app.Problem }

func (l *lastProblem) takeProblem() *app.Problem {
	p := l.bad
	l.bad = nil
	return p
}

// checked is a flag of one value of type T: parse turns the text into a
// value or a problem. String shows the value as fmt does, so that a flag
// never set shows its type's zero value (what package flag compares
// defaults with).
type checked[T any] struct {
	lastProblem
	p     *T
	parse func(v string) (T, *app.Problem)
}

func checkedVar[T any](fs *flag.FlagSet, p *T, name, usage string, parse func(string) (T, *app.Problem)) {
	fs.Var(&checked[T]{p: p, parse: parse}, name, usage)
}

func (f *checked[T]) String() string {
	p := new(T)
	if f != nil && f.p != nil {
		p = f.p
	}
	if s, ok := any(p).(fmt.Stringer); ok {
		return s.String() // a String method on *T (app.Size)
	}
	return fmt.Sprint(*p)
}

func (f *checked[T]) Set(v string) error {
	x, p := f.parse(v)
	if err := problemOf(&f.bad, p); err != nil {
		return err
	}
	*f.p = x
	return nil
}

// parseInt reads an integer; want words it when v is not one.
func parseInt(key, v, want string) (int, *app.Problem) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 0, strconv.IntSize)
	if err != nil {
		p := app.BadText(key, v, want)
		return 0, &p
	}
	return int(n), nil
}

// parseFloat reads a number; want words it when v is not one.
func parseFloat(key, v, want string) (float64, *app.Problem) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		p := app.BadText(key, v, want)
		return 0, &p
	}
	return x, nil
}

// intVar is an integer in the range of its key (or rng).
func intVar(fs *flag.FlagSet, p *int, name string, rng *app.IntRange, usage string) {
	checkedVar(fs, p, name, usage, intIn(name, rng))
}

// intIn parses an integer in the range of key (or rng).
func intIn(key string, rng *app.IntRange) func(string) (int, *app.Problem) {
	return func(v string) (int, *app.Problem) {
		r := app.IntRanges[key]
		if rng != nil {
			r = *rng
		}
		n, p := parseInt(key, v, "an integer, "+r.Want())
		if p == nil {
			p = app.CheckInt(key, n, rng)
		}
		return n, p
	}
}

// shareVar is a share from 0 to 1.
func shareVar(fs *flag.FlagSet, p *float64, name, usage string) {
	checkedVar(fs, p, name, usage, func(v string) (float64, *app.Problem) {
		x, bad := parseFloat(name, v, app.ShareWant(name))
		if bad == nil {
			bad = app.CheckShare(name, x)
		}
		return x, bad
	})
}

// durationFlag is a duration checked by app.CheckDuration; opt, when
// set, receives a pointer to the value (nil until given).
type durationFlag struct {
	lastProblem
	p   *time.Duration
	opt **time.Duration
	key string
}

func durationVar(fs *flag.FlagSet, p *time.Duration, name, usage string) {
	fs.Var(&durationFlag{p: p, key: name}, name, usage)
}

func (f *durationFlag) String() string {
	switch {
	case f == nil:
		return "0s"
	case f.opt != nil:
		if *f.opt == nil {
			return ""
		}
		return (**f.opt).String()
	case f.p == nil:
		return "0s"
	}
	return f.p.String()
}

func (f *durationFlag) Set(v string) error {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		p := app.BadText(f.key, v, "a duration such as 30s, 20m or 1h")
		return problemOf(&f.bad, &p)
	}
	if err := problemOf(&f.bad, app.CheckDuration(f.key, d)); err != nil {
		return err
	}
	if f.opt != nil {
		*f.opt = &d
	} else {
		*f.p = d
	}
	return nil
}

// enumVar is one of the values of its key (or e).
func enumVar(fs *flag.FlagSet, p *string, name string, e *app.Enum, usage string) {
	checkedVar(fs, p, name, usage, func(v string) (string, *app.Problem) { return v, app.CheckEnum(name, v, e) })
}

// optInt is an integer flag that records whether it was given: *p stays
// nil until it is.
type optInt struct {
	lastProblem
	p   **int
	key string
}

func (f *optInt) String() string {
	if f == nil || f.p == nil || *f.p == nil {
		return ""
	}
	return strconv.Itoa(**f.p)
}

func (f *optInt) Set(v string) error {
	n, p := intIn(f.key, nil)(v)
	if err := problemOf(&f.bad, p); err != nil {
		return err
	}
	*f.p = &n
	return nil
}

// sizeVar is a byte count (app.Size: 16M, 1G).
func sizeVar(fs *flag.FlagSet, p *app.Size, name, usage string) {
	checkedVar(fs, p, name, usage, func(v string) (app.Size, *app.Problem) {
		var s app.Size
		if err := s.Set(v); err != nil {
			p := app.Wrapped(name, err)
			return 0, &p
		}
		return s, nil
	})
}

// takeProblems collects the problems of the checked flags of fs.
func takeProblems(fs *flag.FlagSet) []app.Problem {
	var out []app.Problem
	fs.VisitAll(func(f *flag.Flag) {
		if c, ok := f.Value.(checkedValue); ok {
			if p := c.takeProblem(); p != nil {
				out = append(out, *p)
			}
		}
	})
	return out
}

// textVar is a text value checked by check.
func textVar(fs *flag.FlagSet, p *string, name string, check func(string) *app.Problem, usage string) {
	checkedVar(fs, p, name, usage, func(v string) (string, *app.Problem) { return v, check(v) })
}

// textsFlag is a repeatable text flag whose every value is checked by
// check, given the value's number (from 1).
type textsFlag struct {
	lastProblem
	p     *[]string
	n     int
	check func(n int, v string) *app.Problem
}

func textsVar(fs *flag.FlagSet, p *[]string, name string, check func(int, string) *app.Problem, usage string) {
	fs.Var(&textsFlag{p: p, check: check}, name, usage)
}

func (f *textsFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return strings.Join(*f.p, ",")
}

func (f *textsFlag) Set(v string) error {
	f.n++
	if err := problemOf(&f.bad, f.check(f.n, v)); err != nil {
		return err
	}
	*f.p = append(*f.p, v)
	return nil
}

// eachValue adapts a check of one value to textsVar.
func eachValue(check func(string) *app.Problem) func(int, string) *app.Problem {
	return func(_ int, v string) *app.Problem { return check(v) }
}

// floatVar is a number checked by check; want words it when v is not a
// number.
func floatVar(fs *flag.FlagSet, p *float64, name, want string, check func(float64) *app.Problem, usage string) {
	checkedVar(fs, p, name, usage, func(v string) (float64, *app.Problem) {
		x, bad := parseFloat(name, v, want)
		if bad == nil {
			bad = check(x)
		}
		return x, bad
	})
}

// anyIntVar is an integer of any value (a seed); want words it when v is
// not one.
func anyIntVar(fs *flag.FlagSet, p *int, name, want, usage string) {
	checkedVar(fs, p, name, usage, func(v string) (int, *app.Problem) { return parseInt(name, v, want) })
}

// laterChecked is a flag whose value can only be checked once every flag
// is parsed (it depends on another one): parseFlags reports its problem
// with those of the other flags.
type laterChecked interface {
	checkLater() *app.Problem
}

// metricsFlag is --metrics: the built-in names are checked once the flags
// are parsed, unless --metrics-file is given (its names are known once
// it is read, still before any judge call).
type metricsFlag struct {
	p, file *string
	// target is the run's target: its metrics are named in a target run.
	target *app.TargetConfig
}

func (f *metricsFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return *f.p
}

func (f *metricsFlag) Set(v string) error { *f.p = v; return nil }

func (f *metricsFlag) checkLater() *app.Problem {
	if *f.file != "" {
		return nil
	}
	c := app.DataConfig{Metrics: *f.p}
	if names := c.MetricNames(); len(names) > 0 {
		return app.CheckMetrics(names, f.target != nil && f.target.Configured())
	}
	return nil
}

// laterProblems are the problems of the flags of fs checked once all are
// parsed.
func laterProblems(fs *flag.FlagSet) []app.Problem {
	var out []app.Problem
	fs.VisitAll(func(f *flag.Flag) {
		if c, ok := f.Value.(laterChecked); ok {
			if p := c.checkLater(); p != nil {
				out = append(out, *p)
			}
		}
	})
	return out
}
