package model

import (
	"slices"

	"github.com/ghostcheck/ghostcheck/codec"
)

// describeGroups serves DescribeGroups (docs/PROTOCOL.md B8.13, A6.4): each
// group asked about, in request order (Kafka may reorder them; an observer
// matches by GroupId). GroupId "" is looked up like any id. With
// IncludeAuthorizedOperations (v3+), a group answered NONE carries the
// operations the model allows everyone, as ConsumerGroupDescribe does.
func (c *Coordinator) describeGroups(version int16, r *codec.DescribeGroupsRequest) *codec.DescribeGroupsResponse {
	resp := &codec.DescribeGroupsResponse{}
	if len(r.Groups) > 0 {
		resp.Groups = make([]codec.DescribeGroupsGroup, 0, len(r.Groups))
	}
	for _, id := range r.Groups {
		dg := c.describeClassic(version, id)
		if version >= 3 && r.IncludeAuthorizedOperations && dg.ErrorCode == codec.None {
			dg.AuthorizedOperations = groupOperations
		}
		resp.Groups = append(resp.Groups, dg)
	}
	return resp
}

// describeClassic is one group of a DescribeGroups answer: a classic
// group's state, protocol type and members (never pending ids), each with
// its assignment; in Stable also the protocol and each member's metadata
// for it. A group that is missing, or is a consumer group, is "Dead":
// GROUP_ID_NOT_FOUND at v6, NONE without members below.
func (c *Coordinator) describeClassic(version int16, id string) codec.DescribeGroupsGroup {
	dg := codec.DescribeGroupsGroup{GroupId: id, AuthorizedOperations: codec.AuthorizedOperationsUnknown}
	g := c.classic[id]
	if g == nil {
		msg := "Group " + id + " not found."
		if c.groups[id] != nil {
			c.hit("A6.4/describe-consumer-group")
			msg = "Group " + id + " is not a classic group."
		}
		dg.GroupState = "Dead"
		if version >= 6 {
			c.hit("B8.13/not-found-v6")
			dg.ErrorCode = codec.GroupIDNotFound
			dg.ErrorMessage = codec.Str(msg)
		} else {
			c.hit("B8.13/dead-v0-v5")
		}
		return dg
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
	if len(g.members) > 0 {
		dg.Members = make([]codec.DescribeGroupsMember, 0, len(g.members))
	}
	for _, m := range g.members {
		dm := codec.DescribeGroupsMember{MemberId: m.id, GroupInstanceId: m.instance, ClientId: m.clientID,
			ClientHost: m.host, MemberAssignment: slices.Clone(m.assignment)}
		if stable {
			dm.MemberMetadata = slices.Clone(m.metadata(g.protocol))
		}
		dg.Members = append(dg.Members, dm)
	}
	return dg
}
