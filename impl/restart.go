package impl

// Restart is a restart (or failover) of the broker hosting the coordinator
// at the clock's current time, exactly as model.Coordinator.Restart. Call
// Expire first, as the model's callers Advance first, so that the timers
// due by then have fired: Restart itself fires none (a timer due at now
// and not yet fired is re-armed like any other), which keeps it step for
// step equal to the model's.
//
// What Kafka persists survives: groups, epochs, targets, members with
// their subscriptions, epochs, assignments and pending revocations (they
// are written to __consumer_offsets and replayed on load). What lives only
// in memory is lost: every connection's KIP-1313 context (clients
// reconnect, and their next first request carries ClientId again) and all
// telemetry client state. Timers are not persisted either: when Kafka's
// coordinator loads a group (GroupMetadataManager.onLoaded) it schedules a
// session timeout for every member and a rebalance timeout for every member
// in UNREVOKED_PARTITIONS. So every member's session deadline becomes now +
// SessionTimeoutMs, parked static members included, and every member
// waiting for revocations gets now + max(its rebalance timeout, 0); other
// members have no rebalance timer and get none.
//
// Restart is safe for concurrent use but not atomic: it takes each shard's
// and each group's lock in turn, so a concurrent request sees a group
// either before or after its restart. The clock is read under each group's
// lock, so that a heartbeat served meanwhile on a real clock never sees its
// deadline moved back; on a manual clock (the model's time) every group
// restarts at the same time, as in the model. It costs O(n log n) in the
// members of each group, which is fine for something as rare as a restart.
//
// Classic groups survive as their last record says (classic_restart.go):
// their held requests are answered NOT_COORDINATOR (Released), and the
// requests held behind them are then served.
func (c *Coordinator) Restart() {
	c.closeHeld()
	c.forgetConns()
	c.forgetTelemetry()
	live := c.live.list()
	if !c.mut.Has(MutRestartKeepsDeadlines) {
		for _, g := range live {
			g.lock()
			if g.status == gLive && g.kind == kindConsumer {
				g.restartTimers(c.clock.Now())
			}
			g.mu.Unlock()
		}
	}
	c.restartClassic(live)
	c.maybeResume()
}

// forgetConns drops every connection's context, as Disconnect does for one.
func (c *Coordinator) forgetConns() {
	for i := range c.conns {
		s := &c.conns[i]
		s.mu.Lock()
		clear(s.m)
		s.mu.Unlock()
	}
}

// forgetTelemetry drops every telemetry client's state: a client must get
// its subscription again before it may push.
func (c *Coordinator) forgetTelemetry() {
	for i := range c.telemetry {
		s := &c.telemetry[i]
		s.mu.Lock()
		clear(s.m)
		s.mu.Unlock()
	}
}

// restartTimers starts the group's timers afresh at now; g is locked.
//
// Every session deadline becomes the same, now + SessionTimeoutMs, so the
// session list's order is nothing but a tie-break, and the list is rebuilt
// in member-id order: the order in which the model fires equal deadlines
// (group id, then member id, then session before rebalance). Expire pops a
// group's due sessions from the head of the list, so they go in that order
// too, and then the due rebalance timers; that these come after the
// sessions rather than interleaved cannot show, because each removal frees
// only the member's own partitions, the epoch moves on by the number
// removed and the target is computed once, and groups are independent.
// Members armed later (at now' >= now) go to the tail, so the list stays in
// deadline order.
//
// Deadlines only move later here (the clock never goes back), so what the
// group registered with its shard's heap may be early, which Expire
// tolerates, but never late; register covers the case where the earliest
// timer is before what is registered.
func (g *group) restartTimers(now int64) {
	at := now + g.c.cfg.SessionTimeoutMs
	members := g.sortedMembers()
	g.sessHead, g.sessTail = 0, 0
	for _, e := range members {
		if g.mem[e.mi].flags&flClassic == 0 {
			g.relinkSession(e.mi, at)
		}
	}
	if g.mx != nil {
		g.restartMixed(now)
	}
	for _, e := range members {
		if m := &g.mem[e.mi]; m.state == stUnrevoked {
			g.setRebalance(e.mi, now+max(int64(m.rto), 0))
		}
	}
	if e, ok := g.earliest(); ok {
		g.register(e)
	}
}

// relinkSession appends mi to the session list, which is being rebuilt,
// with deadline at. The model's "no deadline" sentinel (only reachable with
// a negative session timeout) leaves it out, as armSession does.
func (g *group) relinkSession(mi uint32, at int64) {
	m := &g.mem[mi]
	m.prev, m.next, m.session = 0, 0, at
	m.flags &^= flLinked
	if at == noDeadline {
		return
	}
	m.prev = g.sessTail
	if g.sessTail != 0 {
		g.mem[g.sessTail].next = mi
	} else {
		g.sessHead = mi
	}
	g.sessTail = mi
	m.flags |= flLinked
}
