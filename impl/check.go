package impl

import (
	"fmt"
	"sort"
)

// CheckInternal verifies the coordinator's internal bookkeeping: id and
// instance indexes, interned reference counts, the partition ownership
// array against the members' lists, the target against the assignor's
// lists, the session list's order and the rebalance heap. It is for tests;
// it costs O(total size) and locks one group at a time.
func (c *Coordinator) CheckInternal() error {
	for _, g := range c.allGroups() {
		g.mu.Lock()
		err := g.check()
		if err == nil && g.kind == kindClassic {
			err = g.checkClassic()
		}
		g.mu.Unlock()
		if err != nil {
			return fmt.Errorf("group %q: %w", g.id, err)
		}
	}
	return nil
}

// tally is what check counts from the member records, to hold the group's
// indexes, counters and per-partition arrays against.
type tally struct {
	live                                    int
	instRefs, rackRefs, clientRefs, subRefs map[uint32]int32
	owner, tgt                              []uint32 // per partition, as the side records say
	inTopic                                 []int    // per topic, members subscribed
}

// check verifies one group's bookkeeping (see CheckInternal): each member
// record on its own, then the group's indexes against what the members
// add up to, then the timers.
func (g *group) check() error {
	c := g.c
	t := &tally{
		instRefs:   map[uint32]int32{},
		rackRefs:   map[uint32]int32{},
		clientRefs: map[uint32]int32{},
		subRefs:    map[uint32]int32{},
		owner:      make([]uint32, c.nparts),
		tgt:        make([]uint32, c.nparts),
		inTopic:    make([]int, len(c.topics)),
	}
	for i := 1; i < len(g.mem); i++ {
		if g.mem[i].flags&flLive == 0 {
			continue
		}
		if err := g.checkMember(uint32(i), t); err != nil {
			return err
		}
	}
	if t.live != g.count {
		return fmt.Errorf("count %d, live members %d", g.count, t.live)
	}
	for _, step := range []func(*tally) error{g.checkPartitions, g.checkInterned, g.checkTopicLists, g.checkTimers} {
		if err := step(t); err != nil {
			return err
		}
	}
	return nil
}

// checkMember checks live member mi's own record and adds it to t.
func (g *group) checkMember(mi uint32, t *tally) error {
	m := &g.mem[mi]
	t.live++
	if got := g.find(g.idString(mi)); got != mi {
		return fmt.Errorf("member %d (%s) found as %d", mi, g.idString(mi), got)
	}
	t.instRefs[m.inst]++
	t.rackRefs[m.rack]++
	t.clientRefs[m.client]++
	t.subRefs[m.sub]++
	for _, ti := range g.subOf(mi).topics {
		t.inTopic[ti]++
	}
	if m.inst != 0 {
		if h := g.insts.get(m.inst).val; h != mi {
			return fmt.Errorf("member %s has instance %q held by %d", g.idString(mi), g.insts.get(m.inst).key, h)
		}
	}
	if s := g.sideOf(mi); s != nil {
		return g.checkSide(mi, s, t)
	}
	return nil
}

// checkSide checks member mi's side record and adds its partitions to t.
func (g *group) checkSide(mi uint32, s *side, t *tally) error {
	if s.mem != mi {
		return fmt.Errorf("side of %d points to %d", mi, s.mem)
	}
	for _, p := range s.assigned {
		if t.owner[p] != 0 && !g.c.mut.Has(MutEarlyHandoff) {
			return fmt.Errorf("partition %d owned twice", p)
		}
		t.owner[p] = mi << 1
	}
	for _, p := range s.pending {
		if t.owner[p] != 0 && !g.c.mut.Has(MutEarlyHandoff) {
			return fmt.Errorf("partition %d owned twice", p)
		}
		t.owner[p] = mi<<1 | 1
	}
	for _, p := range s.target {
		t.tgt[p] = mi
	}
	if (s.rdl == noDeadline) != (s.hpos < 0) {
		return fmt.Errorf("member %s: rebalance deadline %d, heap position %d", g.idString(mi), s.rdl, s.hpos)
	}
	if s.hpos >= 0 && g.rheap[s.hpos] != g.mem[mi].side {
		return fmt.Errorf("member %s: heap position %d holds %d", g.idString(mi), s.hpos, g.rheap[s.hpos])
	}
	for _, l := range [][]int32{s.assigned, s.pending, s.target} {
		if !sort.SliceIsSorted(l, func(a, b int) bool { return l[a] < l[b] }) {
			return fmt.Errorf("member %s: unsorted partition list %v", g.idString(mi), l)
		}
	}
	return nil
}

// checkPartitions holds the ownership and target arrays against the side
// records (ownership only without the mutant that shares partitions).
func (g *group) checkPartitions(t *tally) error {
	if !g.c.mut.Has(MutEarlyHandoff) {
		for p := range t.owner {
			if t.owner[p] != g.owner[p] {
				return fmt.Errorf("partition %d: owner %#x, members say %#x", p, g.owner[p], t.owner[p])
			}
		}
	}
	for p := range t.tgt {
		if t.tgt[p] != g.tgt[p] {
			return fmt.Errorf("partition %d: target %d, members say %d", p, g.tgt[p], t.tgt[p])
		}
	}
	return nil
}

// checkInterned holds the interned tables' reference counts against the
// members referring to them, and finds entries no member refers to.
func (g *group) checkInterned(t *tally) error {
	tables := []struct {
		what string
		refs map[uint32]int32
		held func(r uint32) int32
	}{
		{"instance", t.instRefs, func(r uint32) int32 { return g.insts.get(r).refs }},
		{"rack", t.rackRefs, func(r uint32) int32 { return g.racks.get(r).refs }},
		{"client", t.clientRefs, func(r uint32) int32 { return g.clients.get(r).refs }},
		{"subscription", t.subRefs, func(r uint32) int32 { return g.subs.get(r).refs }},
	}
	for _, tb := range tables {
		for r, n := range tb.refs {
			if r != 0 && tb.held(r) != n {
				return fmt.Errorf("%s ref %d: count %d, members %d", tb.what, r, tb.held(r), n)
			}
		}
	}
	if len(t.instRefs)-boolInt(t.instRefs[0] > 0) != g.insts.len() || len(t.subRefs)-boolInt(t.subRefs[0] > 0) != g.subs.len() {
		return fmt.Errorf("interned entries without members")
	}
	return nil
}

// checkTopicLists holds each topic's subscriber list against the members
// subscribed, and checks it is in assignment-key order.
func (g *group) checkTopicLists(t *tally) error {
	for ti := range t.inTopic {
		if t.inTopic[ti] != g.topicSubs[ti].len() {
			return fmt.Errorf("topic %d: %d subscribers listed, %d subscribed", ti, g.topicSubs[ti].len(), t.inTopic[ti])
		}
		var prev uint32
		bad := false
		g.topicSubs[ti].each(func(x uint32) {
			if prev != 0 && !g.keyLess(prev, x) {
				bad = true
			}
			prev = x
		})
		if bad {
			return fmt.Errorf("topic %d: subscribers out of order", ti)
		}
	}
	return nil
}

// checkTimers checks the session list (every linked member once,
// deadlines ascending), the rebalance heap's order, and that the shard
// will visit the group by its earliest timer.
func (g *group) checkTimers(t *tally) error {
	n, last := 0, int64(-1<<63)
	for mi, prev := g.sessHead, uint32(0); mi != 0; prev, mi = mi, g.mem[mi].next {
		m := &g.mem[mi]
		if m.flags&flLinked == 0 || m.prev != prev {
			return fmt.Errorf("session list broken at %d", mi)
		}
		if m.session < last {
			return fmt.Errorf("session list out of order at %s", g.idString(mi))
		}
		last = m.session
		if n++; n > t.live {
			return fmt.Errorf("session list has a cycle")
		}
	}
	for i := range g.rheap {
		if l := 2*i + 1; l < len(g.rheap) && g.heapLess(l, i) {
			return fmt.Errorf("rebalance heap out of order at %d", i)
		}
	}
	if err := g.checkMixed(); err != nil {
		return err
	}
	if at, ok := g.earliest(); ok && g.registered > at {
		return fmt.Errorf("earliest timer %d but registered %d", at, g.registered)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
