package impl

import "github.com/ghostcheck/ghostcheck/codec"

// joinClassic serves JoinGroup (docs/PROTOCOL.md B8.4, B8.6, A6.1, A6.2,
// A6.4, B8.11) in the model's order of checks, under the group's lock.
func (c *Coordinator) joinClassic(conn Conn, clientID string, version int16, r *codec.JoinGroupRequest) (codec.Message, error) {
	// 1.-2. The group id and the session timeout's bounds.
	if r.GroupId == "" && !c.mut.Has(MutClassicEmptyGroupIDServed) {
		return joinError(codec.InvalidGroupID, r.MemberId), nil
	}
	lo, hi := c.cfg.ClassicMinSessionTimeoutMs, c.cfg.ClassicMaxSessionTimeoutMs
	if c.mut.Has(MutSessionMinRefused) {
		lo++
	}
	if c.mut.Has(MutSessionAboveMaxAccepted) {
		hi++
	}
	if r.SessionTimeoutMs < lo || r.SessionTimeoutMs > hi {
		return joinError(codec.InvalidSessionTimeout, r.MemberId), nil
	}
	// 3. At v0 the session timeout stands for the rebalance timeout.
	j := joining{clientID: clientID, version: version, r: r, rebalanceMs: r.RebalanceTimeoutMs}
	if version == 0 {
		j.rebalanceMs = r.SessionTimeoutMs
		if c.mut.Has(MutV0RebalanceTimeoutDefault) {
			j.rebalanceMs = -1 // what v0 decodes the field it lacks as
		}
	}
	g := c.joinGroup(r.GroupId)
	op := &cop{c: c, now: c.clock.Now(), conn: conn}
	resp, err := c.joinLockedClassic(g, op, j)
	op.finishLocked()
	if g.kind == kindClassic {
		g.registerClassic()
	}
	g.mu.Unlock()
	op.publish()
	return op.result(resp, err)
}

// joining is what a JoinGroup brings to the member it adds, replaces or
// updates.
type joining struct {
	clientID    string
	version     int16
	r           *codec.JoinGroupRequest
	rebalanceMs int32
}

// joinLockedClassic is steps 4 to 11 of the model's joinGroup on g, locked
// (a phantom, or a live group of either kind).
func (c *Coordinator) joinLockedClassic(g *group, op *cop, j joining) (codec.Message, error) {
	r := j.r
	// 4. The kind: a consumer group with members takes the request as a
	// classic member's (A7.1; outside the model under MigrationOutside);
	// one without gives way to a classic group for MemberId "" (and for
	// any other id the answer is step 5's, the consumer group left as it
	// is).
	if g.status == gLive && g.kind == kindConsumer {
		switch {
		case g.count > 0 && !c.cfg.MigrationPolicy.mixed() && c.mut.Has(MutJoinMixedAnswered):
			return joinError(codec.InconsistentGroupProtocol, r.MemberId), nil
		case g.count > 0 && !c.cfg.MigrationPolicy.mixed():
			return nil, ErrUnsupportedRequest
		case g.count > 0:
			return c.classicJoinToConsumer(g, op, j), nil
		case r.MemberId != "":
			return joinError(codec.UnknownMemberID, r.MemberId), nil
		case c.mut.Has(MutEmptyConsumerGroupKept):
			return joinError(codec.InconsistentGroupProtocol, r.MemberId), nil
		}
		g.resetConsumer()
		g.makeClassic()
	}
	// 5. A missing group: MemberId "" makes it, whatever the answer.
	if g.status == gPhantom {
		if r.MemberId != "" && !c.mut.Has(MutMissingGroupJoinCreates) {
			c.dropPhantom(g)
			return joinError(codec.UnknownMemberID, r.MemberId), nil
		}
		if r.MemberId != "" {
			g.status = gLive
			c.live.add(g)
			g.makeClassic()
			return joinError(codec.UnknownMemberID, r.MemberId), nil
		}
		g.status = gLive
		c.live.add(g)
		g.makeClassic()
	}
	cl := g.cl
	// 6. The size cap.
	if !c.acceptJoining(cl, r.MemberId) {
		if m := cl.member(r.MemberId); m != nil {
			cl.removeMember(op, m)
		}
		delete(cl.pending, r.MemberId)
		return joinError(codec.GroupMaxSizeReached, ""), nil
	}
	// 7. The protocols.
	if !cl.supportsProtocols(r.ProtocolType, r.Protocols) {
		return joinError(codec.InconsistentGroupProtocol, r.MemberId), nil
	}
	// 8. A new member.
	if r.MemberId == "" {
		static := r.GroupInstanceId.Valid && !(j.version >= 4 && c.mut.Has(MutStaticMemberIDRequired))
		if static {
			if old := cl.static[r.GroupInstanceId.Value]; old != nil {
				return cl.replaceStatic(op, old, j), nil
			}
			cl.addMember(op, c.makeMemberID(r.GroupInstanceId.Value), j)
			return nil, nil
		}
		id := c.makeMemberID(j.clientID)
		if j.version >= 4 && !(j.version == 4 && c.mut.Has(MutMemberIDRequiredFromV5)) {
			expiry := int64(r.SessionTimeoutMs)
			if c.mut.Has(MutPendingExpiresByRebalanceTimeout) {
				expiry = int64(j.rebalanceMs)
			}
			cl.addPending(id, deadline(op.now, expiry))
			return joinError(codec.MemberIDRequired, id), nil
		}
		cl.addMember(op, id, j)
		return nil, nil
	}
	// 9. A pending id.
	if _, pending := cl.pending[r.MemberId]; pending && !c.mut.Has(MutPendingJoinUnknown) {
		if r.GroupInstanceId.Valid && !c.mut.Has(MutPendingWithInstanceJoins) {
			return joinError(codec.UnknownServerError, ""), nil
		}
		delete(cl.pending, r.MemberId)
		cl.addMember(op, r.MemberId, j)
		return nil, nil
	}
	// 10. The member check.
	m, code := cl.memberCheck(r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		return joinError(code, r.MemberId), nil
	}
	// 11. By state.
	switch cl.state {
	case classicPreparing:
		protocols := m.protocols
		cl.storeJoin(op, m, j)
		if c.mut.Has(MutPreparingJoinKeepsProtocols) {
			m.protocols = protocols
		}
		cl.maybeCompleteJoin(op)
	case classicCompleting:
		same := m.sameProtocols(r.Protocols)
		if same && !c.mut.Has(MutCompletingRejoinRebalances) || !same && c.mut.Has(MutCompletingChangedAnswered) {
			return cl.joinAnswer(m.id, j.version, m.id == cl.leader), nil
		}
		cl.storeJoin(op, m, j)
		cl.rebalance(op)
	case classicStable:
		same := m.sameProtocols(r.Protocols)
		if c.mut.Has(MutProtocolsComparedByName) {
			same = m.sameProtocolNames(r.Protocols)
		}
		if m.id != cl.leader && same && !c.mut.Has(MutFollowerSameRebalances) {
			return cl.joinAnswer(m.id, j.version, false), nil
		}
		if m.id == cl.leader && c.mut.Has(MutStableLeaderRejoinAnswered) {
			return cl.joinAnswer(m.id, j.version, true), nil
		}
		cl.storeJoin(op, m, j)
		cl.rebalance(op)
	}
	return nil, nil
}

// acceptJoining is B8.11's cap.
func (c *Coordinator) acceptJoining(g *classicGroup, memberID string) bool {
	max := c.cfg.ClassicMaxGroupSize
	if max <= 0 {
		return true
	}
	m := g.member(memberID)
	pending := 0
	if c.mut.Has(MutPendingCountsTowardMaxSize) {
		pending = len(g.pending)
	}
	switch g.state {
	case classicPreparing:
		return m != nil && m.join.on || g.nJoin+pending < max
	case classicCompleting, classicStable:
		return m != nil || len(g.members)+pending < max
	}
	return true
}

// storeJoin takes a member's JoinGroup into the join phase; one of its own
// already waiting is answered NOT_COORDINATOR.
func (g *classicGroup) storeJoin(op *cop, m *cmember, j joining) {
	if m.join.on {
		p := m.join
		if g.mut.Has(MutSecondJoinRefused) {
			op.answer(op.park(j.version), joinError(codec.NotCoordinator, m.id))
			return
		}
		g.clearJoin(m)
		if g.mut.Has(MutSupersededDropped) {
			op.drop(p)
		} else {
			op.answer(p, joinError(codec.NotCoordinator, m.id))
		}
	}
	m.protocols = protocolsOf(j.r.Protocols)
	m.rebalanceMs, m.sessionMs = j.rebalanceMs, j.r.SessionTimeoutMs
	m.join = op.park(j.version)
	g.nJoin++
}

// addMember adds a new member under id.
func (g *classicGroup) addMember(op *cop, id string, j joining) {
	m := &cmember{id: id, clientID: j.clientID, host: op.conn.Host, instance: j.r.GroupInstanceId,
		sessionMs: j.r.SessionTimeoutMs, rebalanceMs: j.rebalanceMs, protocolType: j.r.ProtocolType,
		protocols: protocolsOf(j.r.Protocols), isNew: true, join: op.park(j.version), hpos: -1}
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
	joinTimeout := int64(op.c.cfg.NewMemberJoinTimeoutMs)
	if g.mut.Has(MutNewMemberSessionTimeout) {
		joinTimeout = int64(m.sessionMs)
	}
	g.armSession(m, deadline(op.now, joinTimeout))
	if g.state != classicPreparing && g.state != classicEmpty && g.mut.Has(MutNewMemberNoRebalance) {
		return
	}
	g.rebalanceOrComplete(op)
}

// replaceStatic is A6.2's static replacement, as the model's.
func (g *classicGroup) replaceStatic(op *cop, old *cmember, j joining) codec.Message {
	id := op.c.makeMemberID(j.r.GroupInstanceId.Value)
	leaderBefore := g.leader
	if old.join.on {
		p := old.join
		g.clearJoin(old)
		if g.mut.Has(MutOldRequestDropped) {
			op.drop(p)
		} else {
			op.answer(p, &codec.JoinGroupResponse{ErrorCode: codec.FencedInstanceID, GenerationId: -1, MemberId: old.id})
		}
	}
	if old.sync.on {
		p := old.sync
		old.sync.on = false
		if g.mut.Has(MutOldRequestDropped) {
			op.drop(p)
		} else {
			op.answer(p, syncError(codec.FencedInstanceID))
		}
	}
	wasAwaited := old.awaitSync
	g.unlink(old)
	if wasAwaited && !g.mut.Has(MutReplacedIDNotAwaited) {
		g.replaced = append(g.replaced, old.id)
	}
	m := &cmember{id: id, clientID: old.clientID, host: old.host, instance: old.instance, sessionMs: old.sessionMs,
		rebalanceMs: old.rebalanceMs, protocolType: old.protocolType, protocols: old.protocols, assignment: old.assignment, hpos: -1}
	g.put(m)
	if g.mut.Has(MutReplacementKeepsOldInstance) {
		g.static[m.instance.Value] = old
	}
	g.armSession(m, deadline(op.now, int64(m.sessionMs)))
	if g.leader == old.id {
		g.leader = id
	}
	g.storeJoin(op, m, j)
	state := g.state
	if state == classicCompleting && g.mut.Has(MutReplacedCompletingNoRebalance) || state == classicPreparing && g.mut.Has(MutReplacedPreparingAnswered) {
		state = classicStable
	}
	switch state {
	case classicStable:
		if (g.selectProtocol() == g.protocol || g.mut.Has(MutProtocolChangeReplacedAnswered)) && !g.mut.Has(MutStaticReplacementRebalances) {
			g.writeRecord()
			g.clearJoin(m)
			op.self.on = false
			if j.version >= 9 && !g.mut.Has(MutSkipAssignmentWithheld) {
				leads := g.leader == id
				resp := g.joinAnswer(id, j.version, leads)
				resp.SkipAssignment = leads
				return resp
			}
			resp := g.joinAnswer(id, j.version, false)
			resp.Leader = leaderBefore
			return resp
		}
		g.rebalance(op)
	case classicCompleting:
		g.rebalance(op)
	case classicPreparing:
		g.maybeCompleteJoin(op)
	}
	return nil
}

// makeClassic makes g a new classic group (Empty, generation 0) and
// writes its first record; g is live.
func (g *group) makeClassic() {
	g.kind, g.cl = kindClassic, newClassicGroup(g.c.mut)
	if g.c.mut.Has(MutClassicGroupStartsAtOne) {
		g.cl.generation = 1
	}
	g.cl.writeRecord()
}

// resetConsumer gives g a consumer group's state as new, for a group with
// no members that is about to change kind: what it counted (its epoch,
// its interned strings, its arenas) goes.
func (g *group) resetConsumer() {
	f := newGroup(g.c, g.id)
	g.epoch, g.mem, g.free, g.count = f.epoch, f.mem, f.free, f.count
	g.byHex, g.byB64, g.byStr, g.strIDs, g.idText = f.byHex, f.byB64, f.byStr, f.strIDs, nil
	g.insts, g.racks, g.clients, g.subs = f.insts, f.racks, f.clients, f.subs
	g.sides, g.freeSides = f.sides, f.freeSides
	g.owner, g.tgt, g.topicSubs = f.owner, f.tgt, f.topicSubs
	g.sessHead, g.sessTail, g.rheap = 0, 0, nil
	g.mx = nil
}
