package impl

import "math"

// ---- rebalance timers: an indexed min-heap of side records ----

func (g *group) heapLess(i, j int) bool { return g.sides[g.rheap[i]].rdl < g.sides[g.rheap[j]].rdl }

func (g *group) heapSwap(i, j int) {
	h := g.rheap
	h[i], h[j] = h[j], h[i]
	g.sides[h[i]].hpos = int32(i)
	g.sides[h[j]].hpos = int32(j)
}

func (g *group) heapUp(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !g.heapLess(i, p) {
			break
		}
		g.heapSwap(i, p)
		i = p
	}
}

func (g *group) heapDown(i int) {
	n := len(g.rheap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && g.heapLess(r, l) {
			m = r
		}
		if !g.heapLess(m, i) {
			return
		}
		g.heapSwap(i, m)
		i = m
	}
}

func (g *group) heapRemove(si uint32) {
	s := &g.sides[si]
	i := int(s.hpos)
	if i < 0 {
		return
	}
	last := len(g.rheap) - 1
	if i != last {
		g.heapSwap(i, last)
	}
	g.rheap = g.rheap[:last]
	g.sides[si].hpos = -1
	if i != last {
		g.heapDown(i)
		g.heapUp(i)
	}
}

// setRebalance sets mi's rebalance deadline (noDeadline clears it).
func (g *group) setRebalance(mi uint32, at int64) {
	if at == noDeadline {
		if si := g.mem[mi].side; si != 0 {
			g.heapRemove(si)
			g.sides[si].rdl = noDeadline
		}
		return
	}
	s := g.ensureSide(mi)
	si := g.mem[mi].side
	s.rdl = at
	if s.hpos < 0 {
		s.hpos = int32(len(g.rheap))
		g.rheap = append(g.rheap, si)
		g.heapUp(int(s.hpos))
	} else {
		g.heapDown(int(s.hpos))
		g.heapUp(int(g.sides[si].hpos))
	}
	g.register(at)
}

// ---- session timers: a list in deadline order ----

func (g *group) unlinkSession(mi uint32) {
	m := &g.mem[mi]
	if m.flags&flLinked == 0 {
		return
	}
	if m.prev != 0 {
		g.mem[m.prev].next = m.next
	} else {
		g.sessHead = m.next
	}
	if m.next != 0 {
		g.mem[m.next].prev = m.prev
	} else {
		g.sessTail = m.prev
	}
	m.prev, m.next = 0, 0
	m.flags &^= flLinked
}

// armSession (re)arms mi's session timer to now + the session timeout. The
// clock never goes back, so the new deadline is the latest: the member
// goes to the tail.
func (g *group) armSession(mi uint32, now int64) {
	at := now + g.c.cfg.SessionTimeoutMs
	m := &g.mem[mi]
	if m.flags&flLinked != 0 && m.next == 0 {
		m.session = at // already the tail
		return
	}
	g.unlinkSession(mi)
	m.session = at
	if at == noDeadline {
		return // the model's "no deadline" sentinel
	}
	m.prev = g.sessTail
	if g.sessTail != 0 {
		g.mem[g.sessTail].next = mi
	} else {
		g.sessHead = mi
	}
	g.sessTail = mi
	m.flags |= flLinked
	if at < g.registered {
		g.register(at)
	}
}

// register makes sure the group's shard will visit it by at.
func (g *group) register(at int64) {
	if at >= g.registered {
		return
	}
	g.registered = at
	g.shard.push(at, g)
}

// earliest is the group's earliest timer.
func (g *group) earliest() (int64, bool) {
	at, ok := int64(math.MaxInt64), false
	if g.sessHead != 0 {
		at, ok = g.mem[g.sessHead].session, true
	}
	if len(g.rheap) > 0 {
		if d := g.sides[g.rheap[0]].rdl; !ok || d < at {
			at, ok = d, true
		}
	}
	if g.mx != nil && len(g.mx.timers) > 0 {
		if d := g.mx.timers[0].at; !ok || d < at {
			at, ok = d, true
		}
	}
	return at, ok
}

// expire fires every timer of the group due at now: sessions from the head
// of the list, rebalance timers from the top of the heap. Each removal
// moves the group epoch on; the target is recomputed once at the end (the
// intermediate targets are never observed).
func (g *group) expire(now int64) {
	removed := int32(0)
	late := int64(0) // MutSessionExpiryLate: a session outlives its deadline by a millisecond
	if g.c.mut.Has(MutSessionExpiryLate) {
		late = 1
	}
	for g.sessHead != 0 && g.mem[g.sessHead].session+late <= now {
		mi := g.sessHead
		if g.c.mut.Has(MutParkedNeverExpires) && g.mem[mi].epoch == -2 {
			g.unlinkSession(mi)
			g.mem[mi].session = noDeadline
			continue
		}
		g.removeMember(mi)
		removed++
	}
	rlate := int64(0) // MutRebalanceExpiryLate: a rebalance timeout outlives its deadline by a millisecond
	if g.c.mut.Has(MutRebalanceExpiryLate) {
		rlate = 1
	}
	for len(g.rheap) > 0 && g.sides[g.rheap[0]].rdl+rlate <= now {
		si := g.rheap[0]
		g.heapRemove(si)
		s := &g.sides[si]
		s.rdl = noDeadline
		mi := s.mem
		if len(s.pending) > 0 {
			g.removeMember(mi)
			removed++
		} else {
			g.maybeFreeSide(mi)
		}
	}
	if removed > 0 {
		g.epoch += removed
		g.computeTarget()
	}
	g.registered = math.MaxInt64
	if at, ok := g.earliest(); ok {
		g.register(at)
	}
}

// Timers calls f for every member's timers, groups in id order and members
// in id order: its session deadline and its rebalance deadline, -1 for
// one not set, as model.Coordinator.Timers does: what Snapshot does not
// show of a member but decides its future. Tests and the explorer
// (package explore) hold the two to each other.
func (c *Coordinator) Timers(f func(group, member string, session, rebalance int64)) {
	var few [4]*group // mostly a few: no array made (the explorer asks after every step)
	for _, g := range c.live.appendTo(few[:0]) {
		g.mu.Lock()
		if g.status == gLive {
			for _, e := range g.sortedMembers() {
				rdl := noDeadline
				if s := g.sideOf(e.mi); s != nil {
					rdl = s.rdl
				}
				f(g.id, e.id, g.mem[e.mi].session, rdl)
			}
		}
		g.mu.Unlock()
	}
}
