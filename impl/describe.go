package impl

import (
	"slices"
	"strings"

	"github.com/ghostcheck/ghostcheck/codec"
)

// Authorized operations on a group when no authorizer restricts them:
// READ(3), DELETE(6), DESCRIBE(8), DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11).
const groupOperations int32 = 1<<3 | 1<<6 | 1<<8 | 1<<10 | 1<<11

// describe serves ConsumerGroupDescribe. Each group is read under its own
// lock; a request naming several groups is not atomic across them.
func (c *Coordinator) describe(version int16, r *codec.ConsumerGroupDescribeRequest) *codec.ConsumerGroupDescribeResponse {
	var resp *codec.ConsumerGroupDescribeResponse
	switch len(r.GroupIds) {
	case 0:
		resp = &codec.ConsumerGroupDescribeResponse{} // Groups nil, as before
	case 1:
		// The response and its one group in one allocation: the explorer
		// describes its group after every step.
		one := &struct {
			resp  codec.ConsumerGroupDescribeResponse
			group [1]codec.DescribedGroup
		}{}
		resp = &one.resp
		resp.Groups = one.group[:0:1]
	default:
		resp = &codec.ConsumerGroupDescribeResponse{Groups: make([]codec.DescribedGroup, 0, len(r.GroupIds))}
	}
	for _, id := range r.GroupIds {
		resp.Groups = append(resp.Groups, c.describeGroup(version, id, r.IncludeAuthorizedOperations))
	}
	return resp
}

func (c *Coordinator) describeGroup(version int16, id string, includeOps bool) codec.DescribedGroup {
	out := codec.DescribedGroup{GroupId: id, AuthorizedOperations: codec.AuthorizedOperationsOmitted}
	if id == "" && !c.mut.Has(MutDescribeEmptyGroupNotFound) { // no trim (A3.3): "  " is a group that does not exist
		out.ErrorCode = codec.InvalidGroupID
		return out
	}
	g := c.readGroup(id, kindConsumer) // Describe changes nothing
	if g == nil && c.mut.Has(MutDescribeMissingGroupDead) {
		out.GroupState, out.AssignorName = "Dead", UniformAssignor
		return out
	}
	if g == nil {
		out.ErrorCode = codec.GroupIDNotFound
		out.ErrorMessage = codec.Str(c.missing(id).msg)
		return out
	}
	defer g.mu.Unlock()
	out.GroupState = g.stateName()
	out.GroupEpoch = g.epoch
	out.AssignmentEpoch = g.epoch
	out.AssignorName = UniformAssignor
	if includeOps {
		out.AuthorizedOperations = groupOperations
	}
	members := g.sortedMembers()
	if len(members) > 0 { // nil for none, as before
		out.Members = make([]codec.DescribedMember, 0, len(members))
	}
	// The members' assignments, targets and subscriptions are cut from
	// three arrays, each made at its size: the explorer describes every
	// group after every step.
	var np, nt, nn int
	for _, e := range members {
		if s := g.sideOf(e.mi); s != nil {
			np += len(s.assigned) + len(s.target)
			nt += c.topicsIn(s.assigned) + c.topicsIn(s.target)
		}
		nn += len(g.subOf(e.mi).names)
	}
	a := describeArrays{parts: make([]int32, np), topics: make([]codec.DescribedTopicPartitions, nt)}
	names := make([]string, nn)
	for _, e := range members {
		mi := e.mi
		m := &g.mem[mi]
		if m.epoch == -2 && c.mut.Has(MutDescribeHidesParked) {
			continue
		}
		ck := g.clientOf(mi)
		sub := g.subOf(mi)
		var subscribed []string // nil when the member has none
		if k := len(sub.names); k > 0 {
			subscribed, names = names[:k:k], names[k:]
			copy(subscribed, sub.names)
		}
		dm := codec.DescribedMember{
			MemberId:             e.id,
			InstanceId:           g.instanceOf(mi),
			RackId:               g.rackOf(mi),
			MemberEpoch:          m.epoch,
			ClientId:             ck.id,
			ClientHost:           ck.host,
			SubscribedTopicNames: subscribed,
			SubscribedTopicRegex: sub.regex,
			MemberType:           codec.MemberTypeUnknown,
		}
		if s := g.sideOf(mi); s != nil {
			dm.Assignment = c.describedPartitions(s.assigned, &a)
			dm.TargetAssignment = c.describedPartitions(s.target, &a)
		}
		if version >= 1 {
			// KIP-1099: a classic member of a consumer group (A7.1) is
			// described as one.
			dm.MemberType = codec.MemberTypeConsumer
			if m.flags&flClassic != 0 {
				dm.MemberType = codec.MemberTypeClassic
			}
		}
		out.Members = append(out.Members, dm)
	}
	return out
}

type idEntry struct {
	id string
	mi uint32
}

// sortedMembers lists the live members in member-id order, in the
// group's own array (group.byID): the list is good until the next call on
// g, and is not to be kept (g is locked meanwhile).
func (g *group) sortedMembers() []idEntry {
	out := g.byID[:0]
	for mi := 1; mi < len(g.mem); mi++ {
		if g.mem[mi].flags&flLive != 0 {
			out = append(out, idEntry{g.idString(uint32(mi)), uint32(mi)})
		}
	}
	slices.SortFunc(out, func(a, b idEntry) int { return strings.Compare(a.id, b.id) })
	g.byID = out
	return out
}

// describeArrays are the arrays one group's described lists are cut
// from: each list is capped at its end, so that appending to one cannot
// reach the next.
type describeArrays struct {
	parts  []int32
	topics []codec.DescribedTopicPartitions
}

// topicsIn is the number of topics the sorted partition indexes ps span.
func (c *Coordinator) topicsIn(ps []int32) int {
	n, ti := 0, -1
	for _, p := range ps {
		if t := c.topicOf(p); t != ti {
			ti = t
			n++
		}
	}
	return n
}

// describedPartitions renders sorted partition indexes for
// ConsumerGroupDescribe, in lists cut from a (which has the room).
func (c *Coordinator) describedPartitions(ps []int32, a *describeArrays) codec.DescribedAssignment {
	if len(ps) == 0 {
		return codec.DescribedAssignment{}
	}
	ntopics := c.topicsIn(ps)
	out := a.topics[:0:ntopics]
	parts := a.parts[:len(ps):len(ps)]
	a.topics, a.parts = a.topics[ntopics:], a.parts[len(ps):]
	ti, from := -1, 0
	for i, p := range ps {
		if t := c.topicOf(p); t != ti {
			if ti >= 0 {
				out[len(out)-1].Partitions = parts[from:i:i]
			}
			ti, from = t, i
			out = append(out, codec.DescribedTopicPartitions{TopicId: c.topics[t].ID, TopicName: c.topics[t].Name})
		}
		parts[i] = p - c.base[ti]
	}
	out[len(out)-1].Partitions = parts[from:len(ps):len(ps)]
	return codec.DescribedAssignment{TopicPartitions: out}
}
