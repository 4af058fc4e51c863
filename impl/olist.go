package impl

import "sort"

// olist is an order-statistic list of member indexes: sorted by a
// comparison the caller supplies, with select by rank. It is a list of
// sorted chunks of at most olistChunk elements and a Fenwick tree over the
// chunk sizes: insert and delete cost O(log n + olistChunk), select
// O(log n). The tree is rebuilt (O(n/olistChunk)) only when a chunk splits
// or empties, once per ~olistChunk/2 updates at worst.
type olist struct {
	chunks [][]uint32
	tree   []int // Fenwick tree over len(chunks[i]), 1-based
	valid  bool  // tree matches chunks
	n      int
}

const olistChunk = 512

// lessFunc orders member indexes.
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

// add changes chunk ci's count by d in the tree, if the tree is valid.
func (l *olist) add(ci, d int) {
	if !l.valid {
		return
	}
	for i := ci + 1; i <= len(l.tree)-1; i += i & -i {
		l.tree[i] += d
	}
}

func (l *olist) rebuild() {
	n := len(l.chunks)
	if cap(l.tree) < n+1 {
		l.tree = make([]int, n+1, 2*n+2)
	}
	l.tree = l.tree[:n+1]
	clear(l.tree)
	for i, c := range l.chunks {
		j := i + 1
		l.tree[j] += len(c)
		if k := j + j&-j; k <= n {
			l.tree[k] += l.tree[j]
		}
	}
	l.valid = true
}

func (l *olist) insert(x uint32, less lessFunc) {
	l.n++
	if len(l.chunks) == 0 {
		// A list emptied keeps its last chunk's array past its end
		// (remove, reset): a topic's only subscriber leaving and another
		// coming is common.
		var c []uint32
		if cap(l.chunks) > 0 {
			c = l.chunks[:1][0][:0]
		}
		if cap(c) == 0 {
			c = make([]uint32, 0, 8)
		}
		l.chunks = append(l.chunks, append(c, x))
		l.valid = false
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
		l.valid = false
	} else {
		l.add(ci, 1)
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
	if len(c) == 0 {
		copy(l.chunks[ci:], l.chunks[ci+1:])
		l.chunks[len(l.chunks)-1] = nil
		l.chunks = l.chunks[:len(l.chunks)-1]
		if len(l.chunks) == 0 {
			l.chunks[:1][0] = c // kept for the next insert, nowhere else
		}
		l.valid = false
		return
	}
	l.chunks[ci] = c
	l.add(ci, -1)
}

// at returns the element of rank r (0-based, r < len).
func (l *olist) at(r int) uint32 {
	if !l.valid {
		l.rebuild()
	}
	// Fenwick descent: the largest prefix of chunks holding at most r
	// elements.
	pos, rem := 0, r
	step := 1
	for step*2 <= len(l.tree)-1 {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if next := pos + step; next <= len(l.tree)-1 && l.tree[next] <= rem {
			pos = next
			rem -= l.tree[next]
		}
	}
	return l.chunks[pos][rem]
}

// each calls f on every element in order.
func (l *olist) each(f func(uint32)) {
	for _, c := range l.chunks {
		for _, x := range c {
			f(x)
		}
	}
}

// reset empties l, keeping its first chunk's array past its end for the
// next insert.
func (l *olist) reset() {
	if len(l.chunks) > 0 {
		clear(l.chunks[1:])
		l.chunks[0] = l.chunks[0][:0]
		l.chunks = l.chunks[:0]
	}
	l.tree = l.tree[:0]
	l.valid, l.n = false, 0
}
