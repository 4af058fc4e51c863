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

// describe serves ConsumerGroupDescribe: exactly what each group holds,
// written into resp (reused, describeInto).
func (c *Coordinator) describe(version int16, r *codec.ConsumerGroupDescribeRequest, resp *codec.ConsumerGroupDescribeResponse) {
	groups := refit(resp.Groups, len(r.GroupIds))
	*resp = codec.ConsumerGroupDescribeResponse{Groups: groups}
	for i, id := range r.GroupIds {
		c.describeGroup(version, id, r.IncludeAuthorizedOperations, &groups[i])
	}
}

// newDescribeResponse is a fresh answer to a Describe of n groups, for
// Handle: a Describe of one group (most often: a run describes its group
// at every observation) takes one allocation.
func newDescribeResponse(n int) *codec.ConsumerGroupDescribeResponse {
	switch n {
	case 0:
		return &codec.ConsumerGroupDescribeResponse{}
	case 1:
		one := &describeOne{}
		one.resp.Groups = one.groups[:0:1]
		return &one.resp
	}
	return &codec.ConsumerGroupDescribeResponse{Groups: make([]codec.DescribedGroup, 0, n)}
}

// describeOne is the answer to a Describe of one group, with its list.
type describeOne struct {
	resp   codec.ConsumerGroupDescribeResponse
	groups [1]codec.DescribedGroup
}

// describeGroup writes one group of a ConsumerGroupDescribe answer into
// out, reusing the lists out holds (refit).
func (c *Coordinator) describeGroup(version int16, id string, includeOps bool, out *codec.DescribedGroup) {
	members, msg := out.Members, out.ErrorMessage
	// Members is kept, empty, for its array (nil and empty encode alike).
	*out = codec.DescribedGroup{GroupId: id, Members: members[:0], AuthorizedOperations: codec.AuthorizedOperationsOmitted}
	// Only the empty group id is INVALID_GROUP_ID (A3.3, §B7.2): Describe
	// does not trim, so "  " is a group that does not exist.
	if id == "" {
		c.hit("B7.2/invalid-group-id")
		out.ErrorCode = codec.InvalidGroupID
		return
	}
	if c.classic[id] != nil {
		c.hit("A6.4/heartbeat-classic-not-found")
		out.ErrorCode = codec.GroupIDNotFound
		out.ErrorMessage = groupMessage(msg, id, " is not a consumer group.")
		return
	}
	g := c.groups[id]
	if g == nil {
		c.hit("B7.2/group-not-found")
		out.ErrorCode = codec.GroupIDNotFound
		out.ErrorMessage = groupMessage(msg, id, " not found.")
		return
	}
	c.hit("B7.2/group-described")
	out.GroupState = groupState(g)
	out.GroupEpoch = g.epoch
	out.AssignmentEpoch = g.epoch
	out.AssignorName = uniformAssignor
	if includeOps {
		out.AuthorizedOperations = groupOperations
	}
	if len(g.members) == 0 {
		return
	}
	out.Members = refit(members, len(g.members))
	// What the members' assignments, targets and subscriptions need
	// beyond the lists out holds is taken from three arrays, each made at
	// most once, at the size all of them need (a run describes its groups
	// at every observation).
	var a describeArrays
	for _, m := range g.members {
		target := g.target[m.id]
		a.np += len(m.assigned) + len(target)
		a.nt += topicsIn(m.assigned) + topicsIn(target)
		a.nn += len(m.subscribedNames)
	}
	for i, m := range g.members {
		dm := &out.Members[i]
		names, assigned, target := dm.SubscribedTopicNames, dm.Assignment.TopicPartitions, dm.TargetAssignment.TopicPartitions
		*dm = codec.DescribedMember{
			MemberId:             m.id,
			InstanceId:           m.instanceID,
			RackId:               m.rackID,
			MemberEpoch:          m.epoch,
			ClientId:             m.clientID,
			ClientHost:           m.clientHost,
			SubscribedTopicRegex: m.subscribedRegex,
			MemberType:           codec.MemberTypeUnknown,
		}
		dm.SubscribedTopicNames = take(names, len(m.subscribedNames), &a.names, &a.nn)
		copy(dm.SubscribedTopicNames, m.subscribedNames)
		dm.Assignment.TopicPartitions = c.describedPartitions(m.assigned, assigned, &a)
		dm.TargetAssignment.TopicPartitions = c.describedPartitions(g.target[m.id], target, &a)
		if version >= 1 {
			// KIP-1099: a classic member of a consumer group (A7.1) is
			// described as one.
			dm.MemberType = codec.MemberTypeConsumer
			if m.classic != nil {
				dm.MemberType = codec.MemberTypeClassic
			}
		}
	}
}

// groupMessage is the error message "Group <id><rest>", old itself when
// it already says so (a Describe answered again into the same response
// makes no new string).
func groupMessage(old codec.NullableString, id, rest string) codec.NullableString {
	const head = "Group "
	if s := old.Value; old.Valid && len(s) == len(head)+len(id)+len(rest) &&
		s[:len(head)] == head && s[len(head):len(head)+len(id)] == id && s[len(head)+len(id):] == rest {
		return old
	}
	return codec.Str(head + id + rest)
}

// refit is s at length n, its elements (up to its capacity) kept for
// their lists to be reused: a new array, holding s's elements, when s
// is too short.
func refit[T any](s []T, n int) []T {
	if n <= cap(s) {
		return s[:n]
	}
	out := make([]T, n)
	copy(out, s[:cap(s)])
	return out
}

// take is a list of n elements: old's array when it holds n (old itself
// when n is 0), or else the front of *spare, capped at its end. *spare is
// made on first need with *left elements, what this and every later take
// of the same answer need at most; *left drops by n.
func take[T any](old []T, n int, spare *[]T, left *int) []T {
	*left -= n
	if n <= cap(old) {
		return old[:n]
	}
	if *spare == nil {
		*spare = make([]T, *left+n)
	}
	out := (*spare)[:n:n]
	*spare = (*spare)[n:]
	return out
}
