package model

import "github.com/ghostcheck/ghostcheck/codec"

// leaveGroup serves LeaveGroup against consumer-protocol groups (docs/PROTOCOL.md
// A3). Members of such a group leave with a heartbeat at epoch -1 or -2, so
// the only LeaveGroup entry that removes anyone is the administrative
// removal of a static member by instance id (MemberId ""):
//
//	MemberId  GroupInstanceId            result
//	""        held by a member           removed, NONE
//	""        unknown, or null           UNKNOWN_MEMBER_ID
//	non-empty null                       UNKNOWN_MEMBER_ID
//	non-empty unknown                    UNKNOWN_MEMBER_ID
//	non-empty held by another member id  FENCED_INSTANCE_ID
//	non-empty held by this member id     UNKNOWN_MEMBER_ID (not a classic member)
//
// Errors are per member at v3+ (top level NONE); v0-v2 name one member and
// carry its result at the top level.
func (c *Coordinator) leaveGroup(version int16, r *codec.LeaveGroupRequest) *codec.LeaveGroupResponse {
	resp := &codec.LeaveGroupResponse{}
	if blank(r.GroupId) {
		resp.ErrorCode = codec.InvalidGroupID
		return resp
	}
	if version <= 2 {
		resp.ErrorCode = c.leaveOne(r.GroupId, r.MemberId, codec.Null)
		return resp
	}
	for _, m := range r.Members {
		resp.Members = append(resp.Members, codec.LeaveGroupMemberResponse{
			MemberId:        m.MemberId,
			GroupInstanceId: m.GroupInstanceId,
			ErrorCode:       c.leaveOne(r.GroupId, m.MemberId, m.GroupInstanceId),
		})
	}
	return resp
}

// leaveOne applies one LeaveGroup entry and returns its error code.
func (c *Coordinator) leaveOne(groupID, memberID string, instanceID codec.NullableString) codec.ErrorCode {
	g := c.groups[groupID]
	if g == nil || !instanceID.Valid {
		return codec.UnknownMemberID
	}
	holderID, held := g.instances[instanceID.Value]
	switch {
	case !held:
		return codec.UnknownMemberID
	case memberID == "":
		c.removeMember(g, g.members[holderID])
		return codec.None
	case holderID != memberID:
		return codec.FencedInstanceID
	default:
		return codec.UnknownMemberID
	}
}
