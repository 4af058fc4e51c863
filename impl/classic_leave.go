package impl

import "github.com/ghostcheck/ghostcheck/codec"

// leaveClassic serves LeaveGroup against a classic group (docs/PROTOCOL.md
// A6.3), as the model's classicLeaveGroup; g is locked and unlocked here.
func (c *Coordinator) leaveClassic(g *group, version int16, r *codec.LeaveGroupRequest) *codec.LeaveGroupResponse {
	op := &cop{c: c, now: c.clock.Now()}
	cl := g.cl
	left := false
	resp := leaveEntries(version, r, func(memberID string, instance codec.NullableString) codec.ErrorCode {
		return cl.leaveOne(op, memberID, instance, &left)
	})
	if left {
		switch cl.state {
		case classicStable, classicCompleting:
			if !c.mut.Has(MutClassicLeaveNoRebalance) {
				cl.rebalance(op)
			}
		case classicPreparing:
			if !c.mut.Has(MutClassicLeaveNoCompletion) {
				cl.maybeCompleteJoin(op)
			}
		}
	}
	g.registerClassic()
	g.mu.Unlock()
	op.publish()
	return resp
}

// leaveOne answers one entry by A6.3's table.
func (g *classicGroup) leaveOne(op *cop, memberID string, instance codec.NullableString, left *bool) codec.ErrorCode {
	var m *cmember
	if memberID == "" {
		if !instance.Valid || g.static[instance.Value] == nil {
			if g.mut.Has(MutClassicLeaveEmptyUnknownNone) {
				return codec.None
			}
			return codec.UnknownMemberID
		}
		if g.mut.Has(MutAdminRemovalIgnored) {
			return codec.UnknownMemberID
		}
		m = g.static[instance.Value]
	} else if _, pending := g.pending[memberID]; pending {
		if !g.mut.Has(MutPendingLeaveKept) {
			delete(g.pending, memberID)
		}
		*left = true
		return codec.None
	} else {
		var code codec.ErrorCode
		m, code = g.memberCheck(memberID, instance)
		switch held := g.byID[memberID]; {
		case held != nil && instance.Valid && g.static[instance.Value] == nil && g.mut.Has(MutClassicLeaveUnknownInstanceByID):
			m, code = held, codec.None
		case held == nil && !instance.Valid && g.mut.Has(MutClassicLeaveUnknownMemberNone):
			return codec.None
		case held != nil && !instance.Valid && held.instance.Valid && g.mut.Has(MutClassicLeaveStaticByIDFenced):
			return codec.FencedInstanceID
		}
		if code != codec.None {
			return code
		}
	}
	g.removeMember(op, m)
	*left = true
	return codec.None
}
