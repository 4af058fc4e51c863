package impl

import "github.com/ghostcheck/ghostcheck/codec"

// describeGroups serves DescribeGroups (docs/PROTOCOL.md B8.13, A6.4), as
// the model's; each group is read under its own lock.
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

func (c *Coordinator) describeClassic(version int16, id string) codec.DescribeGroupsGroup {
	dg := codec.DescribeGroupsGroup{GroupId: id, AuthorizedOperations: codec.AuthorizedOperationsUnknown}
	g := c.readGroup(id, kindClassic)
	if g == nil {
		msg := "Group " + id + " not found."
		if cg := c.readGroup(id, kindConsumer); cg != nil {
			cg.mu.Unlock()
			msg = "Group " + id + " is not a classic group."
			if c.mut.Has(MutDescribeConsumerGroupEmpty) {
				dg.GroupState = "Empty"
				return dg
			}
		}
		dg.GroupState = "Dead"
		if version >= 6 && !(version == 6 && c.mut.Has(MutDescribeNotFoundFromV7)) || version == 5 && c.mut.Has(MutDescribeNotFoundFromV5) {
			dg.ErrorCode = codec.GroupIDNotFound
			if version >= 6 { // the message is v6's
				dg.ErrorMessage = codec.Str(msg)
			}
		}
		return dg
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
	if len(cl.members) > 0 {
		dg.Members = make([]codec.DescribeGroupsMember, 0, len(cl.members))
	}
	for _, m := range cl.members {
		dm := codec.DescribeGroupsMember{MemberId: m.id, GroupInstanceId: m.instance, ClientId: m.clientID,
			ClientHost: m.host, MemberAssignment: m.assignment}
		if metadata {
			dm.MemberMetadata = m.metadata(cl.protocol)
		}
		dg.Members = append(dg.Members, dm)
	}
	return dg
}
