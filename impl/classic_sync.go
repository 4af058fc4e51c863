package impl

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// syncClassic serves SyncGroup (docs/PROTOCOL.md B8.4, B8.8, A6.4) in the
// model's order of checks.
func (c *Coordinator) syncClassic(conn Conn, version int16, r *codec.SyncGroupRequest) (codec.Message, error) {
	if version >= 5 && (!r.ProtocolType.Valid || !r.ProtocolName.Valid) && !c.mut.Has(MutSyncNullProtocolAccepted) {
		return syncError(codec.InconsistentGroupProtocol), nil
	}
	if r.GroupId == "" {
		return syncError(codec.InvalidGroupID), nil
	}
	if cg := c.liveOf(r.GroupId, kindConsumer); cg != nil {
		// Only its classic members (A7.2) sync.
		resp := cg.classicSyncToConsumer(r, c.clock.Now())
		cg.mu.Unlock()
		return resp, nil
	}
	g := c.liveOf(r.GroupId, kindClassic)
	if g == nil {
		if c.mut.Has(MutSyncMissingGroupNotFound) {
			return syncError(codec.GroupIDNotFound), nil
		}
		return syncError(codec.UnknownMemberID), nil
	}
	op := &cop{c: c, now: c.clock.Now(), conn: conn}
	resp := g.cl.syncRequest(op, version, r)
	op.finishLocked()
	g.registerClassic()
	g.mu.Unlock()
	op.publish()
	return op.result(resp, nil)
}

// syncRequest is steps 4 to 8 of the model's syncGroup on a classic group.
func (g *classicGroup) syncRequest(op *cop, version int16, r *codec.SyncGroupRequest) codec.Message {
	if g.state == classicEmpty {
		return syncError(codec.UnknownMemberID)
	}
	m, code := g.memberCheck(r.MemberId, r.GroupInstanceId)
	if code != codec.None {
		return syncError(code)
	}
	if r.GenerationId != g.generation && !g.mut.Has(MutSyncGenerationUnchecked) {
		return syncError(codec.IllegalGeneration)
	}
	if r.ProtocolType.Valid && g.protocolType != "" && r.ProtocolType.Value != g.protocolType ||
		r.ProtocolName.Valid && g.protocol != "" && r.ProtocolName.Value != g.protocol && !g.mut.Has(MutSyncProtocolNameUnchecked) {
		return syncError(codec.InconsistentGroupProtocol)
	}
	switch g.state {
	case classicPreparing:
		if !g.mut.Has(MutSyncRebalancingAnswered) {
			return syncError(codec.RebalanceInProgress)
		}
	case classicCompleting:
		if m.id != g.leader && g.mut.Has(MutFollowerSyncNotHeld) {
			g.syncDone(m.id)
			return g.syncAnswer(m)
		}
		if m.sync.on && g.mut.Has(MutSecondSyncRefused) {
			return syncError(codec.NotCoordinator)
		}
		if m.sync.on {
			op.answer(m.sync, syncError(codec.NotCoordinator))
		}
		m.sync = op.park(version)
		g.syncDone(m.id)
		if m.id == g.leader {
			g.leaderAssigns(op, r.Assignments)
		}
		return nil
	}
	g.syncDone(m.id)
	if g.mut.Has(MutStableSyncEmpty) {
		resp := g.syncAnswer(m)
		resp.Assignment = nil
		return resp
	}
	return g.syncAnswer(m)
}

// leaderAssigns is the leader's SyncGroup in CompletingRebalance.
func (g *classicGroup) leaderAssigns(op *cop, assignments []codec.SyncGroupRequestAssignment) {
	for _, m := range g.members {
		if g.mut.Has(MutLeaderSyncAnswersFirst) && m.sync.on && m.id != g.leader {
			p := m.sync
			m.sync.on = false
			op.answer(p, g.syncAnswer(m))
			g.armSession(m, deadline(op.now, int64(m.sessionMs)))
		}
		kept := m.assignment
		m.assignment = nil
		if g.mut.Has(MutMissingAssignmentKept) && !slices.ContainsFunc(assignments, func(a codec.SyncGroupRequestAssignment) bool { return a.MemberId == m.id }) {
			m.assignment = kept
		}
		for i := len(assignments) - 1; i >= 0; i-- { // the last entry for an id wins
			if assignments[i].MemberId == m.id {
				if len(assignments[i].Assignment) > 0 {
					m.assignment = slices.Clone(assignments[i].Assignment)
				}
				break
			}
		}
	}
	g.transition(classicStable)
	g.writeRecord()
	for _, m := range g.members {
		if m.sync.on {
			p := m.sync
			m.sync.on = false
			op.answer(p, g.syncAnswer(m))
			g.armSession(m, deadline(op.now, int64(m.sessionMs)))
		}
	}
}
