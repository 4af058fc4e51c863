package impl

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// restartClassic is a restart's part for the classic groups
// (docs/PROTOCOL.md B8.14), as the model's: in group id order, the waiting
// JoinGroups (PreparingRebalance) or SyncGroups answered NOT_COORDINATOR,
// in member id order, and the group reloaded from its last record at now.
func (c *Coordinator) restartClassic(live []*group) {
	now := c.clock.Now()
	for _, g := range live {
		g.lock()
		if g.status != gLive || g.kind != kindClassic || c.mut.Has(MutRestartKeepsClassicState) {
			g.mu.Unlock()
			continue
		}
		op := &cop{c: c, now: now}
		cl := g.cl
		for _, m := range cl.members {
			switch {
			case cl.state == classicPreparing && m.join.on && c.mut.Has(MutRestartDropsWaiting):
				op.drop(m.join)
			case cl.state == classicPreparing && m.join.on:
				op.answer(m.join, joinError(codec.NotCoordinator, m.id))
			case cl.state != classicPreparing && m.sync.on && c.mut.Has(MutRestartDropsWaiting):
				op.drop(m.sync)
			case cl.state != classicPreparing && m.sync.on:
				op.answer(m.sync, syncError(codec.NotCoordinator))
			}
		}
		g.cl = cl.reload(now)
		g.registerClassic()
		g.mu.Unlock()
		op.publish()
	}
}

// reload is a group as its record makes it (see the model's reload).
func (old *classicGroup) reload(now int64) *classicGroup {
	r := old.record
	g := newClassicGroup(old.mut)
	g.record = r
	g.generation, g.protocolType, g.protocol, g.leader = r.generation, r.protocolType, r.protocol, r.leader
	if len(r.members) > 0 {
		g.state, g.prev = classicStable, classicStable
		g.members = make([]*cmember, 0, len(r.members))
	}
	for _, rm := range r.members {
		rebalanceMs := rm.rebalanceMs
		if rebalanceMs == -1 {
			rebalanceMs = rm.sessionMs
		}
		m := &cmember{id: rm.id, clientID: rm.clientID, host: rm.host, instance: rm.instance, sessionMs: rm.sessionMs,
			rebalanceMs: rebalanceMs, protocolType: r.protocolType, protocols: []cprotocol{{r.protocol, slices.Clone(rm.metadata)}},
			assignment: rm.assignment, hpos: -1}
		g.put(m)
		g.armSession(m, deadline(now, int64(rm.sessionMs)))
	}
	return g
}
