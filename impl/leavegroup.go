package impl

import "github.com/ghostcheck/ghostcheck/codec"

// leaveGroup serves LeaveGroup against consumer-protocol groups as the model
// does (docs/PROTOCOL.md A3, A3.1, A3.2): any member can be removed by its
// member id, a static one also by its instance id alone; entries are
// answered in order, each seeing the removals before it. A request is
// applied under one lock of its group, and every member it removes is
// fenced in one step: one epoch bump and one target recomputation. Only
// the empty group id is INVALID_GROUP_ID (A3.3: no trim).
func (c *Coordinator) leaveGroup(version int16, r *codec.LeaveGroupRequest) *codec.LeaveGroupResponse {
	if version == 2 && c.mut.Has(MutLeaveGroupV2AsBatch) {
		version = 3
	}
	resp := &codec.LeaveGroupResponse{}
	if r.GroupId == "" && !c.mut.Has(MutLeaveGroupEmptyGroupAsMissing) {
		resp.ErrorCode = codec.InvalidGroupID
		return resp
	}
	if version >= 3 && len(r.Members) == 0 {
		return resp
	}
	g := c.liveGroup(r.GroupId)
	if g == nil {
		if cg := c.liveOf(r.GroupId, kindClassic); cg != nil {
			return c.leaveClassic(cg, version, r)
		}
	}
	removed := 0
	stop := codec.None // MutLeaveGroupBatchStopsAtError: the error every later entry gets
	resp = leaveEntries(version, r, func(memberID string, instance codec.NullableString) codec.ErrorCode {
		if stop != codec.None {
			return stop
		}
		code := g.leaveOne(memberID, instance, &removed)
		if code == codec.UnknownMemberID && (!instance.Valid || memberID == "") && c.mut.Has(MutLeaveGroupUnknownEntriesNone) {
			code = codec.None
		}
		if code != codec.None && c.mut.Has(MutLeaveGroupBatchStopsAtError) {
			stop = code
		}
		return code
	})
	if g != nil {
		if removed > 0 {
			if c.mut.Has(MutLeaveGroupBumpPerMember) {
				g.epoch += int32(removed - 1)
			}
			g.bump()
		}
		g.mu.Unlock()
	}
	return resp
}

// leaveEntries answers a LeaveGroup's entries in request order, each by
// one: v0-v2 carry one member id's result at the top level, v3+ one result
// per entry.
func leaveEntries(version int16, r *codec.LeaveGroupRequest, one func(memberID string, instance codec.NullableString) codec.ErrorCode) *codec.LeaveGroupResponse {
	resp := &codec.LeaveGroupResponse{}
	if version <= 2 {
		resp.ErrorCode = one(r.MemberId, codec.Null)
		return resp
	}
	for _, m := range r.Members {
		resp.Members = append(resp.Members, codec.LeaveGroupMemberResponse{
			MemberId:        m.MemberId,
			GroupInstanceId: m.GroupInstanceId,
			ErrorCode:       one(m.MemberId, m.GroupInstanceId),
		})
	}
	return resp
}

// leaveOne answers one LeaveGroup entry against g (nil: no such group) by
// A3's table, removing the member it names when the entry removes it and
// counting it in removed; the caller moves the epoch on.
func (g *group) leaveOne(memberID string, instanceID codec.NullableString, removed *int) codec.ErrorCode {
	if g == nil {
		return codec.UnknownMemberID
	}
	var mi uint32
	if !instanceID.Valid {
		if memberID == "" {
			return codec.UnknownMemberID
		}
		if mi = g.find(memberID); mi == 0 || g.c.mut.Has(MutLeaveGroupMemberIDUnknown) {
			return codec.UnknownMemberID
		}
	} else {
		mi = g.holder(instanceID.Value)
		if mi == 0 && memberID != "" && g.c.mut.Has(MutLeaveGroupUnknownInstanceByID) {
			mi = g.find(memberID)
		}
		switch {
		case mi == 0:
			return codec.UnknownMemberID
		case memberID == "" && g.c.mut.Has(MutLeaveGroupAdminRemovalIgnored):
			return codec.UnknownMemberID
		case memberID != "" && g.idIs(mi, memberID) && g.c.mut.Has(MutLeaveGroupOwnInstanceFenced):
			return codec.FencedInstanceID
		case memberID != "" && !g.idIs(mi, memberID) && !g.c.mut.Has(MutLeaveGroupFencedRemoves):
			return codec.FencedInstanceID
		}
	}
	g.removeMember(mi)
	*removed++
	return codec.None
}
