package model

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// syncGroup serves SyncGroup (docs/PROTOCOL.md B8.4, B8.8, A6.4), in
// Kafka's order of checks. It returns the answer, or nil when the request
// waits for the leader's (parkRequest; see waitable).
func (c *Coordinator) syncGroup(conn Conn, version int16, r *codec.SyncGroupRequest) (codec.Message, error) {
	// 1. v5 must name the protocol type and name (checked before anything
	// else in Kafka, authorization included).
	if version >= 5 && (!r.ProtocolType.Valid || !r.ProtocolName.Valid) {
		c.hit("B8.4/sync-null-protocol")
		return syncError(codec.InconsistentGroupProtocol), nil
	}
	// 2. The group id.
	if r.GroupId == "" {
		c.hit("B8.4/invalid-group-id")
		return syncError(codec.InvalidGroupID), nil
	}
	// 3. A consumer group (A6.4): only its classic members (A7.2) sync.
	if cg := c.groups[r.GroupId]; cg != nil {
		return c.classicSyncToConsumer(cg, r), nil
	}
	// 4. A missing or Empty group: UNKNOWN_MEMBER_ID before any check.
	g := c.classic[r.GroupId]
	if g == nil || g.state == classicEmpty {
		c.hit("B8.8/unknown-group")
		return syncError(codec.UnknownMemberID), nil
	}
	// 5. The member check; 6. the generation; 7. the protocol, where the
	// request names one.
	m, code := c.memberCheck(g, r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		return syncError(code), nil
	}
	if r.GenerationId != g.generation {
		c.hit("B8.8/illegal-generation")
		return syncError(codec.IllegalGeneration), nil
	}
	if r.ProtocolType.Valid && g.protocolType != "" && r.ProtocolType.Value != g.protocolType ||
		r.ProtocolName.Valid && g.protocol != "" && r.ProtocolName.Value != g.protocol {
		c.hit("B8.8/inconsistent-protocol")
		return syncError(codec.InconsistentGroupProtocol), nil
	}
	// 8. By state.
	switch g.state {
	case classicPreparing:
		c.hit("B8.8/rebalancing")
		return syncError(codec.RebalanceInProgress), nil
	case classicCompleting:
		if m.sync != nil {
			c.hit("B8.8/sync-replaced")
			c.hit("A6.5/superseded-not-coordinator")
			c.answer(m.sync, syncError(codec.NotCoordinator))
		}
		m.sync = c.parkRequest(conn, version)
		g.syncDone(m.id)
		if m.id != g.leader {
			c.hit("B8.8/follower-waits")
			return nil, nil
		}
		c.leaderAssigns(g, r.Assignments)
		return nil, nil
	}
	// Stable: the member's assignment at once; its session is not
	// refreshed (Kafka 4.x).
	c.hit("B8.8/stable-current")
	g.syncDone(m.id)
	return g.syncAnswer(m), nil
}

// leaderAssigns is the leader's SyncGroup in CompletingRebalance (B8.8):
// every member's assignment becomes the bytes the leader gave its id (the
// last entry for an id repeated; entries for other ids ignored) or empty
// bytes; the group is Stable at the same generation and the record is
// written; then every waiting SyncGroup, the leader's included, is
// answered NONE in member id order, and its member's session starts again.
func (c *Coordinator) leaderAssigns(g *classicGroup, assignments []codec.SyncGroupRequestAssignment) {
	c.hit("B8.8/leader-assigns")
	given := make(map[string][]byte, len(assignments))
	for _, a := range assignments {
		given[a.MemberId] = a.Assignment
	}
	for _, m := range g.members {
		a, ok := given[m.id]
		if !ok {
			c.hit("B8.8/missing-assignment-empty")
		}
		m.assignment = slices.Clone(a)
		if len(m.assignment) == 0 {
			m.assignment = nil
		}
	}
	g.transition(classicStable)
	c.writeRecord(g)
	for _, m := range g.members {
		if m.sync != nil {
			p := m.sync
			m.sync = nil
			c.answer(p, g.syncAnswer(m))
			m.sessionDeadline = c.delay(int64(m.sessionMs))
		}
	}
}
