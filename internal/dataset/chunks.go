package dataset

// chunkLen is the number of items of a chunk of a chunks list.
const chunkLen = 1024

// chunks is a list that grows a chunk at a time: an item never moves, so
// growing never copies the list nor holds it twice, and at most a chunk
// is unused. (A dataset's records and a spool's index grow with the
// samples, whose number is not known until the end.)
type chunks[T any] struct {
	c [][]T
	n int
}

// add appends v.
func (c *chunks[T]) add(v T) {
	if c.n%chunkLen == 0 {
		c.c = append(c.c, make([]T, 0, chunkLen))
	}
	k := len(c.c) - 1
	c.c[k] = append(c.c[k], v)
	c.n++
}

// at returns item i, 0 <= i < len().
func (c *chunks[T]) at(i int) *T { return &c.c[i/chunkLen][i%chunkLen] }

// len returns the number of items.
func (c *chunks[T]) len() int { return c.n }

// extend adds zero items until there are n.
func (c *chunks[T]) extend(n int) {
	var zero T
	for c.n < n {
		c.add(zero)
	}
}
