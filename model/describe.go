package model

import (
	"github.com/ghostcheck/ghostcheck/codec"
)

// Group states as ConsumerGroupDescribe names them.
const (
	GroupStateEmpty       = "Empty"
	GroupStateReconciling = "Reconciling"
	GroupStateStable      = "Stable"
)

// Authorized operations on a group when no authorizer restricts them:
// READ(3), DELETE(6), DESCRIBE(8), DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11).
const groupOperations int32 = 1<<3 | 1<<6 | 1<<8 | 1<<10 | 1<<11

// groupState is Kafka's rule: Empty without members; Stable when every
// member is at the target epoch with its whole target; Reconciling
// otherwise (a member parked at -2 is not reconciled).
func groupState(g *group) string {
	if len(g.members) == 0 {
		return GroupStateEmpty
	}
	for _, m := range g.members {
		if m.epoch != g.epoch || m.state != stateStable {
			return GroupStateReconciling
		}
	}
	return GroupStateStable
}

// describe serves ConsumerGroupDescribe: exactly what each group holds.
func (c *Coordinator) describe(version int16, r *codec.ConsumerGroupDescribeRequest) *codec.ConsumerGroupDescribeResponse {
	var resp *codec.ConsumerGroupDescribeResponse
	switch len(r.GroupIds) {
	case 0:
		resp = &codec.ConsumerGroupDescribeResponse{}
	case 1: // most often (a run describes its group at every observation): one allocation
		one := &describeOne{}
		resp = &one.resp
		resp.Groups = one.groups[:0:1]
	default:
		resp = &codec.ConsumerGroupDescribeResponse{Groups: make([]codec.DescribedGroup, 0, len(r.GroupIds))}
	}
	for _, id := range r.GroupIds {
		resp.Groups = append(resp.Groups, c.describeGroup(version, id, r.IncludeAuthorizedOperations))
	}
	return resp
}

// describeOne is the answer to a Describe of one group, with its list.
type describeOne struct {
	resp   codec.ConsumerGroupDescribeResponse
	groups [1]codec.DescribedGroup
}

func (c *Coordinator) describeGroup(version int16, id string, includeOps bool) codec.DescribedGroup {
	out := codec.DescribedGroup{GroupId: id, AuthorizedOperations: codec.AuthorizedOperationsOmitted}
	// Only the empty group id is INVALID_GROUP_ID (A3.3, §B7.2): Describe
	// does not trim, so "  " is a group that does not exist.
	if id == "" {
		c.hit("B7.2/invalid-group-id")
		out.ErrorCode = codec.InvalidGroupID
		return out
	}
	if c.classic[id] != nil {
		c.hit("A6.4/heartbeat-classic-not-found")
		out.ErrorCode = codec.GroupIDNotFound
		out.ErrorMessage = codec.Str("Group " + id + " is not a consumer group.")
		return out
	}
	g := c.groups[id]
	if g == nil {
		c.hit("B7.2/group-not-found")
		out.ErrorCode = codec.GroupIDNotFound
		out.ErrorMessage = codec.Str("Group " + id + " not found.")
		return out
	}
	c.hit("B7.2/group-described")
	out.GroupState = groupState(g)
	out.GroupEpoch = g.epoch
	out.AssignmentEpoch = g.epoch
	out.AssignorName = uniformAssignor
	if includeOps {
		out.AuthorizedOperations = groupOperations
	}
	if len(g.members) > 0 {
		out.Members = make([]codec.DescribedMember, 0, len(g.members))
	}
	// The members' assignments, targets and subscriptions share three
	// arrays, each made at its size (a run describes its groups at every
	// observation).
	var np, nt, nn int
	for _, m := range g.members {
		target := g.target[m.id]
		np += len(m.assigned) + len(target)
		nt += topicsIn(m.assigned) + topicsIn(target)
		nn += len(m.subscribedNames)
	}
	a := &describeArrays{parts: make([]int32, np), topics: make([]codec.DescribedTopicPartitions, nt)}
	names := make([]string, nn)
	for _, m := range g.members {
		var subscribed []string // nil when the member has none
		if k := len(m.subscribedNames); k > 0 {
			subscribed = names[:k:k]
			names = names[k:]
			copy(subscribed, m.subscribedNames)
		}
		dm := codec.DescribedMember{
			MemberId:             m.id,
			InstanceId:           m.instanceID,
			RackId:               m.rackID,
			MemberEpoch:          m.epoch,
			ClientId:             m.clientID,
			ClientHost:           m.clientHost,
			SubscribedTopicNames: subscribed,
			SubscribedTopicRegex: m.subscribedRegex,
			Assignment:           c.describedPartitions(m.assigned, a),
			TargetAssignment:     c.describedPartitions(g.target[m.id], a),
			MemberType:           codec.MemberTypeUnknown,
		}
		if version >= 1 {
			// KIP-1099: a classic member of a consumer group (A7.1) is
			// described as one.
			dm.MemberType = codec.MemberTypeConsumer
			if m.classic != nil {
				dm.MemberType = codec.MemberTypeClassic
			}
		}
		out.Members = append(out.Members, dm)
	}
	return out
}
