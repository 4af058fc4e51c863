package impl

import (
	"maps"
	"math/bits"
	"slices"
)

// The classic groups' and held requests' part of Clone and CopyTo
// (clone.go), and what the explorer and the equivalence tests compare of
// them beside the snapshot: the classic timers (ClassicTimers) and the
// held connections (Held).

// copyClassicInto makes ng's classic state a copy of g's (nil when g has
// none). Members are copied, and the maps and the timer heap point at the
// copies; the protocols' metadata, the assignments and the record's bytes
// are shared: they are replaced when they change, never written into.
func (g *group) copyClassicInto(ng *group) {
	ng.kind = g.kind
	if g.cl == nil {
		ng.cl = nil
		return
	}
	cl := g.cl
	out := *cl
	out.members = make([]*cmember, len(cl.members))
	out.byID = make(map[string]*cmember, len(cl.byID))
	out.static = make(map[string]*cmember, len(cl.static))
	newOf := make(map[*cmember]*cmember, len(cl.members))
	for i, m := range cl.members {
		v := *m
		v.protocols = slices.Clone(m.protocols)
		out.members[i] = &v
		out.byID[v.id] = &v
		newOf[m] = &v
	}
	// A member removed from the list may still be named by the maps'
	// entries only if it is in them: every map entry is a listed member.
	for inst, m := range cl.static {
		out.static[inst] = newOf[m]
	}
	out.pending = maps.Clone(cl.pending)
	out.replaced = slices.Clone(cl.replaced)
	out.record.members = slices.Clone(cl.record.members)
	out.timers = slices.Clone(cl.timers)
	for i := range out.timers {
		if m := out.timers[i].m; m != nil {
			out.timers[i].m = newOf[m]
		}
	}
	ng.cl = &out
}

// copyHeldTo copies the held connections and the answers and resumptions
// not yet taken into out (whose shards' holds are replaced): used has a
// bit set for every connection shard either of them made a map in.
func (c *Coordinator) copyHeldTo(out *Coordinator, used uint64) {
	for ; used != 0; used &= used - 1 {
		i := bits.TrailingZeros64(used)
		src := c.conns[i].holds
		if len(src) == 0 {
			out.conns[i].holds = nil
			continue
		}
		dst := make(map[uint64]*connHold, len(src))
		for id, h := range src {
			v := *h
			v.queue = slices.Clone(h.queue)
			dst[id] = &v
		}
		out.conns[i].holds = dst
	}
	out.released = slices.Clone(c.released)
	out.resume = slices.Clone(c.resume)
	out.nResume.Store(c.nResume.Load())
	out.nReleased.Store(c.nReleased.Load())
}

// ClassicTimers calls f for every classic group's timers, groups in id
// order, as model.Coordinator.ClassicTimers does: the join phase's timer
// ("join", with "join-delay", "join-remaining" and "join-initial"
// while it is armed), the
// sync phase's ("sync", with "sync-generation" while armed), then each member's
// session deadline under its id, in id order; -1 (noDeadline) for a timer
// that is off. What no snapshot shows and decides when the group moves:
// tests and the explorer (package explore) hold the two to each other.
func (c *Coordinator) ClassicTimers(f func(group, key string, at int64)) {
	var few [4]*group // mostly a few: no array made (the explorer asks after every step)
	for _, g := range c.live.appendTo(few[:0]) {
		g.mu.Lock()
		if g.status == gLive && g.kind == kindClassic && g.cl != nil {
			cl := g.cl
			initial := int64(0)
			if cl.join.initial {
				initial = 1
			}
			f(g.id, "join", cl.join.at)
			if cl.join.at != noDeadline { // what an armed timer carries
				f(g.id, "join-delay", cl.join.delay)
				f(g.id, "join-remaining", cl.join.remaining)
				f(g.id, "join-initial", initial)
			}
			f(g.id, "sync", cl.sync.at)
			if cl.sync.at != noDeadline {
				f(g.id, "sync-generation", int64(cl.sync.generation))
			}
			for _, m := range cl.members {
				f(g.id, m.id, m.session)
			}
		}
		g.mu.Unlock()
	}
}

// Held calls f for every connection with a held request, in id order, as
// model.Coordinator.Held does: whether a request of it waits in its group
// (active) and which, and the deliveries of the requests held unread
// behind it, in arrival order.
func (c *Coordinator) Held(f func(conn uint64, active bool, delivery uint64, queued []uint64)) {
	var ids []uint64
	for i := range c.conns {
		s := &c.conns[i]
		s.mu.Lock()
		for id := range s.holds {
			ids = append(ids, id)
		}
		s.mu.Unlock()
	}
	slices.Sort(ids)
	for _, id := range ids {
		s := &c.conns[id%nConnShards]
		s.mu.Lock()
		h := s.holds[id]
		var queued []uint64
		active, delivery := false, uint64(0)
		if h != nil {
			active, delivery = h.active, h.delivery
			for _, r := range h.queue {
				queued = append(queued, r.conn.Delivery)
			}
		}
		s.mu.Unlock()
		if h != nil {
			f(id, active, delivery, queued)
		}
	}
}
