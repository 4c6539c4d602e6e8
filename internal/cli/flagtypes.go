package cli

import (
	"errors"
	"flag"
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

// intFlag is an integer in the range of its key (or rng).
type intFlag struct {
	lastProblem
	p   *int
	key string
	rng *app.IntRange
}

func intVar(fs *flag.FlagSet, p *int, name string, rng *app.IntRange, usage string) {
	fs.Var(&intFlag{p: p, key: name, rng: rng}, name, usage)
}

func (f *intFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f *intFlag) Set(v string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 0, strconv.IntSize)
	if err != nil {
		rng := app.IntRanges[f.key]
		if f.rng != nil {
			rng = *f.rng
		}
		p := app.BadText(f.key, v, "an integer, "+rng.Want())
		return problemOf(&f.bad, &p)
	}
	if err := problemOf(&f.bad, app.CheckInt(f.key, int(n), f.rng)); err != nil {
		return err
	}
	*f.p = int(n)
	return nil
}

// shareFlag is a share from 0 to 1.
type shareFlag struct {
	lastProblem
	p   *float64
	key string
}

func shareVar(fs *flag.FlagSet, p *float64, name, usage string) {
	fs.Var(&shareFlag{p: p, key: name}, name, usage)
}

func (f *shareFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f *shareFlag) Set(v string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		p := app.BadText(f.key, v, app.ShareWant(f.key))
		return problemOf(&f.bad, &p)
	}
	if err := problemOf(&f.bad, app.CheckShare(f.key, x)); err != nil {
		return err
	}
	*f.p = x
	return nil
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

// enumFlag is one of the values of its key (or e).
type enumFlag struct {
	lastProblem
	p   *string
	key string
	e   *app.Enum
}

func enumVar(fs *flag.FlagSet, p *string, name string, e *app.Enum, usage string) {
	fs.Var(&enumFlag{p: p, key: name, e: e}, name, usage)
}

func (f *enumFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return *f.p
}

func (f *enumFlag) Set(v string) error {
	if err := problemOf(&f.bad, app.CheckEnum(f.key, v, f.e)); err != nil {
		return err
	}
	*f.p = v
	return nil
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
	var n int
	if err := (&intFlag{p: &n, key: f.key}).setInto(&f.bad, v); err != nil {
		return err
	}
	*f.p = &n
	return nil
}

// setInto is Set recording its problem in slot.
func (f *intFlag) setInto(slot **app.Problem, v string) error {
	err := f.Set(v)
	if p := f.takeProblem(); p != nil {
		*slot = p
	}
	return err
}

// sizeFlag is a byte count (app.Size) whose bad value is a problem.
type sizeFlag struct {
	lastProblem
	p   *app.Size
	key string
}

func (f *sizeFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return f.p.String()
}

func (f *sizeFlag) Set(v string) error {
	var s app.Size
	if err := s.Set(v); err != nil {
		p := app.Wrapped(f.key, err)
		return problemOf(&f.bad, &p)
	}
	*f.p = s
	return nil
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

// textFlag is a text value checked by check.
type textFlag struct {
	lastProblem
	p     *string
	check func(v string) *app.Problem
}

func textVar(fs *flag.FlagSet, p *string, name string, check func(string) *app.Problem, usage string) {
	fs.Var(&textFlag{p: p, check: check}, name, usage)
}

func (f *textFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return *f.p
}

func (f *textFlag) Set(v string) error {
	if err := problemOf(&f.bad, f.check(v)); err != nil {
		return err
	}
	*f.p = v
	return nil
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

// floatFlag is a number checked by check; want words it when v is not a
// number.
type floatFlag struct {
	lastProblem
	p     *float64
	key   string
	want  string
	check func(float64) *app.Problem
}

func floatVar(fs *flag.FlagSet, p *float64, name, want string, check func(float64) *app.Problem, usage string) {
	fs.Var(&floatFlag{p: p, key: name, want: want, check: check}, name, usage)
}

func (f *floatFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f *floatFlag) Set(v string) error {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		p := app.BadText(f.key, v, f.want)
		return problemOf(&f.bad, &p)
	}
	if err := problemOf(&f.bad, f.check(x)); err != nil {
		return err
	}
	*f.p = x
	return nil
}

// anyIntFlag is an integer of any value (a seed); want words it when v is
// not one.
type anyIntFlag struct {
	lastProblem
	p    *int
	key  string
	want string
}

func anyIntVar(fs *flag.FlagSet, p *int, name, want, usage string) {
	fs.Var(&anyIntFlag{p: p, key: name, want: want}, name, usage)
}

func (f *anyIntFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f *anyIntFlag) Set(v string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 0, strconv.IntSize)
	if err != nil {
		p := app.BadText(f.key, v, f.want)
		return problemOf(&f.bad, &p)
	}
	*f.p = int(n)
	return nil
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
		return app.CheckMetrics(names)
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
