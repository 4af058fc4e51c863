package model

import (
	"github.com/ghostcheck/ghostcheck/codec"
)

// describeGroups serves DescribeGroups (docs/PROTOCOL.md B8.13, A6.4): each
// group asked about, in request order (Kafka may reorder them; an observer
// matches by GroupId). GroupId "" is looked up like any id. With
// IncludeAuthorizedOperations (v3+), a group answered NONE carries the
// operations the model allows everyone, as ConsumerGroupDescribe does.
// The answer is written into resp, whose lists are reused (refit).
func (c *Coordinator) describeGroups(version int16, r *codec.DescribeGroupsRequest, resp *codec.DescribeGroupsResponse) {
	groups := refit(resp.Groups, len(r.Groups))
	*resp = codec.DescribeGroupsResponse{Groups: groups}
	for i, id := range r.Groups {
		dg := &groups[i]
		c.describeClassic(version, id, dg)
		if version >= 3 && r.IncludeAuthorizedOperations && dg.ErrorCode == codec.None {
			dg.AuthorizedOperations = groupOperations
		}
	}
}

// describeClassic writes one group of a DescribeGroups answer into dg: a
// classic group's state, protocol type and members (never pending ids),
// each with its assignment; in Stable also the protocol and each member's
// metadata for it. A group that is missing, or is a consumer group, is
// "Dead": GROUP_ID_NOT_FOUND at v6, NONE without members below.
func (c *Coordinator) describeClassic(version int16, id string, dg *codec.DescribeGroupsGroup) {
	members, msg := dg.Members, dg.ErrorMessage
	// Members is kept, empty, for its array (nil and empty encode alike).
	*dg = codec.DescribeGroupsGroup{GroupId: id, Members: members[:0], AuthorizedOperations: codec.AuthorizedOperationsUnknown}
	g := c.classic[id]
	if g == nil {
		rest := " not found."
		if c.groups[id] != nil {
			c.hit("A6.4/describe-consumer-group")
			rest = " is not a classic group."
		}
		dg.GroupState = "Dead"
		if version >= 6 {
			c.hit("B8.13/not-found-v6")
			dg.ErrorCode = codec.GroupIDNotFound
			dg.ErrorMessage = groupMessage(msg, id, rest)
		} else {
			c.hit("B8.13/dead-v0-v5")
		}
		return
	}
	stable := g.state == classicStable
	if stable {
		c.hit("B8.13/described-stable")
		dg.ProtocolData = g.protocol
	} else {
		c.hit("B8.13/described-other")
	}
	dg.GroupState = g.state.String()
	dg.ProtocolType = g.protocolType
	dg.Members = refit(members, len(g.members))
	for i, m := range g.members {
		dm := &dg.Members[i]
		meta, assignment := dm.MemberMetadata, dm.MemberAssignment
		*dm = codec.DescribeGroupsMember{MemberId: m.id, GroupInstanceId: m.instance, ClientId: m.clientID,
			ClientHost: m.host, MemberAssignment: append(assignment[:0], m.assignment...), MemberMetadata: meta[:0]}
		if stable {
			dm.MemberMetadata = append(dm.MemberMetadata, m.metadata(g.protocol)...)
		}
	}
}
