package explore

import (
	"sync"
	"sync/atomic"
)

// fpSet is the set of fingerprints of the states found, safe for
// concurrent use: 256 shards (by the fingerprint's top byte), each an
// open-addressing table of uint64 under its own lock, doubled when three
// quarters full. 0 marks an empty slot, so the fingerprint 0 is stored as
// 1 (one more collision in 2^64). It costs 8 bytes a slot: between 10.7
// and 21.3 bytes per state.
type fpSet struct {
	shards [fpShards]fpShard
	bytes  atomic.Int64
}

const (
	fpShards   = 256
	fpInitial  = 1 << 10 // slots a shard starts with
	fpShardBit = 56
)

type fpShard struct {
	mu    sync.Mutex
	slots []uint64
	n     int
	_     [24]byte // keep shards' locks on separate cache lines
}

// insert adds fp and reports whether it was new.
func (s *fpSet) insert(fp uint64) bool {
	if fp == 0 {
		fp = 1
	}
	sh := &s.shards[fp>>fpShardBit]
	sh.mu.Lock()
	if sh.slots == nil {
		sh.slots = make([]uint64, fpInitial)
		s.bytes.Add(fpInitial * 8)
	}
	added := sh.put(fp)
	if added && sh.n*4 > len(sh.slots)*3 {
		old := len(sh.slots)
		sh.grow()
		s.bytes.Add(int64(len(sh.slots)-old) * 8)
	}
	sh.mu.Unlock()
	return added
}

// put adds fp to the table (which has room) and reports whether it was new.
func (sh *fpShard) put(fp uint64) bool {
	mask := uint64(len(sh.slots) - 1)
	for i := fp & mask; ; i = (i + 1) & mask {
		switch sh.slots[i] {
		case fp:
			return false
		case 0:
			sh.slots[i] = fp
			sh.n++
			return true
		}
	}
}

func (sh *fpShard) grow() {
	old := sh.slots
	sh.slots = make([]uint64, 2*len(old))
	sh.n = 0
	for _, fp := range old {
		if fp != 0 {
			sh.put(fp)
		}
	}
}

// len is the number of fingerprints: the shards' counts, each read under
// its lock (a count shared by the shards would be a cache line every
// insert of every worker writes).
func (s *fpSet) len() uint64 {
	var n uint64
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += uint64(sh.n)
		sh.mu.Unlock()
	}
	return n
}

// each calls f on every fingerprint (not concurrently with insert).
func (s *fpSet) each(f func(uint64)) {
	for i := range s.shards {
		for _, fp := range s.shards[i].slots {
			if fp != 0 {
				f(fp)
			}
		}
	}
}
