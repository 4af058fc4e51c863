package model

import (
	"maps"
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The join phase (docs/PROTOCOL.md B8.7): how a rebalance starts, when it
// completes, and what completing does.

// rebalanceOrComplete is Kafka's maybePrepareRebalanceOrCompleteJoin: a
// group that can rebalance (Empty, CompletingRebalance, Stable) starts
// one; a group in its join phase completes it if it may.
func (c *Coordinator) rebalanceOrComplete(g *classicGroup) {
	if g.state == classicPreparing {
		c.maybeCompleteJoin(g)
		return
	}
	c.rebalance(g)
}

// rebalance starts a join phase (Kafka's prepareRebalance), from Empty,
// CompletingRebalance or Stable:
//
//  1. From CompletingRebalance every member's assignment is cleared and
//     every waiting SyncGroup is answered REBALANCE_IN_PROGRESS (its
//     member's session starts again).
//  2. The sync phase ends: nobody is awaited, its timer stops.
//  3. From Empty, the first rebalance: the join timer runs the initial
//     delay D, with R − D more to extend it by (R the group's rebalance
//     timeout), and nothing completes the phase early but an expiry
//     (B8.10).
//  4. Otherwise the phase completes at once if every member waits in it
//     and no id is pending; if not, the join timer runs one rebalance
//     timeout.
func (c *Coordinator) rebalance(g *classicGroup) {
	from := g.state
	if from == classicCompleting || from == classicStable {
		c.hit("B8.7/rebalance-started")
	}
	if from == classicCompleting {
		for _, m := range g.members {
			m.assignment = nil
		}
		for _, m := range g.members {
			if m.sync != nil {
				c.answer(m.sync, syncError(codec.RebalanceInProgress))
				m.sync = nil
				m.sessionDeadline = c.delay(int64(m.sessionMs))
			}
		}
	}
	clear(g.awaitingSync)
	g.sync.at = noDeadline
	g.transition(classicPreparing)
	if from == classicEmpty {
		c.hit("B8.7/first-rebalance-started")
		d := int64(c.cfg.InitialRebalanceDelayMs)
		g.join = joinTimer{at: c.delay(d), initial: true, delay: d, remaining: max(g.rebalanceTimeout()-d, 0)}
		return
	}
	if g.allJoined() {
		c.hit("B8.7/completed-all-joined")
		c.completeJoin(g)
		return
	}
	g.join = joinTimer{at: c.delay(g.rebalanceTimeout())}
}

// maybeCompleteJoin is Kafka's maybeCompleteJoinPhase: a join phase other
// than the first completes once every member waits in it and no id is
// pending. It reports whether it completed.
func (c *Coordinator) maybeCompleteJoin(g *classicGroup) bool {
	if g.state != classicPreparing || g.prev == classicEmpty || !g.allJoined() {
		return false
	}
	c.hit("B8.7/completed-all-joined")
	c.completeJoin(g)
	return true
}

// completeJoin completes the join phase (Kafka's completeClassicGroupJoin):
//
//  1. The join timer stops. Members that did not rejoin are removed if
//     dynamic; static ones stay (A6.2).
//  2. If members remain and none rejoined, the phase goes on: the join
//     timer runs again, one rebalance timeout, and nothing else changes.
//     If the leader did not rejoin, the member with the smallest id of
//     those that did leads (A6.5).
//  3. The generation moves on. Without members the group is Empty, its
//     protocol cleared, and the record is written. Otherwise the protocol
//     is selected and the group is in CompletingRebalance.
//  4. Every member, in member id order: its waiting JoinGroup answered
//     NONE at the new generation (the leader's with Members), its session
//     started, no longer new, awaited by the sync phase, whose timer runs
//     one rebalance timeout.
func (c *Coordinator) completeJoin(g *classicGroup) {
	g.join = joinTimer{at: noDeadline}
	for _, m := range slices.Clone(g.members) {
		if m.join == nil && !m.instance.Valid {
			c.hit("B8.7/dynamic-removed-not-rejoined")
			c.removeClassicMember(g, m)
		}
	}
	if len(g.members) > 0 {
		if !g.anyJoined() {
			// Kafka arms the timer with the rebalance timeout; one of 0
			// or less would fire again at once, forever, in logical
			// time, which moves only between timers: the model waits at
			// least 1 ms, so that the static members' sessions can end.
			c.hit("B8.7/nobody-rejoined")
			g.join = joinTimer{at: c.now + max(g.rebalanceTimeout(), 1)}
			return
		}
		if l := g.member(g.leader); l == nil || l.join == nil {
			c.hit("B8.7/leader-moved")
			c.hit("A6.5/leader-smallest-id")
			g.leader = g.members[slices.IndexFunc(g.members, func(m *classicMember) bool { return m.join != nil })].id
		}
		for _, m := range g.members {
			if m.join == nil {
				c.hit("A6.2/static-kept-not-rejoined")
			}
		}
	}
	g.generation++
	clear(g.awaitingSync)
	if len(g.members) == 0 {
		c.hit("B8.7/generation-empty")
		g.protocol = ""
		g.transition(classicEmpty)
		c.writeRecord(g)
		return
	}
	c.hit("B8.7/generation-completing")
	g.protocol = c.selectProtocol(g)
	g.transition(classicCompleting)
	for _, m := range g.members {
		if m.join != nil {
			p := m.join
			m.join = nil
			c.answer(p, g.joinAnswer(m.id, p.version, m.id == g.leader))
		}
		m.sessionDeadline = c.delay(int64(m.sessionMs))
		m.isNew = false
		g.awaitingSync[m.id] = true
	}
	g.sync = syncTimer{at: c.delay(g.rebalanceTimeout()), generation: g.generation}
}

// syncDone records that the sync phase no longer awaits member id; its
// timer stops once it awaits nobody.
func (g *classicGroup) syncDone(id string) {
	delete(g.awaitingSync, id)
	if len(g.awaitingSync) == 0 {
		g.sync.at = noDeadline
	}
}

// awaitedIDs are the ids the sync phase awaits, in id order.
func (g *classicGroup) awaitedIDs() []string {
	return slices.Sorted(maps.Keys(g.awaitingSync))
}
