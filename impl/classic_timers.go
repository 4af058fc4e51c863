package impl

import "math"

// A classic group's timers (docs/PROTOCOL.md B8.10, B8.7): one min-heap of
// entries ordered as the model fires them. A member's session entry may be
// earlier than its deadline (a heartbeat moves the deadline, not the
// entry): when it comes due it is pushed again at the deadline. Entries of
// the join and sync timers carry the arming they belong to (seq), and a
// pending id's its deadline, so that a stale one is dropped when it comes
// due.

const (
	ctJoin uint8 = iota
	ctSync
	ctSession
)

type ctimer struct {
	at   int64
	key  string // "" for the group's own timers; the member or pending id
	kind uint8
	seq  uint64   // the join or sync timer's arming
	m    *cmember // a member's session; nil otherwise
}

func ctimerLess(a, b *ctimer) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.kind < b.kind
}

func (g *classicGroup) tswap(i, j int) {
	h := g.timers
	h[i], h[j] = h[j], h[i]
	if h[i].m != nil {
		h[i].m.hpos = int32(i)
	}
	if h[j].m != nil {
		h[j].m.hpos = int32(j)
	}
}

func (g *classicGroup) tup(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !ctimerLess(&g.timers[i], &g.timers[p]) {
			return
		}
		g.tswap(i, p)
		i = p
	}
}

func (g *classicGroup) tdown(i int) {
	n := len(g.timers)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && ctimerLess(&g.timers[r], &g.timers[l]) {
			m = r
		}
		if !ctimerLess(&g.timers[m], &g.timers[i]) {
			return
		}
		g.tswap(i, m)
		i = m
	}
}

func (g *classicGroup) tpush(t ctimer) {
	g.timers = append(g.timers, t)
	i := len(g.timers) - 1
	if t.m != nil {
		t.m.hpos = int32(i)
	}
	g.tup(i)
}

// tremoveAt takes entry i out of the heap.
func (g *classicGroup) tremoveAt(i int) ctimer {
	t := g.timers[i]
	last := len(g.timers) - 1
	if i != last {
		g.tswap(i, last)
	}
	g.timers[last] = ctimer{}
	g.timers = g.timers[:last]
	if i != last {
		g.tdown(i)
		g.tup(i)
	}
	if t.m != nil {
		t.m.hpos = -1
	}
	return t
}

// timerRemove takes m's session entry out of the heap.
func (g *classicGroup) timerRemove(m *cmember) {
	if m.hpos >= 0 {
		g.tremoveAt(int(m.hpos))
	}
}

// armSession sets m's session deadline (noDeadline: none). A later
// deadline leaves its entry where it is.
func (g *classicGroup) armSession(m *cmember, at int64) {
	m.session = at
	switch {
	case at == noDeadline:
	case m.hpos < 0:
		g.tpush(ctimer{at: at, key: m.id, kind: ctSession, m: m})
	case at < g.timers[m.hpos].at:
		g.timers[m.hpos].at = at
		g.tup(int(m.hpos))
	}
}

// armJoin and armSync start the group's timers; stopping them is setting
// their at to noDeadline (their entries are then stale).
func (g *classicGroup) armJoin(t joinTimer) {
	g.join = t
	g.joinSeq++
	g.tpush(ctimer{at: t.at, kind: ctJoin, seq: g.joinSeq})
}

func (g *classicGroup) armSync(t syncTimer) {
	g.sync = t
	g.syncSeq++
	g.tpush(ctimer{at: t.at, kind: ctSync, seq: g.syncSeq})
}

func (g *classicGroup) addPending(id string, at int64) {
	g.pending[id] = at
	g.tpush(ctimer{at: at, key: id, kind: ctSession})
}

// register makes sure the group's shard visits it by its earliest entry.
func (g *group) registerClassic() {
	if t := g.cl.timers; len(t) > 0 {
		g.register(t[0].at)
	}
}

// expireClassic fires every timer of the classic group due at now, each
// at its own deadline, in the model's order; g is locked.
func (g *group) expireClassic(op *cop, now int64) {
	cl := g.cl
	for len(cl.timers) > 0 && cl.timers[0].at <= now {
		t := cl.tremoveAt(0)
		switch t.kind {
		case ctJoin:
			if t.seq != cl.joinSeq || cl.join.at == noDeadline {
				continue
			}
			op.now = t.at
			cl.joinTimerFired(op)
		case ctSync:
			if t.seq != cl.syncSeq || cl.sync.at == noDeadline {
				continue
			}
			op.now = t.at
			cl.syncTimerFired(op)
		default:
			if t.m == nil {
				if at, ok := cl.pending[t.key]; !ok || at != t.at {
					continue
				}
				op.now = t.at
				cl.pendingExpired(op, t.key)
				continue
			}
			m := t.m
			switch {
			case m.session == noDeadline:
				continue
			case m.session > t.at:
				cl.tpush(ctimer{at: m.session, key: m.id, kind: ctSession, m: m})
				continue
			}
			op.now = t.at
			cl.sessionExpired(op, m)
		}
	}
	g.registered = math.MaxInt64
	g.registerClassic()
}

// joinTimerFired: the first rebalance's delay is extended while members
// are added and time is left; any other join timer completes the phase.
func (g *classicGroup) joinTimerFired(op *cop) {
	j := g.join
	g.join.at = noDeadline
	if j.initial && g.newMemberAdded && j.remaining != 0 && !g.mut.Has(MutInitialDelayNotExtended) {
		g.newMemberAdded = false
		d := min(int64(op.c.cfg.InitialRebalanceDelayMs), j.remaining)
		g.armJoin(joinTimer{at: deadline(op.now, d), initial: true, delay: d, remaining: max(j.remaining-j.delay, 0)})
		return
	}
	g.completeJoin(op)
}

// syncTimerFired: the ids the sync phase still awaits are removed (a
// replaced id only forgotten) and the group rebalances.
func (g *classicGroup) syncTimerFired(op *cop) {
	s := g.sync
	g.sync.at = noDeadline
	if s.generation != g.generation || g.state != classicCompleting && g.state != classicStable || g.nAwait == 0 && len(g.replaced) == 0 {
		return
	}
	for _, m := range append([]*cmember(nil), g.members...) {
		if m.awaitSync || g.mut.Has(MutSyncTimeoutRemovesSynced) {
			g.removeMember(op, m)
		}
	}
	g.clearAwaiting()
	g.rebalance(op)
}

func (g *classicGroup) pendingExpired(op *cop, id string) {
	if g.mut.Has(MutPendingNeverExpires) {
		return
	}
	delete(g.pending, id)
	if g.state == classicPreparing && g.allJoined() {
		g.completeJoin(op)
	}
}

func (g *classicGroup) sessionExpired(op *cop, m *cmember) {
	if !m.isNew && (m.join.on || m.sync.on) && !g.mut.Has(MutSessionExpiresWhileWaiting) {
		m.session = noDeadline
		return
	}
	g.removeMember(op, m)
	switch g.state {
	case classicStable, classicCompleting:
		if !g.mut.Has(MutExpiryNoRebalance) {
			g.rebalance(op)
		}
	case classicPreparing:
		if g.allJoined() && !g.mut.Has(MutExpiryNoCompletion) {
			g.completeJoin(op)
		}
	}
}
