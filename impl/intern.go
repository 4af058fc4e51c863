package impl

// table interns values of a group by key with reference counts, so that a
// member record holds a uint32 instead of strings. Reference 0 is never
// used: it means "none" (null) in member records.
type table[K comparable, V any] struct {
	idx  map[K]uint32
	ents []tentry[K, V]
	free []uint32
}

type tentry[K comparable, V any] struct {
	key  K
	val  V
	refs int32
}

func (t *table[K, V]) get(r uint32) *tentry[K, V] { return &t.ents[r] }

// find returns the reference of k, or 0.
func (t *table[K, V]) find(k K) uint32 { return t.idx[k] }

// acquire returns k's reference with its count raised by one, creating the
// entry with mk when it does not exist.
func (t *table[K, V]) acquire(k K, mk func() V) uint32 {
	if r, ok := t.idx[k]; ok {
		t.ents[r].refs++
		return r
	}
	if t.idx == nil {
		t.idx = map[K]uint32{}
	}
	if len(t.ents) == 0 { // a copy of an empty table keeps its array (copyInto)
		if cap(t.ents) == 0 {
			t.ents = make([]tentry[K, V], 0, 4)
		}
		t.ents = append(t.ents, tentry[K, V]{})
	}
	var r uint32
	e := tentry[K, V]{key: k, refs: 1}
	if mk != nil {
		e.val = mk()
	}
	if n := len(t.free); n > 0 {
		r = t.free[n-1]
		t.free = t.free[:n-1]
		t.ents[r] = e
	} else {
		r = uint32(len(t.ents))
		t.ents = append(t.ents, e)
	}
	t.idx[k] = r
	return r
}

// retain raises r's count by one (r found by the caller).
func (t *table[K, V]) retain(r uint32) { t.ents[r].refs++ }

// release drops one reference to r (0 is ignored).
func (t *table[K, V]) release(r uint32) {
	if r == 0 {
		return
	}
	e := &t.ents[r]
	if e.refs--; e.refs > 0 {
		return
	}
	delete(t.idx, e.key)
	*e = tentry[K, V]{}
	t.free = append(t.free, r)
}

// emptied is the table without entries, in t's memory.
func (t table[K, V]) emptied() table[K, V] {
	clear(t.idx)
	clear(t.ents)
	return table[K, V]{idx: t.idx, ents: t.ents[:0], free: t.free[:0]}
}

// len is the number of live entries.
func (t *table[K, V]) len() int { return len(t.idx) }
