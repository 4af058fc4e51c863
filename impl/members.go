package impl

import "bytes"

// ---- member ids and the member arena ----

// find returns the index of the member with id s, or 0.
func (g *group) find(s string) uint32 {
	u, f := parseID(s)
	switch f {
	case formHex:
		return g.byHex[u]
	case formB64:
		return g.byB64[u]
	}
	return g.byStr[s]
}

// idString is member mi's id. A compact id's text is made once and kept
// (group.idText): Describe, Snapshot and Timers name every member each
// time, and the explorer asks them after every step.
func (g *group) idString(mi uint32) string {
	m := &g.mem[mi]
	if m.form == formStr {
		return g.strIDs[mi]
	}
	if int(mi) < len(g.idText) && g.idText[mi] != "" {
		return g.idText[mi]
	}
	var b [36]byte
	s := string(appendID(b[:0], &m.id, m.form))
	g.keepIDText(mi, s)
	return s
}

// keepIDText keeps s as member mi's id text (idString).
func (g *group) keepIDText(mi uint32, s string) {
	if int(mi) >= len(g.idText) {
		g.idText = append(g.idText, make([]string, len(g.mem)-len(g.idText))...)
	}
	g.idText[mi] = s
}

// appendIDTo appends member mi's id to dst without allocating for compact
// forms.
func (g *group) appendIDTo(dst []byte, mi uint32) []byte {
	m := &g.mem[mi]
	if m.form == formStr {
		return append(dst, g.strIDs[mi]...)
	}
	return appendID(dst, &m.id, m.form)
}

// idLess orders members by id as strings.
func (g *group) idLess(a, b uint32) bool {
	ma, mb := &g.mem[a], &g.mem[b]
	if ma.form == formHex && mb.form == formHex {
		// Lowercase hex with dashes at fixed places sorts like the bytes.
		return bytes.Compare(ma.id[:], mb.id[:]) < 0
	}
	var ba, bb [64]byte
	return bytes.Compare(g.appendIDTo(ba[:0], a), g.appendIDTo(bb[:0], b)) < 0
}

// appendKeyTo appends member mi's assignment key to dst (docs/PROTOCOL.md
// A5.2): the instance id of a static member, the member id of a dynamic
// one.
func (g *group) appendKeyTo(dst []byte, mi uint32) []byte {
	if r := g.mem[mi].inst; r != 0 {
		return append(dst, g.insts.get(r).key...)
	}
	return g.appendIDTo(dst, mi)
}

// keyLess orders members as the assignor sorts a topic's subscribers: by
// assignment key, equal keys (an instance id that is also a dynamic
// member's id, or a takeover's two holders of one instance for a moment)
// by member id, as the model's keyLess. A member's instance id is set
// before it subscribes and never changes after (lookupMember refuses a
// request that would change it), so its place in the topic lists stays
// valid; removeMember takes it out of the lists before dropping its
// instance id.
func (g *group) keyLess(a, b uint32) bool {
	if g.c.mut.Has(MutTakeoverKeysByMemberID) {
		return g.idLess(a, b)
	}
	ma, mb := &g.mem[a], &g.mem[b]
	if ma.inst == mb.inst {
		return g.idLess(a, b) // both dynamic, or the same instance
	}
	var ba, bb [64]byte
	if c := bytes.Compare(g.appendKeyTo(ba[:0], a), g.appendKeyTo(bb[:0], b)); c != 0 {
		return c < 0
	}
	return g.idLess(a, b)
}

// idIs reports whether member mi's id is s.
func (g *group) idIs(mi uint32, s string) bool {
	m := &g.mem[mi]
	if m.form == formStr {
		return g.strIDs[mi] == s
	}
	u, f := parseID(s)
	return f == m.form && u == m.id
}

// alloc makes a new member with id s at epoch 0 and indexes it.
func (g *group) alloc(s string) uint32 {
	var mi uint32
	if n := len(g.free); n > 0 {
		mi = g.free[n-1]
		g.free = g.free[:n-1]
	} else {
		mi = uint32(len(g.mem))
		g.mem = append(g.mem, member{})
	}
	u, f := parseID(s)
	g.mem[mi] = member{id: u, form: f, flags: flLive, state: stStable, session: noDeadline}
	if f != formStr {
		// s is the compact id's text (parseID keeps only the canonical
		// forms compact): kept, as idString would make it again.
		g.keepIDText(mi, s)
	} else if int(mi) < len(g.idText) {
		g.idText[mi] = "" // a freed slot's
	}
	switch f {
	case formHex:
		if g.byHex == nil {
			g.byHex = map[[16]byte]uint32{}
		}
		g.byHex[u] = mi
	case formB64:
		if g.byB64 == nil {
			g.byB64 = map[[16]byte]uint32{}
		}
		g.byB64[u] = mi
	default:
		if g.byStr == nil {
			g.byStr, g.strIDs = map[string]uint32{}, map[uint32]string{}
		}
		g.byStr[s] = mi
		g.strIDs[mi] = s
	}
	g.count++
	return mi
}

// removeMember takes mi out of the group (leave, admin removal, session or
// rebalance timeout), freeing all its partitions. The caller moves the
// epoch on and recomputes the target.
func (g *group) removeMember(mi uint32) {
	g.moveSubscription(mi, 0) // while its key, the instance id, is still set
	g.dropInstance(mi)
	m := &g.mem[mi]
	g.racks.release(m.rack)
	g.clients.release(m.client)
	if si := g.mem[mi].side; si != 0 {
		s := &g.sides[si]
		for _, p := range s.assigned {
			g.release(p, mi)
		}
		for _, p := range s.pending {
			g.release(p, mi)
		}
		for _, p := range s.target {
			if g.tgt[p] == mi {
				g.tgt[p] = 0
			}
		}
		g.heapRemove(si)
		s = &g.sides[si]
		s.assigned, s.pending, s.target = s.assigned[:0], s.pending[:0], s.target[:0]
		s.rdl = noDeadline
		g.maybeFreeSide(mi)
	}
	g.unlinkSession(mi)
	m = &g.mem[mi]
	switch m.form {
	case formHex:
		delete(g.byHex, m.id)
	case formB64:
		delete(g.byB64, m.id)
	default:
		delete(g.byStr, g.strIDs[mi])
		delete(g.strIDs, mi)
	}
	g.dropClassic(mi)
	*m = member{}
	if int(mi) < len(g.idText) {
		g.idText[mi] = ""
	}
	g.free = append(g.free, mi)
	g.count--
}

// ---- side records ----

func (g *group) sideOf(mi uint32) *side {
	if s := g.mem[mi].side; s != 0 {
		return &g.sides[s]
	}
	return nil
}

func (g *group) ensureSide(mi uint32) *side {
	if s := g.mem[mi].side; s != 0 {
		return &g.sides[s]
	}
	var si uint32
	if n := len(g.freeSides); n > 0 {
		si = g.freeSides[n-1]
		g.freeSides = g.freeSides[:n-1]
	} else {
		si = uint32(len(g.sides))
		g.sides = append(g.sides, side{})
	}
	s := &g.sides[si]
	*s = side{assigned: s.assigned[:0], pending: s.pending[:0], target: s.target[:0], rdl: noDeadline, hpos: -1, mem: mi}
	g.mem[mi].side = si
	return s
}

// maybeFreeSide returns mi's side record once it holds nothing.
func (g *group) maybeFreeSide(mi uint32) {
	si := g.mem[mi].side
	if si == 0 {
		return
	}
	s := &g.sides[si]
	if len(s.assigned) > 0 || len(s.pending) > 0 || len(s.target) > 0 || s.rdl != noDeadline || s.hpos >= 0 {
		return
	}
	s.mem = 0
	g.mem[mi].side = 0
	g.freeSides = append(g.freeSides, si)
}
