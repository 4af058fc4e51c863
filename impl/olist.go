package impl

import "sort"

// olist is an order-statistic list of member indexes: sorted by a
// comparison the caller supplies, with O(log n) select by rank and
// O(log n + chunk) insert and delete. It is a list of sorted chunks with a
// prefix count over the chunks, rebuilt lazily before a select.
type olist struct {
	chunks [][]uint32
	prefix []int // prefix[i] = number of elements before chunks[i]
	n      int
	dirty  bool
}

const olistChunk = 512

// less orders member indexes.
type lessFunc func(a, b uint32) bool

func (l *olist) len() int { return l.n }

// chunkFor returns the index of the chunk where x belongs: the first chunk
// whose last element is not less than x, or the last chunk.
func (l *olist) chunkFor(x uint32, less lessFunc) int {
	i := sort.Search(len(l.chunks), func(i int) bool {
		c := l.chunks[i]
		return !less(c[len(c)-1], x)
	})
	if i == len(l.chunks) {
		i--
	}
	return i
}

func (l *olist) insert(x uint32, less lessFunc) {
	l.n++
	l.dirty = true
	if len(l.chunks) == 0 {
		l.chunks = append(l.chunks, append(make([]uint32, 0, 8), x))
		return
	}
	ci := l.chunkFor(x, less)
	c := l.chunks[ci]
	j := sort.Search(len(c), func(j int) bool { return less(x, c[j]) })
	c = append(c, 0)
	copy(c[j+1:], c[j:])
	c[j] = x
	if len(c) > olistChunk {
		half := len(c) / 2
		right := append(make([]uint32, 0, olistChunk+1), c[half:]...)
		c = c[:half:half]
		l.chunks = append(l.chunks, nil)
		copy(l.chunks[ci+2:], l.chunks[ci+1:])
		l.chunks[ci+1] = right
	}
	l.chunks[ci] = c
}

// remove deletes x, which must be present; equal keys are not allowed.
func (l *olist) remove(x uint32, less lessFunc) {
	ci := l.chunkFor(x, less)
	c := l.chunks[ci]
	j := sort.Search(len(c), func(j int) bool { return !less(c[j], x) })
	if j == len(c) || c[j] != x {
		panic("impl: olist.remove of an absent element")
	}
	copy(c[j:], c[j+1:])
	c = c[:len(c)-1]
	l.n--
	l.dirty = true
	if len(c) == 0 {
		copy(l.chunks[ci:], l.chunks[ci+1:])
		l.chunks[len(l.chunks)-1] = nil
		l.chunks = l.chunks[:len(l.chunks)-1]
		return
	}
	l.chunks[ci] = c
}

// at returns the element of rank r (0-based).
func (l *olist) at(r int) uint32 {
	if l.dirty {
		l.prefix = l.prefix[:0]
		s := 0
		for _, c := range l.chunks {
			l.prefix = append(l.prefix, s)
			s += len(c)
		}
		l.dirty = false
	}
	i := sort.Search(len(l.prefix), func(i int) bool { return l.prefix[i] > r }) - 1
	return l.chunks[i][r-l.prefix[i]]
}

// each calls f on every element in order.
func (l *olist) each(f func(uint32)) {
	for _, c := range l.chunks {
		for _, x := range c {
			f(x)
		}
	}
}
