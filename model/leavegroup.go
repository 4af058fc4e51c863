package model

import "github.com/ghostcheck/ghostcheck/codec"

// leaveGroup serves LeaveGroup against consumer-protocol groups as Kafka 4.0+
// does (docs/PROTOCOL.md A3, A3.1; KAFKA-18188): any member of the group can
// be removed, by its member id or, administratively, by its instance id.
// Each entry is answered by A3's table:
//
//	MemberId         GroupInstanceId            result
//	""               held by a member           that member removed, NONE
//	""               unknown, or null           UNKNOWN_MEMBER_ID
//	a member's id    null                       that member removed, NONE
//	not a member     null                       UNKNOWN_MEMBER_ID
//	any              unknown                    UNKNOWN_MEMBER_ID
//	non-empty        held by another member id  FENCED_INSTANCE_ID
//	non-empty        held by this member id     that member removed, NONE
//
// Entries are answered in order, each seeing the removals of the entries
// before it (a second entry for a member already removed finds it gone).
// Every member the request removes is fenced in one step: the group epoch
// moves on once for the request and the target is recomputed once (A3.2);
// a request that removes nobody changes nothing.
//
// At v3+ errors are per member and the top level is NONE. v0-v2 name one
// member id (no instance id) and carry its result at the top level. A group
// that does not exist answers every member UNKNOWN_MEMBER_ID. Only the
// empty group id is INVALID_GROUP_ID: LeaveGroup does not trim (A3.3), so
// "  " is a group that does not exist.
func (c *Coordinator) leaveGroup(version int16, r *codec.LeaveGroupRequest) *codec.LeaveGroupResponse {
	resp := &codec.LeaveGroupResponse{}
	if r.GroupId == "" {
		c.hit("A3/invalid-group-id")
		resp.ErrorCode = codec.InvalidGroupID
		return resp
	}
	if cg := c.classic[r.GroupId]; cg != nil {
		return c.classicLeaveGroup(version, cg, r)
	}
	g := c.groups[r.GroupId]
	removed := 0
	resp = c.leaveEntries(version, r, func(memberID string, instance codec.NullableString) codec.ErrorCode {
		return c.leaveOne(g, memberID, instance, &removed)
	})
	if removed > 0 {
		c.hit("A3.2/one-bump-per-request")
		if removed > 1 {
			c.hit("A3.2/batch-removes-several")
		}
		c.bumpEpoch(g)
	}
	return resp
}

// leaveEntries answers a LeaveGroup's entries in request order, each by
// one: v0-v2 name one member id (no instance id) and carry its result at
// the top level; v3+ answer per entry, the top level NONE.
func (c *Coordinator) leaveEntries(version int16, r *codec.LeaveGroupRequest, one func(memberID string, instance codec.NullableString) codec.ErrorCode) *codec.LeaveGroupResponse {
	resp := &codec.LeaveGroupResponse{}
	if version <= 2 {
		c.hit("A3/v0-v2-top-level")
		resp.ErrorCode = one(r.MemberId, codec.Null)
		return resp
	}
	c.hit("A3/v3-batch")
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
// A3's table, and drops the member it names when the entry removes it,
// counting it in removed; the caller moves the epoch on.
func (c *Coordinator) leaveOne(g *group, memberID string, instanceID codec.NullableString, removed *int) codec.ErrorCode {
	if g == nil {
		c.hit("B5/missing-group")
		return codec.UnknownMemberID
	}
	var m *member
	if !instanceID.Valid {
		if m = g.member(memberID); m == nil {
			c.hit(leaveRow(memberID == "", "A3/row-2-empty-unknown", "A3/row-4-not-member"))
			return codec.UnknownMemberID // "" included: no member has it
		}
		c.hit("A3/row-3-member-removed")
	} else {
		holderID, held := g.instances[instanceID.Value]
		switch {
		case !held:
			c.hit(leaveRow(memberID == "", "A3/row-2-empty-unknown", "A3/row-5-unknown-instance"))
			return codec.UnknownMemberID
		case memberID != "" && holderID != memberID:
			c.hit("A3/row-6-fenced")
			return codec.FencedInstanceID
		}
		c.hit(leaveRow(memberID == "", "A3/row-1-admin-removal", "A3/row-7-own-instance"))
		m = g.member(holderID) // the holder itself, or an administrative removal
	}
	dropMember(g, m)
	*removed++
	return codec.None
}

// leaveRow picks the clause of A3's table an entry falls under: with an
// empty member id, or without.
func leaveRow(empty bool, ifEmpty, otherwise Clause) Clause {
	if empty {
		return ifEmpty
	}
	return otherwise
}
