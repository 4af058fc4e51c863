package model

import (
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// restartClassic is a restart's part for classic groups (docs/PROTOCOL.md
// B8.14), in group id order: the coordinator giving a group up answers
// its waiting JoinGroups (in PreparingRebalance) or SyncGroups
// (CompletingRebalance, Stable) NOT_COORDINATOR, in member id order; the
// coordinator taking it over loads its last record: Stable (Empty without
// members) at the recorded generation, protocol and leader, each member
// with the recorded protocol alone (its recorded metadata), its
// assignment, its timeouts (a recorded rebalance timeout of -1 reads as
// the session timeout, as Kafka's replay does), not new, its session
// started afresh. Pending ids, waiting requests, the sync phase, the
// timers and a rebalance's progress are gone. The record itself stays.
func (c *Coordinator) restartClassic() {
	if len(c.classic) == 0 {
		return
	}
	for _, id := range slices.Sorted(maps.Keys(c.classic)) {
		g := c.classic[id]
		for _, m := range g.members {
			switch {
			case g.state == classicPreparing && m.join != nil:
				c.hit("B8.14/waiting-not-coordinator")
				c.answer(m.join, joinError(codec.NotCoordinator, m.id))
			case g.state != classicPreparing && m.sync != nil:
				c.hit("B8.14/waiting-not-coordinator")
				c.answer(m.sync, syncError(codec.NotCoordinator))
			}
		}
		c.hit("B8.14/reloaded")
		c.classic[id] = c.reload(g)
	}
}

// reload is a group as its record makes it.
func (c *Coordinator) reload(old *classicGroup) *classicGroup {
	r := old.record
	g := newClassicGroup(old.id)
	g.record = r
	g.generation, g.protocolType, g.protocol, g.leader = r.generation, r.protocolType, r.protocol, r.leader
	g.state, g.prev = classicEmpty, classicEmpty
	if len(r.members) > 0 {
		g.state, g.prev = classicStable, classicStable
	}
	for _, rm := range r.members {
		rebalanceMs := rm.rebalanceMs
		if rebalanceMs == -1 {
			rebalanceMs = rm.sessionMs
		}
		g.put(&classicMember{id: rm.id, clientID: rm.clientID, host: rm.host, instance: rm.instance,
			sessionMs: rm.sessionMs, rebalanceMs: rebalanceMs, protocolType: r.protocolType,
			protocols:       []classicProtocol{{r.protocol, slices.Clone(rm.metadata)}},
			assignment:      slices.Clone(rm.assignment),
			sessionDeadline: c.delay(int64(rm.sessionMs))})
	}
	return g
}
