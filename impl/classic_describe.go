package impl

import "github.com/ghostcheck/ghostcheck/codec"

// describeGroups serves DescribeGroups (docs/PROTOCOL.md B8.13, A6.4), as
// the model's, in a response of its own (Handle).
func (c *Coordinator) describeGroups(version int16, r *codec.DescribeGroupsRequest) *codec.DescribeGroupsResponse {
	resp := &codec.DescribeGroupsResponse{}
	c.describeGroupsInto(version, r, resp)
	return resp
}

// describeGroupsInto serves DescribeGroups into resp (DescribeInto); each
// group is read under its own lock.
func (c *Coordinator) describeGroupsInto(version int16, r *codec.DescribeGroupsRequest, resp *codec.DescribeGroupsResponse) {
	resp.ThrottleTimeMs, resp.UnknownTags = 0, nil
	resp.Groups = resized(resp.Groups, len(r.Groups)) // nil for none, as before
	for i, id := range r.Groups {
		dg := &resp.Groups[i]
		c.describeClassicInto(version, id, dg)
		if version >= 3 && r.IncludeAuthorizedOperations && dg.ErrorCode == codec.None {
			dg.AuthorizedOperations = groupOperations
		}
	}
}

// describeClassicInto describes classic group id into dg, reusing its
// members' list.
func (c *Coordinator) describeClassicInto(version int16, id string, dg *codec.DescribeGroupsGroup) {
	oldMsg, oldMembers := dg.ErrorMessage, dg.Members
	*dg = codec.DescribeGroupsGroup{GroupId: id, AuthorizedOperations: codec.AuthorizedOperationsUnknown, Members: oldMembers[:0]}
	g := c.readGroup(id, kindClassic)
	if g == nil {
		consumer := false
		if cg := c.readGroup(id, kindConsumer); cg != nil {
			cg.mu.Unlock()
			consumer = true
			if c.mut.Has(MutDescribeConsumerGroupEmpty) {
				dg.GroupState = "Empty"
				return
			}
		}
		dg.GroupState = "Dead"
		if version >= 6 && !(version == 6 && c.mut.Has(MutDescribeNotFoundFromV7)) || version == 5 && c.mut.Has(MutDescribeNotFoundFromV5) {
			dg.ErrorCode = codec.GroupIDNotFound
			if version >= 6 { // the message is v6's
				dg.ErrorMessage = missingMessage(oldMsg, id, consumer, "a classic")
			}
		}
		return
	}
	defer g.mu.Unlock()
	cl := g.cl
	stable := cl.state == classicStable
	if stable {
		dg.ProtocolData = cl.protocol
	}
	metadata := stable && !c.mut.Has(MutDescribeStableNoMetadata) || cl.state == classicCompleting && c.mut.Has(MutDescribeCompletingMetadata)
	dg.GroupState = cl.state.String()
	dg.ProtocolType = cl.protocolType
	dg.Members = resized(oldMembers, len(cl.members)) // nil for none, as before
	for i, m := range cl.members {
		dm := codec.DescribeGroupsMember{MemberId: m.id, GroupInstanceId: m.instance, ClientId: m.clientID,
			ClientHost: m.host, MemberAssignment: m.assignment}
		if metadata {
			dm.MemberMetadata = m.metadata(cl.protocol)
		}
		dg.Members[i] = dm
	}
}
