package model

import (
	"github.com/ghostcheck/ghostcheck/codec"
)

// joinGroup serves JoinGroup (docs/PROTOCOL.md B8.4, B8.6, A6.1, A6.2,
// A6.4, B8.11), in Kafka's order of checks. It returns the answer, or nil
// when the request waits in its group (parkRequest; see waitable).
func (c *Coordinator) joinGroup(conn Conn, clientID string, version int16, r *codec.JoinGroupRequest) (codec.Message, error) {
	// 1. The group id (B8.4): only "" is refused, not trimmed.
	if r.GroupId == "" {
		c.hit("B8.4/invalid-group-id")
		return joinError(codec.InvalidGroupID, r.MemberId), nil
	}
	// 2. The session timeout's bounds (B8.4).
	if r.SessionTimeoutMs < c.cfg.ClassicMinSessionTimeoutMs || r.SessionTimeoutMs > c.cfg.ClassicMaxSessionTimeoutMs {
		c.hit("B8.4/invalid-session-timeout")
		return joinError(codec.InvalidSessionTimeout, r.MemberId), nil
	}
	// 3. At v0 the session timeout stands for the rebalance timeout.
	j := joining{conn: conn, clientID: clientID, version: version, r: r, rebalanceMs: r.RebalanceTimeoutMs}
	if version == 0 {
		c.hit("B8.4/v0-rebalance-timeout")
		j.rebalanceMs = r.SessionTimeoutMs
	}
	// 4. The kind of group (A6.4): a consumer group with members takes
	// the request as a classic member (A7.1; outside the model under
	// MigrationOutside); one without members gives way to a new classic
	// group.
	if cg := c.groups[r.GroupId]; cg != nil {
		if len(cg.members) > 0 {
			if !c.cfg.MigrationPolicy.mixed() {
				c.hit("A6.4/join-mixed-refused")
				return nil, ErrUnsupportedRequest
			}
			return c.classicJoinToConsumer(j, cg), nil
		}
		if r.MemberId == "" {
			c.hit("A6.4/join-replaces-consumer-group")
			delete(c.groups, r.GroupId)
		}
	}
	// 5. A missing group: MemberId "" makes it (and its first record),
	// whatever the answer to this request; any other is UNKNOWN_MEMBER_ID.
	g := c.classic[r.GroupId]
	if g == nil {
		if r.MemberId != "" {
			c.hit("B8.6/missing-group-unknown-member")
			return joinError(codec.UnknownMemberID, r.MemberId), nil
		}
		c.hit("B8.6/group-created")
		g = newClassicGroup(r.GroupId)
		if c.classic == nil {
			c.classic = map[string]*classicGroup{}
		}
		c.classic[g.id] = g
		c.writeRecord(g)
	}
	// 6. The size cap (B8.11): a refused member or pending id leaves the
	// group (a refused member never waits in the join phase: it has
	// nothing to answer). No completion check follows (Kafka 4.x).
	if !c.acceptJoining(g, r.MemberId) {
		c.hit("B8.11/group-full")
		if m := g.member(r.MemberId); m != nil {
			c.removeClassicMember(g, m)
		}
		delete(g.pending, r.MemberId)
		return joinError(codec.GroupMaxSizeReached, ""), nil
	}
	// 7. The protocols (B8.6 step 4).
	if !g.supportsProtocols(r.ProtocolType, r.Protocols) {
		c.hit("B8.6/inconsistent-protocol")
		return joinError(codec.InconsistentGroupProtocol, r.MemberId), nil
	}
	// 8. A new member (MemberId ""): a static one joins or replaces its
	// instance's holder (A6.2); a dynamic one gets a pending id at v4+
	// (A6.1) and is added at once below.
	if r.MemberId == "" {
		if r.GroupInstanceId.Valid {
			if old, held := g.static[r.GroupInstanceId.Value]; held {
				return c.replaceStatic(g, g.member(old), j), nil
			}
			c.hit("A6.2/new-static-member")
			c.addMember(g, c.makeMemberID(r.GroupInstanceId.Value), j)
			return nil, nil
		}
		id := c.makeMemberID(clientID)
		if version >= 4 {
			c.hit("A6.1/member-id-required")
			g.pending[id] = c.delay(int64(r.SessionTimeoutMs))
			return joinError(codec.MemberIDRequired, id), nil
		}
		c.hit("A6.1/v3-member-added")
		c.addMember(g, id, j)
		return nil, nil
	}
	// 9. A pending id becomes a member (A6.1); with an instance id Kafka
	// fails (an IllegalStateException, UNKNOWN_SERVER_ERROR) and nothing
	// changes.
	if _, pending := g.pending[r.MemberId]; pending {
		if r.GroupInstanceId.Valid {
			c.hit("A6.1/pending-with-instance")
			return joinError(codec.UnknownServerError, ""), nil
		}
		c.hit("A6.1/pending-joins")
		delete(g.pending, r.MemberId)
		c.addMember(g, r.MemberId, j)
		return nil, nil
	}
	// 10. The member check (B8.4).
	m, code := c.memberCheck(g, r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		return joinError(code, r.MemberId), nil
	}
	// 11. A member's JoinGroup, by the group's state (B8.6's table). An
	// Empty group has no members: the member check has answered.
	switch g.state {
	case classicPreparing:
		c.hit("B8.6/existing-preparing")
		c.storeJoin(g, m, j)
		c.maybeCompleteJoin(g)
	case classicCompleting:
		if m.sameProtocols(r.Protocols) {
			c.hit("B8.6/existing-completing-same")
			return g.joinAnswer(m.id, version, m.id == g.leader), nil
		}
		c.hit("B8.6/existing-completing-changed")
		c.storeJoin(g, m, j)
		c.rebalance(g)
	case classicStable:
		switch {
		case m.id == g.leader:
			c.hit("B8.6/stable-leader-rejoins")
		case !m.sameProtocols(r.Protocols):
			c.hit("B8.6/stable-follower-changed")
		default:
			c.hit("B8.6/stable-follower-same")
			return g.joinAnswer(m.id, version, false), nil
		}
		c.storeJoin(g, m, j)
		c.rebalance(g)
	}
	return nil, nil
}

// joining is what a JoinGroup brings to the member it adds, replaces or
// updates.
type joining struct {
	conn        Conn
	clientID    string
	version     int16
	r           *codec.JoinGroupRequest
	rebalanceMs int32
}

// acceptJoining is B8.11's cap (Kafka's acceptJoiningMember). Pending ids
// never count, and MemberId "" is never a member.
func (c *Coordinator) acceptJoining(g *classicGroup, memberID string) bool {
	max := c.cfg.ClassicMaxGroupSize
	if max <= 0 {
		return true
	}
	m := g.member(memberID)
	switch g.state {
	case classicPreparing:
		waiting := 0
		for _, o := range g.members {
			if o.join != nil {
				waiting++
			}
		}
		return m != nil && m.join != nil || waiting < max
	case classicCompleting, classicStable:
		return m != nil || len(g.members) < max
	}
	return true // Empty
}

// storeJoin takes a member's JoinGroup into the join phase (Kafka's
// updateMember): the request's protocols and timeouts replace the
// member's, and the request waits. A JoinGroup of the member already
// waiting is superseded: answered NOT_COORDINATOR (A6.5, KAFKA-20938).
func (c *Coordinator) storeJoin(g *classicGroup, m *classicMember, j joining) {
	if m.join != nil {
		c.hit("B8.6/join-replaced")
		c.hit("A6.5/superseded-not-coordinator")
		c.answer(m.join, joinError(codec.NotCoordinator, m.id))
	}
	m.protocols = protocolsOf(j.r.Protocols)
	m.rebalanceMs, m.sessionMs = j.rebalanceMs, j.r.SessionTimeoutMs
	m.join = c.parkRequest(j.conn, j.version)
}

// addMember adds a new member under id (B8.6): new, waiting in the join
// phase, its session the new-member timeout, the leader if the group has
// none; the group's protocol type if it has no members. A member added
// during the first rebalance extends it (B8.7). Then a rebalance starts,
// or, in a join phase, the phase may complete.
func (c *Coordinator) addMember(g *classicGroup, id string, j joining) {
	c.hit("B8.6/new-member-added")
	m := &classicMember{id: id, clientID: j.clientID, host: j.conn.Host, instance: j.r.GroupInstanceId,
		sessionMs: j.r.SessionTimeoutMs, rebalanceMs: j.rebalanceMs, protocolType: j.r.ProtocolType,
		protocols: protocolsOf(j.r.Protocols), isNew: true, join: c.parkRequest(j.conn, j.version),
		sessionDeadline: c.delay(int64(c.cfg.NewMemberJoinTimeoutMs))}
	if g.state == classicPreparing && g.prev == classicEmpty {
		g.newMemberAdded = true
	}
	if len(g.members) == 0 {
		g.protocolType = j.r.ProtocolType
	}
	if g.leader == "" {
		g.leader = id
	}
	g.put(m)
	c.rebalanceOrComplete(g)
}

// replaceStatic is A6.2's static replacement: MemberId "" with an instance
// id old holds. A new id takes old's place: old's waiting requests are
// fenced, the new member copies old (its assignment, client, timeouts and
// protocols; not new; the leadership if old led) with a session from now
// of old's timeout, then takes the request's protocols and timeouts and
// waits. old's id stays awaited by the sync phase (Kafka keeps it in
// pendingSyncMembers). By state: in Stable, if the protocol the group
// would select is unchanged, the answer comes at once at the current
// generation and the record is written; otherwise a rebalance, or in a
// join phase a possible completion. It returns the answer given at once,
// or nil.
func (c *Coordinator) replaceStatic(g *classicGroup, old *classicMember, j joining) codec.Message {
	id := c.makeMemberID(j.r.GroupInstanceId.Value)
	leaderBefore := g.leader
	if old.join != nil || old.sync != nil {
		c.hit("A6.2/old-request-fenced")
	}
	if old.join != nil {
		c.answer(old.join, &codec.JoinGroupResponse{ErrorCode: codec.FencedInstanceID, GenerationId: -1, MemberId: old.id})
		old.join = nil
	}
	if old.sync != nil {
		c.answer(old.sync, syncError(codec.FencedInstanceID))
		old.sync = nil
	}
	m := &classicMember{id: id, clientID: old.clientID, host: old.host, instance: old.instance,
		sessionMs: old.sessionMs, rebalanceMs: old.rebalanceMs, protocolType: old.protocolType,
		protocols: old.protocols, assignment: old.assignment}
	m.sessionDeadline = c.delay(int64(m.sessionMs))
	if i := slicesIndex(g.members, old); i >= 0 {
		g.members = append(g.members[:i], g.members[i+1:]...)
	}
	g.put(m) // the instance now maps to the new id
	if g.leader == old.id {
		g.leader = id
	}
	c.storeJoin(g, m, j)
	switch g.state {
	case classicStable:
		if c.selectProtocol(g) == g.protocol {
			c.hit("A6.2/replaced-stable")
			c.writeRecord(g)
			m.join = nil // answered now, not held
			c.self = nil
			if j.version >= 9 {
				leads := g.leader == id
				if leads {
					c.hit("A6.2/replaced-leader-skip-assignment")
				}
				resp := g.joinAnswer(id, j.version, leads)
				resp.SkipAssignment = leads
				return resp
			}
			resp := g.joinAnswer(id, j.version, false)
			resp.Leader = leaderBefore
			return resp
		}
		c.hit("A6.2/replaced-protocol-changes")
		c.rebalance(g)
	case classicCompleting:
		c.hit("A6.2/replaced-completing")
		c.rebalance(g)
	case classicPreparing:
		c.hit("A6.2/replaced-preparing")
		c.maybeCompleteJoin(g)
	}
	return nil
}

// slicesIndex is the position of m in ms, -1 if absent.
func slicesIndex(ms []*classicMember, m *classicMember) int {
	for i, o := range ms {
		if o == m {
			return i
		}
	}
	return -1
}
