package model

import "github.com/ghostcheck/ghostcheck/codec"

// classicLeaveGroup serves LeaveGroup against a classic group
// (docs/PROTOCOL.md A6.3): each entry, in request order, by the first row
// of A6.3's table that matches, each seeing the removals of the entries
// before it. v0-v2 name one member id (no instance id) and carry its
// result at the top level (A3's folding, B5). If any entry was NONE (a
// pending id's included), a Stable or CompletingRebalance group
// rebalances once for the request, and a group in its join phase
// completes it if it may (not in the first rebalance, B8.7).
func (c *Coordinator) classicLeaveGroup(version int16, g *classicGroup, r *codec.LeaveGroupRequest) *codec.LeaveGroupResponse {
	left := false
	resp := c.leaveEntries(version, r, func(memberID string, instance codec.NullableString) codec.ErrorCode {
		return c.classicLeaveOne(g, memberID, instance, &left)
	})
	if !left {
		return resp
	}
	switch g.state {
	case classicStable, classicCompleting:
		c.hit("A6.3/leave-rebalances")
		c.rebalance(g)
	case classicPreparing:
		if c.maybeCompleteJoin(g) {
			c.hit("A6.3/leave-completes-join")
		}
	}
	return resp
}

// classicLeaveOne answers one LeaveGroup entry by A6.3's table and removes
// what it names, setting *left when it answers NONE.
func (c *Coordinator) classicLeaveOne(g *classicGroup, memberID string, instance codec.NullableString, left *bool) codec.ErrorCode {
	var m *classicMember
	switch {
	case memberID == "":
		holder, held := g.static[instance.Value]
		if !instance.Valid || !held {
			c.hit("A6.3/empty-unknown")
			return codec.UnknownMemberID
		}
		c.hit("A6.3/admin-removal")
		m = g.member(holder)
	case hasPending(g, memberID):
		c.hit("A6.3/pending-dropped")
		delete(g.pending, memberID)
		*left = true
		return codec.None
	default:
		if instance.Valid {
			holder, held := g.static[instance.Value]
			if !held {
				c.hit("A6.3/unknown-instance")
				return codec.UnknownMemberID
			}
			if holder != memberID {
				c.hit("A6.3/fenced-instance")
				return codec.FencedInstanceID
			}
		}
		if m = g.member(memberID); m == nil {
			c.hit("A6.3/unknown-member")
			return codec.UnknownMemberID
		}
		c.hit("A6.3/member-removed")
	}
	joinAnswered, syncDropped := c.removeClassicMember(g, m)
	if joinAnswered {
		c.hit("A6.3/removed-join-answered")
	}
	if syncDropped {
		c.hit("A6.3/removed-sync-unanswered")
	}
	*left = true
	return codec.None
}

// hasPending reports whether id is a pending id of g.
func hasPending(g *classicGroup, id string) bool {
	_, ok := g.pending[id]
	return ok
}
