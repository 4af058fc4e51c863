package model

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
)

// The classic groups' and held requests' part of Clone and AppendState
// (clone.go).

func (g *classicGroup) clone() *classicGroup {
	out := *g
	out.members = make([]*classicMember, len(g.members))
	for i, m := range g.members {
		v := *m
		v.protocols = make([]classicProtocol, len(m.protocols))
		for j, p := range m.protocols {
			v.protocols[j] = classicProtocol{p.name, slices.Clone(p.metadata)}
		}
		v.assignment = slices.Clone(m.assignment)
		v.join, v.sync = cloneParked(m.join), cloneParked(m.sync)
		out.members[i] = &v
	}
	out.static = maps.Clone(g.static)
	out.pending = maps.Clone(g.pending)
	out.awaitingSync = maps.Clone(g.awaitingSync)
	out.record.members = make([]recordedMember, len(g.record.members))
	for i, r := range g.record.members {
		r.metadata, r.assignment = slices.Clone(r.metadata), slices.Clone(r.assignment)
		out.record.members[i] = r
	}
	return &out
}

func cloneParked(p *parked) *parked {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// cloneHeld copies the held connections and the answers not yet released
// (the requests themselves are never changed: they are shared).
func (c *Coordinator) cloneHeld(out *Coordinator) {
	if len(c.holds) == 0 {
		return
	}
	out.holds = make(map[uint64]*connHold, len(c.holds))
	for id, h := range c.holds {
		v := *h
		v.queue = slices.Clone(h.queue)
		out.holds[id] = &v
	}
	out.released = slices.Clone(c.released)
	out.resume = slices.Clone(c.resume)
}

// appendClassicState appends the classic groups (in id order, with every
// field a later request or timer reads), the held connections and the
// answers not yet released, with the abstractions f asks for.
func (c *Coordinator) appendClassicState(b []byte, f StateForm) []byte {
	var gbuf [4]string
	ids := sortedKeys(c.classic, gbuf[:0])
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = c.classic[id].appendState(b, f, c.now)
	}
	var cbuf [8]uint64
	conns := sortedKeys(c.holds, cbuf[:0])
	b = binary.AppendUvarint(b, uint64(len(conns)))
	for _, id := range conns {
		h := c.holds[id]
		b = binary.AppendUvarint(b, id)
		b = appendBool(b, h.active)
		b = binary.AppendUvarint(b, h.delivery)
		b = binary.AppendUvarint(b, uint64(len(h.queue)))
		for _, r := range h.queue {
			b = binary.AppendUvarint(b, r.conn.Delivery)
			b = appendString(b, r.conn.Host)
			if f.Request != nil {
				b = f.Request(b, &r.header, r.req)
			} else {
				b = fmt.Appendf(b, "%+v|%+v|", r.header, r.req)
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(c.released)))
	for _, r := range c.released {
		b = binary.AppendUvarint(b, r.Delivery)
		b = fmt.Appendf(b, "%t|%+v|", r.Dropped, r.Response)
	}
	return b
}

func (g *classicGroup) appendState(b []byte, f StateForm, now int64) []byte {
	id := func(b []byte, s string) []byte {
		if f.MemberID != nil && s != "" {
			return f.MemberID(b, s)
		}
		return appendString(b, s)
	}
	b = appendString(b, g.id)
	b = append(b, byte(g.state), byte(g.prev))
	b = binary.AppendVarint(b, int64(g.generation))
	b = appendString(b, g.protocolType)
	b = appendString(b, g.protocol)
	b = id(b, g.leader)
	b = appendBool(b, g.newMemberAdded)
	b = appendTime(b, g.join.at, f, now)
	if g.join.at != noDeadline { // what an armed timer carries
		b = appendBool(b, g.join.initial)
		b = binary.AppendVarint(b, g.join.delay)
		b = binary.AppendVarint(b, g.join.remaining)
	}
	b = appendTime(b, g.sync.at, f, now)
	if g.sync.at != noDeadline {
		b = binary.AppendVarint(b, int64(g.sync.generation))
	}
	b = binary.AppendUvarint(b, uint64(len(g.members)))
	for _, m := range g.members {
		b = id(b, m.id)
		b = appendString(b, m.clientID)
		b = appendString(b, m.host)
		b = appendNullable(b, m.instance)
		b = binary.AppendVarint(b, int64(m.sessionMs))
		b = binary.AppendVarint(b, int64(m.rebalanceMs))
		b = appendString(b, m.protocolType)
		b = binary.AppendUvarint(b, uint64(len(m.protocols)))
		for _, p := range m.protocols {
			b = appendString(b, p.name)
			b = appendString(b, string(p.metadata))
		}
		b = appendString(b, string(m.assignment))
		b = appendBool(b, m.isNew)
		b = appendParked(b, m.join)
		b = appendParked(b, m.sync)
		b = appendTime(b, m.sessionDeadline, f, now)
	}
	// Pending and awaited ids in id order: a renaming that keeps the
	// order of ids keeps it.
	pending := slices.Sorted(maps.Keys(g.pending))
	b = binary.AppendUvarint(b, uint64(len(pending)))
	for _, p := range pending {
		b = id(b, p)
		b = appendTime(b, g.pending[p], f, now)
	}
	awaited := g.awaitedIDs()
	b = binary.AppendUvarint(b, uint64(len(awaited)))
	for _, a := range awaited {
		b = id(b, a)
	}
	r := g.record
	b = binary.AppendVarint(b, int64(r.generation))
	b = appendString(b, r.protocolType)
	b = appendString(b, r.protocol)
	b = id(b, r.leader)
	b = binary.AppendUvarint(b, uint64(len(r.members)))
	for _, m := range r.members {
		b = id(b, m.id)
		b = appendString(b, m.clientID)
		b = appendString(b, m.host)
		b = appendNullable(b, m.instance)
		b = binary.AppendVarint(b, int64(m.sessionMs))
		b = binary.AppendVarint(b, int64(m.rebalanceMs))
		b = appendString(b, string(m.metadata))
		b = appendString(b, string(m.assignment))
	}
	// The instance map is a function of the members.
	return b
}

// ClassicTimers calls f for every classic group's timers, groups in id
// order: the join phase's timer ("join", with "join-delay",
// "join-remaining" and "join-initial" while it is armed), the sync phase's ("sync", with
// "sync-generation"), then each member's session deadline under its id,
// in id order; -1 for a timer that is off. What Snapshot does not show of
// a classic group (its pending ids' deadlines it does) but decides when
// it moves: the explorer (package explore) and the equivalence tests hold
// impl's to them (impl.Coordinator.ClassicTimers).
func (c *Coordinator) ClassicTimers(f func(group, key string, at int64)) {
	for _, id := range slices.Sorted(maps.Keys(c.classic)) {
		g := c.classic[id]
		initial := int64(0)
		if g.join.initial {
			initial = 1
		}
		f(id, "join", g.join.at)
		if g.join.at != noDeadline { // what an armed timer carries
			f(id, "join-delay", g.join.delay)
			f(id, "join-remaining", g.join.remaining)
			f(id, "join-initial", initial)
		}
		f(id, "sync", g.sync.at)
		if g.sync.at != noDeadline {
			f(id, "sync-generation", int64(g.sync.generation))
		}
		for _, m := range g.members {
			f(id, m.id, m.sessionDeadline)
		}
	}
}

// Held calls f for every connection with a held request, in id order:
// whether a request of it waits in its group (active) and which
// (delivery), and the deliveries of the requests held unread behind it,
// in arrival order. impl.Coordinator.Held is held to it.
func (c *Coordinator) Held(f func(conn uint64, active bool, delivery uint64, queued []uint64)) {
	for _, id := range slices.Sorted(maps.Keys(c.holds)) {
		h := c.holds[id]
		var queued []uint64
		for _, r := range h.queue {
			queued = append(queued, r.conn.Delivery)
		}
		f(id, h.active, h.delivery, queued)
	}
}

func appendParked(b []byte, p *parked) []byte {
	if p == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, p.delivery)
	b = binary.AppendUvarint(b, p.conn)
	b = binary.AppendVarint(b, int64(p.version))
	return appendBool(b, p.orphan)
}
