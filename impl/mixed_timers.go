package impl

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// The timers of a consumer group's classic members (docs/PROTOCOL.md
// A7.1): each has a session timeout of its own (its JoinGroup's), a join
// timer and a sync timer, so they cannot join the session list, whose
// order relies on one timeout for all. They live in one min-heap per
// group (mixedState.timers), made only for a group that has classic
// members: a consumer-only group keeps its list and rebalance heap and
// pays one nil check in expire's dispatch. Entries are lazy, as a classic
// group's are (classic_timers.go): a Heartbeat moves a session deadline
// later and leaves its entry where it is; an entry carries the serial of
// the member's classic state it was armed for, so that one of a member
// gone, switched or rejoined since is dropped when it comes due.
//
// A group with classic members fires its due timers one by one in the
// model's order (deadline, member id, then session, rebalance, join,
// sync): the removal of its last consumer-protocol member may convert it
// to a classic group (A7.5), and which member is last, and when, depends
// on that order. Epoch moves and target recomputations are still batched
// up to a conversion, which is the only thing that sees a target between
// two removals.

// Kinds of a mixed group's timers, in the model's firing order at one
// deadline and member.
const (
	mtSession uint8 = iota
	mtRebalance
	mtJoin
	mtSync
)

// mtimer is an entry of the classic members' heap.
type mtimer struct {
	at     int64
	serial uint64
	mi     uint32
	kind   uint8
}

func (g *group) mtLess(i, j int) bool { return g.mx.timers[i].at < g.mx.timers[j].at }

func (g *group) mtPush(t mtimer) {
	x := g.mx
	x.timers = append(x.timers, t)
	for i := len(x.timers) - 1; i > 0; {
		p := (i - 1) / 2
		if !g.mtLess(i, p) {
			break
		}
		x.timers[i], x.timers[p] = x.timers[p], x.timers[i]
		i = p
	}
	g.register(t.at)
}

func (g *group) mtPop() mtimer {
	h := g.mx.timers
	t := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	g.mx.timers = h
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && g.mtLess(r, l) {
			m = r
		}
		if !g.mtLess(m, i) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return t
}

// armClassicSession sets classic member mi's session deadline to at.
// A deadline after the member's earliest entry leaves the entry where it
// is (it is pushed again at the deadline when it comes due).
func (g *group) armClassicSession(mi uint32, at int64) {
	ci := g.mx.info[mi]
	g.mem[mi].session = at
	if ci.sessAt == noDeadline || at < ci.sessAt {
		ci.sessAt = at
		g.mtPush(mtimer{at: at, serial: ci.serial, mi: mi, kind: mtSession})
	}
}

// armClassicJoin starts mi's join timer unless one runs (A7.2).
func (g *group) armClassicJoin(mi uint32, at int64) {
	if ci := g.mx.info[mi]; ci.join == noDeadline {
		ci.join = at
		g.mtPush(mtimer{at: at, serial: ci.serial, mi: mi, kind: mtJoin})
	}
}

// armClassicSync starts mi's sync timer (A7.1).
func (g *group) armClassicSync(mi uint32, at int64) {
	ci := g.mx.info[mi]
	ci.sync = at
	g.mtPush(mtimer{at: at, serial: ci.serial, mi: mi, kind: mtSync})
}

// mdue is a due timer of a mixed group.
type mdue struct {
	at   int64
	id   string
	mi   uint32
	kind uint8
}

// expireHeld fires the due timers of a group whose timers may answer held
// requests: a classic group's, or a consumer group's with classic members
// (which may become a classic group). g is locked.
func (g *group) expireHeld(op *cop, now int64) {
	if g.kind == kindClassic {
		g.expireClassic(op, now)
		return
	}
	g.expireMixed(op, now)
}

// expireMixed fires every timer of consumer group g, which has classic
// members, due at now, one by one in the model's order. The removal of
// the last consumer-protocol member may convert the group (A7.5): the
// classic group's own timers due by now then fire too. g is locked.
func (g *group) expireMixed(op *cop, now int64) {
	late := int64(0)
	if g.c.mut.Has(MutSessionExpiryLate) {
		late = 1
	}
	var due []mdue
	add := func(at int64, mi uint32, kind uint8) {
		due = append(due, mdue{at: at, id: g.idString(mi), mi: mi, kind: kind})
	}
	for mi := g.sessHead; mi != 0 && g.mem[mi].session+late <= now; mi = g.mem[mi].next {
		add(g.mem[mi].session, mi, mtSession)
	}
	for _, si := range g.rheap {
		if s := &g.sides[si]; s.rdl <= now {
			add(s.rdl, s.mem, mtRebalance)
		}
	}
	type key struct {
		mi   uint32
		kind uint8
	}
	seen := map[key]bool{}
	for len(g.mx.timers) > 0 && g.mx.timers[0].at <= now {
		t := g.mtPop()
		ci := g.mx.info[t.mi]
		if ci == nil || ci.serial != t.serial {
			continue // its member is gone, switched or rejoined
		}
		var at int64
		switch t.kind {
		case mtSession:
			if ci.sessAt == t.at {
				ci.sessAt = noDeadline
			}
			if at = g.mem[t.mi].session; at > now {
				g.armClassicSession(t.mi, at) // moved later: its entry goes there
				continue
			}
		case mtJoin:
			if at = ci.join; at != t.at || g.c.mut.Has(MutClassicJoinTimerIgnored) {
				continue // stopped, or armed again
			}
		case mtSync:
			if at = ci.sync; at != t.at || g.c.mut.Has(MutClassicSyncTimerIgnored) {
				continue
			}
		}
		if k := (key{t.mi, t.kind}); !seen[k] {
			seen[k] = true
			add(at, t.mi, t.kind)
		}
	}
	slices.SortFunc(due, func(a, b mdue) int {
		return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(a.id, b.id), cmp.Compare(a.kind, b.kind))
	})
	removed := int32(0)
	for _, d := range due {
		m := &g.mem[d.mi]
		if m.flags&flLive == 0 {
			continue // removed by an earlier timer of this round
		}
		switch d.kind {
		case mtSession:
			if g.c.mut.Has(MutParkedNeverExpires) && m.epoch == staticLeaveEpoch && m.flags&flClassic == 0 {
				g.unlinkSession(d.mi)
				m.session = noDeadline
				continue
			}
		case mtRebalance:
			s := g.sideOf(d.mi)
			if s == nil || s.rdl != d.at {
				continue
			}
			if len(s.pending) == 0 {
				g.setRebalance(d.mi, noDeadline)
				g.maybeFreeSide(d.mi)
				continue
			}
		}
		if g.downgradesWithout(d.mi) {
			if removed > 0 {
				g.epoch += removed
				g.computeTarget()
			}
			op.now = d.at
			g.downgrade(op, d.mi, g.epoch, nil, true)
			g.registered = math.MaxInt64
			g.expireClassic(op, now)
			return
		}
		g.removeMember(d.mi)
		removed++
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

// restartMixed is a restart's part for g's classic members (A7.1): each
// session starts afresh with its own timeout, and the join and sync
// timers, not persisted, are gone. g is locked; its session list has just
// been rebuilt without them.
func (g *group) restartMixed(now int64) {
	x := g.mx
	x.timers = x.timers[:0]
	for _, mi := range slices.Sorted(maps.Keys(x.info)) {
		ci := x.info[mi]
		join, sync := ci.join, ci.sync
		x.serial++
		ci.serial, ci.sessAt, ci.join, ci.sync = x.serial, noDeadline, noDeadline, noDeadline
		g.armClassicSession(mi, deadline(now, int64(ci.sessionMs)))
		if g.c.mut.Has(MutRestartKeepsClassicTimers) {
			if join != noDeadline {
				g.armClassicJoin(mi, join)
			}
			if sync != noDeadline {
				g.armClassicSync(mi, sync)
			}
		}
	}
}

// MixedTimers calls f for every classic member of a consumer group, groups
// in id order and members in id order: its join and sync deadlines (-1
// for one not running), as model.Coordinator.MixedTimers does (its session
// is in Timers).
func (c *Coordinator) MixedTimers(f func(group, member string, join, sync int64)) {
	var few [4]*group // mostly a few: no array made (the explorer asks after every step)
	for _, g := range c.live.appendTo(few[:0]) {
		g.mu.Lock()
		if g.status == gLive && g.kind == kindConsumer && g.mx != nil {
			for _, e := range g.sortedMembers() {
				if ci := g.mx.info[e.mi]; ci != nil {
					f(g.id, e.id, ci.join, ci.sync)
				}
			}
		}
		g.mu.Unlock()
	}
}

// clone is a deep copy (protocols, never changed in place, shared).
func (x *mixedState) clone() *mixedState {
	if x == nil {
		return nil
	}
	out := &mixedState{info: make(map[uint32]*classicInfo, len(x.info)), timers: slices.Clone(x.timers), serial: x.serial}
	for mi, ci := range x.info {
		v := *ci
		out.info[mi] = &v
	}
	return out
}

// checkMixed is CheckInternal's part for classic members: flagged exactly
// when they have a classic state, never in the session list, each with a
// heap entry by its session deadline; the heap in order; no state kept
// without classic members.
func (g *group) checkMixed() error {
	x := g.mx
	if x != nil && len(x.info) == 0 {
		return fmt.Errorf("classic state kept without classic members")
	}
	for mi := uint32(1); mi < uint32(len(g.mem)); mi++ {
		m := &g.mem[mi]
		if m.flags&flLive == 0 {
			continue
		}
		classic := m.flags&flClassic != 0
		var ci *classicInfo
		if x != nil {
			ci = x.info[mi]
		}
		switch {
		case classic != (ci != nil):
			return fmt.Errorf("member %s: classic flag %v, classic state %v", g.idString(mi), classic, ci != nil)
		case classic && m.flags&flLinked != 0:
			return fmt.Errorf("classic member %s in the session list", g.idString(mi))
		case classic && (ci.sessAt == noDeadline || ci.sessAt > m.session):
			return fmt.Errorf("classic member %s: session %d, earliest entry %d", g.idString(mi), m.session, ci.sessAt)
		}
	}
	if x == nil {
		return nil
	}
	for i := range x.timers {
		if l := 2*i + 1; l < len(x.timers) && g.mtLess(l, i) {
			return fmt.Errorf("classic members' heap out of order at %d", i)
		}
	}
	return nil
}
