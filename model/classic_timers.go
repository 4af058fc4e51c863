package model

// The classic groups' timers (docs/PROTOCOL.md B8.10, B8.7). Advance fires
// them with the consumer groups' in one order: by deadline, then group id,
// then member id ("" for a group's own timers), then kind (join phase,
// sync phase, session; A6.5). A pending id's expiry is a session timer of
// that id.

type classicTimerKind uint8

const (
	timerJoin classicTimerKind = iota
	timerSync
	timerMemberSession
)

// classicTimer is one due classic timer.
type classicTimer struct {
	g      *classicGroup
	member string
	kind   classicTimerKind
	at     int64
}

// before orders due timers (A6.5).
func (a classicTimer) before(b classicTimer) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.g.id != b.g.id {
		return a.g.id < b.g.id
	}
	if a.member != b.member {
		return a.member < b.member
	}
	return a.kind < b.kind
}

// nextClassicTimer finds the first classic timer due at or before limit.
func (c *Coordinator) nextClassicTimer(limit int64) (classicTimer, bool) {
	var best classicTimer
	ok := false
	if len(c.classic) == 0 {
		return best, ok
	}
	consider := func(t classicTimer) {
		if t.at != noDeadline && t.at <= limit && (!ok || t.before(best)) {
			best, ok = t, true
		}
	}
	for _, g := range c.classic {
		consider(classicTimer{g, "", timerJoin, g.join.at})
		consider(classicTimer{g, "", timerSync, g.sync.at})
		for id, at := range g.pending {
			consider(classicTimer{g, id, timerMemberSession, at})
		}
		for _, m := range g.members {
			consider(classicTimer{g, m.id, timerMemberSession, m.sessionDeadline})
		}
	}
	return best, ok
}

// fireClassic fires a due classic timer, at its deadline (c.now).
func (c *Coordinator) fireClassic(t classicTimer) {
	g := t.g
	switch t.kind {
	case timerJoin:
		c.joinTimerFired(g)
	case timerSync:
		c.syncTimerFired(g)
	default:
		if hasPending(g, t.member) {
			c.pendingExpired(g, t.member)
		} else {
			c.sessionExpired(g, g.member(t.member))
		}
	}
}

// joinTimerFired: the first rebalance's delay is extended while members
// are added and time is left (min(D, what is left), which then shrinks by
// the delay just served); any other join timer completes the phase.
func (c *Coordinator) joinTimerFired(g *classicGroup) {
	j := g.join
	g.join.at = noDeadline
	if j.initial && g.newMemberAdded && j.remaining != 0 {
		c.hit("B8.7/first-rebalance-extended")
		g.newMemberAdded = false
		d := min(int64(c.cfg.InitialRebalanceDelayMs), j.remaining)
		g.join = joinTimer{at: c.delay(d), initial: true, delay: d, remaining: max(j.remaining-j.delay, 0)}
		return
	}
	c.hit("B8.7/completed-by-timer")
	c.completeJoin(g)
}

// syncTimerFired: the sync phase of the generation it was armed for ended
// with ids still awaited: each that is a member is removed (an id a static
// replacement replaced is only forgotten), and the group rebalances. The
// timer is stopped whenever the phase awaits nobody or ends, so it fires
// only in that case.
func (c *Coordinator) syncTimerFired(g *classicGroup) {
	s := g.sync
	g.sync.at = noDeadline
	if s.generation != g.generation || g.state != classicCompleting && g.state != classicStable || len(g.awaitingSync) == 0 {
		return // never: see above
	}
	removed := false
	for _, id := range g.awaitedIDs() {
		if m := g.member(id); m != nil {
			c.removeClassicMember(g, m)
			removed = true
		}
	}
	clear(g.awaitingSync)
	if removed {
		c.hit("B8.10/sync-expired")
	} else {
		c.hit("B8.10/sync-expired-replaced-id")
	}
	c.rebalance(g)
}

// pendingExpired drops a pending id one session after it was made (A6.1);
// a join phase every member waits in then completes, even the first.
func (c *Coordinator) pendingExpired(g *classicGroup, id string) {
	c.hit("A6.1/pending-expired")
	delete(g.pending, id)
	if g.state == classicPreparing && g.allJoined() {
		c.hit("B8.10/expiry-completes-join")
		c.completeJoin(g)
	}
}

// sessionExpired: a new member is removed (its waiting JoinGroup answered
// UNKNOWN_MEMBER_ID); a member whose JoinGroup or SyncGroup waits is kept,
// with no session timer until that request is answered; any other is
// removed. After a removal a Stable or CompletingRebalance group
// rebalances, and a join phase every member left waits in completes, even
// the first.
func (c *Coordinator) sessionExpired(g *classicGroup, m *classicMember) {
	switch {
	case m.isNew:
		c.hit("B8.10/new-member-expired")
	case m.join != nil || m.sync != nil:
		c.hit("B8.10/session-kept-waiting")
		m.sessionDeadline = noDeadline
		return
	default:
		c.hit("B8.10/session-expired")
	}
	c.removeClassicMember(g, m)
	switch g.state {
	case classicStable, classicCompleting:
		c.hit("B8.10/expiry-rebalances")
		c.rebalance(g)
	case classicPreparing:
		if g.allJoined() {
			c.hit("B8.10/expiry-completes-join")
			c.completeJoin(g)
		}
	}
}
