package conformance

import (
	"fmt"

	"github.com/ghostcheck/ghostcheck/codec"
)

// The LeaveGroup and group-id cases of A3.1-A3.3, §B5 and §B7.2 that
// Kafka 4.0 changed (KAFKA-18188): removal by member id, one epoch bump
// per batch, group ids checked for emptiness, not blankness.

// lgOldVersion is the v0-v2 LeaveGroup version the suite uses: v2 when
// offered, else v0; ok false when the broker offers neither.
func (p *probe) lgOldVersion() (int16, bool) {
	switch {
	case p.offers(codec.LeaveGroup, 2):
		return 2, true
	case p.offers(codec.LeaveGroup, 0):
		return 0, true
	}
	return 0, false
}

// caseLGOld sends a v0-v2 LeaveGroup naming one member id: a member of
// the group (member), which must go with a top-level NONE, or an id the
// group does not hold, which is a top-level UNKNOWN_MEMBER_ID with the
// member kept.
func caseLGOld(member bool) func(p *probe) verdict {
	return func(p *probe) verdict {
		v, ok := p.lgOldVersion()
		if !ok {
			return skip("the broker does not offer LeaveGroup v0-v2")
		}
		c := p.conn()
		g, m := p.id("g"), p.id("m")
		c.mustJoin(p.joinReq(g, m))
		name, code, exp := p.id("stranger"), codec.UnknownMemberID, "top UNKNOWN_MEMBER_ID, the member kept"
		if member {
			name, code, exp = m, codec.None, "top NONE, the member removed"
		}
		r := c.leaveGroup(v, g, codec.LeaveGroupMember{MemberId: name})
		obs := fmt.Sprintf("v%d: %s", v, lgString(r))
		d := c.describeFor(g, r.ErrorCode == code, obs, exp)
		_, kept := members(d)[m]
		return want(r.ErrorCode == code && kept != member, obs+"; "+describeString(d), exp)
	}
}

// caseLGOneBump: three members, two of them static; one LeaveGroup
// removes both static ones by instance id. The group epoch Describe shows
// must move by one for the request (A3.2), not by one per member.
func caseLGOneBump(p *probe) verdict {
	v, ok := p.lgv()
	if !ok {
		return skip("the broker does not offer LeaveGroup v3")
	}
	p.needs(codec.ConsumerGroupDescribe)
	c := p.conn()
	g, i1, i2, m3 := p.id("g"), p.id("i"), p.id("i"), p.id("m")
	c.mustJoin(static(p.joinReq(g, p.id("m")), i1))
	c.mustJoin(static(p.joinReq(g, p.id("m")), i2))
	c.mustJoin(p.joinReq(g, m3)) // the group outlives the removal
	before := c.describe(g)
	r := c.leaveGroup(v, g, codec.LeaveGroupMember{GroupInstanceId: codec.Str(i1)}, codec.LeaveGroupMember{GroupInstanceId: codec.Str(i2)})
	after := c.describe(g)
	ms := members(after)
	_, left := ms[m3]
	ok = r.ErrorCode == codec.None && len(r.Members) == 2 && r.Members[0].ErrorCode == codec.None && r.Members[1].ErrorCode == codec.None
	obs := fmt.Sprintf("%s; group epoch %d before, %d after; %s", lgString(r), before.GroupEpoch, after.GroupEpoch, describeString(after))
	exp := fmt.Sprintf("both removed (NONE), only %s left, group epoch %d", short(m3), before.GroupEpoch+1)
	return want(ok && before.ErrorCode == codec.None && after.GroupEpoch == before.GroupEpoch+1 && left && len(ms) == 1, obs, exp)
}

// caseLGGroupID sends a LeaveGroup for group id, "" or blank: "" is a
// top-level INVALID_GROUP_ID; a blank id is not trimmed, and names a
// group that does not exist (§B5, A3.3).
func caseLGGroupID(id string) func(p *probe) verdict {
	return func(p *probe) verdict {
		v := min(p.max(codec.LeaveGroup), 5)
		if v < 0 {
			return skip("the broker does not offer LeaveGroup")
		}
		r := p.conn().leaveGroup(v, id, codec.LeaveGroupMember{MemberId: p.id("m")})
		obs := fmt.Sprintf("v%d: %s", v, lgString(r))
		switch {
		case id == "":
			return want(r.ErrorCode == codec.InvalidGroupID, obs, "top INVALID_GROUP_ID")
		case v >= 3:
			ok := r.ErrorCode == codec.None && len(r.Members) == 1 && r.Members[0].ErrorCode == codec.UnknownMemberID
			return want(ok, obs, "a missing group: top NONE, member UNKNOWN_MEMBER_ID")
		}
		return want(r.ErrorCode == codec.UnknownMemberID, obs, "a missing group: top UNKNOWN_MEMBER_ID")
	}
}

// caseDescribeGroupID describes group id "" (INVALID_GROUP_ID, echoed
// with GroupId "") or a blank one (a group that does not exist).
func caseDescribeGroupID(id string) func(p *probe) verdict {
	return func(p *probe) verdict {
		d := p.conn().describe(id)
		obs := fmt.Sprintf("%s (GroupId %q)", describeString(d), d.GroupId)
		if id == "" {
			return want(d.ErrorCode == codec.InvalidGroupID && d.GroupId == "", obs, `INVALID_GROUP_ID, GroupId ""`)
		}
		return want(d.ErrorCode == codec.GroupIDNotFound, obs, "GROUP_ID_NOT_FOUND")
	}
}
