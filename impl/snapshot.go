package impl

import (
	"fmt"
	"sort"
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// MemberSnapshot is one member as the coordinator holds it.
type MemberSnapshot struct {
	MemberID   string
	InstanceID string // "" for a dynamic member
	Epoch      int32
	Assigned   []TopicPartition // owned and acknowledged
	Pending    []TopicPartition // owned, pending revocation
}

// GroupSnapshot is one group, members in id order.
type GroupSnapshot struct {
	GroupID string
	Epoch   int32
	Members []MemberSnapshot
}

// Snapshot returns every group, in group id order, including what Describe
// cannot show (pending revocations). Groups are read one at a time under
// their own locks. It is meant for tests (it mirrors model.Snapshot).
func (c *Coordinator) Snapshot() []GroupSnapshot {
	var out []GroupSnapshot
	for _, g := range c.allGroups() {
		g.mu.Lock()
		if g.status != gLive {
			g.mu.Unlock()
			continue
		}
		gs := GroupSnapshot{GroupID: g.id, Epoch: g.epoch}
		for _, e := range g.sortedMembers() {
			m := &g.mem[e.mi]
			ms := MemberSnapshot{MemberID: e.id, InstanceID: g.instanceOf(e.mi).Value, Epoch: m.epoch,
				Assigned: []TopicPartition{}, Pending: []TopicPartition{}}
			if s := g.sideOf(e.mi); s != nil {
				ms.Assigned = c.topicPartitions(s.assigned)
				ms.Pending = c.topicPartitions(s.pending)
			}
			gs.Members = append(gs.Members, ms)
		}
		g.mu.Unlock()
		out = append(out, gs)
	}
	return out
}

func (c *Coordinator) allGroups() []*group {
	var gs []*group
	for i := range c.groups {
		s := &c.groups[i]
		s.mu.RLock()
		for _, g := range s.m {
			gs = append(gs, g)
		}
		s.mu.RUnlock()
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].id < gs[j].id })
	return gs
}

func (c *Coordinator) topicPartitions(ps []int32) []TopicPartition {
	out := make([]TopicPartition, 0, len(ps))
	for _, p := range ps {
		t := c.topicOf(p)
		out = append(out, TopicPartition{c.topics[t].Name, p - c.base[t]})
	}
	return out
}

// CheckInternal verifies the coordinator's internal bookkeeping: id and
// instance indexes, interned reference counts, the partition ownership
// array against the members' lists, the target against the assignor's
// lists, the session list's order and the rebalance heap. It is for tests;
// it costs O(total size) and locks one group at a time.
func (c *Coordinator) CheckInternal() error {
	for _, g := range c.allGroups() {
		g.mu.Lock()
		err := g.check()
		g.mu.Unlock()
		if err != nil {
			return fmt.Errorf("group %q: %w", g.id, err)
		}
	}
	return nil
}

func (g *group) check() error {
	c := g.c
	live := 0
	instRefs := map[uint32]int32{}
	rackRefs := map[uint32]int32{}
	clientRefs := map[uint32]int32{}
	subRefs := map[uint32]int32{}
	owner := make([]uint32, c.nparts)
	tgt := make([]uint32, c.nparts)
	inTopic := make([]int, len(c.topics))
	for i := 1; i < len(g.mem); i++ {
		mi := uint32(i)
		m := &g.mem[i]
		if m.flags&flLive == 0 {
			continue
		}
		live++
		if got := g.find(g.idString(mi)); got != mi {
			return fmt.Errorf("member %d (%s) found as %d", mi, g.idString(mi), got)
		}
		instRefs[m.inst]++
		rackRefs[m.rack]++
		clientRefs[m.client]++
		subRefs[m.sub]++
		for _, t := range g.subOf(mi).topics {
			inTopic[t]++
		}
		if m.inst != 0 {
			if h := g.insts.get(m.inst).val; h != mi {
				return fmt.Errorf("member %s has instance %q held by %d", g.idString(mi), g.insts.get(m.inst).key, h)
			}
		}
		if s := g.sideOf(mi); s != nil {
			if s.mem != mi {
				return fmt.Errorf("side of %d points to %d", mi, s.mem)
			}
			for _, p := range s.assigned {
				if owner[p] != 0 && !c.mut.Has(MutEarlyHandoff) {
					return fmt.Errorf("partition %d owned twice", p)
				}
				owner[p] = mi << 1
			}
			for _, p := range s.pending {
				if owner[p] != 0 && !c.mut.Has(MutEarlyHandoff) {
					return fmt.Errorf("partition %d owned twice", p)
				}
				owner[p] = mi<<1 | 1
			}
			for _, p := range s.target {
				tgt[p] = mi
			}
			if (s.rdl == noDeadline) != (s.hpos < 0) {
				return fmt.Errorf("member %s: rebalance deadline %d, heap position %d", g.idString(mi), s.rdl, s.hpos)
			}
			if s.hpos >= 0 && g.rheap[s.hpos] != m.side {
				return fmt.Errorf("member %s: heap position %d holds %d", g.idString(mi), s.hpos, g.rheap[s.hpos])
			}
			for _, l := range [][]int32{s.assigned, s.pending, s.target} {
				if !sort.SliceIsSorted(l, func(a, b int) bool { return l[a] < l[b] }) {
					return fmt.Errorf("member %s: unsorted partition list %v", g.idString(mi), l)
				}
			}
		}
	}
	if live != g.count {
		return fmt.Errorf("count %d, live members %d", g.count, live)
	}
	if !c.mut.Has(MutEarlyHandoff) {
		for p := range owner {
			if owner[p] != g.owner[p] {
				return fmt.Errorf("partition %d: owner %#x, members say %#x", p, g.owner[p], owner[p])
			}
		}
	}
	for p := range tgt {
		if tgt[p] != g.tgt[p] {
			return fmt.Errorf("partition %d: target %d, members say %d", p, g.tgt[p], tgt[p])
		}
	}
	for r, n := range instRefs {
		if r != 0 && g.insts.get(r).refs != n {
			return fmt.Errorf("instance ref %d: count %d, members %d", r, g.insts.get(r).refs, n)
		}
	}
	for r, n := range rackRefs {
		if r != 0 && g.racks.get(r).refs != n {
			return fmt.Errorf("rack ref %d: count %d, members %d", r, g.racks.get(r).refs, n)
		}
	}
	for r, n := range clientRefs {
		if r != 0 && g.clients.get(r).refs != n {
			return fmt.Errorf("client ref %d: count %d, members %d", r, g.clients.get(r).refs, n)
		}
	}
	for r, n := range subRefs {
		if r != 0 && g.subs.get(r).refs != n {
			return fmt.Errorf("subscription ref %d: count %d, members %d", r, g.subs.get(r).refs, n)
		}
	}
	if len(instRefs)-boolInt(instRefs[0] > 0) != g.insts.len() || len(subRefs)-boolInt(subRefs[0] > 0) != g.subs.len() {
		return fmt.Errorf("interned entries without members")
	}
	for t := range inTopic {
		if inTopic[t] != g.topicSubs[t].len() {
			return fmt.Errorf("topic %d: %d subscribers listed, %d subscribed", t, g.topicSubs[t].len(), inTopic[t])
		}
		var prev uint32
		bad := false
		g.topicSubs[t].each(func(x uint32) {
			if prev != 0 && !g.idLess(prev, x) {
				bad = true
			}
			prev = x
		})
		if bad {
			return fmt.Errorf("topic %d: subscribers out of order", t)
		}
	}
	// The session list: every linked member once, deadlines ascending.
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
		if n++; n > live {
			return fmt.Errorf("session list has a cycle")
		}
	}
	for i := range g.rheap {
		if l := 2*i + 1; l < len(g.rheap) && g.heapLess(l, i) {
			return fmt.Errorf("rebalance heap out of order at %d", i)
		}
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
