package results

import "math"

// Column is a column of scores, one per sample, NaN where undefined or
// absent. A column of few distinct values (pass/fail, a judge's k of n
// verdicts) holds each as a one-byte code, else as a float64.
type Column struct {
	f    []float64 // every value; nil while coded
	code []uint8   // value i is dict[code[i]] (code 0: NaN)
	dict []float64
	// index finds a value's code while the column is built (nil once
	// built, or once too many values made it plain).
	// Keyed by the bits: 0 and -0 are two values.
	index map[uint64]uint8
}

// maxCodes is the most distinct values a coded column holds (NaN
// included).
const maxCodes = 256

// Floats makes a column of xs (not copied).
func Floats(xs []float64) *Column { return &Column{f: xs} }

// Len is the number of values.
func (c *Column) Len() int {
	if c.f != nil || c.code == nil {
		return len(c.f)
	}
	return len(c.code)
}

// At is value i.
func (c *Column) At(i int) float64 {
	if c.f != nil {
		return c.f[i]
	}
	return c.dict[c.code[i]]
}

// Defined returns the values that are not NaN, in order, in a new slice.
func (c *Column) Defined() []float64 {
	out := make([]float64, 0, c.Len())
	for i := range c.Len() {
		if x := c.At(i); !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// newColumn starts a coded column with room for n values.
func newColumn(n int) *Column {
	return &Column{code: make([]uint8, 0, n), dict: []float64{math.NaN()}, index: map[uint64]uint8{}}
}

// add appends x.
func (c *Column) add(x float64) {
	if c.f != nil {
		c.f = append(c.f, x)
		return
	}
	if math.IsNaN(x) {
		c.code = append(c.code, 0)
		return
	}
	k, ok := c.index[math.Float64bits(x)]
	if !ok && len(c.dict) < maxCodes {
		k, ok = uint8(len(c.dict)), true
		c.index[math.Float64bits(x)] = k
		c.dict = append(c.dict, x)
	}
	if ok {
		c.code = append(c.code, k)
		return
	}
	// Too many distinct values: plain from now on.
	f := make([]float64, len(c.code), max(cap(c.code), len(c.code)+1))
	for i, k := range c.code {
		f[i] = c.dict[k]
	}
	c.f = append(f, x)
	c.code, c.dict, c.index = nil, nil, nil
}

// prepend puts n NaN values before the others.
func (c *Column) prepend(n int) {
	if c.f != nil {
		pad := make([]float64, n, n+len(c.f))
		for i := range pad {
			pad[i] = math.NaN()
		}
		c.f = append(pad, c.f...)
		return
	}
	c.code = append(make([]uint8, n, n+len(c.code)), c.code...)
}

// done ends the building.
func (c *Column) done() { c.index = nil }
