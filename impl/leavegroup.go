package impl

import "github.com/ghostcheck/ghostcheck/codec"

// leaveGroup serves LeaveGroup against consumer-protocol groups (docs/PROTOCOL.md
// A3), as the model does: only the administrative removal of a static
// member by instance id (MemberId "") removes anyone. A batch is applied
// under one lock of its group, and the target is recomputed once.
func (c *Coordinator) leaveGroup(version int16, r *codec.LeaveGroupRequest) *codec.LeaveGroupResponse {
	resp := &codec.LeaveGroupResponse{}
	if blank(r.GroupId) {
		resp.ErrorCode = codec.InvalidGroupID
		return resp
	}
	if version <= 2 {
		// v0-v2 name a member id without an instance id: never a member
		// of a consumer-protocol group.
		resp.ErrorCode = codec.UnknownMemberID
		return resp
	}
	if len(r.Members) == 0 {
		return resp
	}
	g := c.liveGroup(r.GroupId)
	removed := int32(0)
	for _, m := range r.Members {
		resp.Members = append(resp.Members, codec.LeaveGroupMemberResponse{
			MemberId:        m.MemberId,
			GroupInstanceId: m.GroupInstanceId,
			ErrorCode:       g.leaveOne(m.MemberId, m.GroupInstanceId, &removed),
		})
	}
	if g != nil {
		if removed > 0 {
			g.epoch += removed
			g.computeTarget()
		}
		g.mu.Unlock()
	}
	return resp
}

// leaveOne applies one LeaveGroup entry to g (nil: no such group).
func (g *group) leaveOne(memberID string, instanceID codec.NullableString, removed *int32) codec.ErrorCode {
	if g == nil || !instanceID.Valid {
		return codec.UnknownMemberID
	}
	holder := g.holder(instanceID.Value)
	switch {
	case holder == 0:
		return codec.UnknownMemberID
	case memberID == "":
		g.removeMember(holder)
		*removed++
		return codec.None
	case !g.idIs(holder, memberID):
		return codec.FencedInstanceID
	default:
		return codec.UnknownMemberID
	}
}
